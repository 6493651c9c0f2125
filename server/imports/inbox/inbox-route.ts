import type { Router } from 'express';
import type { AppContext } from '../../app-context';
import { sendEnvelope, envelope } from '../../http/envelope';
import { route } from '../../http/route';
import { commonErrors } from '../../lib/errors';
import { formNotice } from './notice-fields';

/** Largest notice body: an SMS, a notification or a Shortcut's JSON is far smaller. */
export const INBOX_BODY_LIMIT = '8kb';

/**
 * POST /in/{inboxKey}: a forwarded payment notice becomes a draft (docs/import.md "Inbox"). Text,
 * JSON or a form; reachable from the LAN like /send; rate- and size-limited per address. Answers
 * the envelope: 200 `{id, autoConfirmed, recordId?}`, 400 when no amount is found, 404 for an
 * unknown key, 409 when the inbox is full, 413 when the body is too large, 429.
 */
export function mountInboxRoutes(router: Router, app: AppContext): void {
  router.all(
    /^\/in\/([^/]+)\/?$/,
    route(app, {
      name: 'inbox notice',
      methods: { allow: ['POST'], message: 'POST the notice (text, JSON or a form) to this URL.' },
      rateLimit: { label: 'inbox notices per address', points: (settings) => settings.rateLimit.inboxPerAddress, counts: 'requests' },
      // Forms are read as text: `curl -d '您尾号1234的卡消费25.00元'` sends a bare text as a form.
      body: { kinds: ['json', 'text'], limit: INBOX_BODY_LIMIT },
      async handler({ req, res }) {
        // Keys are letters and digits: anything percent-encoded is no key (and is never decoded).
        const key = (req.params as Record<string, string | undefined>)[0] ?? '';
        const body = req.body as unknown;
        let payload: string | Record<string, unknown>;
        if (typeof body === 'string') payload = req.is('application/x-www-form-urlencoded') ? formNotice(body) : body;
        else if (body && typeof body === 'object' && !Array.isArray(body)) payload = body as Record<string, unknown>;
        else throw commonErrors.invalid('Send the notice as text, a JSON object or a form.');
        if (typeof payload === 'string' ? payload.trim() === '' : Object.keys(payload).length === 0) throw commonErrors.invalid('The notice is empty.');
        const answer = await app.services.inbox.receive(key, payload);
        sendEnvelope(res, 200, envelope(200, answer.autoConfirmed ? 'recorded' : 'draft saved', answer));
      },
    }),
  );
}
