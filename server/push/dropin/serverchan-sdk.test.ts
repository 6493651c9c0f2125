import { request as httpRequest } from 'node:http';
import { scSend } from 'serverchan-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeHttpsTo, startTlsProxy, type TlsProxy } from '../../test-support/fakes/tls-proxy';
import { startDropinServer, type DropinServer } from '../tests/dropin-helpers';

/**
 * ServerChan's official SDK (serverchan-sdk 1.0.6 on npm) sends a ServerChan³ sendkey only in the
 * host name: `POST https://sctp{uid}t{key}.push.ft07.com/send` with `{title, desp}` as JSON, then
 * parses the answer as JSON. Behind a TLS proxy for that name (docs/push.md) with the name in
 * network.allowedHosts, PennyPost takes the key from the Host header — which arrives in lower case.
 */

let s: DropinServer;
let proxy: TlsProxy;
let undo: () => void;
let host: string;

beforeAll(async () => {
  s = await startDropinServer();
  host = `sctp7t${s.appKey.toLowerCase()}.push.ft07.com`;
  s.t.server.app.settings.update({ network: { allowedHosts: [host, 'sctp7tppnotakey000000000000000000.push.ft07.com'] } });
  proxy = await startTlsProxy(s.t.url);
  undo = routeHttpsTo('.push.ft07.com', proxy);
});
afterAll(async () => {
  undo();
  await proxy.close();
  await s.t.close();
});

/** The SDK's request, sent straight to PennyPost (no TLS): what the proxy hands on. */
function sdkRequest(hostName: string, body: unknown): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(s.t.url);
    const req = httpRequest(
      { host: url.hostname, port: url.port, method: 'POST', path: '/send', headers: { host: hostName, 'content-type': 'application/json;charset=utf-8' } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('serverchan-sdk (ServerChan³ key in the host name)', () => {
  it('the SDK itself, through a TLS proxy: delivered, and its JSON answer parsed', async () => {
    const answer = (await scSend(`sctp7t${s.appKey}`, 'Backup done', 'All **3** jobs')) as { code: number; data: Record<string, unknown> };
    expect(answer.code).toBe(0);
    expect(answer.data).toMatchObject({ error: 'SUCCESS', errno: 0, success: 1 });
    expect(s.lastSent().appKey).toBe(s.appKey);
    expect(s.lastArrived()).toMatchObject({ title: 'Backup done', desp: 'All **3** jobs' });
  });

  it('the exact request: POST /send with the lower-cased host; unknown keys and other hosts get JSON, never a text 404', async () => {
    const ok = await sdkRequest(host, { title: 'exact', desp: 'shape' });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.text)).toMatchObject({ code: 0 });
    expect(s.lastArrived()).toMatchObject({ title: 'exact', desp: 'shape' });

    const unknown = await sdkRequest('sctp7tppnotakey000000000000000000.push.ft07.com', { title: 'x' });
    expect(unknown.status).toBe(404);
    expect(unknown.type).toMatch(/application\/json/);
    expect(JSON.parse(unknown.text)).toMatchObject({ code: 404 });

    const plain = await sdkRequest('127.0.0.1', { title: 'x' });
    expect(plain.status).toBe(404);
    expect(plain.type).toMatch(/application\/json/);
    expect(JSON.parse(plain.text)).toMatchObject({ code: 404, message: expect.stringMatching(/app key/i) });

    // A host that is not in network.allowedHosts is still refused (421): the key in a name is no way around that check.
    const stranger = await sdkRequest(`sctp7t${s.appKey.toLowerCase()}.evil.example`, { title: 'x' });
    expect(stranger.status).toBe(421);
  });
});
