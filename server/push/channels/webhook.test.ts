import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../lib/clock';
import { listenFake, sendJson, type FakeServer } from '../../test-support/fakes/listen';
import { DesktopHub } from '../desktop';
import type { AppForm } from './driver';
import { webhookChannel } from './webhook';
import { withOutbound } from '../tests/channel-env';
import { outgoing, refusal } from '../tests/channel-bed';

/** The webhook driver on its own: config, recipients, rendering, and delivery to a local receiver. */

const message = outgoing();
const app: AppForm = { messageType: 'custom', templateId: '', templateFields: {} };

describe('webhook config', () => {
  it('completes a config per format and masks the token', () => {
    const ntfy = webhookChannel.normalize({ format: 'ntfy', token: 'tk_verysecrettoken1234' });
    expect(ntfy).toEqual({ url: '', format: 'ntfy', token: 'tk_verysecrettoken1234', priority: 0 });
    expect(webhookChannel.mask(ntfy)).toEqual({ url: '', format: 'ntfy', token: '••••1234', priority: 0 });
    expect(webhookChannel.mask({ ...ntfy, token: '' }).token).toBe('');
    expect(webhookChannel.normalize({ format: 'gotify', url: ' http://127.0.0.1:9 ', priority: 3 })).toEqual({
      url: 'http://127.0.0.1:9',
      format: 'gotify',
      token: '',
      priority: 3,
    });
  });

  it('refuses what cannot work, naming the field: no format, Gotify without a server, a JSON token without a url', () => {
    expect([refusal(() => webhookChannel.normalize({})).field, refusal(() => webhookChannel.normalize({})).message]).toEqual([
      'config.format',
      expect.stringMatching(/format is required/),
    ]);
    expect(refusal(() => webhookChannel.normalize({ format: 'gotify' })).message).toMatch(/url is required for Gotify/);
    expect(refusal(() => webhookChannel.normalize({ format: 'ntfy', url: 'ftp://x' })).field).toBe('config.url');
    expect(refusal(() => webhookChannel.normalize({ format: 'json', token: 'secret-token' })).message).toMatch(/url is required with a token/);
  });

  it('the destination is the channel url, or the format’s default server', () => {
    const ntfy = webhookChannel.normalize({ format: 'ntfy' });
    expect(webhookChannel.destination(ntfy)).toBe('https://ntfy.sh/');
    expect(webhookChannel.destination({ ...ntfy, url: 'https://ntfy.sh/' })).toBe(webhookChannel.destination(ntfy));
    expect(webhookChannel.destination({ ...ntfy, url: 'https://ntfy.example.net' })).not.toBe(webhookChannel.destination(ntfy));
  });
});

describe('webhook recipients', () => {
  const gotify = webhookChannel.normalize({ format: 'gotify', url: 'http://127.0.0.1:9' });
  const bark = webhookChannel.normalize({ format: 'bark' });
  const json = webhookChannel.normalize({ format: 'json' });

  it('checks addresses per format and masks the ones that are credentials', () => {
    expect(() => webhookChannel.checkAddress(gotify, 'AbCdEfGhIjKl.mn')).not.toThrow();
    expect(webhookChannel.recipientLabel(gotify, 'AbCdEfGhIjKl.mn')).toBe('••••l.mn');
    expect(refusal(() => webhookChannel.checkAddress(bark, 'not a key'))).toMatchObject({ field: 'address', message: expect.stringMatching(/Bark address is the device key/) });
    expect(refusal(() => webhookChannel.checkAddress(json, 'relative/path')).message).toMatch(/must be a full http\(s\) URL/);
    expect(webhookChannel.recipientLabel(json, 'http://127.0.0.1:9/hook')).toBe('http://127.0.0.1:9/hook');
  });

  it('keeps recipients only where their addresses still mean something', () => {
    const ntfy = webhookChannel.normalize({ format: 'ntfy' });
    expect(webhookChannel.keepsRecipients(ntfy, { ...ntfy, url: 'https://ntfy.example.net' }, 'config')).toBeNull();
    expect(webhookChannel.keepsRecipients(ntfy, { ...ntfy, format: 'json' }, 'config')).toMatchObject({
      field: 'config.format',
      message: expect.stringMatching(/remove them first/),
    });
    expect(webhookChannel.keepsRecipients(gotify, { ...gotify, url: 'http://127.0.0.1:10' }, 'config')).toMatchObject({ field: 'config.url' });
    expect(webhookChannel.keepsRecipients(gotify, { ...gotify, url: 'http://127.0.0.1:9/' }, 'channel')).toBeNull();
    expect(webhookChannel.keepsRecipients(bark, { ...bark, url: 'https://bark.example.net' }, 'channel')).toMatchObject({
      field: 'channelId',
      message: expect.stringMatching(/Bark device keys, kept only for the server they were entered for/),
    });
    expect(webhookChannel.keepsRecipients(ntfy, json, 'channel')).toBeNull();
  });
});

describe('webhook delivery (local receiver)', () => {
  interface Received {
    method: string;
    path: string;
    headers: IncomingHttpHeaders;
    body: unknown;
  }
  const received: Received[] = [];
  let receiver: FakeServer;
  const channel = { id: 'c1', name: 'Phone', userId: 'u1' };
  const link = webhookChannel.connect(withOutbound({ clock: systemClock, desktop: new DesktopHub() }));
  beforeAll(async () => {
    receiver = await listenFake((req, res, body) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      received.push({ method: req.method ?? '', path, headers: req.headers, body: body ? JSON.parse(body) : null });
      if (path === '/gone/hook') {
        sendJson(res, { error: 'gone' }, 410);
        return;
      }
      sendJson(res, { id: 'abc123' });
    });
  });
  afterAll(() => receiver.close());
  beforeEach(() => {
    received.length = 0;
  });

  it('renders the message once and posts it to each recipient in the format’s shape, with the token for the channel’s server', async () => {
    const ntfy = webhookChannel.normalize({ format: 'ntfy', url: receiver.url, token: 'tk_verysecrettoken1234', priority: 4 });
    const payload = webhookChannel.render(message, app);
    expect(payload).toEqual({
      pushId: 'm1',
      appName: 'Backups',
      title: 'Backup finished',
      desp: 'All **3** jobs OK',
      url: 'https://pp.example.net/m/token',
      time: message.time,
      priority: 'normal',
      group: '',
    });
    const outcome = await link.delivery(channel, ntfy, payload).send({ label: 'alerts', address: 'alerts' }, 1000);
    expect(outcome).toEqual({ ok: true, msgId: 'abc123' });
    expect(received[0]).toMatchObject({
      method: 'POST',
      path: '/',
      headers: { authorization: 'Bearer tk_verysecrettoken1234' },
      body: { topic: 'alerts', title: 'Backup finished', message: 'All **3** jobs OK', markdown: true, click: 'https://pp.example.net/m/token', priority: 4 },
    });
  });

  it('says what a refusal means: an unknown address is the recipient’s problem', async () => {
    const json = webhookChannel.normalize({ format: 'json', url: receiver.url });
    const outcome = await link.delivery(channel, json, webhookChannel.render(message, app)).send({ label: 'x', address: 'gone/hook' }, 1000);
    expect(outcome).toMatchObject({ ok: false, cls: 'recipient', errcode: 410 });
  });

  it('tests a channel: probes the receiver, or sends the test message to one address', async () => {
    const ntfy = webhookChannel.normalize({ format: 'ntfy', url: receiver.url });
    expect(await link.test(channel, ntfy, { timeoutMs: 1000, time: message.time })).toMatchObject({ ok: true, message: expect.stringMatching(/reachable/) });
    expect(received.at(-1)).toMatchObject({ method: 'GET', path: '/v1/health' });
    expect(await link.test(channel, ntfy, { address: 'probe', timeoutMs: 1000, time: message.time })).toEqual({ ok: true, message: 'The receiver accepted a test message.' });
    expect(received.at(-1)?.body).toMatchObject({ topic: 'probe', title: 'PennyPost test message', message: expect.stringMatching(/^This is a test of the channel "Phone"/) });
  });
});
