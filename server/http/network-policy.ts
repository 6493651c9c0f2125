import type { NextFunction, Request, Response } from 'express';
import type { Settings } from '../config/settings';
import { envelope, ErrorCode } from '../api/errors';
import { hostOf, isLoopback, localHostNames } from './addresses';

/** Path prefixes that LAN devices may reach when LAN access is on (docs/security.md). */
export const LAN_PATHS = ['/send/', '/s/', '/m/', '/healthz'];
/** App keys (the catch-all /{appKey} forms) start with this prefix; see server/push. */
export const APP_KEY_PREFIX = 'PP';

/** Path prefixes that LAN devices may reach only when settings.network.lanApi is on, like /api (file bytes of the owner's clients). */
export const LAN_API_PATHS = ['/files/', '/events/'];

function isLanPath(pathname: string): boolean {
  if (LAN_PATHS.some((prefix) => pathname === prefix.replace(/\/$/, '') || pathname.startsWith(prefix))) return true;
  // /{appKey} and /{appKey}.send
  return pathname.startsWith('/' + APP_KEY_PREFIX) && !pathname.slice(1).includes('/');
}

function deny(req: Request, res: Response, status: number, message: string): void {
  const code = status === 421 ? ErrorCode.Forbidden : status;
  if (req.path === '/api') {
    res.status(403).json(envelope(code, message, null));
  } else {
    res.status(status).type('text/plain').send(message + '\n');
  }
}

/**
 * DNS-rebinding guard and LAN policy, before any route:
 * - the Host header must name this machine (loopback names, its addresses and host name, or a
 *   name listed in settings.network.allowedHosts); anything else is refused;
 * - callers that are not on this machine reach only the LAN paths, and /api only when
 *   settings.network.lanApi is on. (With LAN off the server binds 127.0.0.1 and they cannot
 *   connect at all; this check also covers an explicit --host.)
 */
export function networkPolicy(getSettings: () => Settings) {
  let knownNames = new Set(localHostNames());
  let refreshedAt = Date.now();
  return (req: Request, res: Response, next: NextFunction) => {
    const settings = getSettings();
    if (Date.now() - refreshedAt > 30_000) {
      knownNames = new Set(localHostNames()); // addresses change when networks do
      refreshedAt = Date.now();
    }
    const host = hostOf(req.headers.host);
    const allowed = host !== null && (knownNames.has(host) || settings.network.allowedHosts.some((name) => name.toLowerCase() === host));
    if (!allowed) {
      deny(req, res, 421, `Host "${req.headers.host ?? ''}" is not a name of this PennyPost server. Add it to network.allowedHosts to allow it.`);
      return;
    }
    if (!isLoopback(req.socket.remoteAddress)) {
      const lanAllowed = settings.network.lan && (isLanPath(req.path) || ((req.path === '/api' || LAN_API_PATHS.some((p) => req.path.startsWith(p))) && settings.network.lanApi));
      if (!lanAllowed) {
        deny(req, res, 403, req.path === '/api' ? 'The API is not available from the network. Turn on network.lanApi to allow it.' : 'Not available from the network.');
        return;
      }
    }
    next();
  };
}
