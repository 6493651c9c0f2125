import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listenFake, sendJson, type FakeServer } from '../../test-support/fakes/listen';
import { startPushServer, type PushTestServer } from './helpers';
import { commonErrors } from '../../lib/errors';
import { pushErrors } from '../errors';
import { expectRefusal } from '../../test-support/refusal';

/**
 * Secrets stay where they were entered (user finding: "a masked secret cannot be sent to a new
 * address"). Two real listeners on 127.0.0.1: `home`, where every secret is entered, and
 * `attacker`, which records every request (headers, query and body) so the tests can prove that no
 * stored secret ever reaches it.
 */

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Recorder extends FakeServer {
  requests: Seen[];
  /** Status to answer for a path (default 200 with a plausible body for every receiver kind). */
  status: Map<string, number>;
}

/** A receiver that answers like WeChat, ntfy, Gotify, Bark and JSON hooks, and records everything. */
async function recorder(accessToken: string): Promise<Recorder> {
  const requests: Seen[] = [];
  const status = new Map<string, number>();
  const fake = await listenFake((req, res, body) => {
    const url = req.url ?? '/';
    requests.push({ method: req.method ?? '', url, headers: req.headers, body });
    const path = new URL(url, 'http://x').pathname;
    const programmed = status.get(path);
    if (programmed) {
      sendJson(res, { error: 'programmed' }, programmed);
      return;
    }
    if (path === '/cgi-bin/stable_token' || path === '/cgi-bin/token') {
      sendJson(res, { access_token: accessToken, expires_in: 7200 });
      return;
    }
    if (path.startsWith('/cgi-bin/message/')) {
      sendJson(res, { errcode: 0, errmsg: 'ok', msgid: 1 });
      return;
    }
    if (path === '/push') {
      sendJson(res, { code: 200, message: 'success' });
      return;
    }
    if (path === '/message') {
      sendJson(res, { id: 1 });
      return;
    }
    sendJson(res, { id: 'msg1', event: 'message' });
  });
  return { ...fake, requests, status };
}

/** True when a recorded request carries the secret anywhere: headers, query or body, plain, URL-encoded or base64. */
function carries(request: Seen, secret: string): boolean {
  const text = JSON.stringify(request);
  return [secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64')].some((form) => text.includes(form));
}
const sawSecret = (r: Recorder, secret: string) => r.requests.some((request) => carries(request, secret));

let home: Recorder;
let attacker: Recorder;
let t: PushTestServer;

beforeAll(async () => {
  home = await recorder('home-access-token-0001');
  attacker = await recorder('attacker-access-token-0002');
  t = await startPushServer({ settings: { push: { callTimeoutMs: 1000 } } });
});
afterAll(async () => {
  await t.close();
  await home.close();
  await attacker.close();
});
beforeEach(() => {
  home.requests.length = 0;
  home.status.clear();
  attacker.requests.length = 0;
  attacker.status.clear();
});

async function maskedConfig(channelId: string): Promise<Record<string, unknown>> {
  const list = (await t.call('push.queryChannels', {})).data.list as Array<{ id: string; config: Record<string, unknown> }>;
  return list.find((c) => c.id === channelId)!.config;
}

/** push.testChannel with and without an address, and a /send through the channel's app. */
async function useChannel(channelId: string, appKey: string, address?: string) {
  const probe = await t.call('push.testChannel', { id: channelId });
  const test = address ? await t.call('push.testChannel', { id: channelId, address }) : null;
  const sent = await t.push(`/send/${appKey}`, { query: { title: 'after the update' } });
  return { probe, test, sent };
}

it('a masked secret cannot be sent to a new address', async () => {
  // The finding as reported: read the channel back, point it at another server with the masked
  // token the API shows, then test the channel and push through it.
  const TOKEN = 'tk_reported_finding_secret_7781';
  const { channelId, appKey } = await t.setup({ type: 'webhook', config: { format: 'ntfy', url: home.url, token: TOKEN }, recipients: ['alerts'] });
  const shown = await maskedConfig(channelId);
  expect(shown.token).toBe('••••7781');

  const update = await t.call('push.updateChannel', { id: channelId, config: { ...shown, url: attacker.url } });
  expectRefusal(update, pushErrors.rows.secretMustBeEnteredAgain);
  expect(update.message).toMatch(/^Enter the token again: it is kept only for the address it was entered for/);
  expect((update.data as { field?: string } | null)?.field).toBe('params.config.token');
  expect((await maskedConfig(channelId)).url).toBe(home.url);

  const { probe, test, sent } = await useChannel(channelId, appKey, 'alerts');
  expect(probe.data.ok).toBe(true);
  expect(test!.data.ok).toBe(true);
  expect(sent.status).toBe(200);
  expect(attacker.requests).toEqual([]);
  expect(sawSecret(home, TOKEN)).toBe(true);
});

interface Kind {
  name: string;
  type: 'wechat' | 'webhook';
  secretField: 'appSecret' | 'token';
  destinationField: 'apiBase' | 'url';
  config(base: string, secret: string): Record<string, unknown>;
  recipient: string;
  label: RegExp;
}

/** A webhook format whose channel token is tied to its url (the JSON hook's url has a path). */
const webhookKind = (label: string, format: string, recipient: string, path = ''): Kind => ({
  name: `${label} token, url moved`,
  type: 'webhook',
  secretField: 'token',
  destinationField: 'url',
  config: (base, secret) => ({ format, url: `${base}${path}`, token: secret }),
  recipient,
  label: /Enter the token again/,
});

const KINDS: Kind[] = [
  {
    name: 'WeChat appSecret, apiBase moved',
    type: 'wechat',
    secretField: 'appSecret',
    destinationField: 'apiBase',
    config: (base, secret) => ({ appId: 'wx1234567890abcdef', appSecret: secret, apiBase: base }),
    recipient: 'oOpenid_secret_0001',
    label: /Enter the AppSecret again/,
  },
  webhookKind('ntfy', 'ntfy', 'alerts'),
  webhookKind('JSON hook', 'json', 'ci', '/hooks'),
  webhookKind('Bark', 'bark', ''),
  webhookKind('Gotify', 'gotify', ''),
];

describe('secrets stay where they were entered: every channel type with a secret', () => {
  it.each(KINDS)('$name: refused with the masked, left-out or empty secret; works with the secret entered again', async (kind) => {
    const OLD = `old-${kind.secretField}-${kind.name.split(' ').at(0)!.toLowerCase()}-4242`;
    const NEW = `new-${kind.secretField}-${kind.name.split(' ').at(0)!.toLowerCase()}-9191`;
    const { channelId, appKey } = await t.setup({ type: kind.type, config: kind.config(home.url, OLD), recipients: kind.recipient ? [kind.recipient] : [] });
    // The channel works at home, with the secret it was given.
    await useChannel(channelId, appKey, kind.recipient || undefined);
    if (kind.name.startsWith('Gotify'))
      expect(home.requests.length).toBeGreaterThan(0); // (Gotify never sends the channel token)
    else expect(sawSecret(home, OLD)).toBe(true);

    const masked = (await maskedConfig(channelId))[kind.secretField];
    expect(masked).toBe('••••4242');
    const moved = kind.config(attacker.url, 'x')[kind.destinationField];
    for (const secret of [masked, undefined, '']) {
      const config = { [kind.destinationField]: moved, ...(secret === undefined ? {} : { [kind.secretField]: secret }) };
      const answer = await t.call('push.updateChannel', { id: channelId, config });
      expect(answer.code, JSON.stringify(secret)).toBe(400);
      expect((answer.data as { field?: string } | null)?.field).toBe(`params.config.${kind.secretField}`);
      if (secret !== '') expect(answer.message).toMatch(kind.label);
      // The whole config comes back too (what a form sends): still refused.
      const whole = await t.call('push.updateChannel', { id: channelId, name: 'renamed', config: { ...(await maskedConfig(channelId)), [kind.destinationField]: moved } });
      expectRefusal(whole, pushErrors.rows.secretMustBeEnteredAgain);
    }
    expect((await maskedConfig(channelId))[kind.destinationField]).toBe(kind.config(home.url, 'x')[kind.destinationField]);

    // Nothing reaches the attacker: not the test, not a push.
    await useChannel(channelId, appKey, kind.recipient || undefined);
    expect(attacker.requests).toEqual([]);

    // Entered again together with the new address: accepted, and only the new secret travels.
    const accepted = await t.call('push.updateChannel', { id: channelId, config: { [kind.destinationField]: moved, [kind.secretField]: NEW } });
    expect(accepted.code).toBe(200);
    expect(accepted.data.config[kind.secretField]).toBe('••••9191');
    const after = await useChannel(channelId, appKey, kind.recipient || undefined);
    expect(after.probe.data.ok).toBe(true);
    if (kind.recipient) expect(after.sent.body.data.success).toBe(1);
    expect(attacker.requests.length).toBeGreaterThan(0);
    if (!kind.name.startsWith('Gotify')) expect(sawSecret(attacker, NEW)).toBe(true);
    expect(sawSecret(attacker, OLD)).toBe(false);
    // WeChat: the access token fetched at home is not reused at the new address either.
    expect(sawSecret(attacker, 'home-access-token-0001')).toBe(false);
  });

  it('the same destination after URL normalisation keeps the stored secret; a path or port change does not', async () => {
    const TOKEN = 'tk_normalised_same_place_5150';
    const { channelId, appKey } = await t.setup({ type: 'webhook', config: { format: 'json', url: `${home.url}/hooks`, token: TOKEN }, recipients: ['ci'] });
    const port = new URL(home.url).port;
    for (const same of [`${home.url}/hooks/`, `HTTP://127.0.0.1:${port}/hooks`, `${home.url}/x/../hooks`, `http://127.0.0.1:${port}/hooks///`]) {
      const answer = await t.call('push.updateChannel', { id: channelId, config: { url: same, token: '••••5150' } });
      expect(answer.code, same).toBe(200);
    }
    // Only other fields change: the masked value keeps the secret, as before.
    expect((await t.call('push.updateChannel', { id: channelId, name: 'Renamed', config: { priority: 3, token: '••••5150' } })).code).toBe(200);
    expect((await t.call('push.updateChannel', { id: channelId, config: { priority: 2 } })).code).toBe(200);
    const sent = await t.push(`/send/${appKey}`, { query: { title: 'still home' } });
    expect(sent.body.data.success).toBe(1);
    expect(home.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);

    // A query or a fragment makes no base URL at all (docs/security.md, "Outbound requests").
    for (const shape of [`${home.url}/hooks?x=1`, `${home.url}/hooks#frag`]) {
      const answer = await t.call('push.updateChannel', { id: channelId, config: { url: shape, token: '••••5150' } });
      expectRefusal(answer, commonErrors.rows.invalid, { label: shape });
      expect(answer.data, shape).toMatchObject({ field: 'params.config.url' });
      expect(answer.message).toMatch(/plain base URL/);
    }
    for (const other of [`${home.url}/other`, `http://localhost:${port}/hooks`, 'http://127.0.0.1:9/hooks', `https://127.0.0.1:${port}/hooks`]) {
      const answer = await t.call('push.updateChannel', { id: channelId, config: { url: other, token: '••••5150' } });
      expectRefusal(answer, pushErrors.rows.secretMustBeEnteredAgain, { label: other });
      expect(answer.message).toMatch(/Enter the token again/);
    }
  });

  it('a format change that switches to another default server needs the token again (refused before any request)', async () => {
    const { channelId } = await t.setup({ type: 'webhook', config: { format: 'ntfy', token: 'tk_default_server_secret_6060' } });
    const answer = await t.call('push.updateChannel', { id: channelId, config: { format: 'bark' } });
    expectRefusal(answer, pushErrors.rows.secretMustBeEnteredAgain);
    expect(answer.message).toMatch(/Enter the token again/);
    expect((await t.call('push.updateChannel', { id: channelId, config: { format: 'ntfy', url: 'https://ntfy.sh/', token: '••••6060' } })).code).toBe(200);
  });

  it('a channel without a stored secret moves freely', async () => {
    const { channelId } = await t.setup({ type: 'webhook', config: { format: 'ntfy', url: home.url } });
    expect((await t.call('push.updateChannel', { id: channelId, config: { url: attacker.url, token: '' } })).code).toBe(200);
  });
});

describe('recipients that are secrets (Gotify application tokens, Bark device keys)', () => {
  it.each([
    { format: 'gotify', oldKey: 'GotifyAppTokenOld.1', newKey: 'GotifyAppTokenNew.2' },
    { format: 'bark', oldKey: 'BarkDeviceKeyOld01', newKey: 'BarkDeviceKeyNew02' },
  ])('$format: the url cannot move while the apps have recipients; re-added after the move they work', async ({ format, oldKey, newKey }) => {
    const TOKEN = `tk_${format}_channel_secret_3131`;
    const { channelId, appId, appKey } = await t.setup({ type: 'webhook', config: { format, url: home.url, token: TOKEN }, recipients: [oldKey] });
    expect((await t.push(`/send/${appKey}`, { query: { title: 'home' } })).body.data.success).toBe(1);
    expect(sawSecret(home, oldKey)).toBe(true);

    // The channel token is entered again, but the recipients were entered for the old server.
    const moved = await t.call('push.updateChannel', { id: channelId, config: { url: attacker.url, token: 'tk_new_token_for_attacker_0000' } });
    expectRefusal(moved, commonErrors.rows.invalid);
    expect(moved.message).toMatch(/kept only for the server they were entered for; remove the recipients first/);
    expect((moved.data as { field?: string } | null)?.field).toBe('params.config.url');

    // An app cannot carry them to another server either: same format elsewhere, or another format.
    const elsewhere = await t.call('push.createChannel', { name: 'elsewhere', type: 'webhook', config: { format, url: attacker.url } });
    const ntfy = await t.call('push.createChannel', { name: 'ntfy', type: 'webhook', config: { format: 'ntfy', url: attacker.url } });
    for (const target of [elsewhere.data.id, ntfy.data.id]) {
      const move = await t.call('push.updateApp', { id: appId, channelId: target });
      expectRefusal(move, commonErrors.rows.invalid);
      expect(move.message).toMatch(/kept only for the server they were entered for/);
    }
    const sameServer = await t.call('push.createChannel', { name: 'same server', type: 'webhook', config: { format, url: `${home.url}/` } });
    expect((await t.call('push.updateApp', { id: appId, channelId: sameServer.data.id })).code).toBe(200);
    expect((await t.call('push.updateApp', { id: appId, channelId })).code).toBe(200);

    await useChannel(channelId, appKey, oldKey);
    expect(attacker.requests).toEqual([]);

    // Remove, move, enter again: works, and only what was entered for the new server goes there.
    const recipient = (await t.call('push.queryRecipients', { appId })).data.list[0];
    await t.call('push.removeRecipient', { id: recipient.id });
    expect((await t.call('push.updateChannel', { id: channelId, config: { url: attacker.url, token: 'tk_new_token_for_attacker_0000' } })).code).toBe(200);
    expect((await t.call('push.addRecipient', { appId, address: newKey })).code).toBe(200);
    expect((await t.push(`/send/${appKey}`, { query: { title: 'moved' } })).body.data.success).toBe(1);
    expect(sawSecret(attacker, newKey)).toBe(true);
    expect(sawSecret(attacker, oldKey)).toBe(false);
    expect(sawSecret(attacker, TOKEN)).toBe(false);
  });
});

describe('the channel token only goes to the server of the channel url', () => {
  it('ntfy: a full topic URL on another server, as a recipient or a test address, gets the message without the token', async () => {
    const TOKEN = 'tk_ntfy_stays_home_8080';
    const { channelId, appId, appKey } = await t.setup({
      type: 'webhook',
      config: { format: 'ntfy', url: home.url, token: TOKEN },
      recipients: ['alerts', `${home.url}/other-topic`],
    });
    const test = await t.call('push.testChannel', { id: channelId, address: `${attacker.url}/stolen` });
    expect(test.data.ok).toBe(true);
    expect((await t.call('push.addRecipient', { appId, address: `${attacker.url}/elsewhere` })).code).toBe(200);
    const sent = await t.push(`/send/${appKey}`, { query: { title: 'three topics' } });
    expect(sent.body.data.success).toBe(3);
    expect(attacker.requests).toHaveLength(2);
    for (const request of attacker.requests) expect(request.headers.authorization).toBeUndefined();
    expect(sawSecret(attacker, TOKEN)).toBe(false);
    // Topics on the channel's own server keep getting it.
    expect(home.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
  });

  it('JSON: an absolute hook URL elsewhere gets no token; a refusal there says why', async () => {
    const TOKEN = 'json-token-stays-home-2323';
    const { appKey } = await t.setup({ type: 'webhook', config: { format: 'json', url: `${home.url}/hooks`, token: TOKEN }, recipients: ['ci', `${attacker.url}/needs-auth`] });
    attacker.status.set('/needs-auth', 401);
    const sent = await t.push(`/send/${appKey}`, { query: { title: 'deploy' } });
    const byPath = Object.fromEntries(sent.body.data.results.map((r: { recipient: string }) => [r.recipient, r]));
    expect(byPath.ci).toMatchObject({ ok: true });
    expect(byPath[`${attacker.url}/needs-auth`]).toMatchObject({ ok: false, class: 'recipient', errcode: 401 });
    expect(byPath[`${attacker.url}/needs-auth`].errmsg).toMatch(/token is only sent to the server of the channel url \(http:\/\/127\.0\.0\.1:\d+\), not to this address/);
    expect(sawSecret(attacker, TOKEN)).toBe(false);
    expect(home.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('a JSON channel with a token needs a url (the token has nowhere else to belong)', async () => {
    const answer = await t.call('push.createChannel', { name: 'hook', type: 'webhook', config: { format: 'json', token: 'json-token-without-home-1' } });
    expectRefusal(answer, commonErrors.rows.invalid);
    expect(answer.message).toMatch(/url is required with a token/);
  });
});
