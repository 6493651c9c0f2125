import type { NextFunction, Request, Response } from 'express';

/** What a middleware did with a request: the status it answered with ('next': none), its type and body. */
export interface MiddlewareOutcome {
  result: 'next' | number;
  type: string | null;
  body: unknown;
  json: boolean;
}

export interface FakeRequest {
  method?: string;
  path: string;
  /** The Host header (default 127.0.0.1:5733, the UI's own address). */
  host?: string;
  remoteAddress: string;
}

/**
 * Drives a middleware such as the network policy (server/http/network-policy.ts) with a fake
 * request and a fake response that records what it was sent — no socket needed, so the caller
 * address can be any LAN or loopback one.
 */
export function callMiddleware(middleware: (req: Request, res: Response, next: NextFunction) => void, fake: FakeRequest): MiddlewareOutcome {
  const outcome: MiddlewareOutcome = { result: 'next', type: null, body: null, json: false };
  const req = {
    method: fake.method ?? 'GET',
    path: fake.path,
    headers: { host: fake.host ?? '127.0.0.1:5733' },
    socket: { remoteAddress: fake.remoteAddress },
  } as unknown as Request;
  const res = {
    status(code: number) {
      outcome.result = code;
      return this;
    },
    type(value: string) {
      outcome.type = value;
      return this;
    },
    send(body: unknown) {
      outcome.body = body;
      return this;
    },
    json(body: unknown) {
      outcome.json = true;
      outcome.body = body;
      return this;
    },
  } as unknown as Response;
  middleware(req, res, () => undefined);
  return outcome;
}
