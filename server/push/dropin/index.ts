import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import type { AppContext } from '../../app-context';
import { textNestsDeeperThan } from '../../http/json-depth';
import { route } from '../../http/route';
import { commonErrors, type DomainError } from '../../lib/errors';
import { APP_KEY_BODY } from '../keys';
import { answerOfError, type SendAnswer } from '../send/answer';
import type { PushService } from '../service';
import { barkAnswer, barkFields, barkInput, barkKeys } from './bark';
import { answerProbe, DROPIN_BODY_LIMIT, foldLongTitle, formFields, queryInput, sendShaped, webhookCors, type Shaped } from './common';
import { gotifyAnswer, gotifyError, gotifyRequest } from './gotify';
import { hasNtfyHeaders, hasNtfyMessageQuery, ntfyAnswer, ntfyError, ntfyJsonPublish, ntfyPublish, type NtfyRequest } from './ntfy';
import { sendInput, withServerChanFields } from './serverchan';

/**
 * The routes through which other push ecosystems' clients reach PennyPost unchanged (docs/push.md
 * "Drop-in for other push clients"): Gotify's POST /message, Bark's /{appKey}/… and POST /push,
 * ntfy's PUT/POST /{appKey} and POST /, and the bare /{appKey}, which PennyPost's own /send,
 * Bark and ntfy share. Each ecosystem's translation lives in its own module; every form ends in
 * push.send (rate limits, validation, delivery, history) and answers in its ecosystem's shape.
 */

/** `/{appKey}`: PennyPost's short /send form, Bark's `/{key}?body=…` and ntfy's publish, told apart by the request (docs). */
const BARE_KEY_PATH = new RegExp(`^/(${APP_KEY_BODY})/?$`);
/** Bark's `/{appKey}/{body}`, `/{appKey}/{title}/{body}`, `/{appKey}/{title}/{subtitle}/{body}`. */
const BARK_PATH = new RegExp(`^/(${APP_KEY_BODY})/([^/]+)(?:/([^/]+))?(?:/([^/]+))?/?$`);

const BARE_METHODS = ['GET', 'POST', 'PUT', 'OPTIONS'];
/** ntfy's GET publishing paths, `/{topic}/{verb}`: taken before Bark's `/{appKey}/{body}` (a Bark body of just one of these words is read as ntfy's). */
const NTFY_VERBS = new Set(['publish', 'send', 'trigger']);
const POST_METHODS = ['POST', 'OPTIONS'];

/** ServerChan's fields on every /send answer (docs/push.md), shaped from the answer alone. */
export function sendAnswer(result: SendAnswer): Shaped {
  const decorated = withServerChanFields(result);
  return { status: decorated.status, headers: decorated.headers, body: decorated.body };
}

/**
 * Sends one translated push and answers in the ecosystem's shape; a translation refusal is answered
 * in the same shape. Gotify, Bark and ntfy take a title of any length: one longer than PennyPost's
 * limit is cut for display and the whole title kept at the top of the text (foldLongTitle).
 */
async function pushAndAnswer<T extends { appKey: string; input: Record<string, unknown> }>(
  app: AppContext,
  res: Response,
  push: PushService,
  caller: string,
  translate: () => T,
  shape: (result: SendAnswer, request: T | null) => Shaped,
): Promise<void> {
  let request: T;
  try {
    request = translate();
  } catch (error) {
    sendShaped(res, shape(answerOfError(error), null));
    return;
  }
  const input = foldLongTitle(request.input, app.settings.get().push.titleMaxLength);
  sendShaped(res, shape(await push.send(request.appKey, input, caller), request));
}

function paramsOf(req: Request): string[] {
  return Object.values(req.params as Record<string, string | undefined>).filter((value): value is string => value !== undefined);
}

/** Field names that make a form or JSON body PennyPost's /send (or Bark's), not an ntfy message. */
const SEND_FIELDS = ['title', 'text', 'desp', 'body'];

/** A JSON body as an object, when it is one (else null: ntfy's message text). */
function jsonObject(raw: string): Record<string, unknown> | null {
  const trimmed = raw.trim();
  // Too deep to be /send's fields: the text is the message (and JSON.parse would hold the thread).
  if (!trimmed.startsWith('{') || textNestsDeeperThan(trimmed)) return null;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * The bare /{appKey}: ntfy when the request looks like ntfy's, Bark when it has a `body` field, else
 * PennyPost's /send. ntfy's: PUT; an ntfy header; `?message=`/`?m=`; a body that is not a form or a
 * JSON object with /send's or Bark's fields (a text, or JSON such as an alert piped into the topic:
 * its text is the message, exactly as sent); and a POST with nothing at all ("triggered").
 */
function bareKeyRoute(app: AppContext, push: PushService): RequestHandler {
  return route(app, {
    name: 'push send',
    methods: { allow: BARE_METHODS, message: 'Use GET (query string), POST (JSON, form or multipart; or a text body as ntfy) or PUT (ntfy) to push.' },
    headers: webhookCors(BARE_METHODS),
    // Multipart as fields; anything else (JSON and forms too) as text, so that ntfy's messages stay as sent.
    body: { kinds: ['multipart', 'text'], limit: DROPIN_BODY_LIMIT },
    async handler({ req, res, clientAddress }) {
      const appKey = paramsOf(req)[0] ?? '';
      const now = () => app.clock.now();
      const ntfy = (body: string) =>
        pushAndAnswer(
          app,
          res,
          push,
          clientAddress,
          () => ntfyPublish(req, appKey, body),
          (result, request) => (request ? ntfyAnswer(result, request, now(), app.settings.get().push.retentionDays) : ntfyError(result)),
        );
      const raw = req.body as unknown;
      if (req.method === 'PUT' || hasNtfyHeaders(req) || hasNtfyMessageQuery(req)) {
        await ntfy(typeof raw === 'string' ? raw : '');
        return;
      }
      let fields: Record<string, unknown> = {};
      if (typeof raw === 'string') {
        // A form or a JSON object with PennyPost's or Bark's fields is theirs; any other body
        // (`curl -d "Backup done"`, axios' text, an alert's JSON) is an ntfy message.
        const parsed = req.is('application/x-www-form-urlencoded') ? formFields(raw) : jsonObject(raw);
        if (parsed && SEND_FIELDS.some((name) => name in parsed)) fields = parsed;
        else if (raw.trim() !== '') {
          await ntfy(raw);
          return;
        } else if (req.method === 'POST' && Object.keys(req.query).length === 0) {
          // `curl -X POST host/{appKey}`: nothing at all, as ntfy publishes it.
          await ntfy('');
          return;
        }
      }
      if (typeof raw === 'string') req.body = fields;
      const input = req.method === 'POST' ? sendInput(req) : queryInput(req);
      if (input.body !== undefined && input.desp === undefined) {
        await pushAndAnswer(
          app,
          res,
          push,
          clientAddress,
          () => ({ appKey, input: barkInput(input) }),
          (result) => barkAnswer(result, now()),
        );
        return;
      }
      sendShaped(res, sendAnswer(await push.send(appKey, input, clientAddress)));
    },
  });
}

/** ntfy's `/{appKey}/publish|send|trigger` (else a Bark path). */
function isNtfyVerbPath(path: string): boolean {
  const match = BARK_PATH.exec(path);
  const verb = match?.at(2);
  return match !== null && !match[3] && verb !== undefined && NTFY_VERBS.has(verb);
}

/** A refusal on a Bark path (wrong method, unreadable body) in Bark's shape, or ntfy's on ntfy's verb paths. */
function barkPathRefusal(app: AppContext) {
  return (res: Response, error: DomainError): void => {
    const refusal = answerOfError(error);
    sendShaped(res, isNtfyVerbPath(res.req.path) ? ntfyError(refusal) : barkAnswer(refusal, app.clock.now()));
  };
}

/** Bark's /{appKey}/{…}: title, subtitle and body in the path; and ntfy's `/{appKey}/publish|send|trigger`. */
function barkPathRoute(app: AppContext, push: PushService): RequestHandler {
  const methods = ['GET', 'POST', 'OPTIONS'];
  return route(app, {
    name: 'bark push',
    methods: { allow: methods, message: "Use GET or POST to push (Bark; ntfy's /publish, /send and /trigger too)." },
    headers: webhookCors(methods),
    body: { kinds: ['json', 'form', 'multipart'], limit: DROPIN_BODY_LIMIT },
    refusals: barkPathRefusal(app),
    async handler({ req, res, clientAddress }) {
      const [appKey = '', ...path] = paramsOf(req);
      const verb = path.length === 1 ? path.at(0) : undefined;
      if (verb !== undefined && NTFY_VERBS.has(verb)) {
        // ntfy's GET publishing (`/{topic}/publish?message=…`, `/send`, `/trigger`); without a message ntfy sends "triggered".
        await pushAndAnswer(
          app,
          res,
          push,
          clientAddress,
          () => ntfyPublish(req, appKey, ''),
          (result, request) => (request ? ntfyAnswer(result, request, app.clock.now(), app.settings.get().push.retentionDays) : ntfyError(result)),
        );
        return;
      }
      await pushAndAnswer(
        app,
        res,
        push,
        clientAddress,
        () => ({ appKey, input: barkInput(barkFields(req), path) }),
        (result) => barkAnswer(result, app.clock.now()),
      );
    },
  });
}

/** Bark's POST /push: `{device_key | device_keys, title, body, …}`; several keys are pushed one after another. */
function barkPushRoute(app: AppContext, push: PushService): RequestHandler {
  return route(app, {
    name: 'bark push',
    headers: webhookCors(POST_METHODS),
    body: { kinds: ['json', 'form', 'multipart'], limit: DROPIN_BODY_LIMIT },
    refusals: (res, error) => sendShaped(res, barkAnswer(answerOfError(error), app.clock.now())),
    async handler({ req, res, clientAddress }) {
      let keys: [string, ...string[]];
      let input: Record<string, unknown>;
      try {
        const fields = barkFields(req);
        keys = barkKeys(fields);
        input = foldLongTitle(barkInput(fields), app.settings.get().push.titleMaxLength);
      } catch (error) {
        sendShaped(res, barkAnswer(answerOfError(error), app.clock.now()));
        return;
      }
      // A key no app has refuses the whole request before anything is pushed (answered by /send, rate limits included).
      const unknown = keys.find((key) => !push.knowsAppKey(key));
      if (unknown !== undefined) {
        sendShaped(res, barkAnswer(await push.send(unknown, input, clientAddress), app.clock.now()));
        return;
      }
      // One after another; the first failure (a rate limit, a full disk) ends the list and is the answer, saying which keys were pushed before it.
      const [first, ...rest] = keys;
      let delivered = 0;
      let last = await push.send(first, input, clientAddress);
      for (const key of rest) {
        if (last.body.code !== 0) break;
        delivered++;
        last = await push.send(key, input, clientAddress);
      }
      if (last.body.code !== 0 && delivered > 0) {
        last = { ...last, body: { ...last.body, message: `Pushed to the first ${delivered} of ${keys.length} device keys, then stopped: ${last.body.message}` } };
      }
      sendShaped(res, barkAnswer(last, app.clock.now()));
    },
  });
}

/** Gotify's POST /message. */
function gotifyRoute(app: AppContext, push: PushService): RequestHandler {
  return route(app, {
    name: 'gotify push',
    headers: webhookCors(POST_METHODS),
    body: { kinds: ['json', 'form', 'multipart'], limit: DROPIN_BODY_LIMIT },
    refusals: (res, error) => sendShaped(res, gotifyError(answerOfError(error))),
    async handler({ req, res, clientAddress }) {
      await pushAndAnswer(
        app,
        res,
        push,
        clientAddress,
        () => gotifyRequest(req),
        (result, request) => (request ? gotifyAnswer(result, request, app.clock.now()) : gotifyError(result)),
      );
    },
  });
}

/** ntfy's JSON publishing: POST or PUT / with `{topic: appKey, message, …}`. */
function ntfyJsonRoute(app: AppContext, push: PushService): RequestHandler {
  return route(app, {
    name: 'ntfy push',
    headers: webhookCors(['POST', 'PUT', 'OPTIONS']),
    body: { kinds: ['text'], limit: DROPIN_BODY_LIMIT },
    refusals: (res, error) => sendShaped(res, ntfyError(answerOfError(error))),
    async handler({ req, res, clientAddress }) {
      const body = typeof req.body === 'string' ? req.body : '';
      await pushAndAnswer<NtfyRequest>(
        app,
        res,
        push,
        clientAddress,
        () => ntfyJsonPublish(body, req),
        (result, request) => (request ? ntfyAnswer(result, request, app.clock.now(), app.settings.get().push.retentionDays) : ntfyError(result)),
      );
    },
  });
}

/**
 * A path Express cannot decode (`/send/%E0%A4%A`, `/{appKey}/%ff`: not UTF-8 once percent-decoded) fails
 * before any route runs; it is a 400 in the form's own shape (the envelope on /send/…), not the generic 500.
 * Mounted after every webhook route; other paths' errors pass on.
 */
function undecodablePath(app: AppContext) {
  const refuseOnBarkPath = barkPathRefusal(app);
  return (error: unknown, req: Request, res: Response, next: NextFunction): void => {
    const webhook = req.path.startsWith('/send/') || BARK_PATH.test(req.path);
    if (!(error instanceof URIError) || !webhook || res.headersSent) {
      next(error);
      return;
    }
    const refusal = commonErrors.invalid('The path is not valid percent-encoded UTF-8: check the key and the text in it.');
    res.set(webhookCors(['GET', 'POST', 'OPTIONS']));
    if (BARK_PATH.test(req.path)) refuseOnBarkPath(res, refusal);
    else sendShaped(res, answerOfError(refusal));
  };
}

/**
 * Mounts the drop-in forms. Order (docs/push.md): /send/… and /{appKey}.send are mounted before
 * (routes.ts); here POST /message, POST /push, POST|PUT /, the Bark paths and the bare /{appKey}.
 * GET /message, GET /push and GET / stay the UI's. Last, the 400 for paths that cannot be decoded.
 */
export function mountDropinRoutes(router: Router, app: AppContext, push: PushService): void {
  const postProbe = answerProbe(webhookCors(POST_METHODS));
  router.options('/message', postProbe);
  router.post('/message', gotifyRoute(app, push));
  router.options('/push', postProbe);
  router.post('/push', barkPushRoute(app, push));
  const ntfyJson = ntfyJsonRoute(app, push);
  router.options('/', answerProbe(webhookCors(['POST', 'PUT', 'OPTIONS'])));
  router.post('/', ntfyJson);
  router.put('/', ntfyJson);
  router.all(BARK_PATH, answerProbe(webhookCors(['GET', 'POST', 'OPTIONS'])), barkPathRoute(app, push));
  router.all(BARE_KEY_PATH, answerProbe(webhookCors(BARE_METHODS)), bareKeyRoute(app, push));
  router.use(undecodablePath(app));
}
