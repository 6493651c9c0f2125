import type { Request, Response, Router } from 'express';
import type { AppContext } from '../app-context';
import { route } from '../http/route';
import type { DesktopMessage } from './desktop';
import { mountDropinRoutes, sendAnswer } from './dropin';
import { answerProbe, sendShaped, webhookCors } from './dropin/common';
import { appKeyOf, sendInput } from './dropin/serverchan';
import { feedItem } from './feed';
import { APP_KEY_BODY } from './keys';
import { messagePage, missingPage, PAGE_CSP, PAGE_CSS, PAGE_CSS_PATH } from './page';
import type { PushService } from './service';

type SignedIn = Awaited<ReturnType<AppContext['services']['users']['authenticate']>>;

/** Largest /send body: desp at its maximum, form-encoded, fits. */
export const SEND_BODY_LIMIT = '4mb';

/** `/send/{anything}` and `/send/{anything}.send`: everything under /send/ is the webhook's (ServerChan³ keys `sctp{n}t{key}` too). */
const SEND_PATH = /^\/send\/([^/]*?)(?:\.send)?\/?$/;
/** `/{appKey}.send`: only the app key shape, so nothing else is shadowed (the bare `/{appKey}` is in ./dropin). */
const KEY_SEND_PATH = new RegExp(`^/(${APP_KEY_BODY})\\.send/?$`);

/**
 * `/send` alone: ServerChan's SDK (serverchan-sdk on npm) posts ServerChan³ keys to
 * `https://sctp{uid}t{key}.push.ft07.com/send`, the key in the host name only. Behind a TLS proxy
 * that answers for that name (docs/push.md), the key is taken from the Host header.
 */
const HOST_SEND_PATH = /^\/send\/?$/;
/** A ServerChan³ host: `sctp{uid}t{key}.…` (host names arrive in lower case). */
const SCTP_HOST = /^sctp\d+t([0-9a-z]+)\./i;

const SEND_METHODS = ['GET', 'POST', 'OPTIONS'];
const CORS_HEADERS = webhookCors(SEND_METHODS);

/**
 * The push webhook (docs/push.md §1) with ServerChan's answer fields, the app key read from the
 * request by `keyOf`: the path (`/send/{appKey}`, `/{appKey}.send`) or the host name (`/send`).
 */
function sendRoute(app: AppContext, push: PushService, keyOf: (req: Request) => string) {
  return route(app, {
    name: 'push send',
    methods: { allow: SEND_METHODS, message: 'Use GET (query string) or POST (JSON, form or multipart) to push.' },
    headers: CORS_HEADERS,
    body: { kinds: ['json', 'form', 'multipart'], limit: SEND_BODY_LIMIT },
    async handler({ req, res, clientAddress }) {
      sendShaped(res, sendAnswer(await push.send(keyOf(req), sendInput(req), clientAddress)));
    },
  });
}

/** The key in the path: an app key, or a ServerChan³ sendkey around one. */
const keyInPath = (req: Request) => appKeyOf((req.params as Record<string, string | undefined>)[0] ?? '');

/** `/send` with the key in the host name (ServerChan³'s SDK); any other host gets /send's JSON 404 for a missing key. */
function keyInHost(push: PushService) {
  return (req: Request) => {
    const inHost = SCTP_HOST.exec(req.hostname)?.[1] ?? '';
    return inHost ? (push.targets.appKeyIgnoringCase(inHost) ?? inHost) : '';
  };
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
  const unsubscribe = push.desktop.subscribe(userId, write, () => end());
  // "Your data changed" (a new inbox draft, …): no id, so a reconnect's Last-Event-ID stays the last push.
  const stopNotices = push.changes.subscribe(userId, (topic) => {
    queue = queue.then(() => {
      if (!ended) res.write(`event: change\ndata: ${JSON.stringify({ topic })}\n\n`);
    });
  });
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
    stopNotices();
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
  const send = sendRoute(app, push, keyInPath);
  const probe = answerProbe(CORS_HEADERS);
  router.all(SEND_PATH, probe, send);
  router.all(HOST_SEND_PATH, probe, sendRoute(app, push, keyInHost(push)));
  router.all(KEY_SEND_PATH, probe, send);
  mountDropinRoutes(router, app, push);

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
        const html = message ? await messagePage(message, await app.services.users.timeZone(message.userId)) : missingPage(app.settings.get().push.retentionDays);
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
