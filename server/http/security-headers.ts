import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';

/**
 * Security headers on every answer (helmet): a strict CSP (no inline scripts, no remote
 * resources), no framing, no MIME sniffing, no referrer, same-origin isolation.
 */
export function helmetMiddleware() {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'"],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        frameAncestors: ["'none'"],
        formAction: ["'self'"],
      },
    },
    crossOriginEmbedderPolicy: false,
    crossOriginResourcePolicy: { policy: 'same-origin' },
    referrerPolicy: { policy: 'no-referrer' },
    frameguard: { action: 'deny' },
    strictTransportSecurity: false, // plain HTTP on loopback/LAN; a TLS proxy sets its own
  });
}

/** What helmet does to an answer: the headers it sets and the ones it removes, in order. */
interface HeaderPlan {
  set: Array<[string, string]>;
  remove: string[];
}

/**
 * Runs helmet once against a recording stand-in of a response. With the options above every
 * header is a constant (no per-request CSP nonces or functions), so the plan is the same for
 * every request; computing it once saves helmet's chain of a dozen middleware calls per request.
 * (A directive computed per request, such as a nonce function, would need helmet itself back:
 * security-headers.test.ts compares the two answers.)
 */
export function helmetPlan(): HeaderPlan {
  const plan: HeaderPlan = { set: [], remove: [] };
  const recorder = {
    setHeader(name: string, value: unknown) {
      if (typeof value !== 'string') throw new Error(`helmet set a non-constant header ${name}`);
      plan.set.push([name, value]);
    },
    removeHeader(name: string) {
      plan.remove.push(name);
    },
  };
  // Set in the callback, which TypeScript's narrowing does not follow.
  let called = false as boolean;
  helmetMiddleware()({} as never, recorder as never, (error?: unknown) => {
    if (error) throw error instanceof Error ? error : new Error('helmet failed');
    called = true;
  });
  if (!called) throw new Error('helmet did not finish synchronously');
  return plan;
}

/** The security headers middleware: helmet's headers, computed once (helmetPlan), set on every answer. */
export function securityHeaders() {
  const { set, remove } = helmetPlan();
  return (_req: Request, res: Response, next: NextFunction): void => {
    for (const [name, value] of set) res.setHeader(name, value);
    for (const name of remove) res.removeHeader(name);
    next();
  };
}
