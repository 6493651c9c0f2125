import { request } from 'node:http';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeSettings, type Settings } from '../config/settings';
import { linksDomain } from '../links';
import { pushDomain } from '../push';
import { APP_KEY_BODY } from '../push/keys';
import { registerUser, startTestServer, tempDataDir, type TestServer } from '../test-support/test-server';
import { callMiddleware, type MiddlewareOutcome } from '../test-support/network-policy';
import { usersDomain } from '../users';
import { ROUTES } from '../../renderer/src/screens/routes';
import { LAN_APP_KEY_PATTERN, LAN_ROUTES, lanRouteOf, networkPolicy, UI_PUBLIC_FILES } from './network-policy';

const KEY = 'PP' + 'aB3'.repeat(8); // the app key shape: PP + 24 base62
const INDEX_MARKER = 'INDEX-HTML-OF-THE-UI';
const BUNDLE_MARKER = 'BUNDLE-OF-THE-UI';

/** Drives the middleware with a fake request from `remoteAddress` (Host: 127.0.0.1:5733). */
function callPolicy(settings: Settings, method: string, rawPath: string, remoteAddress = '192.168.1.20'): MiddlewareOutcome {
  return callMiddleware(
    networkPolicy(() => settings),
    { method, path: rawPath, remoteAddress },
  );
}

const lanOnly = normalizeSettings({ network: { lan: true } });
const lanApi = normalizeSettings({ network: { lan: true, lanApi: true } });

/** Paths (as sent) that devices on the network must not reach, whatever the settings. */
const REFUSED: Array<[method: string, rawPath: string]> = [
  // bare or keyless forms, which used to get the UI's index.html
  ['GET', '/send'],
  ['GET', '/send/'],
  ['GET', '/s'],
  ['GET', '/s/'],
  ['GET', '/m'],
  ['GET', '/m/'],
  ['GET', '/PPabc'],
  ['GET', '/PPabc.send'],
  ['POST', '/PPabc'],
  // dot segments, encoded or not, and encoded slashes: the old prefix check let these through to the UI's files
  ['GET', '/s/%2e%2e/_app/x.js'],
  ['GET', '/s/%2E%2E/_app/x.js'],
  ['GET', '/s/../_app/x.js'],
  ['GET', '/s/..%2f_app/x.js'],
  ['GET', '/s/..%2F_app%2Fx.js'],
  ['GET', '/s/%2e'],
  ['GET', '/s/.'],
  ['GET', '/send/..'],
  ['GET', '/send/%2e%2e/api'],
  ['POST', '/send/%2e%2e'],
  ['GET', '/m/.%2e'],
  ['GET', '/s/a%5c..%5c_app'],
  ['GET', '/s/a\\b'],
  ['GET', '/s/abc%00'],
  ['GET', '/s/%zz'],
  // empty segments (double or trailing slashes)
  ['GET', `//send/${KEY}`],
  ['GET', `/send//${KEY}`],
  ['GET', `/send/${KEY}/`],
  ['GET', '//healthz'],
  ['GET', '/healthz/'],
  ['GET', '/s/abc1234/'],
  // case and encoding variants of the literal parts (/SEND/ is not the push route: it would reach the UI)
  ['GET', `/SEND/${KEY}`],
  ['GET', `/Send/${KEY}`],
  ['GET', '/S/abc1234'],
  ['GET', '/M/token'],
  ['GET', '/HEALTHZ'],
  ['GET', `/pp${KEY.slice(2)}`],
  ['GET', '/%73/abc1234'],
  ['GET', `/%73end/${KEY}`],
  // extra segments, other paths, other methods
  ['GET', `/send/${KEY}/title/desp`],
  ['GET', '/s/abc/def'],
  ['GET', '/m/x/y'],
  // the UI: even with network.lanApi on, only index.html for a screen, the bundles and the public files
  ['GET', '/index.html'],
  ['GET', '/Records'],
  ['GET', '/records/x'],
  ['GET', '/records.json'],
  ['GET', '/events'],
  ['POST', '/records'],
  ['DELETE', '/'],
  ['GET', '/message/x'],
  ['PUT', '/message'],
  ['PUT', '/push'],
  ['POST', '/push/apps'],
  ['GET', `/${KEY}/a/b/c/d`],
  ['GET', `/${KEY}/a//b`],
  ['GET', '/_app'],
  ['GET', '/_app/'],
  ['GET', '/_app/x.txt'],
  ['GET', '/_app/a/x.js'],
  ['GET', '/_app/%2e%2e'],
  ['GET', '/_app/..%2fsw.js'],
  ['GET', '/sw.js/'],
  ['GET', '/SW.js'],
  ['PUT', '/sw.js'],
  ['GET', '/healthz.json'],
  ['POST', '/healthz'],
  ['POST', '/s/abc1234'],
  ['DELETE', '/m/token'],
  ['GET', '/files/abc/upload'],
  ['POST', '/files/abc'],
  ['GET', '/files/'],
  ['GET', '/files/abc/'],
  ['GET', '/events/push/'],
  ['GET', '/events/other'],
  ['GET', '/API'],
  ['GET', '/api/'],
  ['GET', '/api/x'],
];

/** Paths devices on the network reach with network.lan on. */
const ALLOWED: Array<[method: string, rawPath: string]> = [
  ['GET', '/healthz'],
  ['HEAD', '/healthz'],
  ['GET', `/send/${KEY}`],
  ['POST', `/send/${KEY}`],
  ['OPTIONS', `/send/${KEY}`],
  ['PUT', `/send/${KEY}`], // the webhook answers methods it does not take itself (400)
  ['GET', `/send/${KEY}.send`],
  ['GET', '/send/not-a-key'], // the webhook answers unknown keys itself (a JSON error, not the UI)
  ['GET', '/send/PPabc'],
  ['GET', `/${KEY}`],
  ['POST', `/${KEY}.send`],
  ['PUT', `/${KEY}`], // ntfy
  ['GET', `/${KEY}/body`], // Bark
  ['POST', `/${KEY}/title/body`],
  ['GET', `/${KEY}/title/subtitle/body`],
  ['POST', '/push'], // Bark
  ['OPTIONS', '/push'],
  ['POST', '/message'], // Gotify
  ['POST', '/'], // ntfy's JSON publishing
  ['PUT', '/'],
  ['OPTIONS', '/'],
  ['GET', '/s/abc1234'],
  ['HEAD', '/s/abc1234'],
  ['GET', '/s/%41bc'],
  ['GET', '/m/token'],
  ['GET', '/m/page.css'],
];

/** Paths devices on the network reach only with network.lanApi on as well. */
const WITH_LAN_API: Array<[method: string, rawPath: string]> = [
  ['POST', '/api'],
  ['OPTIONS', '/api'],
  ['GET', '/files/abc'],
  ['HEAD', '/files/abc'],
  ['PUT', '/files/abc/upload'],
  ['GET', '/events/push'],
  ['GET', '/'],
  ['HEAD', '/'],
  ['GET', '/records'],
  ['GET', '/settings'],
  ['GET', '/push'], // the UI's push screen; POST /push is Bark's
  ['GET', '/message'], // a UI path (index.html); POST /message is Gotify's
  ['GET', '/login'],
  ['GET', '/_app/index-Cf1uvAfk.js'],
  ['GET', '/_app/index-B2x_Yz9.css'],
  ...UI_PUBLIC_FILES.map((file): [string, string] => ['GET', `/${file}`]),
];

function expectPlain403(outcome: MiddlewareOutcome, label: string): void {
  expect(outcome.result, label).toBe(403);
  expect(outcome.json, label).toBe(false);
  expect(outcome.type, label).toBe('text/plain');
  expect(String(outcome.body), label).toMatch(/^Not available from the network/);
}

describe('LAN policy: the allow-list (middleware with a LAN caller)', () => {
  it('refuses bare, keyless, dot-segment, encoded-slash, empty-segment and case-variant paths with a plain-text 403', () => {
    for (const settings of [lanOnly, lanApi]) {
      for (const [method, rawPath] of REFUSED) {
        expectPlain403(callPolicy(settings, method, rawPath), `${method} ${rawPath}`);
        expectPlain403(callPolicy(settings, method, rawPath, '::ffff:192.168.1.20'), `${method} ${rawPath} (IPv4-mapped)`);
      }
    }
  });

  it('lets the listed route shapes through', () => {
    for (const settings of [lanOnly, lanApi]) {
      for (const [method, rawPath] of ALLOWED) expect(callPolicy(settings, method, rawPath).result, `${method} ${rawPath}`).toBe('next');
    }
  });

  it('keeps /api, /files and /events/push behind network.lanApi; /api answers in the JSON envelope', () => {
    for (const [method, rawPath] of WITH_LAN_API) {
      expect(callPolicy(lanApi, method, rawPath).result, `${method} ${rawPath}`).toBe('next');
      const refused = callPolicy(lanOnly, method, rawPath);
      expect(refused.result, `${method} ${rawPath}`).toBe(403);
      if (rawPath === '/api') {
        expect(refused.json).toBe(true);
        expect(refused.body).toMatchObject({ code: 403, message: expect.stringMatching(/network\.lanApi/) });
      } else {
        expect(refused.type).toBe('text/plain');
        expect(String(refused.body)).toMatch(/network\.lanApi/);
      }
    }
  });

  it('refuses everything with network.lan off, and leaves loopback callers alone', () => {
    const off = normalizeSettings({ network: { lan: false, lanApi: true } });
    for (const [method, rawPath] of [...ALLOWED, ...WITH_LAN_API]) expect(callPolicy(off, method, rawPath).result, rawPath).toBe(403);
    for (const [method, rawPath] of [...REFUSED, ...ALLOWED, ...WITH_LAN_API]) {
      for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) {
        expect(callPolicy(lanOnly, method, rawPath, address).result, `${address} ${method} ${rawPath}`).toBe('next');
      }
    }
  });

  it('keeps the Host check: an unknown Host header is refused even for allowed paths', () => {
    const outcome = callMiddleware(
      networkPolicy(() => lanOnly),
      { path: '/healthz', host: 'attacker.example', remoteAddress: '127.0.0.1' },
    );
    expect(outcome.result).toBe(421);
  });

  it('is one table, with the catch-all app key shape of server/push', () => {
    expect(LAN_APP_KEY_PATTERN).toBe(APP_KEY_BODY);
    expect(LAN_ROUTES.map((r) => r.shape)).toEqual([
      '/healthz',
      '/send/{appKey}',
      '/send/{appKey}.send',
      '/{appKey}',
      '/{appKey}.send',
      '/{appKey}/{body}',
      '/{appKey}/{title}/{body}',
      '/{appKey}/{title}/{subtitle}/{body}',
      '/push',
      '/message',
      '/',
      '/in/{inboxKey}',
      '/s/{code}',
      '/m/{token}',
      '/phone',
      '/phone/',
      '/phone/{file}',
      '/phone/app/{bundle}',
      '/api',
      '/files/{fileId}',
      '/files/{fileId}/upload',
      '/events/push',
      '/',
      '/{screen}',
      '/_app/{bundle}',
      ...UI_PUBLIC_FILES.map((file) => `/${file}`),
    ]);
    for (const route of LAN_ROUTES) expect(route.what.length, route.shape).toBeGreaterThan(0);
    expect(lanRouteOf('GET', `/${KEY}`)?.shape).toBe('/{appKey}');
    expect(lanRouteOf('GET', `/send/${KEY}.send`)?.shape).toBe('/send/{appKey}');
    expect(lanRouteOf('PUT', '/files/abc/upload')).toMatchObject({ shape: '/files/{fileId}/upload', needsLanApi: true });
    expect(lanRouteOf('GET', '/healthz')?.shape).toBe('/healthz');
    // The phone app's static files, without the LAN API (they carry no data); nothing else under /phone/, no other trailing slash.
    expect(lanRouteOf('GET', '/phone/')).toMatchObject({ shape: '/phone/', needsLanApi: false });
    expect(lanRouteOf('GET', '/phone')).toMatchObject({ shape: '/phone', needsLanApi: false });
    expect(lanRouteOf('GET', '/phone/sw.js')?.shape).toBe('/phone/{file}');
    expect(lanRouteOf('GET', '/phone/app/index-Ab_1.js')?.shape).toBe('/phone/app/{bundle}');
    expect(lanRouteOf('GET', '/phone/secrets.json')).toBeNull();
    expect(lanRouteOf('POST', '/phone/')).toBeNull();
    expect(lanRouteOf('GET', '/phone//')).toBeNull();
    expect(lanRouteOf('GET', '/healthz/')).toBeNull();
    expect(lanRouteOf('GET', '/api/')).toBeNull();
    expect(lanRouteOf('GET', '/api')?.shape).toBe('/api');
  });

  it('opens every screen of the UI and every file of renderer/public/ with network.lanApi on, and none of them without', () => {
    const screens = [...ROUTES.map((route) => route.path), '/login', '/register'];
    expect(UI_PUBLIC_FILES.toSorted()).toEqual(readdirSync(path.join(import.meta.dirname, '../../renderer/public')).toSorted());
    for (const rawPath of [...screens, ...UI_PUBLIC_FILES.map((file) => `/${file}`)]) {
      expect(callPolicy(lanApi, 'GET', rawPath).result, rawPath).toBe('next');
      expect(lanRouteOf('GET', rawPath)?.needsLanApi, rawPath).toBe(true);
      const refused = callPolicy(lanOnly, 'GET', rawPath);
      expect(refused.result, rawPath).toBe(403);
      expect(String(refused.body), rawPath).toMatch(/network\.lanApi/);
    }
  });
});

/** A non-loopback IPv4 address of this machine: a request to it comes from it, which the server sees as a LAN caller. */
function lanAddress(): string | null {
  for (const list of Object.values(os.networkInterfaces())) {
    for (const info of list ?? []) if (info.family === 'IPv4' && !info.internal && !info.address.startsWith('127.')) return info.address;
  }
  return null;
}

interface RawAnswer {
  status: number;
  type: string;
  body: string;
  location: string | undefined;
}

/** One request with the path exactly as given (no URL normalisation, like curl --path-as-is). */
function raw(address: string, port: number, method: string, rawPath: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: address, port, method, path: rawPath, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'] ?? '', body, location: res.headers.location }));
    });
    req.on('error', reject);
    req.end();
  });
}

const LAN = lanAddress();

describe('LAN policy: real HTTP', () => {
  let t: TestServer;
  let rendererDir: string;
  let appKey = '';
  let linkCode = '';
  beforeAll(async () => {
    // A stand-in UI whose files are easy to recognise in an answer.
    rendererDir = tempDataDir('lan-ui');
    mkdirSync(path.join(rendererDir, '_app'));
    writeFileSync(path.join(rendererDir, 'index.html'), `<!doctype html><title>${INDEX_MARKER}</title>`);
    writeFileSync(path.join(rendererDir, '_app', 'x.js'), `console.log('${BUNDLE_MARKER}');`);
    t = await startTestServer({
      // Every interface, so that the same server is reached from loopback (127.0.0.1) and, as a LAN
      // caller, from this machine's own network address.
      host: LAN ? '0.0.0.0' : '127.0.0.1',
      rendererDir,
      domains: [usersDomain(), pushDomain(), linksDomain()],
      settings: { network: { lan: true, lanApi: false }, links: { missesPerAddress: 1000 }, push: { sendPerAppKey: 1000, sendPerAddress: 1000 } },
    });
    const port = t.server.port;
    // t.api would name the wildcard address in the Host header; loopback by its address instead.
    const api = (action: string, params: unknown, token?: string) => fetchApi(port, action, params, token);
    const user = await registerUser({ ...t, api });
    const channel = await api('push.createChannel', { name: 'Desk', type: 'desktop' }, user.token);
    const app = await api('push.createApp', { name: 'LAN app', channelId: channel.data.id }, user.token);
    appKey = app.data.appKey;
    linkCode = (await api('shortlink.create', { url: 'https://example.com/from-lan' }, user.token)).data.code;
  });
  afterAll(async () => {
    await (t as TestServer | undefined)?.close(); // unset when beforeAll failed
    rmSync(rendererDir, { recursive: true, force: true });
  });

  it('loopback callers still get the UI, even through a dot segment (so the LAN test vectors are live)', async () => {
    const port = t.server.port;
    expect((await raw('127.0.0.1', port, 'GET', '/')).body).toContain(INDEX_MARKER);
    const dotted = await raw('127.0.0.1', port, 'GET', '/s/%2e%2e/_app/x.js');
    expect(dotted.status).toBe(200);
    expect(dotted.body).toContain(BUNDLE_MARKER);
    expect((await raw('127.0.0.1', port, 'GET', '/healthz')).status).toBe(200);
  });

  it.skipIf(!LAN)(`refuses from a LAN address what is not listed, with a plain-text 403 and no UI file (LAN address: ${LAN ?? 'none'})`, async () => {
    const port = t.server.port;
    const paths = [
      '/send',
      '/s',
      '/m',
      '/PPabc',
      '/PPabc.send',
      '/',
      '/index.html',
      '/_app/x.js',
      '/records',
      '/s/%2e%2e/_app/x.js',
      '/s/..%2f_app/x.js',
      '/s/../_app/x.js',
      `//send/${appKey}`,
      '/send/%2e%2e/api',
      `/SEND/${appKey}`,
      `/send/${appKey}/`,
      '/S/' + linkCode,
      '/events/push',
      '/files/abc',
    ];
    for (const rawPath of paths) {
      const answer = await raw(LAN!, port, 'GET', rawPath);
      expect(answer.status, rawPath).toBe(403);
      expect(answer.type, rawPath).toMatch(/^text\/plain/);
      expect(answer.body, rawPath).not.toContain(INDEX_MARKER);
      expect(answer.body, rawPath).not.toContain(BUNDLE_MARKER);
    }
    const api = await raw(LAN!, port, 'POST', '/api');
    expect(api.status).toBe(403);
    expect(api.type).toMatch(/^application\/json/);
    expect(JSON.parse(api.body)).toMatchObject({ code: 403, message: expect.stringMatching(/network\.lanApi/) });
  });

  it.skipIf(!LAN)('lets a LAN address reach /healthz, the webhook with a real app key, short links and message pages', async () => {
    const port = t.server.port;
    const health = await raw(LAN!, port, 'GET', '/healthz');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toEqual({ status: 'ok' });

    for (const rawPath of [`/send/${appKey}?title=from-lan`, `/send/${appKey}.send?title=from-lan`, `/${appKey}?title=from-lan`, `/${appKey}.send?title=from-lan`]) {
      const pushed = await raw(LAN!, port, 'GET', rawPath);
      expect(pushed.status, rawPath).toBe(200);
      expect(pushed.type, rawPath).toMatch(/^application\/json/);
    }
    // A key of the right shape that does not exist: the webhook's own answer, not the policy's.
    const unknown = await raw(LAN!, port, 'GET', `/send/${KEY}?title=x`);
    expect(unknown.status).toBe(404);
    expect(unknown.type).toMatch(/^application\/json/);

    const link = await raw(LAN!, port, 'GET', `/s/${linkCode}`);
    expect(link.status).toBe(302);
    expect(link.location).toBe('https://example.com/from-lan');
    const missing = await raw(LAN!, port, 'GET', '/m/not-a-token');
    expect(missing.status).toBe(404);
    expect(missing.type).toMatch(/^text\/html/);
    expect(missing.body).not.toContain(INDEX_MARKER);
    expect((await raw(LAN!, port, 'GET', '/m/page.css')).type).toMatch(/^text\/css/);
  });

  it.skipIf(!LAN)('opens /api to the LAN address once network.lanApi is on', async () => {
    const port = t.server.port;
    t.server.app.settings.update({ network: { lanApi: true } });
    try {
      const api = await raw(LAN!, port, 'POST', '/api');
      expect(api.status).not.toBe(403); // the API's own answer (no JSON body → 400)
      // The UI too (a phone's browser): index.html for the screens, the bundles.
      for (const rawPath of ['/', '/records']) expect((await raw(LAN!, port, 'GET', rawPath)).body, rawPath).toContain(INDEX_MARKER);
      expect((await raw(LAN!, port, 'GET', '/_app/x.js')).body).toContain(BUNDLE_MARKER);
      for (const rawPath of ['/index.html', '/s/%2e%2e/_app/x.js', '/_app/%2e%2e/index.html', '/send', '/Records']) {
        const refused = await raw(LAN!, port, 'GET', rawPath);
        expect(refused.status, rawPath).toBe(403);
        expect(refused.body, rawPath).not.toContain(INDEX_MARKER);
      }
    } finally {
      t.server.app.settings.update({ network: { lanApi: false } });
    }
  });
});

async function fetchApi(port: number, action: string, params: unknown, token?: string) {
  const res = await fetch(`http://127.0.0.1:${port}/api`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ action, params }),
  });
  const body = (await res.json()) as { code: number; message: string; data: any };
  return { ...body, status: res.status, headers: res.headers };
}
