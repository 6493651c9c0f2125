import { request } from 'node:http';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linksDomain } from '../../links';
import { registerUser, startTestServer, tempDataDir, type TestServer } from '../../test-support/test-server';
import { usersDomain } from '../../users';
import { pushDomain } from '..';

/**
 * The drop-in forms next to everything else on the server: no path takes another's requests (the
 * UI's screens, /api, /healthz, /s/, /m/, /events, public files, /_app/), and every form is
 * reachable from the LAN exactly like /send.
 */

const INDEX_MARKER = 'INDEX-HTML-OF-THE-UI';

interface RawAnswer {
  status: number;
  type: string;
  body: string;
}

/** One request with the path exactly as given, from the chosen local address. */
function raw(address: string, port: number, method: string, rawPath: string, body?: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: address, port, method, path: rawPath, agent: false, headers: body === undefined ? headers : { 'content-length': String(Buffer.byteLength(body)), ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'] ?? '', body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A non-loopback IPv4 address of this machine: a request to it is a LAN caller to the server. */
function lanAddress(): string | null {
  for (const list of Object.values(os.networkInterfaces())) {
    for (const info of list ?? []) if (info.family === 'IPv4' && !info.internal && !info.address.startsWith('127.')) return info.address;
  }
  return null;
}
const LAN = lanAddress();

let t: TestServer;
let rendererDir: string;
let appKey = '';
let token = '';
let pushCount: () => Promise<number>;

beforeAll(async () => {
  rendererDir = tempDataDir('dropin-ui');
  mkdirSync(path.join(rendererDir, '_app'));
  writeFileSync(path.join(rendererDir, 'index.html'), `<!doctype html><title>${INDEX_MARKER}</title>`);
  writeFileSync(path.join(rendererDir, '_app', 'x.js'), 'console.log(1);');
  writeFileSync(path.join(rendererDir, 'favicon.ico'), 'icon');
  t = await startTestServer({
    host: LAN ? '0.0.0.0' : '127.0.0.1',
    rendererDir,
    domains: [usersDomain(), pushDomain(), linksDomain()],
    settings: { network: { lan: true, lanApi: false }, push: { sendPerAppKey: 1000, sendPerAddress: 1000 } },
  });
  const port = t.server.port;
  const api = async (action: string, params: unknown, bearer?: string) => {
    const answer = await raw('127.0.0.1', port, 'POST', '/api', JSON.stringify({ action, params }), {
      'content-type': 'application/json',
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    });
    return { ...(JSON.parse(answer.body) as { code: number; message: string; data: any }), status: answer.status, headers: new Headers() };
  };
  const user = await registerUser({ ...t, api });
  token = user.token;
  const channel = await api('push.createChannel', { name: 'Desk', type: 'desktop' }, token);
  appKey = (await api('push.createApp', { name: 'Drop-in app', channelId: channel.data.id }, token)).data.appKey;
  pushCount = async () => (await api('push.queryMessages', { pageSize: 1 }, token)).data.total as number;
});
afterAll(async () => {
  await (t as TestServer | undefined)?.close();
  rmSync(rendererDir, { recursive: true, force: true });
});

describe('no drop-in form shadows another path', () => {
  it('GET /, /push, /push/apps and /message stay the UI; /api, /healthz, /s/, /m/, /events, public files and bundles keep their owners', async () => {
    const port = t.server.port;
    const before = await pushCount();
    for (const rawPath of ['/', '/push', '/push/apps', '/message', '/records']) {
      const answer = await raw('127.0.0.1', port, 'GET', rawPath);
      expect(answer.status, rawPath).toBe(200);
      expect(answer.body, rawPath).toContain(INDEX_MARKER);
    }
    expect((await raw('127.0.0.1', port, 'GET', '/favicon.ico')).body).toBe('icon');
    expect((await raw('127.0.0.1', port, 'GET', '/_app/x.js')).body).toBe('console.log(1);');
    expect(JSON.parse((await raw('127.0.0.1', port, 'GET', '/healthz')).body)).toEqual({ status: 'ok' });
    expect(JSON.parse((await raw('127.0.0.1', port, 'GET', '/api')).body).message).toMatch(/Use POST \/api/);
    expect((await raw('127.0.0.1', port, 'POST', '/api', '{}', { 'content-type': 'application/json' })).status).toBe(400);
    expect((await raw('127.0.0.1', port, 'GET', '/s/abc1234')).status).toBe(404);
    expect((await raw('127.0.0.1', port, 'GET', '/m/page.css')).type).toMatch(/^text\/css/);
    expect((await raw('127.0.0.1', port, 'GET', '/events/push')).status).toBe(401);
    // Paths that are neither a key nor a drop-in form: not pushed.
    for (const [method, rawPath] of [
      ['POST', '/records'],
      ['POST', '/push/apps'],
      ['PUT', '/message'],
      ['POST', '/PPshort'],
      ['PUT', '/PPshort'],
      ['POST', `/${appKey}/a/b/c/d`],
      ['POST', '/send'],
    ] as const) {
      const answer = await raw('127.0.0.1', port, method, rawPath, 'x', { 'content-type': 'text/plain' });
      expect([404, 400], `${method} ${rawPath}`).toContain(answer.status);
      expect(answer.body, rawPath).not.toContain(INDEX_MARKER);
    }
    expect(await pushCount()).toBe(before);
  });
});

describe.skipIf(!LAN)(`every drop-in form from a LAN address (${LAN ?? 'none'})`, () => {
  it('pushes like /send does', async () => {
    const port = t.server.port;
    const before = await pushCount();
    const json = { 'content-type': 'application/json' };
    const forms: Array<[method: string, rawPath: string, body?: string, headers?: Record<string, string>]> = [
      ['GET', `/send/sctp42t${appKey}.send?title=serverchan3`],
      ['POST', `/message?token=${appKey}`, JSON.stringify({ title: 'gotify', message: 'm' }), json],
      ['GET', `/${appKey}/bark-body`],
      ['GET', `/${appKey}/bark/body`],
      ['POST', `/${appKey}/bark/sub/body`, ''],
      ['GET', `/${appKey}?body=bark-query`],
      ['POST', '/push', JSON.stringify({ device_key: appKey, title: 'bark', body: 'b' }), json],
      ['PUT', `/${appKey}`, 'ntfy put', { Title: 'ntfy' }],
      ['POST', `/${appKey}`, 'ntfy post'],
      ['POST', '/', JSON.stringify({ topic: appKey, message: 'ntfy json' })],
    ];
    for (const [method, rawPath, body, headers] of forms) {
      const answer = await raw(LAN!, port, method, rawPath, body, headers);
      expect(answer.status, `${method} ${rawPath}: ${answer.body}`).toBe(200);
      expect(answer.type, rawPath).toMatch(/^application\/json/);
    }
    expect(await pushCount()).toBe(before + forms.length);
    // The UI's side of the same paths stays closed to the LAN without network.lanApi.
    for (const rawPath of ['/', '/push', '/message']) expect((await raw(LAN!, port, 'GET', rawPath)).status, rawPath).toBe(403);
    // Preflights of the new forms are answered for the LAN too.
    for (const rawPath of ['/', '/push', '/message', `/${appKey}/t/b`]) expect((await raw(LAN!, port, 'OPTIONS', rawPath)).status, rawPath).toBe(204);
  });
});
