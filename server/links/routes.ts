import type { Response, Router } from 'express';
import type { AppContext } from '../app-context';
import { route } from '../http/route';
import { commonErrors, type DomainError } from '../lib/errors';
import type { LinkDoc } from './schema';

const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A small self-contained page (no scripts, no outside resources). */
function page(res: Response, status: number, title: string, text: string, headers: Record<string, string> = {}): void {
  res
    .status(status)
    .set({ 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Security-Policy': PAGE_CSP, ...headers })
    .send(
      `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
        `<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>` +
        `<style>body{font:16px/1.5 system-ui,sans-serif;color:#222;max-width:32rem;margin:15vh auto;padding:0 1rem}h1{font-size:1.4rem}p{color:#555}</style>` +
        `</head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p><p><small>PennyPost short link</small></p></body></html>\n`,
    );
}

/** The answers of GET /s/{code} that are not a redirect; `title` heads the page. */
const notFound = () => commonErrors.notFound('There is no short link at this address. Check that it was copied completely.').with({ title: 'Link not found' });

const TITLES: Record<number, string> = { 429: 'Too many requests', 500: 'Internal error', 503: 'Try again later' };

/** A refusal as the route's page: the error's `title` (or one for its status) and its message. */
function refusalPage(res: Response, error: DomainError): void {
  const title = typeof error.details?.title === 'string' ? error.details.title : (TITLES[error.status] ?? 'Link not available');
  page(res, error.status, title, error.message, error.headers);
}

/**
 * GET /s/{code}: 302 to the target while the link is live; 410 page once expired, or when the
 * target is this server itself (LinkService.reachesThisServer); 404 page for unknown codes and for
 * private links of someone else. Misses are rate-limited per address; an
 * address over the limit gets 429 for every code (so it cannot keep probing for hits).
 */
export function linkRoutes(router: Router, app: AppContext): void {
  router.get(
    '/s/:code',
    route(app, {
      name: 'short link',
      refusals: refusalPage,
      rateLimit: {
        label: 'short-link misses per address',
        points: (settings) => settings.links.missesPerAddress,
        counts: 'misses',
        refusal: (seconds) =>
          commonErrors.rateLimited(`Too many unknown short links were asked for from your address. Try again in ${seconds} s.`).with({ title: 'Too many requests' }),
      },
      auth: { mode: 'optional', authenticator: (current) => current.services.users },
      async handler(ctx) {
        const { req, res } = ctx;
        const links = app.services.links;
        const link: LinkDoc | null = await links.findByCode(String(req.params.code));
        if (!link) throw notFound();
        if (!link.isPublic) {
          let owner: boolean;
          const t = req.query.t;
          if (typeof t === 'string') {
            const check = links.checkOwnerToken(link, t);
            if (check === 'expired') {
              throw commonErrors
                .forbidden('This private link was opened with an access token that has expired. Open it again from PennyPost.')
                .with({ title: 'Link access expired' });
            }
            owner = check === 'valid';
          } else {
            owner = (await ctx.signInIfAny())?.user.id === link.userId;
          }
          if (!owner) throw notFound();
        }
        if (links.isExpired(link)) {
          throw commonErrors.gone(`This short link expired on ${new Date(link.expireAt).toUTCString()}.`).with({ title: 'Link expired' });
        }
        if (links.reachesThisServer(link.url)) {
          // Stored before targets on this server were refused (or synced from a device that allowed
          // them): not followed, so two such links cannot send a browser round in circles.
          throw commonErrors
            .gone('This short link leads back to this PennyPost server itself, which short links may no longer do. Its owner can give it another target in PennyPost.')
            .with({ title: 'Link not followed' });
        }
        if (req.method === 'GET') links.recordHit(link.id);
        res.set('Cache-Control', 'no-store').redirect(302, link.url);
      },
    }),
  );
}
