import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listenFake, sendJson, type FakeServer } from '../../test-support/fakes/listen';
import { startPushServer, type PushTestServer } from './helpers';

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

/** One local receiver standing in for ntfy, Gotify, Bark and JSON hooks: records, answers per path. */
let receiver: FakeServer;
const received: Received[] = [];
const answers = new Map<string, Array<{ status: number; body?: unknown }>>();
let t: PushTestServer;

beforeAll(async () => {
  receiver = await listenFake((req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://x');
    let parsed: unknown = body;
    try {
      parsed = JSON.parse(body);
    } catch {
      // keep text
    }
    received.push({ method: req.method ?? '', path: url.pathname, headers: req.headers, body: parsed });
    const next = answers.get(url.pathname)?.shift();
    if (next) {
      sendJson(res, next.body ?? { error: 'programmed' }, next.status);
      return;
    }
    if (url.pathname === '/push') {
      sendJson(res, { code: 200, message: 'success' });
      return;
    }
    if (url.pathname === '/message') {
      sendJson(res, { id: 77, appid: 1, message: 'ok' });
      return;
    }
    sendJson(res, { id: 'abc123', event: 'message' });
  });
  t = await startPushServer({ settings: { push: { callTimeoutMs: 500 }, network: { publicBaseUrl: 'https://pp.example.net' } } });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});
beforeEach(() => {
  received.length = 0;
  answers.clear();
});

describe('body shapes', () => {
  it('ntfy: JSON publishing to the server root with topic, title, Markdown message, click link and bearer token', async () => {
    const { appKey } = await t.setup({
      type: 'webhook',
      config: { format: 'ntfy', url: receiver.url, token: 'tk_ntfy_secret_1234', priority: 4 },
      recipients: ['alerts', `${receiver.url}/other-topic`],
    });
    const res = await t.push(`/send/${appKey}`, { json: { title: '温度过高', desp: '**42 °C** in the attic' } });
    expect(res.body.data).toMatchObject({ total: 2, success: 2 });
    expect(res.body.data.results[0]).toMatchObject({ recipient: 'alerts', ok: true, msgId: 'abc123' });
    expect(received).toHaveLength(2);
    for (const r of received) {
      expect(r.method).toBe('POST');
      expect(r.path).toBe('/');
      expect(r.headers.authorization).toBe('Bearer tk_ntfy_secret_1234');
      expect(r.headers['content-type']).toMatch(/application\/json/);
    }
    const byTopic = Object.fromEntries(received.map((r) => [r.body.topic, r.body]));
    expect(byTopic.alerts).toEqual({ topic: 'alerts', title: '温度过高', message: '**42 °C** in the attic', markdown: true, click: res.body.data.url, priority: 4 });
    expect(byTopic['other-topic']).toBeDefined();
  });

  it('Gotify: POST /message with X-Gotify-Key (the recipient), Markdown extras and click URL; the token shows masked', async () => {
    const { appKey } = await t.setup({ type: 'webhook', config: { format: 'gotify', url: receiver.url, priority: 3 }, recipients: ['AppTokenGotify.1'] });
    const res = await t.push(`/send/${appKey}`, { query: { title: 'Door opened', desp: 'front door' } });
    expect(res.body.data.results[0]).toMatchObject({ recipient: '••••fy.1', ok: true, msgId: '77' });
    // (the test helper names recipients after their address; the address itself never shows)
    expect(JSON.stringify({ ...res.body, data: { ...res.body.data, results: res.body.data.results.map(({ name: _n, ...r }: any) => r) } })).not.toContain('AppTokenGotify.1');
    const listed = await t.call('push.queryRecipients', { appId: (await t.call('push.queryApps', {})).data.list.at(-1).id });
    expect(listed.data.list[0].address).toBe('••••fy.1');
    const r = received.at(0)!;
    expect(r.path).toBe('/message');
    expect(r.headers['x-gotify-key']).toBe('AppTokenGotify.1');
    expect(r.body).toEqual({
      title: 'Door opened',
      message: 'front door',
      priority: 6,
      extras: { 'client::display': { contentType: 'text/markdown' }, 'client::notification': { click: { url: res.body.data.url } } },
    });
  });

  it('Bark: POST /push with device_key, title, body, group and url; code 400 in a 200 answer is a recipient failure', async () => {
    const { appKey } = await t.setup({ type: 'webhook', config: { format: 'bark', url: receiver.url }, recipients: ['BarkDeviceKey01', 'BarkUnknownKey02'] });
    answers.set('/push', [
      { status: 200, body: { code: 200, message: 'success' } },
      { status: 200, body: { code: 400, message: 'failed to get device token' } },
    ]);
    const res = await t.push(`/send/${appKey}`, { form: { title: 'Build green', desp: 'main #1234' } });
    expect(res.body.data).toMatchObject({ total: 2, success: 1, failed: 1 });
    const bodies = received.map((r) => r.body);
    expect(bodies[0]).toMatchObject({ title: 'Build green', body: 'main #1234', group: 'Test app', url: res.body.data.url });
    expect(bodies.map((b) => b.device_key).sort()).toEqual(['BarkDeviceKey01', 'BarkUnknownKey02']);
    const failed = res.body.data.results.find((r: any) => !r.ok);
    expect(failed).toMatchObject({ class: 'recipient', errcode: 400 });
    expect(failed.errmsg).toMatch(/Bark refused this device key/);
  });

  it('generic JSON: full URLs or paths under the base, with pushId, app, title, desp, url and time', async () => {
    const { appKey } = await t.setup({
      type: 'webhook',
      config: { format: 'json', url: `${receiver.url}/hooks`, token: 'json-bearer-token-99' },
      recipients: ['ci', `${receiver.url}/absolute/hook`],
    });
    const res = await t.push(`/${appKey}`, { json: { title: 'Deploy', desp: 'v1.2.3 live' } });
    expect(res.body.data.success).toBe(2);
    expect(received.map((r) => r.path).sort()).toEqual(['/absolute/hook', '/hooks/ci']);
    const body = received[0]?.body;
    expect(body).toEqual({
      pushId: res.body.data.pushId,
      app: 'Test app',
      title: 'Deploy',
      desp: 'v1.2.3 live',
      url: res.body.data.url,
      priority: 'normal',
      time: expect.any(Number),
      timeIso: expect.any(String),
    });
    expect(received[0]?.headers.authorization).toBe('Bearer json-bearer-token-99');
  });
});

describe('receiver answers', () => {
  it('401 is systemic (check the token), 404 a recipient failure, 500 and 429 transient and retried', async () => {
    const { appKey } = await t.setup({ type: 'webhook', config: { format: 'json', url: receiver.url }, recipients: ['auth', 'gone', 'flaky', 'slowdown'] });
    answers.set('/auth', [{ status: 401 }]);
    answers.set('/gone', [{ status: 404 }]);
    answers.set('/flaky', [{ status: 500 }]);
    answers.set('/slowdown', [{ status: 429 }]);
    const res = await t.push(`/send/${appKey}`, { query: { title: 'x' } });
    const by = Object.fromEntries(res.body.data.results.map((r: any) => [r.recipient, r]));
    expect(by.auth).toMatchObject({ ok: false, class: 'systemic', errcode: 401 });
    expect(by.auth.errmsg).toMatch(/refused PennyPost's credentials \(HTTP 401\): check the channel's token/);
    expect(by.gone).toMatchObject({ ok: false, class: 'recipient', errcode: 404, attempts: 1 });
    expect(by.flaky).toMatchObject({ ok: true, attempts: 2 });
    expect(by.slowdown).toMatchObject({ ok: true, attempts: 2 });
  });

  it('an unreachable receiver is transient and says why', async () => {
    const closed = await listenFake((_req, res) => sendJson(res, {}));
    const url = closed.url;
    await closed.close();
    const { appKey } = await t.setup({ type: 'webhook', config: { format: 'json', url }, recipients: ['x'] });
    const res = await t.push(`/send/${appKey}`, { query: { title: 'x' } });
    expect(res.status).toBe(500);
    expect(res.body.data.results[0]).toMatchObject({ ok: false, class: 'transient', attempts: 3 });
    expect(res.body.data.results[0].errmsg).toMatch(/could not connect \(ECONNREFUSED\)/);
  });

  it('push.testChannel probes the receiver or sends a test message to an address', async () => {
    const { channelId } = await t.setup({ type: 'webhook', config: { format: 'ntfy', url: receiver.url } });
    const probe = await t.call('push.testChannel', { id: channelId });
    expect(probe.data).toMatchObject({ ok: true });
    expect(received[0]?.path).toBe('/v1/health');
    const sent = await t.call('push.testChannel', { id: channelId, address: 'probe-topic' });
    expect(sent.data).toMatchObject({ ok: true, message: 'The receiver accepted a test message.' });
    expect(received[1]?.body).toMatchObject({ topic: 'probe-topic', title: 'PennyPost test message' });
    answers.set('/', [{ status: 403 }]);
    const refused = await t.call('push.testChannel', { id: channelId, address: 'probe-topic' });
    expect(refused.data).toMatchObject({ ok: false, class: 'systemic', errcode: 403 });
  });
});
