import { randomUUID } from 'node:crypto';
import express, { type Request, type RequestHandler, type Response } from 'express';
import type { AppContext } from '../app-context';
import type { Settings } from '../config/settings';
import { DomainError, commonErrors } from '../lib/errors';
import { normalizeAddress } from './addresses';
import { bearerToken, type Authenticator } from './bearer';
import { unreadableBody } from './body-errors';
import { refusePendingPasswordChange, type SignedInCaller } from './sign-in';
import { errorEnvelope, sendEnvelope } from './envelope';
import { answerableError, crashMessage } from './failures';
import { refuseDeepJson } from './json-depth';
import { RateLimit } from './rate-limit';

/**
 * The wrapper of the routes outside /api (/send, /events/push, /m/, /files/, /s/): method check,
 * rate limit, sign-in, body parsing, and one answer for every failure. A DomainError is answered
 * with its status in the route's format (the envelope, plain text, or the route's own page); storage
 * trouble with 503; anything else with 500 naming a request id that the log also has (the details
 * stay in the log). The routes' contracts: docs/push.md, docs/files-and-links.md.
 */

/**
 * Body formats a route reads: JSON, `application/x-www-form-urlencoded`, the text fields of
 * `multipart/form-data`, and 'text': any other body (or one without a content type) as a string, in
 * its declared charset (UTF-8 by default); listed last, it takes what the kinds before it left.
 */
export type BodyKind = 'json' | 'form' | 'multipart' | 'text';

export interface RouteBody {
  /** Tried in this order; each reads only its own content type. */
  kinds: readonly BodyKind[];
  /** Largest body, in body-parser's notation ('4mb'); the 400 names it. */
  limit: string;
}

export interface RouteRateLimit {
  /** Named in the default 429 message: 'short-link misses per address'. */
  label: string;
  /** Per minute, from the settings (followed when they change). */
  points(settings: Settings): number;
  /**
   * 'requests': every request of an address counts (checked before anything else). 'misses': only
   * requests answered 404 count; an address over the limit then gets 429 for every request until
   * the window passes, so it cannot tell a hit from a miss meanwhile.
   */
  counts: 'requests' | 'misses';
  /** The route's own words for the 429 (its Retry-After header and `retryAfterSeconds` are kept). */
  refusal?(retryAfterSeconds: number): DomainError;
}

export interface RouteAuth<Caller extends SignedInCaller> {
  /**
   * 'user': the caller signs in before anything else (401 without a token). 'optional': the handler
   * asks when it needs to, with `ctx.signIn()` (required) or `ctx.signInIfAny()` (null when absent or invalid).
   */
  mode: 'user' | 'optional';
  /** The authenticator, looked up on each request (the frame names no domain: the route passes it). */
  authenticator(app: AppContext): Authenticator<Caller>;
  /** The 401 message when a sign-in is needed but no token (or a malformed Authorization header) was sent. */
  missing?: string;
  /** A query parameter that may carry the token when there is no Authorization header (EventSource sends none). */
  queryToken?: string;
}

/** How a refusal is written: the envelope `{code, message, data}`, plain text, or the route's own (an HTML page). */
export type RefusalFormat = 'envelope' | 'text' | ((res: Response, error: DomainError) => void);

export interface RouteOptions<Caller extends SignedInCaller> {
  /** What the route does, for the log ('file upload' → "file upload failed"). */
  name: string;
  /** Methods the path answers; any other gets 400 with `message` and an Allow header. */
  methods?: { allow: readonly string[]; message: string };
  /** Headers on every answer, refusals included (CORS of the webhook). */
  headers?: Readonly<Record<string, string>>;
  rateLimit?: RouteRateLimit;
  auth?: RouteAuth<Caller>;
  /** Read for POST, PUT and PATCH; a body that cannot be read is a 400. Without it the request stays a stream. */
  body?: RouteBody;
  /** Default 'envelope'. */
  refusals?: RefusalFormat;
  /** The 500 message (it must name the request id); default "Internal error. Quote request id … when reporting it." */
  crashMessage?: (requestId: string) => string;
  handler(ctx: RouteContext<Caller>): Promise<void>;
}

export interface RouteContext<Caller> {
  readonly app: AppContext;
  readonly req: Request;
  readonly res: Response;
  readonly requestId: string;
  /** The caller's address, IPv4-mapped IPv6 as plain IPv4. */
  readonly clientAddress: string;
  /** Facts for the log line of a failure (`{ fileId }`); never secrets or bodies. */
  readonly logFields: Record<string, unknown>;
  /** The signed-in caller: 401 (`auth.missing`) without a token, 403 while a password reset is pending, else whatever the authenticator throws. */
  readonly signIn: () => Promise<Caller>;
  /** The signed-in caller, or null when no token was sent or it is not valid. */
  readonly signInIfAny: () => Promise<Caller | null>;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** A route's Express handler. Build it once, when the routes are mounted. */
export function route<Caller extends SignedInCaller = never>(app: AppContext, options: RouteOptions<Caller>): RequestHandler {
  const limit = options.rateLimit ? routeLimiter(app, options.rateLimit) : null;
  const parsers = options.body ? bodyParsers(options.body) : [];
  const refuse = refusalWriter(options.refusals ?? 'envelope');
  const { auth } = options;

  return async (req: Request, res: Response) => {
    const requestId = randomUUID();
    const clientAddress = normalizeAddress(req.socket.remoteAddress);
    const logFields: Record<string, unknown> = {};
    let signedIn: Promise<Caller> | null = null;
    const signIn = (): Promise<Caller> => {
      if (!auth) return Promise.reject(new Error(`route ${options.name} has no auth`));
      signedIn ??= (async () => {
        const token = tokenOf(req, auth.queryToken);
        if (!token) throw commonErrors.unauthorized(auth.missing ?? 'Sign in first: send "Authorization: Bearer <token>".');
        const caller = await auth.authenticator(app).authenticate(token);
        refusePendingPasswordChange(caller);
        return caller;
      })();
      return signedIn;
    };
    const ctx: RouteContext<Caller> = {
      app,
      req,
      res,
      requestId,
      clientAddress,
      logFields,
      signIn,
      async signInIfAny() {
        if (!auth || !tokenOf(req, auth.queryToken)) return null;
        try {
          return await signIn();
        } catch (error) {
          if (error instanceof DomainError) return null;
          throw error;
        }
      },
    };
    if (options.headers) res.set(options.headers);
    try {
      if (options.methods && !options.methods.allow.includes(req.method)) {
        throw commonErrors.invalid(options.methods.message).withHeaders({ Allow: options.methods.allow.join(', ') });
      }
      await limit?.before(clientAddress);
      if (auth?.mode === 'user') await signIn();
      if (BODY_METHODS.has(req.method)) for (const parse of parsers) await parse(req, res);
      await options.handler(ctx);
    } catch (error) {
      let known = answerableError(error, { log: app.log, requestId, what: options.name, fields: logFields, message: options.crashMessage ?? crashMessage });
      if (limit && known.status === 404) {
        try {
          await limit.miss(clientAddress);
        } catch (refusal) {
          known = answerableError(refusal, { log: app.log, requestId, what: options.name, fields: logFields });
        }
      }
      if (res.headersSent) {
        // Too late for an answer (a stream had begun): end the connection so the client sees it broke.
        if (!res.writableEnded) res.destroy();
        return;
      }
      refuse(res, known);
    }
  };
}

/** The token of the Authorization header, else of the query parameter; null when neither (a malformed header counts as none). */
function tokenOf(req: Request, queryToken: string | undefined): string | null {
  const header = bearerToken(req);
  if (header !== null) return header || null;
  if (!queryToken) return null;
  const value = req.query[queryToken];
  return typeof value === 'string' && value ? value : null;
}

function routeLimiter(app: AppContext, options: RouteRateLimit) {
  const limiter = new RateLimit(options.label, options.points(app.settings.get()));
  app.settings.onChange((settings) => limiter.setPoints(options.points(settings)));
  const reworded = async (check: Promise<void>): Promise<void> => {
    try {
      await check;
    } catch (error) {
      if (!(error instanceof DomainError) || !options.refusal) throw error;
      const seconds = Number(error.details?.retryAfterSeconds ?? 60);
      throw options
        .refusal(seconds)
        .with({ retryAfterSeconds: seconds })
        .withHeaders({ ...error.headers });
    }
  };
  return {
    before: (address: string) => reworded(options.counts === 'requests' ? limiter.consumeAddress(address) : limiter.checkAddress(address)),
    /** A 404 answer: counted when misses are what the limit counts. */
    miss: (address: string) => (options.counts === 'misses' ? reworded(limiter.consumeAddress(address)) : Promise.resolve()),
  };
}

function refusalWriter(format: RefusalFormat): (res: Response, error: DomainError) => void {
  if (typeof format === 'function') return format;
  if (format === 'text') {
    return (res, error) => {
      res.set(error.headers).set('Cache-Control', 'no-store').type('text/plain; charset=utf-8').status(error.status).send(`${error.message}\n`);
    };
  }
  // Outside /api there are no params: a field is shown as the domain names it.
  return (res, error) =>
    sendEnvelope(
      res,
      error.status,
      errorEnvelope(error, (field) => field),
      error.headers,
    );
}

type BodyParser = (req: Request, res: Response) => Promise<void>;

/** The body parsers of a route, in order; each rejects with the 400 to answer. */
function bodyParsers({ kinds, limit }: RouteBody): BodyParser[] {
  const middleware = {
    json: express.json({ limit, strict: false, type: ['application/json', 'application/*+json', 'text/json'], verify: refuseDeepJson }),
    form: express.urlencoded({ limit, extended: false, parameterLimit: 100, type: 'application/x-www-form-urlencoded' }),
    multipart: multipartFields(limit),
    // body-parser skips a body an earlier parser already read, so 'text' only takes what is left.
    text: express.text({ limit, type: () => true, defaultCharset: 'utf-8' }),
  };
  return kinds.map((kind) => {
    const parse = middleware[kind];
    return (req, res) =>
      new Promise<void>((resolve, reject) => {
        parse(req, res, (error?: unknown) => (error ? reject(unreadableBody(error, limit.toUpperCase())) : resolve()));
      });
  });
}

/**
 * `multipart/form-data` (what `curl -F title=…` sends): the text fields become the body; file
 * parts are ignored. Parsed by the platform's own FormData parser (undici).
 */
function multipartFields(limit: string) {
  // body-parser types its middleware for connect's request class; Express's Request is the same object.
  const raw: (req: Request, res: Response, next: (error?: unknown) => void) => void = express.raw({ limit, type: 'multipart/form-data' });
  return (req: Request, res: Response, next: (error?: unknown) => void): void => {
    if (!req.is('multipart/form-data')) {
      next();
      return;
    }
    raw(req, res, (error?: unknown) => {
      if (error) {
        next(error);
        return;
      }
      const bytes = req.body as Buffer;
      new globalThis.Response(new Uint8Array(bytes), { headers: { 'content-type': String(req.headers['content-type']) } })
        .formData()
        .then((form) => {
          const fields: Record<string, string> = {};
          form.forEach((value, key) => {
            if (typeof value === 'string' && !(key in fields)) fields[key] = value;
          });
          req.body = fields;
          next();
        })
        .catch(() => next({ type: 'multipart.parse.failed' }));
    });
  };
}
