import type { NextFunction, Request, Response, Router } from 'express';
import type { AppContext } from '../app-context';
import { checkJsonShape } from '../api/validation';
import { route } from '../http/route';
import { commonErrors } from '../lib/errors';
import type { DesktopMessage } from './desktop';
import { feedItem } from './feed';
import { APP_KEY_BODY } from './keys';
import { messagePage, missingPage, PAGE_CSP, PAGE_CSS, PAGE_CSS_PATH } from './page';
import type { PushService } from './service';

type SignedIn = Awaited<ReturnType<AppContext['services']['users']['authenticate']>>;

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

/** OPTIONS (CORS preflight) and HEAD probes of the webhook: 204, before the wrapper reads anything. */
function answerProbe(req: Request, res: Response, next: NextFunction): void {
  if (req.method !== 'OPTIONS' && req.method !== 'HEAD') {
    next();
    return;
  }
  res.set(CORS_HEADERS).status(204).end();
}

/** `/send/{appKey}` and its other forms: the push webhook (docs/push.md §1). */
function sendRoute(app: AppContext, push: PushService) {
  return route(app, {
    name: 'push send',
    methods: { allow: ['GET', 'POST', 'OPTIONS'], message: 'Use GET (query string) or POST (JSON, form or multipart) to push.' },
    headers: CORS_HEADERS,
    body: { kinds: ['json', 'form', 'multipart'], limit: SEND_BODY_LIMIT },
    async handler({ req, res, clientAddress }) {
      const appKey = (req.params as Record<string, string | undefined>)[0] ?? '';
      const input: Record<string, unknown> = { ...(req.query as Record<string, unknown>) };
      const body = req.body as unknown;
      if (req.method === 'POST' && body !== undefined && body !== null && !(typeof body === 'object' && Object.keys(body).length === 0)) {
        if (typeof body !== 'object' || Array.isArray(body)) throw commonErrors.invalid('The JSON body must be an object like {"title": "…", "desp": "…"}.');
        const problem = checkJsonShape(body);
        if (problem) throw commonErrors.invalid(`Invalid body: ${problem}.`);
        Object.assign(input, body);
      }
      const result = await push.send(appKey, input, clientAddress);
      res.set(result.headers).status(result.status).json(result.body);
    },
  });
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

/** GET /events/push: the signed-in user's desktop messages as Server-Sent Events (docs/push.md §4). */
function feedRoute(app: AppContext, push: PushService) {
  return route(app, {
    name: 'push feed',
    auth: {
      mode: 'user',
      authenticator: (current) => current.services.users,
      missing: 'Sign in first: send "Authorization: Bearer <token>" or ?token=<token>.',
      queryToken: 'token',
    },
    async handler(ctx) {
      const { req, res } = ctx;
      const signedIn = await ctx.signIn();
      streamFeed(app, push, req, res, signedIn);
    },
  });
}

/** Streams the feed: what was missed since Last-Event-ID, then each new message; ends with the sign-in or the server. */
function streamFeed(app: AppContext, push: PushService, req: Request, res: Response, signedIn: SignedIn): void {
  const userId = signedIn.user.id;
  res.status(200).set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    // The stream is the connection's only use; closing it with the stream lets a stopping server finish at once.
    Connection: 'close',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  let ended = false;
  // Rendering the Markdown is asynchronous (loaded on first use): a chain keeps the events in order.
  let queue = Promise.resolve();
  const write = (message: DesktopMessage) => {
    queue = queue
      .then(() => feedItem(message))
      .then((payload) => {
        if (!ended) res.write(`id: ${message.id}\nevent: push\ndata: ${JSON.stringify(payload)}\n\n`);
      })
      .catch(() => undefined);
  };
  res.write(`retry: 3000\n: PennyPost push feed\n\n`);
  const lastId = req.headers['last-event-id'];
  if (typeof lastId === 'string' && lastId) for (const message of push.desktop.since(userId, lastId)) write(message);
  const unsubscribe = push.desktop.subscribe(userId, write);
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), 25_000);
  heartbeat.unref();
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
}

export function mountPushRoutes(router: Router, app: AppContext, push: PushService): void {
  const send = sendRoute(app, push);
  router.all(SEND_PATH, answerProbe, send);
  router.all(KEY_PATH, answerProbe, send);

  router.get(PAGE_CSS_PATH, (_req, res) => {
    res.set({ 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=3600' }).send(PAGE_CSS);
  });
  router.get(
    /^\/m\/([^/]+)$/,
    route(app, {
      name: 'message page',
      refusals: 'text',
      async handler({ req, res }) {
        const token = (req.params as Record<string, string | undefined>)[0] ?? '';
        const message = await push.pageMessage(token);
        const html = message ? await messagePage(message) : missingPage(app.settings.get().push.retentionDays);
        res
          .status(message ? 200 : 404)
          .set({
            'Content-Type': 'text/html; charset=utf-8',
            'Content-Security-Policy': PAGE_CSP,
            'Cache-Control': 'private, no-store',
            'X-Robots-Tag': 'noindex, nofollow',
          })
          .send(html);
      },
    }),
  );

  router.get('/events/push', feedRoute(app, push));
}
