import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { AppContext } from '../app-context';
import { ApiError, ErrorCode } from '../api/errors';
import { DomainError } from '../lib/errors';
import { normalizeAddress } from '../http/addresses';
import { checkJsonShape } from '../api/validation';
import { APP_KEY_BODY } from './keys';
import { messagePage, missingPage, PAGE_CSP, PAGE_CSS, PAGE_CSS_PATH } from './page';
import type { PushService } from './service';
import type { DesktopMessage } from './desktop';

/** Largest /send body: desp at its maximum, form-encoded, fits. */
export const SEND_BODY_LIMIT = '4mb';

/** `/send/{anything}` and `/send/{anything}.send`: everything under /send/ is the webhook's. */
const SEND_PATH = /^\/send\/([^/]*?)(?:\.send)?\/?$/;
/** `/{appKey}` and `/{appKey}.send`: only the app key shape, so nothing else is shadowed. */
const KEY_PATH = new RegExp(`^/(${APP_KEY_BODY})(?:\\.send)?/?$`);

const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type',
  'Access-Control-Max-Age': '86400',
  // helmet sets same-origin for everything; a webhook answer must be readable cross-origin.
  'Cross-Origin-Resource-Policy': 'cross-origin',
  'Cache-Control': 'no-store',
};

function reply(res: Response, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.set(CORS_HEADERS).set(headers).status(status).json(body);
}

const jsonBody = express.json({ limit: SEND_BODY_LIMIT, strict: false, type: ['application/json', 'application/*+json', 'text/json'] });
const formBody = express.urlencoded({ limit: SEND_BODY_LIMIT, extended: false, parameterLimit: 100, type: 'application/x-www-form-urlencoded' });

/**
 * `multipart/form-data` (what `curl -F title=…` sends): the text fields become the input; file
 * parts are ignored. Parsed by the platform's own FormData parser (undici).
 */
const rawMultipart = express.raw({ limit: SEND_BODY_LIMIT, type: 'multipart/form-data' });
function multipartBody(req: Request, res: Response, next: (error?: unknown) => void): void {
  if (!req.is('multipart/form-data')) {
    next();
    return;
  }
  rawMultipart(req, res, (error?: unknown) => {
    if (error) {
      next(error);
      return;
    }
    const raw = req.body as Buffer;
    new Response(new Uint8Array(raw), { headers: { 'content-type': String(req.headers['content-type']) } })
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
}

function bodyError(error: unknown): string {
  const err = error as { type?: string; message?: string };
  if (err.type === 'multipart.parse.failed') return 'Malformed multipart/form-data body.';
  if (err.type === 'entity.too.large') return `The request body is larger than ${SEND_BODY_LIMIT.toUpperCase()}.`;
  if (err.type === 'entity.parse.failed') return `Malformed JSON body: ${String(err.message).slice(0, 160)}`;
  if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported') return 'Unsupported body encoding; send UTF-8.';
  return 'The request body could not be read.';
}

function sendHandler(push: PushService) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'OPTIONS' || req.method === 'HEAD') {
      res.set(CORS_HEADERS).status(204).end();
      return;
    }
    if (req.method !== 'GET' && req.method !== 'POST') {
      reply(res, 400, { code: ErrorCode.Validation, message: 'Use GET (query string) or POST (JSON, form or multipart) to push.', data: null }, { Allow: 'GET, POST, OPTIONS' });
      return;
    }
    const appKey = (req.params as Record<string, string>)[0] ?? '';
    const run = async () => {
      const input: Record<string, unknown> = { ...(req.query as Record<string, unknown>) };
      const body = req.body as unknown;
      if (req.method === 'POST' && body !== undefined && body !== null && !(typeof body === 'object' && Object.keys(body).length === 0)) {
        if (typeof body !== 'object' || Array.isArray(body)) throw new ApiError(ErrorCode.Validation, 'The JSON body must be an object like {"title": "…", "desp": "…"}.');
        const problem = checkJsonShape(body);
        if (problem) throw new ApiError(ErrorCode.Validation, `Invalid body: ${problem}.`);
        Object.assign(input, body);
      }
      const result = await push.send(appKey, input, normalizeAddress(req.socket.remoteAddress));
      reply(res, result.status, result.body, result.headers);
    };
    const parse = (index: number) => {
      const parsers = [jsonBody, formBody, multipartBody];
      if (req.method !== 'POST' || index >= parsers.length) {
        run().catch((error: unknown) => {
          if (error instanceof DomainError) reply(res, 400, { code: error.code, message: error.message, data: error.details });
          else next(error);
        });
        return;
      }
      parsers[index](req, res, (error?: unknown) => {
        if (error) {
          reply(res, 400, { code: ErrorCode.Validation, message: bodyError(error), data: null });
          return;
        }
        parse(index + 1);
      });
    };
    parse(0);
  };
}

function bearer(req: Request): string | null {
  const header = req.headers.authorization;
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match ? match[1] : null;
  }
  const query = req.query.token;
  return typeof query === 'string' && query ? query : null;
}

/** Ends SSE streams when the server stops listening (server.close() waits for open responses). */
function watchShutdown(req: Request, end: () => void): () => void {
  const server = (req.socket as unknown as { server?: { listening?: boolean } }).server;
  const timer = setInterval(() => {
    if (server && server.listening === false) end();
  }, 500);
  timer.unref();
  return () => clearInterval(timer);
}

function eventsHandler(app: AppContext, push: PushService) {
  return async (req: Request, res: Response) => {
    const token = bearer(req);
    const deny = (status: number, code: number, message: string) => res.status(status).set('Cache-Control', 'no-store').json({ code, message, data: null });
    if (!token) {
      deny(401, ErrorCode.Unauthorized, 'Sign in first: send "Authorization: Bearer <token>" or ?token=<token>.');
      return;
    }
    let signedIn: Awaited<ReturnType<typeof app.services.users.authenticate>>;
    try {
      signedIn = await app.services.users.authenticate(token);
      if (signedIn.user.mustChangePassword) throw new ApiError(ErrorCode.Forbidden, 'Choose a new password first (user.changePassword).');
    } catch (error) {
      if (error instanceof DomainError) {
        const status = error.code === ErrorCode.TokenExpired || error.code === ErrorCode.Unauthorized ? 401 : error.code === ErrorCode.UserNotFound ? 404 : 403;
        deny(status, error.code, error.message);
        return;
      }
      throw error;
    }
    const userId = signedIn.user.id;
    res.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      // The stream is the connection's only use; closing it with the stream lets a stopping server finish at once.
      Connection: 'close',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    const write = (message: DesktopMessage) => {
      const payload = { id: message.id, appId: message.appId, appName: message.appName, title: message.title, desp: message.desp, url: message.url, createdAt: message.createdAt };
      res.write(`id: ${message.id}\nevent: push\ndata: ${JSON.stringify(payload)}\n\n`);
    };
    res.write(`retry: 3000\n: PennyPost push feed\n\n`);
    const lastId = req.headers['last-event-id'];
    if (typeof lastId === 'string' && lastId) for (const message of push.desktop.since(userId, lastId)) write(message);
    const unsubscribe = push.desktop.subscribe(userId, write);
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), 25_000);
    heartbeat.unref();
    let ended = false;
    let stopSession = () => {};
    const end = () => {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      stopWatching();
      stopSession();
      unsubscribe();
      res.end();
    };
    const stopWatching = watchShutdown(req, end);
    // Logout, expiry, a password change, a disabled account: the stream ends with its sign-in.
    stopSession = app.services.users.sessions.watch(signedIn.session, end);
    req.on('close', () => {
      stopSession();
      end();
    });
  };
}

export function mountPushRoutes(router: Router, app: AppContext, push: PushService): void {
  const send = sendHandler(push);
  router.all(SEND_PATH, send);
  router.all(KEY_PATH, send);

  router.get(PAGE_CSS_PATH, (_req, res) => {
    res.set({ 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=3600' }).send(PAGE_CSS);
  });
  router.get(/^\/m\/([^/]+)$/, (req, res, next) => {
    const token = (req.params as Record<string, string>)[0] ?? '';
    const page = (status: number, html: string) =>
      res
        .status(status)
        .set({
          'Content-Type': 'text/html; charset=utf-8',
          'Content-Security-Policy': PAGE_CSP,
          'Cache-Control': 'private, no-store',
          'X-Robots-Tag': 'noindex, nofollow',
        })
        .send(html);
    push
      .pageMessage(token)
      .then(async (message) => {
        if (!message) page(404, missingPage(app.settings.get().push.retentionDays));
        else page(200, await messagePage(message));
      })
      .catch(next);
  });

  const events = eventsHandler(app, push);
  router.get('/events/push', (req, res, next) => {
    events(req, res).catch(next);
  });
}
