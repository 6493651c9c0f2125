import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../lib/clock';
import { FakeWechatMp } from '../../test-support/fakes/fake-wechat-mp';
import { DesktopHub } from '../desktop';
import type { AppForm } from './driver';
import { wechatChannel } from './wechat';
import { withOutbound } from '../tests/channel-env';
import { outgoing, refusal } from '../tests/channel-bed';

/** The WeChat driver on its own: config, rendering, and delivery against the protocol fake. */

const message = outgoing({ appName: 'Alerts', title: 'Disk almost full', desp: '/var is 91% full', time: new Date(2026, 0, 5, 9, 30, 0).getTime() });
const custom: AppForm = { messageType: 'custom', templateId: '', templateFields: {} };

describe('wechat config', () => {
  it('completes a config (default API base and token mode) and trims what was typed', () => {
    expect(wechatChannel.normalize({ appId: ' wx0123456789abcdef ', appSecret: ' secret-value-1234 ' })).toEqual({
      appId: 'wx0123456789abcdef',
      appSecret: 'secret-value-1234',
      apiBase: 'https://api.weixin.qq.com',
      tokenMode: 'stable',
    });
    expect(wechatChannel.normalize({ appId: 'wx1', appSecret: 's', apiBase: 'http://127.0.0.1:9', tokenMode: 'classic' }).tokenMode).toBe('classic');
  });

  it('refuses a missing AppID or AppSecret and a non-http API base, naming the field in domain terms', () => {
    const noId = refusal(() => wechatChannel.normalize({ appSecret: 'x' }));
    expect([noId.status, noId.field, noId.message]).toEqual([400, 'config.appId', expect.stringMatching(/appId is required/)]);
    expect(refusal(() => wechatChannel.normalize({ appId: 'wx1' })).field).toBe('config.appSecret');
    expect(refusal(() => wechatChannel.normalize({ appId: 'wx1', appSecret: 's', apiBase: 'ftp://x' })).message).toMatch(/apiBase must be an http\(s\) URL/);
  });

  it('masks the AppSecret, and its destination is the normalised API base', () => {
    const config = wechatChannel.normalize({ appId: 'wx1', appSecret: 'supersecretappsecret0123456789ab' });
    expect(wechatChannel.mask(config)).toEqual({ ...config, appSecret: '••••89ab' });
    expect(wechatChannel.destination(config)).toBe(wechatChannel.destination({ ...config, apiBase: 'HTTPS://api.weixin.qq.com/' }));
    expect(wechatChannel.destination(config)).not.toBe(wechatChannel.destination({ ...config, apiBase: 'https://proxy.example.net' }));
    expect(wechatChannel.secrets).toEqual({ appSecret: 'AppSecret' });
  });

  it('takes openids as recipient addresses', () => {
    const config = wechatChannel.normalize({ appId: 'wx1', appSecret: 's' });
    expect(() => wechatChannel.checkAddress(config, 'oUser_openid_0001')).not.toThrow();
    expect(refusal(() => wechatChannel.checkAddress(config, 'bad openid!')).field).toBe('address');
    expect(wechatChannel.recipientLabel(config, 'oUser_openid_0001')).toBe('oUser_openid_0001');
  });
});

describe('wechat rendering', () => {
  it('custom messages: title, text and the page link; long text is cut to what WeChat shows, the link stays', () => {
    expect(wechatChannel.render(message, custom)).toEqual({ kind: 'custom', content: 'Disk almost full\n\n/var is 91% full\n\nhttps://pp.example.net/m/token' });
    const long = wechatChannel.render({ ...message, desp: '很长的消息'.repeat(400) }, custom);
    expect(long.kind === 'custom' && Buffer.byteLength(long.content) <= 1800).toBe(true);
    expect(long.kind === 'custom' && long.content.endsWith('…\n\nhttps://pp.example.net/m/token')).toBe(true);
    expect(wechatChannel.render({ ...message, desp: '', url: undefined }, custom)).toEqual({ kind: 'custom', content: 'Disk almost full' });
  });

  it('template messages: the data keys the app names, with the send time, and the url of the message page', () => {
    const rendered = wechatChannel.render(message, { messageType: 'template', templateId: 'TPL1', templateFields: { title: 'thing1', desp: 'thing3', time: '' } });
    expect(rendered).toEqual({
      kind: 'template',
      templateId: 'TPL1',
      url: 'https://pp.example.net/m/token',
      data: { thing1: { value: 'Disk almost full' }, thing3: { value: '/var is 91% full' } },
    });
    const withTime = wechatChannel.render(message, { messageType: 'template', templateId: 'TPL1', templateFields: { time: 'time2' } });
    expect(withTime.kind === 'template' && withTime.data.time2).toEqual({ value: '2026-01-05 09:30:00' });
  });

  it('template values as WeChat shows them since 2023-05-04: one line of at most 20 characters, cut with …', () => {
    const long = { ...message, title: 'Nightly backup of\nthe photo library failed', desp: '## Cause\n\nThe disk **/mnt/photos** is full:\n98% used' };
    const rendered = wechatChannel.render(long, { messageType: 'template', templateId: 'TPL1', templateFields: { title: 'thing1', desp: 'thing3', time: 'time2' } });
    expect(rendered).toEqual({
      kind: 'template',
      templateId: 'TPL1',
      url: 'https://pp.example.net/m/token',
      data: { thing1: { value: 'Nightly backup of t…' }, thing3: { value: 'Cause The disk /mnt…' }, time2: { value: '2026-01-05 09:30:00' } },
    });
    if (rendered.kind !== 'template') throw new Error('expected a template message');
    for (const { value } of Object.values(rendered.data)) {
      expect(Array.from(value).length).toBeLessThanOrEqual(20);
      expect(value).not.toMatch(/[\r\n]/);
    }
    // Without a public base URL there is no page to link to.
    expect(wechatChannel.render({ ...long, url: undefined }, { messageType: 'template', templateId: 'TPL1', templateFields: { title: 'thing1' } })).not.toHaveProperty('url');
  });
});

describe('wechat delivery (fake Official Account)', () => {
  let wx: FakeWechatMp;
  const channel = { id: 'c1', name: 'My OA', userId: 'u1' };
  beforeAll(async () => {
    wx = await new FakeWechatMp().start();
  });
  afterAll(() => wx.close());
  beforeEach(() => wx.reset());

  const configOf = (appSecret = wx.appSecret) => wechatChannel.normalize({ appId: wx.appId, appSecret, apiBase: wx.url });
  const recipient = (address: string) => ({ label: address, address });

  it('fetches one token for everyone, sends, and gets a fresh token once when WeChat refuses the cached one', async () => {
    const link = wechatChannel.connect(withOutbound({ clock: systemClock, desktop: new DesktopHub() }));
    const delivery = link.delivery(channel, configOf(), wechatChannel.render(message, custom));
    expect(await delivery.prepare?.(1000)).toBeNull();
    expect(await delivery.send(recipient('openid_a'), 1000)).toMatchObject({ ok: true });
    expect(wx.sentTo('openid_a').map((m) => m.content)).toEqual(['Disk almost full\n\n/var is 91% full\n\nhttps://pp.example.net/m/token']);
    wx.revokeTokens();
    expect(await delivery.send(recipient('openid_b'), 1000)).toMatchObject({ ok: true });
    expect(wx.calls.stable).toBe(2);
  });

  it('classifies refusals: a recipient who does not follow, wrong credentials for everyone', async () => {
    const link = wechatChannel.connect(withOutbound({ clock: systemClock, desktop: new DesktopHub() }));
    wx.setAlways('openid_gone', { errcode: 43004 });
    const delivery = link.delivery(channel, configOf(), wechatChannel.render(message, custom));
    expect(await delivery.send(recipient('openid_gone'), 1000)).toMatchObject({ ok: false, cls: 'recipient', errcode: 43004 });
    const wrong = link.delivery({ ...channel, id: 'c2' }, configOf('wrong-secret-value'), wechatChannel.render(message, custom));
    expect(await wrong.prepare?.(1000)).toMatchObject({ cls: 'systemic', errcode: 40125 });
  });

  it('tests a channel: a token alone, or a test message to one openid; forget drops the cached token', async () => {
    const link = wechatChannel.connect(withOutbound({ clock: systemClock, desktop: new DesktopHub() }));
    expect(await link.test(channel, configOf(), { timeoutMs: 1000, time: message.time })).toEqual({ ok: true, message: expect.stringMatching(/issued an access token/) });
    expect(await link.test(channel, configOf(), { address: 'openid_t', timeoutMs: 1000, time: message.time })).toMatchObject({ ok: true });
    expect(wx.sentTo('openid_t')[0]?.content).toBe('PennyPost test message\n\nThis is a test of the channel "My OA", sent 2026-01-05 09:30:00.');
    const before = wx.calls.stable;
    link.forget?.(channel.id);
    await link.test(channel, configOf(), { timeoutMs: 1000, time: message.time });
    expect(wx.calls.stable).toBe(before + 1);
  });
});
