import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { rmSync } from 'node:fs';
import express from 'express';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../app-context';
import { SettingsStore } from '../config/settings';
import { DomainError, commonErrors } from '../lib/errors';
import { createLogger } from '../lib/logger';
import { tempDataDir } from '../test-support/test-server';
import { expectRefusal } from '../test-support/refusal';
import type { Authenticator } from './bearer';
import { route } from './route';

interface Caller {
  userId: string;
  user: { mustChangePassword: boolean };
}

const caller = (userId: string, mustChangePassword = false): Caller => ({ userId, user: { mustChangePassword } });

const dataDir = tempDataDir('route');
const settings = new SettingsStore(dataDir, { links: { missesPerAddress: 2 } });
const logLines: string[] = [];
const app = { dataDir, settings, log: createLogger('debug', (line) => logLines.push(line)), services: {} } as unknown as AppContext;

/** The authenticator the routes find at call time (swapped by the tests). */
let users: Authenticator<Caller> = {
  authenticate(token) {
    if (token === 'good') return Promise.resolve(caller('u1'));
    if (token === 'reset') return Promise.resolve(caller('u2', true));
    if (token === 'old') return Promise.reject(new DomainError(1003, 401, 'The token has expired; sign in again.'));
    return Promise.reject(commonErrors.unauthorized('The token is not valid.'));
  },
};
const auth = { authenticator: () => users, missing: 'Sign in first: send "Authorization: Bearer <token>" or ?token=<token>.', queryToken: 'token' };

let server: Server;
let base: string;

beforeAll(async () => {
  const web = express();
  let requests = 2;
  web.all(
    '/echo',
    route(app, {
      name: 'echo',
      methods: { allow: ['GET', 'POST'], message: 'Use GET or POST.' },
      headers: { 'Access-Control-Allow-Origin': '*' },
      body: { kinds: ['json', 'form', 'multipart'], limit: '1kb' },
      handler({ req, res }) {
        res.json({ method: req.method, body: (req.body as unknown) ?? null, query: req.query });
        return Promise.resolve();
      },
    }),
  );
  web.all(
    '/text',
    route(app, {
      name: 'text echo',
      body: { kinds: ['json', 'text'], limit: '1kb' },
      handler({ req, res }) {
        res.json({ body: (req.body as unknown) ?? null });
        return Promise.resolve();
      },
    }),
  );
  web.get(
    '/limited',
    route(app, {
      name: 'limited',
      rateLimit: { label: 'probes per address', points: () => requests, counts: 'requests' },
      handler({ res }) {
        res.json({ ok: true });
        return Promise.resolve();
      },
    }),
  );
  web.get('/set-limit', (req, res) => {
    requests = Number(req.query.n);
    res.end();
  });
  web.get(
    '/s/:code',
    route(app, {
      name: 'lookup',
      refusals: 'text',
      rateLimit: {
        label: 'misses per address',
        points: (s) => s.links.missesPerAddress,
        counts: 'misses',
        refusal: (seconds) => commonErrors.rateLimited(`Too many misses; wait ${seconds} s.`),
      },
      handler({ req, res }) {
        if (req.params.code !== 'known') return Promise.reject(commonErrors.notFound('No such code.'));
        res.send('hit');
        return Promise.resolve();
      },
    }),
  );
  web.get(
    '/mine',
    route(app, {
      name: 'mine',
      auth: { ...auth, mode: 'user' },
      async handler({ res, signIn }) {
        res.json({ userId: (await signIn()).userId });
      },
    }),
  );
  web.get(
    '/maybe',
    route(app, {
      name: 'maybe',
      auth: { ...auth, mode: 'optional' },
      async handler({ res, signInIfAny, signIn, req }) {
        if (req.query.must !== undefined) res.json({ userId: (await signIn()).userId });
        else {
          const found = await signInIfAny();
          res.json({ caller: found ? { userId: found.userId } : null });
        }
      },
    }),
  );
  web.get(
    '/fail/:how',
    route(app, {
      name: 'failing probe',
      headers: { 'X-Route': 'fail' },
      crashMessage: (id) => `Broke; quote ${id}.`,
      handler({ req, logFields }) {
        logFields.probe = req.params.how;
        if (req.params.how === 'domain') return Promise.reject(new DomainError(2002, 409, 'Not enough money.').at('amount').withHeaders({ 'X-Extra': '1' }));
        if (req.params.how === 'disk') return Promise.reject(Object.assign(new Error('write failed'), { code: 'ENOSPC' }));
        return Promise.reject(new Error('secret internal detail at /home/user/app.ts line 42'));
      },
    }),
  );
  web.get(
    '/page',
    route(app, {
      name: 'page',
      refusals: (res, error) => res.status(error.status).type('text/html').send(`<h1>${error.status}</h1><p>${error.message}</p>`),
      handler() {
        return Promise.reject(commonErrors.gone('This is gone.'));
      },
    }),
  );
  web.get(
    '/stream',
    route(app, {
      name: 'stream',
      handler({ res }) {
        res.status(200).set('Content-Type', 'text/plain');
        res.write('partial ');
        return Promise.reject(new Error('broke mid-stream'));
      },
    }),
  );
  server = web.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

beforeEach(() => {
  logLines.length = 0;
});

async function get(path: string, init: RequestInit = {}) {
  const res = await fetch(base + path, init);
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body };
}

describe('route(): methods and bodies', () => {
  it('refuses other methods with 400, an Allow header and the route headers', async () => {
    const res = await get('/echo', { method: 'DELETE' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: 'Use GET or POST.', data: null });
    expect(res.headers.get('allow')).toBe('GET, POST');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('reads JSON, form and multipart bodies', async () => {
    const json = await get('/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"a"}' });
    expect(json.body.body).toEqual({ title: 'a' });
    const form = await get('/echo', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'title=b&desp=c' });
    expect(form.body.body).toEqual({ title: 'b', desp: 'c' });
    const multipart = new FormData();
    multipart.append('title', 'c');
    multipart.append('title', 'ignored second');
    multipart.append('file', new Blob(['bytes']), 'f.bin');
    const parts = await get('/echo', { method: 'POST', body: multipart });
    expect(parts.body.body).toEqual({ title: 'c' });
    const plain = await get('/echo?x=1', { method: 'GET' });
    expect(plain.body).toMatchObject({ method: 'GET', query: { x: '1' } });
  });

  it("reads any other body as text with the 'text' kind (declared charset, else UTF-8), after the kinds before it", async () => {
    const typed = await get('/text', { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'Backup done 😀' });
    expect(typed.body.body).toBe('Backup done 😀');
    const untyped = await get('/text', { method: 'POST', body: new Blob(['no content type']) });
    expect(untyped.body.body).toBe('no content type');
    const form = await get('/text', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a message, not a form' });
    expect(form.body.body).toBe('a message, not a form');
    const latin1 = await get('/text', { method: 'POST', headers: { 'content-type': 'text/plain; charset=iso-8859-1' }, body: new Uint8Array([0x63, 0x61, 0x66, 0xe9]) });
    expect(latin1.body.body).toBe('café');
    const json = await get('/text', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"a"}' });
    expect(json.body.body).toEqual({ title: 'a' });
    const large = await get('/text', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(2000) });
    expect(large.status).toBe(400);
    expect(large.body.message).toBe('The request body is larger than 1KB.');
  });

  it('answers a body it cannot read with a 400 envelope saying why', async () => {
    const cases: Array<[RequestInit, RegExp]> = [
      [{ headers: { 'content-type': 'application/json' }, body: '{"title": ' }, /^Malformed JSON body: /],
      [{ headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'x'.repeat(2000) }) }, /^The request body is larger than 1KB\.$/],
      [{ headers: { 'content-type': 'application/json; charset=ebcdic' }, body: '{}' }, /^Unsupported body encoding; send UTF-8\.$/],
      [
        { headers: { 'content-type': 'multipart/form-data; boundary=xyz' }, body: '--xyz\r\nContent-Disposition: form-data; name="t"\r\n\r\nopen' },
        /^Malformed multipart\/form-data body\.$/,
      ],
      [
        { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: Array.from({ length: 101 }, (_, i) => `f${i}=1`).join('&') },
        /^The request body could not be read\.$/,
      ],
    ];
    for (const [init, message] of cases) {
      const res = await get('/echo', { method: 'POST', ...init });
      expectRefusal({ status: res.status, ...res.body }, commonErrors.rows.invalid, { label: String(message) });
      expect(res.body.message).toMatch(message);
      expect(res.body.data).toBeNull();
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
    }
  });
});

describe('route(): rate limits', () => {
  it('answers 429 with Retry-After and retryAfterSeconds once an address is over the limit', async () => {
    expect((await get('/limited')).status).toBe(200);
    expect((await get('/limited')).status).toBe(200);
    const over = await get('/limited');
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ code: 429, data: { retryAfterSeconds: expect.any(Number) } });
    expect(over.body.message).toMatch(/^Too many requests \(probes per address: 2 per 60 s\)\. Try again in \d+ s\.$/);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('counts only misses when told so, then refuses every request, hits included, in its own words', async () => {
    expect((await get('/s/known')).body).toBe('hit');
    expect((await get('/s/known')).body).toBe('hit');
    expect((await get('/s/known')).body).toBe('hit');
    const first = await get('/s/nope1');
    expect(first.status).toBe(404);
    expect(first.body).toBe('No such code.\n');
    expect((await get('/s/nope2')).status).toBe(404);
    const over = await get('/s/nope3');
    expect(over.status).toBe(429);
    expect(over.body).toMatch(/^Too many misses; wait \d+ s\.\n$/);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(over.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const hit = await get('/s/known');
    expect(hit.status).toBe(429);
    expect(hit.headers.get('retry-after')).toBeTruthy();
  });
});

describe('route(): sign-in', () => {
  it('refuses a missing or malformed token with 401 and the route message', async () => {
    for (const headers of [{}, { authorization: 'Basic abc' }, { authorization: 'Bearer' }] as Record<string, string>[]) {
      const res = await get('/mine', { headers });
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.body).toEqual({ code: 401, message: auth.missing, data: null });
    }
    // A malformed header is not replaced by the query's token.
    expect((await get('/mine?token=good', { headers: { authorization: 'Basic abc' } })).status).toBe(401);
  });

  it("answers a bad token with the authenticator's error and signs in from the header or the query", async () => {
    const expired = await get('/mine', { headers: { authorization: 'Bearer old' } });
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({ code: 1003, message: 'The token has expired; sign in again.', data: null });
    const junk = await get('/mine', { headers: { authorization: 'Bearer junk' } });
    expectRefusal({ status: junk.status, ...junk.body }, commonErrors.rows.unauthorized);
    expect((await get('/mine', { headers: { authorization: 'bearer good' } })).body).toEqual({ userId: 'u1' });
    expect((await get('/mine?token=good')).body).toEqual({ userId: 'u1' });
  });

  it('looks the authenticator up on each request', async () => {
    const before = users;
    users = { authenticate: () => Promise.resolve(caller('swapped')) };
    try {
      expect((await get('/mine?token=anything')).body).toEqual({ userId: 'swapped' });
    } finally {
      users = before;
    }
  });

  it('optional: no caller for a missing or bad token, the caller for a good one, 401 when the handler insists', async () => {
    expect((await get('/maybe')).body).toEqual({ caller: null });
    expect((await get('/maybe', { headers: { authorization: 'Bearer junk' } })).body).toEqual({ caller: null });
    expect((await get('/maybe', { headers: { authorization: 'Bearer good' } })).body).toEqual({ caller: { userId: 'u1' } });
    expect((await get('/maybe?must')).status).toBe(401);
  });

  it('refuses an account whose password reset is pending with 403 (optional: no caller)', async () => {
    const refused = await get('/mine?token=reset');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 403, data: { mustChangePassword: true } });
    expect(refused.body.message).toMatch(/new password/);
    expect((await get('/maybe?token=reset')).body).toEqual({ caller: null });
  });
});

describe('route(): failures', () => {
  it('answers a DomainError with its status, code, details (field as named) and headers', async () => {
    const res = await get('/fail/domain');
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ code: 2002, message: 'Not enough money.', data: { field: 'amount' } });
    expect(res.headers.get('x-extra')).toBe('1');
    expect(res.headers.get('x-route')).toBe('fail');
  });

  it('answers a crash with 500 and a request id that the log has with the details, which the answer never shows', async () => {
    const res = await get('/fail/crash');
    expectRefusal({ status: res.status, ...res.body }, commonErrors.rows.internal);
    const requestId = res.body.data.requestId as string;
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.message).toBe(`Broke; quote ${requestId}.`);
    expect(JSON.stringify(res.body)).not.toMatch(/secret internal detail|\/home\/user|line 42|at /);
    const logged = logLines.find((line) => line.includes(requestId))!;
    expect(JSON.parse(logged)).toMatchObject({ level: 'error', msg: 'failing probe failed', probe: 'crash', error: expect.stringContaining('secret internal detail') });
  });

  it('answers storage trouble with 503', async () => {
    const res = await get('/fail/disk');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 503, message: expect.stringMatching(/Storage is unavailable/) });
    expect(logLines.some((line) => line.includes('storage unavailable') && line.includes('write failed'))).toBe(true);
  });

  it("writes refusals in the route's own format", async () => {
    const res = await get('/page');
    expect(res.status).toBe(410);
    expect(res.body).toBe('<h1>410</h1><p>This is gone.</p>');
  });

  it('breaks the connection when the failure comes after the answer began', async () => {
    await expect(fetch(`${base}/stream`).then((res) => res.text())).rejects.toThrow();
    expect(logLines.some((line) => line.includes('stream failed') && line.includes('broke mid-stream'))).toBe(true);
  });
});
