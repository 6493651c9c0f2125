import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeWechatMp } from '../../test-support/fakes/fake-wechat-mp';
import { startPushServer, type PushTestServer } from './helpers';
import { commonErrors } from '../../lib/errors';
import { pushErrors } from '../errors';
import { expectRefusal } from '../../test-support/refusal';

let wx: FakeWechatMp;
let t: PushTestServer;

beforeAll(async () => {
  wx = await new FakeWechatMp().start();
  wx.templates.set('TPL', ['title', 'content', 'time']);
  t = await startPushServer({ settings: { network: { publicBaseUrl: 'http://192.168.1.20:5733' } } });
});
afterAll(async () => {
  await t.close();
  await wx.close();
});
beforeEach(() => wx.reset());

const wechat = () => ({ appId: wx.appId, appSecret: wx.appSecret, apiBase: wx.url });

describe('updating apps and channels', () => {
  it('changes message form, template and push mode; a template needs its templateId, recipients their channel type', async () => {
    const { appId, channelId } = await t.setup({ type: 'wechat', config: wechat(), recipients: ['openid_u1'] });
    const noTemplate = await t.call('push.updateApp', { id: appId, messageType: 'template' });
    expectRefusal(noTemplate, pushErrors.rows.templateIdRequired);
    expect(noTemplate.message).toMatch(/templateId is required/);
    const template = await t.call('push.updateApp', { id: appId, messageType: 'template', templateId: 'TPL', pushMode: 'first', name: 'Renamed' });
    expect(template.data).toMatchObject({ messageType: 'template', templateId: 'TPL', pushMode: 'first', name: 'Renamed', channelId });
    const desktop = await t.call('push.createChannel', { name: 'desk', type: 'desktop' });
    const move = await t.call('push.updateApp', { id: appId, channelId: desktop.data.id });
    expectRefusal(move, pushErrors.rows.recipientsNeedTheirChannelType);
    expect(move.message).toMatch(/Remove the recipients first/);
    const otherWechat = await t.call('push.createChannel', { name: 'OA 2', type: 'wechat', config: wechat() });
    expect((await t.call('push.updateApp', { id: appId, channelId: otherWechat.data.id })).data.channelId).toBe(otherWechat.data.id);
  });

  it('refuses to change a webhook format while its apps have recipients', async () => {
    const { channelId, appId } = await t.setup({ type: 'webhook', config: { format: 'ntfy' }, recipients: ['topic-a'] });
    const change = await t.call('push.updateChannel', { id: channelId, config: { format: 'bark' } });
    expectRefusal(change, commonErrors.rows.invalid);
    expect(change.message).toMatch(/remove them first/);
    const recipient = (await t.call('push.queryRecipients', { appId })).data.list[0];
    await t.call('push.removeRecipient', { id: recipient.id });
    expect((await t.call('push.updateChannel', { id: channelId, config: { format: 'bark' } })).data.config.format).toBe('bark');
  });
});

describe('message forms', () => {
  it("cuts long custom texts to WeChat's size and keeps the page link", async () => {
    const { appKey } = await t.setup({ type: 'wechat', config: wechat(), recipients: ['openid_long'] });
    const desp = '很长的消息'.repeat(1000);
    const res = await t.push(`/send/${appKey}`, { json: { title: 'Long', desp } });
    expect(res.body.data.success).toBe(1);
    const content = wx.sentTo('openid_long').at(0)!.content!;
    expect(Buffer.byteLength(content, 'utf8')).toBeLessThanOrEqual(1800);
    expect(content).toMatch(/^Long\n\n很长的消息/);
    expect(content).toMatch(/…\n\nhttp:\/\/192\.168\.1\.20:5733\/m\/\S+$/);
    // the page keeps the whole text
    const stored = await t.call('push.getMessage', { id: res.body.data.pushId });
    expect(stored.data.desp).toBe(desp);
  });
});

describe('deadline', () => {
  it('stops starting deliveries when the request deadline is reached and says so', async () => {
    const slow = await startPushServer({ settings: { push: { concurrency: 1, callTimeoutMs: 400, requestDeadlineMs: 500 } } });
    try {
      const { appKey } = await slow.setup({ type: 'wechat', config: wechat(), recipients: ['openid_d1', 'openid_d2', 'openid_d3'] });
      for (const openid of ['openid_d1', 'openid_d2', 'openid_d3']) wx.setAlways(openid, { delayMs: 2000 });
      const res = await slow.push(`/send/${appKey}`, { query: { title: 'too slow' } });
      expect(res.status).toBe(500);
      const results = res.body.data.results;
      expect(results.every((r: any) => r.class === 'transient' && !r.ok)).toBe(true);
      expect(results[0].errmsg).toMatch(/no answer within 400 ms/);
      expect(results[2]).toMatchObject({ attempts: 0, errmsg: expect.stringMatching(/reached its deadline/) });
    } finally {
      await slow.close();
    }
  });
});
