import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeWechatMp } from '../../test-support/fakes/fake-wechat-mp';
import { tempDataDir } from '../../test-support/test-server';
import { startPushServer, type PushTestServer } from './helpers';
import { commonErrors } from '../../lib/errors';
import { expectRefusal } from '../../test-support/refusal';

/**
 * WeChat template apps as WeChat shows templates since 2023-05-04 (no first/remark, 20 characters a
 * keyword on one line): the defaults come from the account's template list, a mapping is checked
 * against it when the app is saved, and the whole text is on the message page the template links to.
 */

const MODERN = '告警内容：{{thing1.DATA}}\n告警时间：{{time2.DATA}}\n告警详情：{{thing3.DATA}}';
const LEGACY = '{{first.DATA}}\n告警内容：{{keyword1.DATA}}\n发生时间：{{keyword2.DATA}}\n{{remark.DATA}}';

let wx: FakeWechatMp;
let t: PushTestServer;

beforeAll(async () => {
  wx = await new FakeWechatMp().start();
  t = await startPushServer({ settings: { push: { callTimeoutMs: 1000 }, network: { publicBaseUrl: 'https://pp.example.net' } } });
});
afterAll(async () => {
  await t.close();
  await wx.close();
});
beforeEach(() => {
  wx.reset();
  wx.templates.clear();
  wx.templateInfo.clear();
  wx.addTemplate('TPL_MODERN', MODERN, { title: '服务器告警', required: ['thing1', 'time2'] });
  wx.addTemplate('TPL_LEGACY', LEGACY, { title: '告警通知' });
  wx.templates.set('TPL_TEST', ['title', 'content', 'time']);
});

async function channel(): Promise<string> {
  const created = await t.call('push.createChannel', { name: 'OA', type: 'wechat', config: { appId: wx.appId, appSecret: wx.appSecret, apiBase: wx.url } });
  expect(created.code).toBe(200);
  return created.data.id;
}

async function appCount(): Promise<number> {
  return (await t.call('push.queryApps')).data.total;
}

describe('defaults follow the current rules', () => {
  it('maps title and time into keywords that show, cut to 20 characters on one line, and links the template to the whole text', async () => {
    const channelId = await channel();
    const app = await t.call('push.createApp', { name: 'Alerts', channelId, messageType: 'template', templateId: 'TPL_MODERN' });
    expect(app.code).toBe(200);
    expect(app.data.templateFields).toEqual({ title: 'thing1', desp: 'thing3', time: 'time2' });
    expect(wx.calls.list).toBe(1);
    await t.call('push.addRecipient', { appId: app.data.id, address: 'openid_alice' });

    const title = 'Nightly backup of the photo library failed\nagain';
    const desp = 'The disk **/mnt/photos** is full (98%).\n\nDelete old snapshots or add a disk.';
    const res = await t.push(`/send/${app.data.appKey}`, { json: { title, desp } });
    expect(res.body).toMatchObject({ code: 0, data: { success: 1 } });
    const sent = wx.sentTo('openid_alice').at(0)!;
    expect(sent.data).toEqual({
      thing1: { value: 'Nightly backup of t…' },
      thing3: { value: 'The disk /mnt/photo…' },
      time2: { value: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/) },
    });
    for (const { value } of Object.values(sent.data!)) {
      expect(Array.from(value).length).toBeLessThanOrEqual(20);
      expect(value).not.toMatch(/[\r\n]/);
    }
    // The template opens PennyPost's message page, which has every word.
    expect(sent.url).toBe(res.body.data.url);
    expect(new URL(sent.url!).origin).toBe('https://pp.example.net');
    const page = await (await t.fetch(new URL(sent.url!).pathname)).text();
    expect(page).toContain('Nightly backup of the photo library failed');
    expect(page).toContain('Delete old snapshots or add a disk.');
  });

  it('never maps into first or remark: an older template gets its keywords, the time found by its label', async () => {
    const channelId = await channel();
    const legacy = await t.call('push.createApp', { name: 'Legacy', channelId, messageType: 'template', templateId: 'TPL_LEGACY' });
    expect(legacy.data.templateFields).toEqual({ title: 'keyword1', desp: '', time: 'keyword2' });
    // A test account's free-form template keeps its own names.
    const test = await t.call('push.createApp', { name: 'Test account', channelId, messageType: 'template', templateId: 'TPL_TEST' });
    expect(test.data.templateFields).toEqual({ title: 'title', desp: 'content', time: 'time' });
  });
});

describe('the mapping is checked against the template list when the app is saved', () => {
  it('refuses a field the template does not have, naming it; nothing is saved', async () => {
    const channelId = await channel();
    const before = await appCount();
    const missing = await t.call('push.createApp', { name: 'X', channelId, messageType: 'template', templateId: 'TPL_MODERN', templateFields: { desp: 'keyword1' } });
    expectRefusal(missing, commonErrors.rows.invalid);
    expect(missing.data.field).toBe('params.templateFields.desp');
    expect(missing.message).toBe('params.templateFields.desp: the template TPL_MODERN ("服务器告警") has no field "keyword1"; its keywords are thing1, time2, thing3');
    const unknown = await t.call('push.createApp', { name: 'X', channelId, messageType: 'template', templateId: 'TPL_NOPE' });
    expect([unknown.status, unknown.data.field]).toEqual([400, 'params.templateId']);
    expect(unknown.message).toMatch(/has no template "TPL_NOPE"/);
    expect(await appCount()).toBe(before);
  });

  it('says when first or remark would not show', async () => {
    const channelId = await channel();
    const first = await t.call('push.createApp', {
      name: 'X',
      channelId,
      messageType: 'template',
      templateId: 'TPL_LEGACY',
      templateFields: { title: 'first', desp: 'keyword1', time: 'remark' },
    });
    expect([first.status, first.data.field]).toEqual([400, 'params.templateFields.title']);
    expect(first.message).toBe(
      'params.templateFields.title: WeChat has not shown a template\'s "first" field since 2023-05-04, so the title would not show; map it to one of the keywords that show: keyword1, keyword2',
    );
  });

  it('checks again when an app changes its template or mapping, keeping what still fits', async () => {
    const channelId = await channel();
    const app = await t.call('push.createApp', { name: 'Alerts', channelId, messageType: 'template', templateId: 'TPL_TEST' });
    const moved = await t.call('push.updateApp', { id: app.data.id, templateId: 'TPL_MODERN' });
    expect(moved.data).toMatchObject({ templateId: 'TPL_MODERN', templateFields: { title: 'thing1', desp: 'thing3', time: 'time2' } });
    const swapped = await t.call('push.updateApp', { id: app.data.id, templateFields: { title: 'thing3' } });
    expect(swapped.data.templateFields).toEqual({ title: 'thing3', desp: 'thing1', time: 'time2' });
    const bad = await t.call('push.updateApp', { id: app.data.id, templateFields: { time: 'remark' } });
    expect([bad.status, bad.data.field]).toEqual([400, 'params.templateFields.time']);
    expect((await t.call('push.queryApps')).data.list.find((a: any) => a.id === app.data.id).templateFields).toEqual({ title: 'thing3', desp: 'thing1', time: 'time2' });
    // A rename does not ask WeChat.
    const calls = wx.calls.list;
    await t.call('push.updateApp', { id: app.data.id, name: 'Renamed' });
    expect(wx.calls.list).toBe(calls);
  });

  it('when WeChat answers the template list with an error: says what to fix (400) or to try again (503), and saves nothing', async () => {
    const channelId = await channel();
    const before = await appCount();
    const save = () => t.call('push.createApp', { name: 'X', channelId, messageType: 'template', templateId: 'TPL_MODERN' });

    wx.listSteps = [{ errcode: 48001 }];
    const unauthorized = await save();
    expect([unauthorized.status, unauthorized.data.field, unauthorized.data.errcode]).toEqual([400, 'params.templateId', 48001]);
    expect(unauthorized.message).toMatch(
      /^PennyPost could not read the Official Account's template list to check the template, so the app was not saved: This Official Account may not use template messages/,
    );

    wx.listSteps = [{ errcode: -1 }];
    const busy = await save();
    expect([busy.status, busy.code, busy.data.errcode]).toEqual([503, 503, -1]);
    expect(busy.message).toMatch(/WeChat was busy.*Try again shortly\.$/);

    wx.listSteps = [{ status: 502 }];
    expectRefusal(await save(), commonErrors.rows.unavailable);

    wx.tokenAlways = 40164;
    wx.revokeTokens();
    const ip = await save();
    expect([ip.status, ip.data.errcode]).toEqual([400, 40164]);
    expect(ip.message).toMatch(/IP whitelist/);
    wx.tokenAlways = null;
    expect(await appCount()).toBe(before);

    // WeChat refusing the cached token gets one fresh token, then the list.
    wx.revokeTokens();
    const saved = await save();
    expect(saved.status).toBe(200);
    expect(await appCount()).toBe(before + 1);
  });

  it('custom apps and other channel types do not ask for a template list', async () => {
    const channelId = await channel();
    expect((await t.call('push.createApp', { name: 'Text', channelId })).status).toBe(200);
    const desktop = await t.call('push.createChannel', { name: 'Desk', type: 'desktop' });
    expect((await t.call('push.createApp', { name: 'Desk', channelId: desktop.data.id, messageType: 'template', templateId: 'X' })).status).toBe(200);
    expect(wx.calls.list).toBe(0);
  });
});

describe('a channel whose AppSecret this data folder can no longer open', () => {
  it('answers 400 asking for the secret again instead of asking WeChat with an empty one', async () => {
    const dataDir = tempDataDir();
    try {
      const first = await startPushServer({ dataDir });
      const { channelId } = await first.setup({ type: 'wechat', config: { appId: wx.appId, appSecret: wx.appSecret, apiBase: wx.url } });
      const owner = first.user.token;
      await first.close(true);
      const secrets = path.join(dataDir, 'secrets');
      for (const file of readdirSync(secrets)) if (file.startsWith('push-secrets')) rmSync(path.join(secrets, file));
      const second = await startPushServer({ dataDir });
      try {
        const answer = await second.api('push.createApp', { name: 'T', channelId, messageType: 'template', templateId: 'TPL_MODERN' }, owner);
        expect([answer.status, answer.data.field]).toEqual([400, 'params.channelId']);
        expect(answer.message).toMatch(/cannot open this channel's stored AppSecret .*Enter it again/);
        expect(wx.calls.stable + wx.calls.list).toBe(0);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
