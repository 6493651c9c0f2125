import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser } from '../../test-support/test-server';
import { startPushServer, type PushTestServer } from './helpers';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { commonErrors } from '../../lib/errors';
import { pushErrors } from '../errors';
import { expectRefusal } from '../../test-support/refusal';

let t: PushTestServer;
beforeAll(async () => {
  t = await startPushServer();
});
afterAll(() => t.close());

const SECRET = 'supersecretappsecret0123456789ab';

describe('channels', () => {
  it('creates, lists, updates and deletes channels; secrets come back masked and are kept on update', async () => {
    const created = await t.call('push.createChannel', { name: 'My OA', type: 'wechat', config: { appId: 'wx1234567890abcdef', appSecret: SECRET } });
    expect(created.code).toBe(200);
    expect(created.data).toMatchObject({ name: 'My OA', type: 'wechat', config: { appId: 'wx1234567890abcdef', apiBase: 'https://api.weixin.qq.com', tokenMode: 'stable' } });
    expect(created.data.config.appSecret).toBe('••••89ab');
    expect(JSON.stringify(created)).not.toContain(SECRET);

    const renamed = await t.call('push.updateChannel', { id: created.data.id, name: 'Renamed', config: { appSecret: created.data.config.appSecret } });
    expect(renamed.code).toBe(200);
    expect(renamed.data.name).toBe('Renamed');
    expect(renamed.data.config.appSecret).toBe('••••89ab');
    const stored = t.server.app.services.push.targets.get(created.data.id)!;
    // Kept, and sealed at rest (AES-GCM with the data dir's push-secrets key).
    expect(stored.config.appSecret).toMatch(/^enc:v1:/);
    expect(String(stored.config.appSecret)).not.toContain(SECRET);
    expect(t.server.app.services.push.targets.openConfig(stored).appSecret).toBe(SECRET);
    const onDisk = readdirSync(path.join(t.dataDir, 'db')).map((f) => readFileSync(path.join(t.dataDir, 'db', f)));
    expect(onDisk.some((content) => content.includes(Buffer.from(SECRET)))).toBe(false);

    const changed = await t.call('push.updateChannel', { id: created.data.id, config: { appSecret: 'another-secret-zzzz' } });
    expect(changed.data.config.appSecret).toBe('••••zzzz');

    const webhook = await t.call('push.createChannel', { name: 'ntfy', type: 'webhook', config: { format: 'ntfy', token: 'tk_verysecrettoken1234' } });
    expect(webhook.data.config).toEqual({ url: '', format: 'ntfy', token: '••••1234', priority: 0 });

    const list = await t.call('push.queryChannels', {});
    expect(list.data.total).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(list)).not.toContain('verysecret');
    const onlyWebhooks = await t.call('push.queryChannels', { type: 'webhook' });
    expect(onlyWebhooks.data.list.every((c: any) => c.type === 'webhook')).toBe(true);

    expect((await t.call('push.deleteChannel', { id: webhook.data.id })).data).toEqual({ deleted: true });
    expectRefusal(await t.call('push.deleteChannel', { id: webhook.data.id }), pushErrors.rows.channelNotFound);
  });

  it('validates configs per type with plain messages', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ type: 'wechat', config: { appSecret: 'x' } }, /appId is required/],
      [{ type: 'wechat', config: { appId: 'wx1', appSecret: 's', apiBase: 'ftp://x' } }, /apiBase must be an http\(s\) URL/],
      [{ type: 'webhook', config: {} }, /format is required/],
      [{ type: 'webhook', config: { format: 'gotify' } }, /url is required for Gotify/],
      [{ type: 'desktop', config: { url: 'http://x' } }, /does not apply to a desktop channel/],
      [{ type: 'fax', config: {} }, /params.type must be one of/],
      [{ type: 'email', config: { smtpHost: 'smtp.example.net' } }, /fromAddress is required/],
      [{ type: 'wechat', config: { appId: 'wx1', appSecret: 's', extra: 1 } }, /unknown parameter params.config.extra/],
    ];
    for (const [params, message] of cases) {
      const answer = await t.call('push.createChannel', { name: 'x', ...params });
      expect(answer.code, JSON.stringify(params)).toBe(400);
      expect(answer.message).toMatch(message);
    }
    const desktop = await t.call('push.createChannel', { name: 'Desk', type: 'desktop' });
    const typeChange = await t.call('push.updateChannel', { id: desktop.data.id, type: 'wechat' });
    expectRefusal(typeChange, pushErrors.rows.typeIsFixed);
    expect(typeChange.message).toMatch(/type cannot change/);
  });

  it('refuses to delete a channel that apps use (409 naming them)', async () => {
    const { channelId } = await t.setup({ type: 'desktop' });
    const answer = await t.call('push.deleteChannel', { id: channelId });
    expectRefusal(answer, pushErrors.rows.channelInUse);
    expect(answer.message).toMatch(/used by 1 app \("Test app"\)/);
  });
});

describe('apps and recipients', () => {
  it('creates apps with a fresh PP key of the documented shape, resets it, and deletes the app with its recipients', async () => {
    const channel = await t.call('push.createChannel', { name: 'OA', type: 'wechat', config: { appId: 'wx1234567890abcdef', appSecret: SECRET } });
    const app = await t.call('push.createApp', { name: 'Alerts', channelId: channel.data.id });
    expect(app.code).toBe(200);
    expect(app.data).toMatchObject({ name: 'Alerts', channelType: 'wechat', messageType: 'custom', pushMode: 'all', recipientCount: 0 });
    expect(app.data.appKey).toMatch(/^PP[0-9A-Za-z]{24}$/);
    expect(app.data.sendUrl).toBe(`${t.url}/send/${app.data.appKey}`);
    const second = await t.call('push.createApp', { name: 'Other', channelId: channel.data.id });
    expect(second.data.appKey).not.toBe(app.data.appKey);

    const noTemplate = await t.call('push.createApp', { name: 'T', channelId: channel.data.id, messageType: 'template' });
    expectRefusal(noTemplate, pushErrors.rows.templateIdRequired);
    expect(noTemplate.message).toMatch(/templateId is required/);

    const r1 = await t.call('push.addRecipient', { appId: app.data.id, address: 'oUser_openid_0001', name: 'Me', remark: 'phone' });
    expect(r1.data).toMatchObject({ appId: app.data.id, address: 'oUser_openid_0001', name: 'Me', remark: 'phone' });
    expectRefusal(await t.call('push.addRecipient', { appId: app.data.id, address: 'oUser_openid_0001' }), pushErrors.rows.recipientExists);
    expectRefusal(await t.call('push.addRecipient', { appId: app.data.id, address: 'bad openid!' }), commonErrors.rows.invalid);
    await t.call('push.addRecipient', { appId: app.data.id, address: 'oUser_openid_0002' });
    const recipients = await t.call('push.queryRecipients', { appId: app.data.id });
    expect(recipients.data.list.map((r: any) => r.address)).toEqual(['oUser_openid_0001', 'oUser_openid_0002']);
    expect((await t.call('push.queryApps', {})).data.list.find((a: any) => a.id === app.data.id).recipientCount).toBe(2);

    const oldKey = app.data.appKey;
    const reset = await t.call('push.resetAppKey', { id: app.data.id });
    expect(reset.data.appKey).toMatch(/^PP[0-9A-Za-z]{24}$/);
    expect(reset.data.appKey).not.toBe(oldKey);
    expect((await t.push(`/send/${oldKey}`, { query: { title: 'x' } })).status).toBe(404);

    expect((await t.call('push.removeRecipient', { id: r1.data.id })).data).toEqual({ removed: true });
    expectRefusal(await t.call('push.removeRecipient', { id: r1.data.id }), pushErrors.rows.recipientNotFound);

    expect((await t.call('push.deleteApp', { id: app.data.id })).code).toBe(200);
    expectRefusal(await t.call('push.queryRecipients', { appId: app.data.id }), pushErrors.rows.appNotFound);
    expect((await t.push(`/send/${reset.data.appKey}`, { query: { title: 'x' } })).status).toBe(404);
  });

  it('checks recipient addresses per channel type and refuses recipients for desktop apps', async () => {
    const desktop = await t.setup({ type: 'desktop' });
    const refused = await t.call('push.addRecipient', { appId: desktop.appId, address: 'anything' });
    expectRefusal(refused, commonErrors.rows.invalid);
    expect(refused.message).toMatch(/need no recipients/);

    const gotify = await t.setup({ type: 'webhook', config: { format: 'gotify', url: 'http://127.0.0.1:9' } });
    const token = await t.call('push.addRecipient', { appId: gotify.appId, address: 'AbCdEfGhIjKl.mn' });
    expect(token.data.address).toBe('••••l.mn');
    const bark = await t.setup({ type: 'webhook', config: { format: 'bark' } });
    expect((await t.call('push.addRecipient', { appId: bark.appId, address: 'not a key' })).message).toMatch(/Bark address is the device key/);
    const json = await t.setup({ type: 'webhook', config: { format: 'json' } });
    expect((await t.call('push.addRecipient', { appId: json.appId, address: 'relative/path' })).message).toMatch(/must be a full http\(s\) URL/);
    expect((await t.call('push.addRecipient', { appId: json.appId, address: 'http://127.0.0.1:9/hook' })).code).toBe(200);
  });

  it("never shows or changes another account's channels, apps, recipients or messages", async () => {
    const mine = await t.setup({ type: 'webhook', config: { format: 'json' }, recipients: ['http://127.0.0.1:9/a'] });
    const other = await registerUser(t);
    const as = (action: string, params: unknown) => t.api(action, params, other.token);
    const recipientId = (await t.call('push.queryRecipients', { appId: mine.appId })).data.list[0].id;
    expectRefusal(await as('push.updateChannel', { id: mine.channelId, name: 'x' }), pushErrors.rows.channelNotFound);
    expectRefusal(await as('push.deleteChannel', { id: mine.channelId }), pushErrors.rows.channelNotFound);
    expectRefusal(await as('push.testChannel', { id: mine.channelId }), pushErrors.rows.channelNotFound);
    expectRefusal(await as('push.createApp', { name: 'x', channelId: mine.channelId }), pushErrors.rows.channelNotFound);
    expectRefusal(await as('push.updateApp', { id: mine.appId, name: 'x' }), pushErrors.rows.appNotFound);
    expectRefusal(await as('push.resetAppKey', { id: mine.appId }), pushErrors.rows.appNotFound);
    expectRefusal(await as('push.deleteApp', { id: mine.appId }), pushErrors.rows.appNotFound);
    expectRefusal(await as('push.queryRecipients', { appId: mine.appId }), pushErrors.rows.appNotFound);
    expectRefusal(await as('push.addRecipient', { appId: mine.appId, address: 'http://127.0.0.1:9/b' }), pushErrors.rows.appNotFound);
    expectRefusal(await as('push.removeRecipient', { id: recipientId }), pushErrors.rows.recipientNotFound);
    expect((await as('push.queryApps', {})).data.total).toBe(0);
    expect((await as('push.queryChannels', {})).data.total).toBe(0);
    expectRefusal(await as('push.queryMessages', { appId: mine.appId }), pushErrors.rows.appNotFound);
    const pushed = await t.push(`/send/${mine.appKey}`, { query: { title: 'mine' } });
    expectRefusal(await as('push.getMessage', { id: pushed.body.data.pushId }), pushErrors.rows.messageNotFound);
    expect((await t.call('push.getMessage', { id: pushed.body.data.pushId })).code).toBe(200);
    expectRefusal(await t.api('push.queryChannels', {}), commonErrors.rows.unauthorized);
  });
});
