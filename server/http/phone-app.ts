import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { staticCacheControl } from './static-cache';

/**
 * The phone app (phone/, built to dist/phone/) at `/phone/` of this server (docs/phone.md, "Where
 * the app comes from"). Served behind PennyPost's public HTTPS address, a phone installs it from
 * there; it then talks to the person's CouchDB only, so its CSP lets it connect to an HTTPS origin
 * (any: the CouchDB is the person's choice, made when pairing) and to this machine's loopback.
 */
export const PHONE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "font-src 'self'",
  "connect-src 'self' https: http://127.0.0.1:* http://localhost:*",
  "worker-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

export function phoneAppRoutes(phoneDir: string): Router {
  const router = express.Router();
  // The app's paths are relative (./app/…, sw.js): /phone must end in a slash.
  router.get('/phone', (req: Request, res: Response, next: NextFunction) => {
    // Express matches /phone/ here too (non-strict routing): only the bare /phone is sent on.
    if (req.originalUrl.startsWith('/phone/')) {
      next();
      return;
    }
    res.redirect(301, `/phone/${req.originalUrl.slice('/phone'.length)}`);
  });
  router.use('/phone', (_req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Content-Security-Policy', PHONE_CSP);
    next();
  });
  router.use(
    '/phone',
    express.static(phoneDir, {
      index: 'index.html',
      dotfiles: 'ignore',
      fallthrough: true,
      redirect: false,
      setHeaders: (res, filePath) => res.setHeader('Cache-Control', staticCacheControl(filePath, 'app')),
    }),
  );
  router.use('/phone', (req: Request, res: Response) => {
    if (req.path === '/' || req.path === '/index.html') res.status(404).type('text/plain').send('The phone app is not built: run `npm run build`.\n');
    else res.status(404).type('text/plain').send(`Not found: ${req.method} /phone${req.path}\n`);
  });
  return router;
}
