import { request as httpRequest } from 'node:http';
import type { Request, Response } from 'express';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAction, defineActions, Params } from './action';
import { NoData, Result } from './result';
import { DomainError, type ErrorRow } from '../lib/errors';
import { allErrorCatalogues } from '../domains';
import { usersDomain } from '../users';
import { registerUser, startTestServer, type TestServer } from '../test-support/test-server';
import { tempDir } from '../test-support/temp-dirs';
import { actionsOf, type Domain } from '../domain';
import { normalizeSettings } from '../config/settings';
import { networkPolicy } from '../http/network-policy';
import { commonErrors } from '../lib/errors';
import { expectRefusal } from '../test-support/refusal';

/** Every row of every catalogue: the shared one, the wrapper's and each domain's. */
function everyErrorRow(): ErrorRow[] {
  const catalogues = allErrorCatalogues();
  return Object.values(catalogues).flatMap((catalogue) => Object.values(catalogue.rows));
}

/** A domain with actions that exercise the wrapper: echo, a crash, a storage failure. */
function probeDomain(): Domain {
  return {
    name: 'probe',
    actions: defineActions({
      'probe.echo': defineAction({
        summary: 'echo',
        auth: 'public',
        params: Params({ n: Type.Integer({ minimum: 0, maximum: 10 }), s: Type.Optional(Type.String({ maxLength: 5 })) }),
        result: Result({ n: Type.Integer(), s: Type.Optional(Type.String()) }),
        handler: (params) => params,
      }),
      'probe.leaky': defineAction({
        summary: 'answers a field its result schema does not name',
        auth: 'public',
        params: Params({ leak: Type.Boolean() }),
        result: Result({ id: Type.String() }),
        // The type allows extra fields (TypeScript is structural); the check at run time does not.
        handler: (params) => (params.leak ? { id: 'a', passwordHash: 'scrypt$…' } : { id: 'a' }),
      }),
      'probe.crash': defineAction({
        summary: 'throws an unexpected error',
        auth: 'public',
        params: Params({}),
        result: NoData,
        handler: () => {
          throw new Error('secret internal detail /home/user/.config at line 42');
        },
      }),
      'probe.disk': defineAction({
        summary: 'storage failure',
        auth: 'public',
        params: Params({}),
        result: NoData,
        handler: () => {
          throw Object.assign(new Error('IO error: No space left on device'), { code: 'LEVEL_IO_ERROR' });
        },
      }),
      'probe.business': defineAction({
        summary: 'business error',
        auth: 'user',
        params: Params({ code: Type.Integer() }),
        result: NoData,
        handler: (params) => {
          const row = everyErrorRow().find((r) => r.code === params.code);
          if (!row) throw new Error(`no catalogue row has code ${params.code}`);
          throw new DomainError(row.code, row.status, 'business');
        },
      }),
    }),
  };
}

function rawPost(t: TestServer, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  return t.fetch('/api', { method: 'POST', headers, body });
}

describe('/api envelope and wrapper', () => {
  let t: TestServer;
  const logLines: string[] = [];
  beforeAll(async () => {
    const { createLogger } = await import('../lib/logger');
    // A UI folder of its own: the real one (dist/renderer) is built after the unit tests run.
    const rendererDir = tempDir('ui');
    writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>PennyPost</title>');
    t = await startTestServer({ wire: true, domains: [usersDomain(), probeDomain()], rendererDir, logger: createLogger('debug', (l) => logLines.push(l)) });
  });
  afterAll(() => t.close());

  it('checks every answer against its result schema in tests: an unnamed field is a 500, not a leak', async () => {
    expect(await t.api('probe.leaky', { leak: false })).toMatchObject({ code: 200, data: { id: 'a' } });
    const leaky = await t.api('probe.leaky', { leak: true });
    expectRefusal(leaky, commonErrors.rows.internal);
    expect(leaky.message).toContain('probe.leaky does not match its result schema: (the answer) must NOT have additional properties "passwordHash"');
    expect(JSON.stringify(leaky)).not.toContain('scrypt');
  });

  it('answers a valid call with code 200, message and data', async () => {
    const answer = await t.api('probe.echo', { n: 3, s: 'hi' });
    expect(answer.status).toBe(200);
    expect(answer).toMatchObject({ code: 200, message: 'ok', data: { n: 3, s: 'hi' } });
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it('maps malformed JSON, wrong content type, missing action and bad params to 400 envelopes', async () => {
    const cases: Array<[string, Record<string, string>, RegExp]> = [
      ['{"action": "probe.echo", ', { 'content-type': 'application/json' }, /Malformed JSON/],
      ['action=probe.echo', { 'content-type': 'application/x-www-form-urlencoded' }, /Content-Type must be application\/json/],
      ['{"action":"probe.echo"}', { 'content-type': 'text/plain' }, /Content-Type/],
      ['{"params":{}}', { 'content-type': 'application/json' }, /Missing "action"/],
      ['{"action":"probe.echo","params":[1]}', { 'content-type': 'application/json' }, /"params" must be a JSON object/],
      ['{"action":"probe.echo","params":"x"}', { 'content-type': 'application/json' }, /"params" must be a JSON object/],
      ['[1,2]', { 'content-type': 'application/json' }, /must be a JSON object/],
      ['{"action":"probe.echo","params":{"n":1},"extra":1}', { 'content-type': 'application/json' }, /Unknown top-level field/],
      ['{"action":"probe.echo","params":{"n":1,"__proto__":{"polluted":true}}}', { 'content-type': 'application/json' }, /"__proto__" is not allowed/],
      ['{"action":"probe.echo","params":{"n":1,"constructor":{"prototype":{}}}}', { 'content-type': 'application/json' }, /"constructor" is not allowed/],
      [`{"action":"probe.echo","params":{"n":1,"s":${'['.repeat(40)}${']'.repeat(40)}}}`, { 'content-type': 'application/json' }, /nests deeper/],
    ];
    for (const [body, headers, message] of cases) {
      const res = await rawPost(t, body, headers);
      const json = (await res.json()) as { code: number; message: string; data: unknown };
      expectRefusal({ status: res.status, ...json }, commonErrors.rows.invalid, { label: body });
      expect(json.message).toMatch(message);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('validates params with a message naming the field', async () => {
    const wrongType = await t.api('probe.echo', { n: 'three' });
    expectRefusal(wrongType, commonErrors.rows.invalid);
    expect(wrongType.message).toBe('params.n must be integer');
    expect(wrongType.data).toEqual({ field: 'params.n', rule: { keyword: 'type', type: 'integer' } });
    expect((await t.api('probe.echo', {})).message).toBe('params.n is required');
    const tooBig = await t.api('probe.echo', { n: 11 });
    expect(tooBig.message).toBe('params.n must be <= 10');
    expect(tooBig.data).toEqual({ field: 'params.n', rule: { keyword: 'maximum', limit: 10 } });
    expect((await t.api('probe.echo', { n: 1, x: 1 })).message).toBe('unknown parameter params.x');
    expect((await t.api('probe.echo', { n: 1, s: 'toolong' })).message).toMatch(/params.s must NOT have more than 5 characters/);
  });

  it('answers 404 for an unknown action and 400 for GET', async () => {
    const unknown = await t.api('nope.nothing', {});
    expectRefusal(unknown, commonErrors.rows.notFound);
    expect(unknown.message).toContain('nope.nothing');
    const get = await t.fetch('/api');
    expectRefusal({ status: get.status, ...((await get.json()) as { code: number; message: string; data: unknown }) }, commonErrors.rows.invalid);
  });

  it('refuses a body over 1 MiB with a 400 envelope', async () => {
    const big = JSON.stringify({ action: 'probe.echo', params: { n: 1, s: 'x'.repeat(1024 * 1024) } });
    const res = await rawPost(t, big);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/larger than 1 MiB/);
  });

  it('hides internals of a crash behind a request id that the log also has', async () => {
    const answer = await t.api('probe.crash', {});
    expectRefusal(answer, commonErrors.rows.internal);
    expect(JSON.stringify(answer)).not.toMatch(/secret internal detail|\/home\/user|line 42|at /);
    const requestId = answer.data.requestId as string;
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.message).toContain(requestId);
    expect(logLines.some((line) => line.includes(requestId) && line.includes('secret internal detail'))).toBe(true);
  });

  it('answers storage failures with 503', async () => {
    const answer = await t.api('probe.disk', {});
    expectRefusal(answer, commonErrors.rows.unavailable);
    expect(answer.message).toMatch(/Storage is unavailable/);
  });

  it('gives each code one HTTP status in every catalogue (but the documented 410 of missing file bytes)', () => {
    const allowed = new Map([[5001, new Set([404, 410])]]);
    const statusOf = new Map<number, number>();
    const clashes: string[] = [];
    for (const row of everyErrorRow()) {
      const known = statusOf.get(row.code);
      const fine = allowed.get(row.code)?.has(row.status) ?? false;
      if (known !== undefined && known !== row.status && !fine) clashes.push(`${row.code}: ${known} and ${row.status}`);
      if (known === undefined) statusOf.set(row.code, row.status);
    }
    expect(clashes).toEqual([]);
  });

  it('maps every business code to the HTTP status of its class', async () => {
    const { token } = await registerUser(t);
    const expected: Record<number, number> = {
      1001: 404,
      1002: 401,
      1003: 401,
      1004: 403,
      2001: 404,
      2002: 409,
      2003: 400,
      3001: 404,
      3002: 400,
      3003: 400,
      4001: 404,
      4002: 409,
      4003: 409,
      5001: 404,
      5002: 413,
      5003: 415,
      400: 400,
      401: 401,
      403: 403,
      404: 404,
      409: 409,
      429: 429,
      500: 500,
      502: 502,
      503: 503,
    };
    for (const [code, status] of Object.entries(expected)) {
      expect(
        everyErrorRow()
          .filter((row) => row.code === Number(code))
          .map((row) => row.status),
      ).toContain(status);
      const answer = await t.api('probe.business', { code: Number(code) }, token);
      expect(answer.status, code).toBe(status);
      expect(answer.code).toBe(Number(code));
    }
  });

  it('requires a token for user actions: missing or malformed → 401', async () => {
    const missing = await t.api('probe.business', { code: 409 });
    expectRefusal(missing, commonErrors.rows.unauthorized);
    expect(missing.message).toMatch(/Sign in first/);
    const res = await t.fetch('/api', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Basic abc' },
      body: JSON.stringify({ action: 'probe.business', params: { code: 409 } }),
    });
    expect(res.status).toBe(401);
  });

  it('sends security headers and no CORS headers on /api by default', async () => {
    const res = await t.fetch('/api', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      body: JSON.stringify({ action: 'probe.echo', params: { n: 1 } }),
    });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('answers GET /healthz with exactly {"status":"ok"} and serves a page at /', async () => {
    const res = await t.fetch('/healthz');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"status":"ok"}');
    const page = await t.fetch('/');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('PennyPost');
  });
});

/** Sends a request with a chosen Host header (fetch does not allow setting it). */
function requestWithHost(url: string, host: string, path = '/healthz'): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path, method: 'GET', headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('network policy', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ domains: [usersDomain(), probeDomain()], settings: { network: { allowedHosts: ['pennypost.home.arpa'] } } });
  });
  afterAll(() => t.close());

  it('refuses Host headers that do not name this machine (DNS rebinding)', async () => {
    const port = new URL(t.url).port;
    expect(await requestWithHost(t.url, `127.0.0.1:${port}`)).toBe(200);
    expect(await requestWithHost(t.url, `localhost:${port}`)).toBe(200);
    expect(await requestWithHost(t.url, `[::1]:${port}`)).toBe(200);
    expect(await requestWithHost(t.url, 'pennypost.home.arpa')).toBe(200);
    expect(await requestWithHost(t.url, `attacker.example:${port}`)).toBe(421);
    expect(await requestWithHost(t.url, 'localhost.attacker.example')).toBe(421);
    expect(await requestWithHost(t.url, `attacker.example:${port}`, '/api')).toBe(403);
  });

  it('allows CORS on /api only for a configured origin', async () => {
    t.server.app.settings.update({ network: { corsOrigins: ['http://localhost:5173'] } });
    try {
      const allowed = await t.fetch('/api', { method: 'OPTIONS', headers: { origin: 'http://localhost:5173' } });
      expect(allowed.status).toBe(204);
      expect(allowed.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
      const other = await t.fetch('/api', { method: 'OPTIONS', headers: { origin: 'https://evil.example' } });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      t.server.app.settings.update({ network: { corsOrigins: [] } });
    }
  });

  it('limits non-loopback callers to the LAN paths, and /api only when enabled', () => {
    // Traffic in tests stays on loopback, so the policy is driven with a caller address directly.
    let settings = normalizeSettings({ network: { lan: true } });
    const policy = networkPolicy(() => settings);
    const call = (path: string, remoteAddress: string) => {
      let status = 0;
      let passed = false as boolean; // set by the callback, which narrowing cannot see
      const req = { method: path === '/api' ? 'POST' : 'GET', path, headers: { host: '127.0.0.1:5733' }, socket: { remoteAddress } } as unknown as Request;
      const res = {
        status(code: number) {
          status = code;
          return this;
        },
        json() {
          return this;
        },
        type() {
          return this;
        },
        send() {
          return this;
        },
      } as unknown as Response;
      policy(req, res, () => {
        passed = true;
      });
      return passed ? 'next' : status;
    };
    const lanCaller = '::ffff:192.168.1.20';
    expect(call('/send/PPabc', lanCaller)).toBe('next');
    expect(call(`/PP${'a'.repeat(22)}.send`, lanCaller)).toBe('next');
    expect(call(`/PP${'a'.repeat(22)}`, lanCaller)).toBe('next');
    expect(call('/PPabc', lanCaller)).toBe(403); // not an app key: the route would not take it (server/http/lan-policy.test.ts)
    expect(call('/s/abc1234', lanCaller)).toBe('next');
    expect(call('/m/token', lanCaller)).toBe('next');
    expect(call('/healthz', lanCaller)).toBe('next');
    expect(call('/', lanCaller)).toBe(403);
    expect(call('/index.html', lanCaller)).toBe(403);
    expect(call('/api', lanCaller)).toBe(403);
    expect(call('/api', '127.0.0.1')).toBe('next');
    expect(call('/', '::1')).toBe('next');
    expect(call('/events/push', lanCaller)).toBe(403);
    settings = normalizeSettings({ network: { lan: true, lanApi: true } });
    expect(call('/api', lanCaller)).toBe('next');
    expect(call('/events/push', lanCaller)).toBe('next'); // the desktop feed of a headless home server
    settings = normalizeSettings({ network: { lan: false, lanApi: true } });
    expect(call('/send/PPabc', lanCaller)).toBe(403);
    expect(call('/api', lanCaller)).toBe(403);
  });
});

describe('rate limits', () => {
  it('answers 429 in the envelope with Retry-After, per token and for sign-in attempts', async () => {
    const t = await startTestServer({
      domains: [usersDomain(), probeDomain()],
      settings: { rateLimit: { apiPerToken: 5, authPerAddress: 3 } },
    });
    try {
      const { token } = await registerUser(t); // auth attempt 1
      const codes: number[] = [];
      for (let i = 0; i < 7; i++) codes.push((await t.api('probe.business', { code: 404 }, token)).status);
      expect(codes.slice(0, 5)).toEqual([404, 404, 404, 404, 404]);
      const limited = await t.api('probe.business', { code: 404 }, token);
      expectRefusal(limited, commonErrors.rows.rateLimited);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.message).toMatch(/Too many requests/);

      await t.api('user.login', { platform: 'email', email: 'x@example.com', password: 'wrongwrong' });
      await t.api('user.login', { platform: 'email', email: 'x@example.com', password: 'wrongwrong' });
      const fourth = await t.api('user.login', { platform: 'email', email: 'x@example.com', password: 'wrongwrong' });
      expectRefusal(fourth, commonErrors.rows.rateLimited);
    } finally {
      await t.close();
    }
  });
});

describe('every action params schema', () => {
  // The router compiles validators lazily (on an action's first call) and skips the meta-schema
  // check at run time; this is where a malformed schema is caught instead.
  it('is valid JSON Schema and compiles', async () => {
    const { allDomains } = await import('../domains');
    const { compileParams, schemaProblems } = await import('./validation');
    const actions = actionsOf(allDomains());
    expect(actions.length).toBeGreaterThan(50);
    for (const action of actions) {
      expect(schemaProblems(action.params), action.name).toEqual([]);
      expect(typeof compileParams(action.params), action.name).toBe('function');
    }
    expect(schemaProblems({ type: 'object', properties: { a: { type: 'nope' } } } as never)).not.toEqual([]);
  });
});

describe('rate limits count a caller, not an address', () => {
  it('every loopback address shares one sign-in bucket (127.0.0.2, .3, … are this same machine)', async () => {
    const t = await startTestServer({ domains: [usersDomain(), probeDomain()], settings: { rateLimit: { authPerAddress: 3 } } });
    try {
      const port = new URL(t.url).port;
      const loginFrom = (localAddress: string) =>
        new Promise<number>((resolve, reject) => {
          const body = JSON.stringify({ action: 'user.login', params: { platform: 'email', email: 'x@example.com', password: 'wrongwrong' } });
          const req = httpRequest(
            {
              host: '127.0.0.1',
              port,
              path: '/api',
              method: 'POST',
              localAddress,
              headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), host: `127.0.0.1:${port}` },
            },
            (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode ?? 0));
            },
          );
          req.on('error', reject);
          req.end(body);
        });
      const statuses: number[] = [];
      for (const address of ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.9.8.7']) statuses.push(await loginFrom(address));
      expect(statuses.slice(0, 3).every((s) => s !== 429)).toBe(true);
      expect(statuses.slice(3)).toEqual([429, 429]);
    } finally {
      await t.close();
    }
  });

  it('buckets: loopback is one, IPv4 as is, IPv6 by its /64', async () => {
    const { addressBucket } = await import('../http/addresses');
    expect(addressBucket('127.0.0.1')).toBe('loopback');
    expect(addressBucket('::ffff:127.3.2.1')).toBe('loopback');
    expect(addressBucket('::1')).toBe('loopback');
    expect(addressBucket('192.168.1.20')).toBe('192.168.1.20');
    expect(addressBucket('::ffff:192.168.1.20')).toBe('192.168.1.20');
    expect(addressBucket('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:0db8:0001:0002:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:db8::5')).toBe('2001:db8:0:0::/64');
    expect(addressBucket('fe80::1')).toBe('fe80:0:0:0::/64');
  });
});
