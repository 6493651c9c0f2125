import { lookup } from 'node:dns/promises';
import { BlockList } from 'node:net';
import os from 'node:os';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listenFake, sendJson, type FakeServer } from '../../test-support/fakes/listen';
import { settingsDomain } from '../../settings';
import { registerUser } from '../../test-support/test-server';
import { usersDomain } from '../../users';
import { pushDomain } from '..';
import { startPushServer, type PushTestServer } from './helpers';
import { apiErrors } from '../../api/errors';
import { commonErrors } from '../../lib/errors';
import { expectRefusal } from '../../test-support/refusal';

/**
 * Where a channel's requests may go, and what comes back from them (docs/security.md, "Outbound
 * requests"): base-URL fields are plain base URLs; what an address answers is quoted only through
 * the known fields of that service's own answer; and only the owner — admins too when the owner
 * allows it — may point a channel, webhook, recipient or mail server at this computer or the local
 * network, checked when it is saved and again on every connection.
 */

/** Loopback and the private IPv4 ranges, as this test tells them (the policy uses ipaddr.js's ranges). */
const LOCAL_V4 = new BlockList();
for (const [net, prefix] of [
  ['127.0.0.0', 8],
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const)
  LOCAL_V4.addSubnet(net, prefix, 'ipv4');
LOCAL_V4.addAddress('::1', 'ipv6');

const TOKEN = '123456789:AAfakeTelegramBotTokenForTests_0123';
const SECRET = 'TOP-SECRET-internal-page-7f3a9c';

/** A page only this machine may read: it answers every request with the secret, in HTML, as the services' error statuses. */
let internal: FakeServer;
const internalHits: string[] = [];
/** The push server; its first account (`t.user`, whose calls are `t.call`) is the owner. */
let t: PushTestServer;
let member: { token: string; id: string };
let admin: { token: string; id: string };

beforeAll(async () => {
  internal = await listenFake((req, res, body) => {
    internalHits.push(`${req.method ?? ''} ${req.url ?? ''}`);
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path.startsWith('/ntfy-refuses')) {
      sendJson(res, { code: 40301, http: 403, error: 'topic is reserved', secret: SECRET }, 403);
      return;
    }
    if (path === '/ok' || (path === '/' && body.includes('"topic"'))) {
      sendJson(res, { id: 'msg1', event: 'message' });
      return;
    }
    res.writeHead(path.includes('/bot') ? 404 : 400, { 'content-type': 'text/html' });
    res.end(`<html><body><h1>Internal admin</h1><p>${SECRET}</p></body></html>`);
  });
  t = await startPushServer({ domains: [usersDomain(), settingsDomain(), pushDomain()], settings: { push: { callTimeoutMs: 2000 } } });
  member = await registerUser(t);
  admin = await registerUser(t);
  expect((await t.call('user.setRole', { userId: admin.id, role: 'admin' })).status).toBe(200);
});
afterAll(async () => {
  await t.close();
  await internal.close();
});
beforeEach(() => {
  internalHits.length = 0;
});

const as = (who: { token: string }, action: string, params: unknown) => t.api(action, params, who.token);

/** Every way of writing an address on this computer or the local network (the internal page's port where it matters). */
const LOCAL_SPELLINGS = () => {
  const port = new URL(internal.url).port;
  return [
    internal.url,
    `http://localhost:${port}`,
    `http://LOCALHOST.:${port}`,
    `http://foo.localhost:${port}`,
    `http://127.1:${port}`,
    `http://2130706433:${port}`,
    `http://0x7f.1:${port}`,
    `http://[::1]:${port}`,
    `http://[::ffff:127.0.0.1]:${port}`,
    `http://0.0.0.0:${port}`,
    'http://10.0.0.1',
    'http://172.16.5.4:8080',
    'http://192.168.1.1',
    'http://169.254.169.254',
    'http://100.64.0.1',
    'http://[fd00::1]',
    'http://[fe80::1]',
    'http://[::ffff:10.0.0.1]',
  ];
};

describe('base-URL fields are plain base URLs', () => {
  it('refuses a fragment, a query or user info in telegramApiBase, apiBase, wecomApiBase and the webhook url, for everyone (400 naming the field)', async () => {
    for (const base of [
      `${internal.url}/secret#`,
      `${internal.url}/secret?`,
      `${internal.url}/x?a=1`,
      'http://user:pw@example.com',
      'http://user@example.com/',
      'http://example.com/a b',
    ]) {
      const telegram = await t.call('push.createChannel', { name: 'tg', type: 'telegram', config: { botToken: TOKEN, telegramApiBase: base } });
      expectRefusal(telegram, commonErrors.rows.invalid, { label: base });
      expect(telegram.data, base).toMatchObject({ field: 'params.config.telegramApiBase' });
      expect(telegram.message, base).not.toContain('secret');
      const wechat = await t.call('push.createChannel', { name: 'wx', type: 'wechat', config: { appId: 'wx0123456789abcdef', appSecret: 'secret0123456789', apiBase: base } });
      expectRefusal(wechat, commonErrors.rows.invalid, { label: base });
      expect(wechat.data, base).toMatchObject({ field: 'params.config.apiBase' });
      const wecomApp = await t.call('push.createChannel', {
        name: 'wecom app',
        type: 'wecom-app',
        config: { corpId: 'ww0123456789abcdef', agentId: 1000002, corpSecret: 'secret0123456789', wecomApiBase: base },
      });
      expectRefusal(wecomApp, commonErrors.rows.invalid, { label: base });
      expect(wecomApp.data, base).toMatchObject({ field: 'params.config.wecomApiBase' });
      const webhook = await t.call('push.createChannel', { name: 'hook', type: 'webhook', config: { format: 'ntfy', url: base } });
      expectRefusal(webhook, commonErrors.rows.invalid, { label: base });
      expect(webhook.data, base).toMatchObject({ field: 'params.config.url' });
    }
    expect(internalHits).toEqual([]);
  });
});

describe('what a destination answers is never quoted beyond its service’s own fields', () => {
  it('Telegram, Discord, Slack and JSON hooks pointed at a page say nothing of it; ntfy quotes only its `error`', async () => {
    const channels: Array<[string, Record<string, unknown>, string?]> = [
      ['telegram', { botToken: TOKEN, telegramApiBase: `${internal.url}/page` }],
      ['telegram', { botToken: TOKEN, telegramApiBase: `${internal.url}/page` }, '123456789'],
      ['discord', { webhookUrl: `${internal.url}/api/webhooks/123456789012345678/abcdefghijklmnopqrstuvwxyz012345` }],
      ['slack', { webhookUrl: `${internal.url}/services/T0000000/B0000000/abcdefgh12345678` }],
      ['webhook', { format: 'json', url: internal.url }, 'page'],
      ['webhook', { format: 'gotify', url: internal.url }, 'apptoken'],
      ['webhook', { format: 'ntfy', url: `${internal.url}/ntfy-refuses` }, `${internal.url}/ntfy-refuses/topic`],
    ];
    for (const [type, config, address] of channels) {
      const channel = await t.call('push.createChannel', { name: type, type, config });
      expect(channel.status, type).toBe(200);
      const tested = await t.call('push.testChannel', { id: channel.data.id, ...(address ? { address } : {}) });
      expect(tested.data.ok, type).toBe(false);
      expect(JSON.stringify(tested.data), type).not.toContain(SECRET);
      expect(JSON.stringify(tested.data), type).not.toMatch(/Internal admin|<html|<p>/);
    }
    const ntfy = await t.call('push.createChannel', { name: 'ntfy', type: 'webhook', config: { format: 'ntfy', url: internal.url } });
    const refused = await t.call('push.testChannel', { id: ntfy.data.id, address: `${internal.url}/ntfy-refuses/topic` });
    expect(refused.data.message).toContain('topic is reserved');
    expect(refused.data.message).not.toContain(SECRET);
  });

  it("quotes WeChat's errmsg cut short, and nothing of an answer that is not WeChat's", async () => {
    const wechat = await listenFake((_req, res) => sendJson(res, { errcode: 40013, errmsg: `invalid appid ${'x'.repeat(1000)}`, secret: SECRET }));
    try {
      const channel = await t.call('push.createChannel', {
        name: 'wx',
        type: 'wechat',
        config: { appId: 'wx0123456789abcdef', appSecret: 'secret0123456789', apiBase: wechat.url },
      });
      const tested = await t.call('push.testChannel', { id: channel.data.id });
      expect(tested.data).toMatchObject({ ok: false, errcode: 40013 });
      expect(tested.data.message).toContain('invalid appid');
      expect(tested.data.message.length).toBeLessThan(500);
      expect(tested.data.message).not.toContain(SECRET);
      const page = await t.call('push.createChannel', {
        name: 'wx page',
        type: 'wechat',
        config: { appId: 'wx0123456789abcdef', appSecret: 'secret0123456789', apiBase: internal.url },
      });
      const onPage = await t.call('push.testChannel', { id: page.data.id });
      expect(onPage.data.ok).toBe(false);
      expect(JSON.stringify(onPage.data)).not.toContain(SECRET);
    } finally {
      await wechat.close();
    }
  });
});

describe('only the owner (and admins the owner allows) may send to this computer or the local network', () => {
  it("refuses a member's channel address on this computer or the LAN in every spelling and type (403 naming the field), and nothing is sent", async () => {
    for (const url of LOCAL_SPELLINGS()) {
      const webhook = await as(member, 'push.createChannel', { name: 'hook', type: 'webhook', config: { format: 'ntfy', url } });
      expectRefusal(webhook, commonErrors.rows.forbidden, { label: url });
      expect(webhook.data, url).toMatchObject({ field: 'params.config.url' });
      expect(webhook.message, url).toMatch(/this computer or the local network.*Only the owner/);
    }
    const port = new URL(internal.url).port;
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['telegram', { botToken: TOKEN, telegramApiBase: `${internal.url}/x` }, 'telegramApiBase'],
      ['wechat', { appId: 'wx0123456789abcdef', appSecret: 'secret0123456789', apiBase: `http://localhost:${port}` }, 'apiBase'],
      ['wecom-app', { corpId: 'ww0123456789abcdef', agentId: 1000002, corpSecret: 'secret0123456789', wecomApiBase: `http://127.1:${port}` }, 'wecomApiBase'],
      ['discord', { webhookUrl: `http://[::1]:${port}/api/webhooks/123456789012345678/abcdefghijklmnopqrstuvwxyz012345` }, 'webhookUrl'],
      ['slack', { webhookUrl: `http://10.0.0.7/services/T0000000/B0000000/abcdefgh12345678` }, 'webhookUrl'],
      ['dingtalk', { webhookUrl: `http://192.168.0.2/robot/send?access_token=abcdefgh12345678` }, 'webhookUrl'],
      ['email', { smtpHost: '127.0.0.1', smtpPort: Number(port), fromAddress: 'me@example.com' }, 'smtpHost'],
      ['email', { smtpHost: 'localhost', fromAddress: 'me@example.com' }, 'smtpHost'],
      ['email', { smtpHost: '192.168.1.10', smtpSecurity: 'none', fromAddress: 'me@example.com' }, 'smtpHost'],
    ];
    for (const [type, config, field] of cases) {
      const created = await as(member, 'push.createChannel', { name: type, type, config });
      expectRefusal(created, commonErrors.rows.forbidden, { label: `${type} ${field}` });
      expect(created.data, type).toMatchObject({ field: `params.config.${field}` });
    }
    // A recipient URL is a destination too.
    const json = (await as(member, 'push.createChannel', { name: 'json', type: 'webhook', config: { format: 'json' } })).data;
    const app = (await as(member, 'push.createApp', { name: 'json app', channelId: json.id })).data;
    const added = await as(member, 'push.addRecipient', { appId: app.id, address: `${internal.url}/hook`, name: 'lan hook' });
    expectRefusal(added, commonErrors.rows.forbidden);
    expect(added.data).toMatchObject({ field: 'params.address' });
    // The internet stays theirs.
    expect((await as(member, 'push.createChannel', { name: 'ntfy.sh', type: 'webhook', config: { format: 'ntfy' } })).status).toBe(200);
    expect((await as(member, 'push.addRecipient', { appId: app.id, address: 'https://hooks.example.com/pennypost', name: 'web hook' })).status).toBe(200);
    expect(internalHits).toEqual([]);
  });

  it('counts a name by the addresses it resolves to (this machine’s host name)', async () => {
    const name = os.hostname();
    const addresses = await lookup(name, { all: true }).catch(() => []);
    // Where the host name does not resolve to a local address, there is nothing to check here (the
    // policy's own test covers a name that resolves to 10.x with a resolver of its own).
    if (addresses.length === 0 || !addresses.every((entry) => LOCAL_V4.check(entry.address, entry.family === 6 ? 'ipv6' : 'ipv4'))) return;
    const created = await as(member, 'push.createChannel', { name: 'by name', type: 'webhook', config: { format: 'ntfy', url: `http://${name}:${new URL(internal.url).port}` } });
    expectRefusal(created, commonErrors.rows.forbidden);
    expect(created.data).toMatchObject({ field: 'params.config.url' });
  });

  it('lets the owner use them, refuses admins until the owner allows it, and only the owner decides', async () => {
    expect((await t.call('push.createChannel', { name: 'local ntfy', type: 'webhook', config: { format: 'ntfy', url: internal.url } })).status).toBe(200);
    const refused = await as(admin, 'push.createChannel', { name: 'local ntfy', type: 'webhook', config: { format: 'ntfy', url: internal.url } });
    expectRefusal(refused, commonErrors.rows.forbidden);
    expect(refused.message).toMatch(/network\.localDestinations/);
    // An admin cannot allow themselves.
    const selfAllowed = await as(admin, 'settings.update', { network: { localDestinations: 'ownerAndAdmins' } });
    expectRefusal(selfAllowed, apiErrors.rows.ownerOnly);
    expect(selfAllowed.data).toMatchObject({ field: 'params.network.localDestinations' });
    expect((await t.call('settings.get', {})).data.network.localDestinations).toBe('owner');
    expect((await t.call('settings.update', { network: { localDestinations: 'ownerAndAdmins' } })).status).toBe(200);
    const allowed = await as(admin, 'push.createChannel', { name: 'local ntfy', type: 'webhook', config: { format: 'ntfy', url: internal.url } });
    expect(allowed.status).toBe(200);
    // Members stay on the internet whatever the setting says.
    expectRefusal(await as(member, 'push.createChannel', { name: 'local ntfy', type: 'webhook', config: { format: 'ntfy', url: internal.url } }), commonErrors.rows.forbidden);

    // The admin's channel works while allowed…
    const app = (await as(admin, 'push.createApp', { name: 'local', channelId: allowed.data.id })).data;
    expect((await as(admin, 'push.addRecipient', { appId: app.id, address: 'alerts', name: 'alerts' })).status).toBe(200);
    const sent = await t.push(`/send/${app.appKey}`, { query: { title: 'allowed' } });
    expect(sent.body.data.results[0]).toMatchObject({ ok: true });
    expect(internalHits.length).toBe(1);

    // …and is refused at delivery once the owner takes the permission back (checked on every connection, not only when saved).
    expect((await t.call('settings.update', { network: { localDestinations: 'owner' } })).status).toBe(200);
    internalHits.length = 0;
    const again = await t.push(`/send/${app.appKey}`, { query: { title: 'no longer' } });
    expect(again.body.data.results[0]).toMatchObject({ ok: false, class: 'systemic' });
    expect(again.body.data.results[0].errmsg).toMatch(/this computer or the local network/);
    const tested = await as(admin, 'push.testChannel', { id: allowed.data.id });
    expect(tested.data).toMatchObject({ ok: false });
    expect(tested.data.message).toMatch(/this computer or the local network/);
    expect(internalHits).toEqual([]);
  });
});
