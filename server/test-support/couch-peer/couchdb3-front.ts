import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { forwardRequest } from '../forward-request';
import {
  ADMIN_ONLY_SECURITY,
  ANONYMOUS,
  authorizePath,
  checkDbAdmin,
  checkMember,
  isServerAdmin,
  LOCKED,
  Lockout,
  WRONG_PASSWORD,
  type CouchRefusal,
  type SecurityObject,
  type UserCtx,
} from './couchdb3-behaviour';

/**
 * The front of the test suite's CouchDB peer: a proxy before PouchDB Server that answers as Apache
 * CouchDB 3 where the two differ and PennyPost or a phone relies on it (couchdb3-behaviour.ts): who may
 * use which path and database (401 / 403 in CouchDB's words, before PouchDB Server sees a request it
 * would crash on), admin-only new databases, and the sign-in lockout. Everything else goes to
 * PouchDB Server unchanged, answers streamed back (long-poll feeds included).
 */
export interface FrontOptions {
  /** PouchDB Server's own address (not reachable from outside the peer), with a trailing slash. */
  backendUrl: string;
  /** Its server admin, for the front's own reads (sessions, salts, security objects). */
  admin: { username: string; password: string };
  lockout?: Lockout;
  /** CORS as `[chttpd] enable_cors` and `[cors] origins` set it (default: off, as CouchDB 3 ships). */
  cors?: { enabled: boolean; origins: string[] };
}

/** The headers CouchDB 3 exposes to a browser on a CORS answer (chttpd_cors). */
const CORS_EXPOSED = 'content-type, cache-control, accept-ranges, etag, server, x-couch-request-id, x-couch-update-newrev, x-couchdb-body-time';
const CORS_METHODS = 'GET, HEAD, POST, PUT, DELETE, OPTIONS';

interface BackendAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'must-revalidate' });
  res.end(JSON.stringify(body) + '\n');
}

function sendRefusal(res: ServerResponse, refusal: CouchRefusal): void {
  sendJson(res, refusal.status, refusal.body);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function basicCredentials(header: string | undefined): { name: string; password: string } | null {
  if (!header?.startsWith('Basic ')) return null;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : { name: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The user name a `POST /_session` sign-in names (JSON or form body). */
function sessionName(req: IncomingMessage, body: Buffer): string | null {
  const text = body.toString('utf8');
  try {
    if ((req.headers['content-type'] ?? '').includes('json')) {
      const parsed = JSON.parse(text) as { name?: unknown; username?: unknown };
      const name = parsed.username ?? parsed.name;
      return typeof name === 'string' ? name : null;
    }
    const form = new URLSearchParams(text);
    return form.get('username') ?? form.get('name');
  } catch {
    return null;
  }
}

export function couchdb3Front(options: FrontOptions): RequestListener {
  const backend = new URL(options.backendUrl);
  const lockout = options.lockout ?? new Lockout();
  const adminAuth = 'Basic ' + Buffer.from(`${options.admin.username}:${options.admin.password}`).toString('base64');
  /** Verified Authorization headers → who they are (cleared whenever a user or an admin changes). */
  const sessions = new Map<string, UserCtx>();
  /** User name → password salt (null: no such user). */
  const salts = new Map<string, string | null>();
  const securities = new Map<string, SecurityObject>();
  const cors = { enabled: options.cors?.enabled ?? false, origins: [...(options.cors?.origins ?? [])] };

  /**
   * CORS as CouchDB 3 does it: an allowed origin gets `Access-Control-Allow-Origin` on every answer,
   * and its preflight is answered 204 before any authentication (a browser sends no credentials
   * with it). True when the request was a preflight and has been answered.
   */
  function applyCors(req: IncomingMessage, res: ServerResponse): boolean {
    const origin = req.headers.origin;
    if (!cors.enabled || !origin || !(cors.origins.includes(origin) || cors.origins.includes('*'))) return false;
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('access-control-expose-headers', CORS_EXPOSED);
    if (req.method !== 'OPTIONS' || !req.headers['access-control-request-method']) return false;
    res.writeHead(204, {
      'access-control-allow-methods': CORS_METHODS,
      'access-control-allow-headers': req.headers['access-control-request-headers'] ?? 'accept, authorization, content-type, origin, referer',
      'access-control-max-age': '600',
    });
    res.end();
    return true;
  }

  /** `/_node/_local/_config/{chttpd/enable_cors, cors/origins}`: read and set by a server admin, values as JSON strings. */
  function configAnswer(method: string, parts: readonly string[], body: Buffer, res: ServerResponse): boolean {
    const key = parts.slice(3).join('/');
    if (parts[0] !== '_node' || parts[2] !== '_config' || (key !== 'chttpd/enable_cors' && key !== 'cors/origins')) return false;
    const current = key === 'chttpd/enable_cors' ? String(cors.enabled) : cors.origins.join(', ');
    if (method === 'GET') sendJson(res, 200, current);
    else if (method === 'PUT') {
      let value: unknown;
      try {
        value = JSON.parse(body.toString('utf8'));
      } catch {
        value = undefined;
      }
      if (typeof value !== 'string') {
        sendJson(res, 400, { error: 'bad_request', reason: 'Config values must be JSON strings' });
        return true;
      }
      if (key === 'chttpd/enable_cors') cors.enabled = value === 'true';
      else
        cors.origins = value
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean);
      sendJson(res, 200, current);
    } else sendJson(res, 405, { error: 'method_not_allowed', reason: 'Only GET, PUT allowed' });
    return true;
  }

  function toBackend(method: string, path: string, headers: IncomingHttpHeaders, body?: Buffer): Promise<BackendAnswer> {
    return new Promise((resolve, reject) => {
      const upstream = httpRequest({ host: backend.hostname, port: backend.port, method, path, headers }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(chunks) }));
        answer.on('error', reject);
      });
      upstream.on('error', reject);
      upstream.end(body);
    });
  }

  const asAdmin = (method: string, path: string, body?: unknown) =>
    toBackend(method, path, { authorization: adminAuth, 'content-type': 'application/json' }, body === undefined ? undefined : Buffer.from(JSON.stringify(body)));

  function json(answer: BackendAnswer): unknown {
    try {
      return JSON.parse(answer.body.toString('utf8'));
    } catch {
      return null;
    }
  }

  /** The password salt of a user (`_users` document, or a server admin's hashed config entry). */
  async function saltOf(name: string): Promise<string | null> {
    const known = salts.get(name);
    if (known !== undefined) return known;
    let salt: string | null = null;
    const user = await asAdmin('GET', `/_users/${encodeURIComponent(`org.couchdb.user:${name}`)}`);
    if (user.status === 200) {
      const stored = (json(user) as { salt?: unknown } | null)?.salt;
      salt = typeof stored === 'string' ? stored : '';
    } else {
      const adminEntry = await asAdmin('GET', `/_config/admins/${encodeURIComponent(name)}`);
      const hashed = adminEntry.status === 200 ? json(adminEntry) : null;
      if (typeof hashed === 'string') salt = hashed.split(',')[1] ?? '';
    }
    salts.set(name, salt);
    return salt;
  }

  async function verify(authorization: string, name: string): Promise<UserCtx | null> {
    const cached = sessions.get(authorization);
    if (cached) return cached;
    const answer = await toBackend('GET', '/_session', { authorization, accept: 'application/json' });
    const ctx = (json(answer) as { userCtx?: UserCtx } | null)?.userCtx;
    if (answer.status !== 200 || ctx?.name !== name) return null;
    sessions.set(authorization, ctx);
    return ctx;
  }

  async function securityOf(db: string): Promise<SecurityObject | null> {
    const known = securities.get(db);
    if (known) return known;
    const answer = await asAdmin('GET', `/${encodeURIComponent(db)}/_security`);
    if (answer.status !== 200) return null; // no such database: PouchDB Server answers the 404
    const security = (json(answer) ?? {}) as SecurityObject;
    securities.set(db, security);
    return security;
  }

  function forget(method: string, parts: readonly string[]): void {
    if (method === 'GET' || method === 'HEAD') return;
    const first = parts.at(0);
    const second = parts.at(1);
    if (first === '_users' || first === '_config' || first === '_node') {
      sessions.clear();
      salts.clear();
    }
    if (first !== undefined && (parts.length === 1 || second === '_security')) securities.delete(first);
  }

  /** Who the request runs as; a refusal when its credentials are wrong or locked out. */
  async function userOf(req: IncomingMessage, address: string): Promise<UserCtx | CouchRefusal> {
    const authorization = req.headers.authorization;
    const basic = basicCredentials(authorization);
    if (authorization && basic) {
      const salt = await saltOf(basic.name);
      if (salt === null) return WRONG_PASSWORD; // no such user: CouchDB counts nothing
      if (lockout.isLocked(address, basic.name, salt)) return LOCKED;
      const ctx = await verify(authorization, basic.name);
      if (ctx) return ctx;
      lockout.fail(address, basic.name, salt);
      return WRONG_PASSWORD;
    }
    const cookie = req.headers.cookie;
    if (cookie?.includes('AuthSession=')) {
      const answer = await toBackend('GET', '/_session', { cookie, accept: 'application/json' });
      return (json(answer) as { userCtx?: UserCtx } | null)?.userCtx ?? ANONYMOUS;
    }
    return ANONYMOUS;
  }

  function pipeToBackend(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    forwardRequest(req, res, backend, { body });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const parts = new URL(req.url ?? '/', 'http://peer').pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const address = req.socket.remoteAddress ?? '';
    const body = await readBody(req);
    if (applyCors(req, res)) return;

    // A sign-in form: locked-out users are refused before their password is looked at; a refused
    // password counts.
    if (method === 'POST' && parts.length === 1 && parts[0] === '_session') {
      const name = sessionName(req, body);
      const salt = name === null ? null : await saltOf(name);
      if (name !== null && salt !== null && lockout.isLocked(address, name, salt)) {
        sendRefusal(res, LOCKED);
        return;
      }
      const answer = await toBackend(method, req.url ?? '/', req.headers, body);
      if (answer.status === 401 && name !== null && salt !== null) lockout.fail(address, name, salt);
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
      return;
    }

    const user = await userOf(req, address);
    if ('status' in user) {
      sendRefusal(res, user);
      return;
    }
    if (parts[0] === '_node' && parts[2] === '_config') {
      if (!isServerAdmin(user)) {
        sendJson(res, 401, { error: 'unauthorized', reason: 'You are not a server admin.' });
        return;
      }
      if (configAnswer(method, parts, body, res)) return;
    }
    const decision = authorizePath(method, parts, user);
    if (decision.kind === 'refuse') {
      sendRefusal(res, decision.refusal);
      return;
    }
    if (decision.kind === 'member') {
      const security = await securityOf(decision.db);
      const refusal = security && (parts[1] === '_security' && method === 'PUT' ? checkDbAdmin(user, security) : checkMember(user, security));
      if (refusal) {
        sendRefusal(res, refusal);
        return;
      }
    }

    // Users, admins and security objects that change are read afresh (before and after the write).
    forget(method, parts);
    res.on('finish', () => forget(method, parts));
    // A new database is for server admins only until its `_security` says otherwise.
    if (method === 'PUT' && parts.length === 1 && isServerAdmin(user)) {
      const created = await toBackend(method, req.url ?? '/', req.headers, body);
      if (created.status === 201) await asAdmin('PUT', `/${encodeURIComponent(parts[0] ?? '')}/_security`, ADMIN_ONLY_SECURITY);
      securities.delete(parts[0] ?? '');
      res.writeHead(created.status, created.headers);
      res.end(created.body);
      return;
    }
    if (method === 'POST' && parts[1] === '_bulk_get') {
      const answer = await bulkGet(parts[0] ?? '', req.url ?? '', body);
      if (answer) {
        sendJson(res, 200, answer);
        return;
      }
    }
    pipeToBackend(req, res, body);
  }

  /**
   * `_bulk_get` as CouchDB answers it: one result per requested document, in order; a deleted
   * revision with its tombstone (`{ok: {_id, _rev, _deleted, …fields it was deleted with}}`), a
   * missing one with a `not_found` error. PouchDB Server answers both with an empty object, and
   * mixes up the results of a request that names one id twice: it is asked one round of distinct
   * ids at a time, and what it leaves empty is read one by one. Null: not a request it can answer.
   */
  async function bulkGet(db: string, url: string, requestBody: Buffer): Promise<unknown> {
    let asked: Array<{ id: string; rev?: string }>;
    try {
      asked = (JSON.parse(requestBody.toString('utf8')) as { docs: Array<{ id: string; rev?: string }> }).docs;
      if (!Array.isArray(asked)) return null;
    } catch {
      return null;
    }
    const query = new URL(url, 'http://peer').search;
    const revs = new URL(url, 'http://peer').searchParams.get('revs') === 'true' ? '&revs=true' : '';
    const dbPath = `/${encodeURIComponent(db)}/`;
    const results: Array<{ id: string; docs: Array<Record<string, unknown>> } | undefined> = asked.map(() => undefined);
    let pending = asked.map((wanted, index) => ({ wanted, index }));
    while (pending.length > 0) {
      const seen = new Set<string>();
      const round = pending.filter(({ wanted }) => !seen.has(wanted.id) && seen.add(wanted.id));
      pending = pending.filter((entry) => !round.includes(entry));
      const answer = json(await asAdmin('POST', `${dbPath}_bulk_get${query}`, { docs: round.map(({ wanted }) => wanted) })) as {
        results?: Array<{ id: string; docs: Array<Record<string, unknown>> }>;
      } | null;
      for (const { wanted, index } of round) {
        const entry = answer?.results?.find((r) => r.id === wanted.id);
        if (entry && entry.docs.length > 0 && entry.docs.every((doc) => 'ok' in doc || 'error' in doc)) {
          results[index] = entry;
          continue;
        }
        let rev = wanted.rev;
        if (rev === undefined) {
          const rows = json(await asAdmin('GET', `${dbPath}_all_docs?keys=${encodeURIComponent(JSON.stringify([wanted.id]))}`)) as {
            rows?: Array<{ value?: { rev?: string } }>;
          } | null;
          rev = rows?.rows?.[0]?.value?.rev;
        }
        const found = rev === undefined ? null : await asAdmin('GET', `${dbPath}${encodeURIComponent(wanted.id)}?rev=${encodeURIComponent(rev)}${revs}`);
        results[index] = {
          id: wanted.id,
          docs: [found?.status === 200 ? { ok: json(found) } : { error: { id: wanted.id, rev: wanted.rev ?? 'undefined', error: 'not_found', reason: 'missing' } }],
        };
      }
    }
    return { results };
  }

  return (req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) sendRefusal(res, { status: 500, body: { error: 'unknown_error', reason: 'the peer front failed' } });
      else res.end();
    });
  };
}
