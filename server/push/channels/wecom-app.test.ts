import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../lib/clock';
import { FakeWecomApp } from '../../test-support/fakes/fake-wecom-app';
import { DesktopHub } from '../desktop';
import { withOutbound } from '../tests/channel-env';
import type { OutgoingMessage, Recipient } from './driver';
import { TEXTCARD_DESCRIPTION_MAX_BYTES, TEXTCARD_TITLE_MAX_BYTES, WECOM_APP_TEXT_MAX_BYTES, wecomAppChannel, wecomAppMessage, type WecomAppPush } from './wecom-app';
import { sendFailure } from './wecom-app-api';
import { outgoing, PLAIN_APP as app, refusal } from '../tests/channel-bed';

/** The WeCom application driver on its own: config, addresses, the three message forms, and delivery to the fake WeCom. */

const message = outgoing({ time: new Date(2026, 0, 5, 9, 30, 0).getTime() });
const channel = { id: 'c1', name: 'WeCom app', userId: 'u1' };
const push = (extra: Partial<OutgoingMessage> = {}): WecomAppPush => wecomAppChannel.render({ ...message, ...extra }, app);

describe('wecom-app config', () => {
  const base = { corpId: 'ww0123456789abcdef', agentId: 1000002, corpSecret: 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcde' };

  it('completes a config (WeCom’s own API address, text cards) and trims what was typed', () => {
    expect(wecomAppChannel.normalize({ ...base, corpId: ' ww0123456789abcdef ', agentId: '1000002' })).toEqual({
      ...base,
      wecomApiBase: 'https://qyapi.weixin.qq.com',
      wecomAppFormat: 'textcard',
    });
    expect(wecomAppChannel.normalize({ ...base, wecomApiBase: 'http://127.0.0.1:9/wecom', wecomAppFormat: 'markdown' })).toMatchObject({
      wecomApiBase: 'http://127.0.0.1:9/wecom',
      wecomAppFormat: 'markdown',
    });
  });

  it('refuses what is missing or malformed, naming the field', () => {
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ ...base, corpId: '' }, 'config.corpId', /corpId is required: the Corp ID/],
      [{ ...base, agentId: undefined }, 'config.agentId', /agentId is required: the app's AgentId, a number/],
      [{ ...base, agentId: 0 }, 'config.agentId', /agentId/],
      [{ ...base, agentId: '10x' }, 'config.agentId', /agentId/],
      [{ ...base, agentId: 1.5 }, 'config.agentId', /agentId/],
      [{ ...base, corpSecret: '' }, 'config.corpSecret', /corpSecret is required/],
      [{ ...base, wecomApiBase: 'https://qyapi.weixin.qq.com/?x=1' }, 'config.wecomApiBase', /plain base URL/],
      [{ ...base, wecomApiBase: 'ftp://x' }, 'config.wecomApiBase', /must be an http\(s\) URL/],
      [{ ...base, wecomAppFormat: 'news' }, 'config.wecomAppFormat', /"textcard", "text" or "markdown"/],
    ];
    for (const [input, field, pattern] of cases) {
      const error = refusal(() => wecomAppChannel.normalize(input));
      expect([error.status, error.field], field).toEqual([400, field]);
      expect(error.message).toMatch(pattern);
    }
  });

  it('masks the Secret; the API address is the destination, checked by the outbound policy', () => {
    const config = wecomAppChannel.normalize(base);
    expect(wecomAppChannel.mask(config)).toEqual({ ...config, corpSecret: '••••bcde' });
    expect(wecomAppChannel.secrets).toEqual({ corpSecret: 'Secret' });
    expect(wecomAppChannel.movedBy).toEqual(['wecomApiBase']);
    expect(wecomAppChannel.destination(config)).toBe(wecomAppChannel.destination({ ...config, wecomApiBase: 'HTTPS://qyapi.weixin.qq.com/' }));
    expect(wecomAppChannel.destination(config)).not.toBe(wecomAppChannel.destination({ ...config, wecomApiBase: 'https://proxy.example.net' }));
    expect(wecomAppChannel.endpoints(config)).toEqual([{ field: 'config.wecomApiBase', host: 'qyapi.weixin.qq.com', port: 443 }]);
  });

  it("takes members' accounts (userid) and @all as recipients", () => {
    const config = wecomAppChannel.normalize(base);
    for (const address of ['ZhangSan', 'li.si', 'wang_wu-2', 'a@b.c', '@all', '1'.repeat(64)]) expect(() => wecomAppChannel.checkAddress(config, address), address).not.toThrow();
    for (const address of ['', '@ALL', 'a|b', '_x', 'has space', '1'.repeat(65), '张三']) {
      expect(refusal(() => wecomAppChannel.checkAddress(config, address)).field, address).toBe('address');
    }
  });
});

describe('wecom-app messages', () => {
  it('a text card: the title, what the push is and when, the desp as plain words, the message page as its link', () => {
    expect(wecomAppMessage('textcard', push())).toEqual({
      msgtype: 'textcard',
      textcard: {
        title: 'Backup finished',
        description: '<div class="gray">Backups · 2026-01-05 09:30:00</div><div class="normal">All 3 jobs OK</div>',
        url: 'https://pp.example.net/m/token',
      },
    });
    const urgent = wecomAppMessage('textcard', push({ priority: 'urgent', group: 'nas', desp: '<script>x</script> & more' }));
    expect(urgent).toMatchObject({
      textcard: { title: '[nas] Backup finished', description: expect.stringContaining('<div class="highlight">&lt;script&gt;x&lt;/script&gt; &amp; more</div>') },
    });
  });

  it('a text card stays within WeCom’s limits: a one-line title of 128 bytes, a description of 512 bytes cut with …', () => {
    const card = wecomAppMessage('textcard', push({ title: '标题\n'.repeat(100), desp: '很长的消息 & more '.repeat(200) }));
    if (card.msgtype !== 'textcard') throw new Error('expected a text card');
    expect(Buffer.byteLength(card.textcard.title)).toBeLessThanOrEqual(TEXTCARD_TITLE_MAX_BYTES);
    expect(card.textcard.title).not.toContain('\n');
    expect(Buffer.byteLength(card.textcard.description)).toBeLessThanOrEqual(TEXTCARD_DESCRIPTION_MAX_BYTES);
    expect(card.textcard.description).toMatch(/…<\/div>$/);
    expect(card.textcard.description).not.toMatch(/&[a-z]*…/);
  });

  it('text when asked for, and instead of a card when there is no page to link to (no public base URL)', () => {
    expect(wecomAppMessage('text', push())).toEqual({ msgtype: 'text', text: { content: 'Backup finished\n\nAll 3 jobs OK\n\nhttps://pp.example.net/m/token' } });
    expect(wecomAppMessage('textcard', push({ url: undefined }))).toEqual({ msgtype: 'text', text: { content: 'Backup finished\n\nAll 3 jobs OK' } });
    const long = wecomAppMessage('text', push({ desp: '很长的消息'.repeat(500) }));
    expect(long.msgtype === 'text' && Buffer.byteLength(long.text.content) <= WECOM_APP_TEXT_MAX_BYTES).toBe(true);
    expect(long.msgtype === 'text' && long.text.content.endsWith('…\n\nhttps://pp.example.net/m/token')).toBe(true);
  });

  it('Markdown with the title coloured by priority and a Details link', () => {
    expect(wecomAppMessage('markdown', push({ priority: 'high' }))).toEqual({
      msgtype: 'markdown',
      markdown: { content: '<font color="warning">**Backup finished**</font>\n\nAll **3** jobs OK\n\n[Details](https://pp.example.net/m/token)' },
    });
  });
});

describe('wecom-app errcodes', () => {
  it('classifies WeCom’s answers: transient, systemic (what to fix), or this recipient', () => {
    const cases: Array<[number, string, RegExp, boolean?]> = [
      [-1, 'transient', /busy/],
      [45033, 'transient', /too many calls/],
      [45009, 'transient', /limit/, false],
      [60020, 'systemic', /trusted IPs/],
      [40056, 'systemic', /agentId/],
      [301002, 'systemic', /different apps/],
      [48002, 'systemic', /visible range/],
      [40008, 'systemic', /wecomAppFormat/],
      [81013, 'recipient', /no such member/],
      [40003, 'recipient', /userid/],
      [45002, 'recipient', /content/],
      [12345, 'recipient', /refused this message \(errcode 12345\)/],
    ];
    for (const [errcode, cls, pattern, retryable] of cases) {
      const outcome = sendFailure(errcode, 'said by WeCom');
      expect(outcome, String(errcode)).toMatchObject({ ok: false, cls, errcode });
      expect(outcome.message, String(errcode)).toMatch(pattern);
      expect(outcome.message).toMatch(/\(WeCom: said by WeCom\)\.$/);
      expect(outcome.retryable, String(errcode)).toBe(retryable);
    }
  });
});

describe('wecom-app delivery (fake WeCom)', () => {
  let wecom: FakeWecomApp;
  beforeAll(async () => {
    wecom = await new FakeWecomApp().start();
  });
  afterAll(() => wecom.close());
  beforeEach(() => {
    wecom.reset();
    wecom.members.clear();
    wecom.unlicensed.clear();
    for (const member of ['ZhangSan', 'lisi', 'wangwu', 'zhaoliu']) wecom.members.add(member);
  });

  const configOf = (extra: Record<string, unknown> = {}) =>
    wecomAppChannel.normalize({ corpId: wecom.corpId, agentId: wecom.agentId, corpSecret: wecom.secret, wecomApiBase: wecom.url, ...extra });
  const recipient = (address: string): Recipient => ({ label: address, address });
  const connect = () => wecomAppChannel.connect(withOutbound({ clock: systemClock, desktop: new DesktopHub() }));

  it('sends many members one call (touser joined with |), each with its own result; @all goes in a call of its own', async () => {
    const link = connect();
    wecom.unlicensed.add('wangwu');
    const delivery = link.delivery(channel, configOf(), push());
    expect(await delivery.prepare?.(1000)).toBeNull();
    const outcomes = await delivery.sendBatch?.(['zhangsan', 'lisi', 'ghost', 'wangwu', '@all'].map(recipient), 1000);
    expect(outcomes).toEqual([
      { ok: true, msgId: expect.stringMatching(/^fake_msgid_/) },
      { ok: true, msgId: expect.stringMatching(/^fake_msgid_/) },
      { ok: false, cls: 'recipient', message: expect.stringMatching(/knows no member with this account/) },
      { ok: false, cls: 'recipient', message: expect.stringMatching(/no WeCom API licence/) },
      { ok: true, msgId: expect.stringMatching(/^fake_msgid_/) },
    ]);
    expect(wecom.sent.map((m) => m.touser)).toEqual(['@all', 'zhangsan|lisi|ghost|wangwu']);
    expect(wecom.sent[1]).toMatchObject({ msgtype: 'textcard', agentid: wecom.agentId, to: ['zhangsan', 'lisi'] });
    expect(wecom.calls.token).toBe(1);
    expect(delivery.batchMax).toBe(1000);
  });

  it('at most 1,000 members a call', async () => {
    for (let i = 0; i < 1500; i++) wecom.members.add(`m${i}`);
    const delivery = connect().delivery(channel, configOf({ wecomAppFormat: 'text' }), push());
    const outcomes = await delivery.sendBatch?.(
      Array.from({ length: 1500 }, (_, i) => recipient(`m${i}`)),
      2000,
    );
    expect(outcomes?.every((o) => o.ok)).toBe(true);
    expect(wecom.sent.map((m) => m.touser.split('|').length)).toEqual([1000, 500]);
  });

  it('caches the access token; an expired or ended token gets one fresh token and one more try', async () => {
    const link = connect();
    const delivery = link.delivery(channel, configOf({ wecomAppFormat: 'text' }), push());
    expect(await delivery.send(recipient('lisi'), 1000)).toMatchObject({ ok: true });
    expect(await delivery.send(recipient('lisi'), 1000)).toMatchObject({ ok: true });
    expect(wecom.calls.token).toBe(1);
    wecom.expireTokens();
    expect(await delivery.send(recipient('lisi'), 1000)).toMatchObject({ ok: true });
    expect(wecom.calls.token).toBe(2);
    wecom.revokeTokens();
    expect(await delivery.send(recipient('lisi'), 1000)).toMatchObject({ ok: true });
    expect(wecom.calls.token).toBe(3);
    expect(wecom.sentTo('lisi')).toHaveLength(4);
    expect(wecom.sent[0]?.content).toBe('Backup finished\n\nAll 3 jobs OK\n\nhttps://pp.example.net/m/token');
  });

  it('a wrong secret or an untrusted IP fails everyone (systemic) with what to fix; 81013 fails the call’s members', async () => {
    const link = connect();
    const wrong = link.delivery({ ...channel, id: 'c2' }, configOf({ corpSecret: 'wrong-secret-0123456789' }), push());
    expect(await wrong.prepare?.(1000)).toMatchObject({
      cls: 'systemic',
      errcode: 40001,
      message: expect.stringMatching(/WeCom refused the secret: check the channel's corpSecret/),
    });
    wecom.tokenAlways = 60020;
    const ip = link.delivery({ ...channel, id: 'c3' }, configOf(), push());
    const failure = await ip.prepare?.(1000);
    expect(failure).toMatchObject({ cls: 'systemic', errcode: 60020, message: expect.stringMatching(/trusted IPs/) });
    expect(failure?.message).not.toContain(wecom.secret);
    wecom.tokenAlways = null;
    const none = link.delivery(channel, configOf(), push());
    expect(await none.sendBatch?.([recipient('ghost1'), recipient('ghost2')], 1000)).toEqual([
      expect.objectContaining({ ok: false, cls: 'recipient', errcode: 81013 }),
      expect.objectContaining({ ok: false, cls: 'recipient', errcode: 81013 }),
    ]);
    const otherApp = link.delivery(channel, configOf({ agentId: 1000003 }), push());
    expect(await otherApp.send(recipient('lisi'), 1000)).toMatchObject({ ok: false, cls: 'systemic', errcode: 301002 });
  });

  it('tests a channel: the app’s name (the AgentId belongs to the Secret), or a test message to one member', async () => {
    const link = connect();
    expect(await link.test(channel, configOf(), { timeoutMs: 1000, time: message.time })).toEqual({
      ok: true,
      message: 'WeCom accepted the corp ID and the Secret of the app "PennyPost alerts" (AgentId 1000002).',
    });
    expect(await link.test(channel, configOf({ agentId: 1000009 }), { timeoutMs: 1000, time: message.time })).toMatchObject({
      ok: false,
      class: 'systemic',
      errcode: 301002,
    });
    expect(await link.test(channel, configOf(), { address: 'ZhangSan', timeoutMs: 1000, time: message.time })).toMatchObject({ ok: true });
    expect(wecom.sentTo('zhangsan')[0]).toMatchObject({
      msgtype: 'text',
      content: 'PennyPost test message\n\nThis is a test of the channel "WeCom app", sent 2026-01-05 09:30:00.',
    });
    expect(await link.test(channel, configOf(), { address: 'nobody', timeoutMs: 1000, time: message.time })).toMatchObject({ ok: false, class: 'recipient', errcode: 81013 });
    const before = wecom.calls.token;
    wecom.revokeTokens();
    link.forget?.(channel.id);
    await link.test(channel, configOf(), { timeoutMs: 1000, time: message.time });
    expect(wecom.calls.token).toBe(before + 1);
  });
});
