import type { NextFunction, Request, Response } from 'express';
import type { Settings } from '../config/settings';
import { envelope } from './envelope';
import { hostOf, isLoopback, localHostNames } from './addresses';

/** App keys (the catch-all /{appKey} forms) start with this prefix; see server/push. */
export const APP_KEY_PREFIX = 'PP';

/**
 * The app key shape the catch-all routes take: APP_KEY_BODY of server/push/keys.ts, written out
 * here because keys.ts imports this module (server/http/lan-policy.test.ts checks they agree).
 */
export const LAN_APP_KEY_PATTERN = `${APP_KEY_PREFIX}[0-9A-Za-z]{22,64}`;

/** One route that devices on the network may call. */
export interface LanRoute {
  /** The methods its route answers; '*' = every method (the handler itself answers those it does not take). */
  readonly methods: '*' | readonly string[];
  /**
   * The path, segment by segment: literal text, compared exactly (case included), and `{name}` for
   * one path segment: any segment, unless `params` narrows it.
   */
  readonly shape: string;
  /** Regular-expression sources for the `{name}`s narrower than "any one segment". */
  readonly params?: Readonly<Record<string, string>>;
  /** Reachable from the network only with settings.network.lanApi on (all need settings.network.lan). */
  readonly needsLanApi: boolean;
  /** What it is, for the documentation. */
  readonly what: string;
}

const GET: readonly string[] = ['GET', 'HEAD'];

/**
 * A screen of the UI, as its path: one lower-case word (the route table's paths and /login,
 * /register), except the bare names of server routes (those stay refused, so no mistyped webhook
 * or short-link path gets index.html from the network).
 */
const LAN_SCREEN_PATTERN = '(?!(?:send|s|m|events)$)[a-z][a-z0-9-]{0,31}';

/** The files of renderer/public/ (copied to the root of dist/renderer/; lan-policy.test.ts checks the list is complete). */
export const UI_PUBLIC_FILES: readonly string[] = [
  'favicon.ico',
  'icon-192.png',
  'icon-512.png',
  'apple-touch-icon.png',
  'manifest.webmanifest',
  'sw.js',
  'offline.html',
  'offline.css',
  'offline.js',
];

/**
 * Everything devices on the network may reach (docs/security.md): an allow-list of exact route
 * shapes, not of path prefixes. Anything else from a non-loopback address answers a plain-text 403
 * (the JSON envelope for /api), so a mistyped or crafted path never reaches the UI's files or its
 * index.html fallback. The UI itself (index.html for a screen, its bundles and public files) is
 * listed with needsLanApi: a phone on the network uses PennyPost in its browser once the API is
 * open to the network too.
 *
 * How a path is matched (lanRouteOf): it is split at `/` as sent (not decoded); a path with an
 * empty segment (`//`, a trailing `/`), a backslash, a segment that fails to percent-decode, or a
 * segment that decodes to `.`, `..` or to text with `/`, `\` or NUL is refused outright. Literal
 * parts must then be spelled exactly as listed, lower case and unencoded: Express matches the
 * string routes case-insensitively but the /send, /{appKey} and /m/ routes are case-sensitive
 * regular expressions, so only the listed spelling is certain to reach the listed route (`/SEND/…`
 * would otherwise fall through to the UI). {name} segments keep their case (app keys and short
 * codes are case-sensitive) and are percent-decoded by the route as usual.
 */
export const LAN_ROUTES: readonly LanRoute[] = [
  { methods: GET, shape: '/healthz', needsLanApi: false, what: 'Liveness check: {"status":"ok"}.' },
  {
    methods: '*',
    shape: '/send/{appKey}',
    needsLanApi: false,
    what: 'Push webhook: GET with a query string, or POST with JSON, form or multipart fields (OPTIONS: CORS preflight). The webhook answers unknown keys itself.',
  },
  { methods: '*', shape: '/send/{appKey}.send', needsLanApi: false, what: 'The same webhook, ServerChan spelling.' },
  {
    methods: '*',
    shape: '/{appKey}',
    params: { appKey: LAN_APP_KEY_PATTERN },
    needsLanApi: false,
    what: 'The same webhook, short form (also Bark with a body field, and ntfy: PUT, or POST with a text body); {appKey} must have the app key shape (PP and 22–64 letters or digits).',
  },
  { methods: '*', shape: '/{appKey}.send', params: { appKey: LAN_APP_KEY_PATTERN }, needsLanApi: false, what: 'The same, short form with .send.' },
  // Other ecosystems' forms of the same webhook (docs/push.md "Drop-in for other push clients").
  ...['/{appKey}/{body}', '/{appKey}/{title}/{body}', '/{appKey}/{title}/{subtitle}/{body}'].map((shape): LanRoute => ({
    methods: '*',
    shape,
    params: { appKey: LAN_APP_KEY_PATTERN },
    needsLanApi: false,
    what: 'The webhook as Bark takes it: title, subtitle and body in the path.',
  })),
  { methods: ['POST', 'OPTIONS'], shape: '/push', needsLanApi: false, what: "The webhook as Bark's POST /push takes it: {device_key, title, body, …}. GET /push stays the UI's." },
  { methods: ['POST', 'OPTIONS'], shape: '/message', needsLanApi: false, what: "The webhook as Gotify's POST /message takes it (?token=, X-Gotify-Key or a bearer token)." },
  {
    methods: ['POST', 'PUT', 'OPTIONS'],
    shape: '/',
    needsLanApi: false,
    what: "The webhook as ntfy's JSON publishing takes it: {topic: appKey, message, …}. GET / stays the UI's.",
  },
  {
    methods: ['POST'],
    shape: '/in/{inboxKey}',
    needsLanApi: false,
    what: "Record-by-message inbox: a forwarded payment notice (text, JSON or form) becomes a draft record of the key's account (docs/import.md).",
  },
  { methods: GET, shape: '/s/{code}', needsLanApi: false, what: 'Short link: redirects to its target.' },
  { methods: GET, shape: '/m/{token}', needsLanApi: false, what: 'Message page of a push (and /m/page.css, its stylesheet).' },
  // The phone app (docs/phone.md): static files that carry no data — it talks to CouchDB, not to PennyPost.
  { methods: GET, shape: '/phone', needsLanApi: false, what: 'The phone app: redirects to /phone/.' },
  { methods: GET, shape: '/phone/', needsLanApi: false, what: 'The phone app: its page.' },
  {
    methods: GET,
    shape: '/phone/{file}',
    params: { file: '(?:index\\.html|sw\\.js|manifest\\.webmanifest|icon-192\\.png|icon-512\\.png|apple-touch-icon\\.png|favicon\\.ico)' },
    needsLanApi: false,
    what: 'The phone app: its service worker, manifest and icons.',
  },
  {
    methods: GET,
    shape: '/phone/app/{bundle}',
    params: { bundle: '[A-Za-z0-9_-]+\\.(?:js|css)' },
    needsLanApi: false,
    what: 'The phone app: its bundles (named by content hash).',
  },
  { methods: '*', shape: '/api', needsLanApi: true, what: 'The JSON API: POST {action, params} (OPTIONS: CORS preflight).' },
  { methods: GET, shape: '/files/{fileId}', needsLanApi: true, what: 'Bytes of a stored file (Bearer token, or a signed URL from file.query).' },
  { methods: ['PUT'], shape: '/files/{fileId}/upload', needsLanApi: true, what: 'Signed upload URL of a file (from the API).' },
  { methods: GET, shape: '/events/push', needsLanApi: true, what: 'Desktop push feed of a signed-in user (server-sent events).' },
  // The UI, so that a phone on the network can use PennyPost in its browser (docs/ui.md): it is a client of /api like any other.
  { methods: GET, shape: '/', needsLanApi: true, what: 'The UI: index.html (the dashboard).' },
  {
    methods: GET,
    shape: '/{screen}',
    params: { screen: LAN_SCREEN_PATTERN },
    needsLanApi: true,
    what: 'The UI: index.html for a screen (`/records`, `/settings`, `/login`…): one lower-case word, not the bare name of a server route prefix (send, s, m, events; `/files` is the Files screen).',
  },
  {
    methods: GET,
    shape: '/_app/{bundle}',
    params: { bundle: '[A-Za-z0-9_-]+\\.(?:js|css)' },
    needsLanApi: true,
    what: 'The UI: its bundles (scripts and stylesheets named by content hash).',
  },
  ...UI_PUBLIC_FILES.map((file): LanRoute => ({ methods: GET, shape: `/${file}`, needsLanApi: true, what: 'The UI: icon, web app manifest, service worker or offline page.' })),
];

interface CompiledRoute {
  route: LanRoute;
  segments: RegExp[];
  methods: ReadonlySet<string> | null;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function compile(route: LanRoute): CompiledRoute {
  const segments = route.shape
    .slice(1)
    .split('/')
    .map((part) => {
      let source = '';
      let last = 0;
      for (const match of part.matchAll(/\{(\w+)\}/g)) {
        const name = match.at(1);
        if (name === undefined) throw new Error(`LAN route ${route.shape}: a placeholder matched without its name`);
        source += escapeRegExp(part.slice(last, match.index)) + `(?:${route.params?.[name] ?? '[^/]+'})`;
        last = match.index + match[0].length;
      }
      return new RegExp(`^${source}${escapeRegExp(part.slice(last))}$`);
    });
  return { route, segments, methods: route.methods === '*' ? null : new Set(route.methods) };
}

const COMPILED = LAN_ROUTES.map(compile);

/**
 * The segments of a path as sent, or null when the path is not in its plain form: an empty segment
 * (`//`, trailing `/`, or `/` itself), a backslash, a segment that does not percent-decode, or one
 * that decodes to `.` or `..` or to text containing `/`, `\` or NUL.
 */
export function plainSegments(rawPath: string): string[] | null {
  if (!rawPath.startsWith('/')) return null;
  const segments = rawPath.slice(1).split('/');
  for (const segment of segments) {
    if (segment === '' || segment.includes('\\')) return null;
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return null;
    }
    if (decoded === '.' || decoded === '..' || /[/\\\0]/.test(decoded)) return null;
  }
  return segments;
}

/** Whether there is one segment for each pattern, each matching its own. */
function segmentsMatch(patterns: readonly RegExp[], segments: readonly string[]): boolean {
  if (patterns.length !== segments.length) return false;
  return patterns.every((pattern, i) => {
    const segment = segments.at(i);
    return segment !== undefined && pattern.test(segment);
  });
}

/** The LAN_ROUTES entry a request from the network may reach, or null. `rawPath` is the path as sent (Express req.path). */
export function lanRouteOf(method: string, rawPath: string): LanRoute | null {
  // `/` itself is one empty segment, which only the shape '/' matches; a trailing `/` is one more
  // empty segment, which only a shape ending in `/` matches (`/phone/`).
  const body = rawPath.length > 1 && rawPath.endsWith('/') ? plainSegments(rawPath.slice(0, -1)) : null;
  const segments = rawPath === '/' ? [''] : body ? [...body, ''] : plainSegments(rawPath);
  if (!segments) return null;
  for (const compiled of COMPILED) {
    if (compiled.methods && !compiled.methods.has(method)) continue;
    if (segmentsMatch(compiled.segments, segments)) return compiled.route;
  }
  return null;
}

function deny(req: Request, res: Response, status: number, message: string): void {
  const code = status === 421 ? 403 : status;
  if (req.path === '/api') {
    res.status(403).json(envelope(code, message, null));
  } else {
    res
      .status(status)
      .type('text/plain')
      .send(message + '\n');
  }
}

/**
 * DNS-rebinding guard and LAN policy, before any route:
 * - the Host header must name this machine (loopback names, its addresses and host name, or a
 *   name listed in settings.network.allowedHosts); anything else is refused;
 * - callers that are not on this machine reach only the routes of LAN_ROUTES, those marked
 *   needsLanApi only when settings.network.lanApi is on. (With LAN off the server binds 127.0.0.1
 *   and they cannot connect at all; this check also covers an explicit --host.)
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
      const route = settings.network.lan ? lanRouteOf(req.method, req.path) : null;
      if (!route || (route.needsLanApi && !settings.network.lanApi)) {
        const message =
          req.path === '/api'
            ? 'The API is not available from the network. Turn on network.lanApi to allow it.'
            : route
              ? 'Not available from the network. Turn on network.lanApi to allow it.'
              : 'Not available from the network.';
        deny(req, res, 403, message);
        return;
      }
    }
    next();
  };
}
