import type { Request, Response, Router } from 'express';
import type { AppContext } from '../app-context';
import { ApiError } from '../api/errors';
import { DomainError } from '../lib/errors';
import { normalizeAddress } from '../http/addresses';
import { RateLimit } from '../http/rate-limit';
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

function bearerToken(req: Request): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return match ? match[1] : null;
}

/**
 * GET /s/{code}: 302 to the target while the link is live; 410 page once expired, or when the
 * target is this server itself (LinkService.reachesThisServer); 404 page for unknown codes and for
 * private links of someone else. Misses are rate-limited per address; an
 * address over the limit gets 429 for every code (so it cannot keep probing for hits).
 */
export function linkRoutes(router: Router, app: AppContext): void {
  const misses = new RateLimit('short-link misses per address', app.settings.get().links.missesPerAddress);
  app.settings.onChange((settings) => misses.setPoints(settings.links.missesPerAddress));
  /** Addresses over the miss limit, until when (real time, like the limiter's window). */
  const blocked = new Map<string, number>();

  const tooMany = (res: Response, until: number) => {
    const seconds = Math.max(1, Math.ceil((until - Date.now()) / 1000));
    page(res, 429, 'Too many requests', `Too many unknown short links were asked for from your address. Try again in ${seconds} s.`, {
      'Retry-After': String(seconds),
    });
  };

  const miss = async (res: Response, address: string) => {
    try {
      await misses.consumeAddress(address);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const until = Date.now() + Number(error.headers['Retry-After'] ?? 60) * 1000;
      if (blocked.size >= 10_000) for (const [key, value] of blocked) if (value <= Date.now()) blocked.delete(key);
      blocked.set(address, until);
      tooMany(res, until);
      return;
    }
    page(res, 404, 'Link not found', 'There is no short link at this address. Check that it was copied completely.');
  };

  router.get('/s/:code', async (req: Request, res: Response) => {
    const links = app.services.links;
    const address = normalizeAddress(req.socket.remoteAddress);
    const blockedUntil = blocked.get(address);
    if (blockedUntil !== undefined) {
      if (Date.now() < blockedUntil) {
        tooMany(res, blockedUntil);
        return;
      }
      blocked.delete(address);
    }

    const link: LinkDoc | null = await links.findByCode(String(req.params.code));
    if (!link) {
      await miss(res, address);
      return;
    }
    if (!link.isPublic) {
      let owner = false;
      const t = req.query.t;
      if (typeof t === 'string') {
        const check = links.checkOwnerToken(link, t);
        if (check === 'expired') {
          page(res, 403, 'Link access expired', 'This private link was opened with an access token that has expired. Open it again from PennyPost.');
          return;
        }
        owner = check === 'valid';
      } else {
        const token = bearerToken(req);
        if (token) {
          try {
            owner = (await app.services.users.authenticate(token)).user.id === link.userId;
          } catch (error) {
            if (!(error instanceof DomainError)) throw error;
          }
        }
      }
      if (!owner) {
        await miss(res, address);
        return;
      }
    }
    if (links.isExpired(link)) {
      page(res, 410, 'Link expired', `This short link expired on ${new Date(link.expireAt).toUTCString()}.`);
      return;
    }
    if (links.reachesThisServer(link.url)) {
      // Stored before targets on this server were refused (or synced from a device that allowed
      // them): not followed, so two such links cannot send a browser round in circles.
      page(
        res,
        410,
        'Link not followed',
        'This short link leads back to this PennyPost server itself, which short links may no longer do. Its owner can give it another target in PennyPost.',
      );
      return;
    }
    if (req.method === 'GET') links.recordHit(link.id);
    res.set('Cache-Control', 'no-store').redirect(302, link.url);
  });
}
