import { createHmac } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock';
import { FakeDingtalk } from '../../test-support/fakes/fake-robot';
import type { OutgoingMessage } from './driver';
import { dingtalkChannel, dingtalkMessage, dingtalkSign, dingtalkUrl, DINGTALK_TEXT_MAX_BYTES } from './dingtalk';
import { channelBed, NOW, outgoing, PLAIN_APP as app, useFake } from '../tests/channel-bed';

/**
 * The DingTalk robot driver on its own: signing (加签), rendering, and what is DingTalk's own in
 * delivery to the fake DingTalk. What every robot channel does is in robot-channels.test.ts.
 */

const TOKEN = 'b3c1f0e9d8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1';
const SECRET = 'SEC0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd';
const message = outgoing();

describe('dingtalk config', () => {
  it('takes an optional SEC… signing secret, trimmed (the URL checks are in robot-channels.test.ts)', () => {
    expect(dingtalkChannel.normalize({ webhookUrl: `http://127.0.0.1:9/robot/send?access_token=${TOKEN}`, signingSecret: ` ${SECRET} ` }).signingSecret).toBe(SECRET);
  });
});

describe('dingtalk signing and messages', () => {
  it('signs like DingTalk’s own sample: HmacSHA256(secret, timestamp\\nsecret), base64, URL-encoded in the query', () => {
    const expected = createHmac('sha256', SECRET).update(`${NOW}\n${SECRET}`).digest('base64');
    expect(dingtalkSign(SECRET, NOW)).toBe(expected);
    const url = new URL(dingtalkUrl({ webhookUrl: `https://oapi.dingtalk.com/robot/send?access_token=${TOKEN}`, signingSecret: SECRET }, NOW));
    expect(url.searchParams.get('access_token')).toBe(TOKEN);
    expect(url.searchParams.get('timestamp')).toBe(String(NOW));
    expect(url.searchParams.get('sign')).toBe(expected);
    expect(url.search).toContain(`sign=${encodeURIComponent(expected)}`);
    expect(dingtalkUrl({ webhookUrl: 'https://oapi.dingtalk.com/robot/send?access_token=x1234567', signingSecret: '' }, NOW)).toBe(
      'https://oapi.dingtalk.com/robot/send?access_token=x1234567',
    );
  });

  it('renders Markdown: title (grouped, coloured by priority) as heading and notification title, desp, Details link; urgent mentions all', () => {
    const push = dingtalkChannel.render(message, app);
    expect(dingtalkMessage(push)).toEqual({
      msgtype: 'markdown',
      markdown: { title: 'Backup finished', text: '#### Backup finished\n\nAll **3** jobs OK\n\n[Details](https://pp.example.net/m/token)' },
    });
    expect(dingtalkMessage({ ...push, priority: 'urgent', group: 'nightly' })).toEqual({
      msgtype: 'markdown',
      markdown: { title: '[nightly] Backup finished', text: expect.stringMatching(/^#### <font color="#d9363e">\[nightly\] Backup finished<\/font>\n\n/) },
      at: { isAtAll: true },
    });
    expect(dingtalkMessage({ ...push, priority: 'low' }).markdown.text).toMatch(/^#### <font color="#8c8c8c">/);
    const long = dingtalkMessage({ ...push, desp: '温度'.repeat(5000) });
    expect(Buffer.byteLength(long.markdown.text)).toBeLessThanOrEqual(DINGTALK_TEXT_MAX_BYTES);
    expect(long.markdown.text).toMatch(/…\n\n\[Details\]\(https:\/\/pp\.example\.net\/m\/token\)$/);
  });
});

describe('dingtalk delivery (fake DingTalk)', () => {
  const fake = new FakeDingtalk(() => NOW);
  const bed = channelBed(dingtalkChannel, { clock: new ManualClock(NOW) });
  let signed: ReturnType<typeof dingtalkChannel.normalize>;
  const send = (config = signed, changes: Partial<OutgoingMessage> = {}) => bed.send(config, outgoing(changes));
  useFake(fake);
  beforeAll(() => {
    fake.robots.set(TOKEN, { secret: SECRET });
    fake.robots.set('plainrobot01', {});
    fake.robots.set('keywordrobot', { keywords: ['告警'] });
    signed = dingtalkChannel.normalize({ webhookUrl: fake.hook(TOKEN), signingSecret: SECRET });
  });

  it('posts a signed message that the fake verifies; an unsigned robot gets it without signature', async () => {
    expect(await send()).toEqual({ ok: true });
    expect(await send(dingtalkChannel.normalize({ webhookUrl: fake.hook('plainrobot01') }), { priority: 'urgent' })).toEqual({ ok: true });
    expect(fake.sent).toEqual([
      { token: TOKEN, title: 'Backup finished', text: expect.stringMatching(/^#### Backup finished/), atAll: false },
      { token: 'plainrobot01', title: 'Backup finished', text: expect.any(String), atAll: true },
    ]);
  });

  it('custom keywords missing: 310000 with the keyword hint', async () => {
    const keyword = dingtalkChannel.normalize({ webhookUrl: fake.hook('keywordrobot') });
    expect(await send(keyword)).toMatchObject({ ok: false, cls: 'systemic', errcode: 310000, message: expect.stringMatching(/custom keywords \(自定义关键词\)/) });
    expect(await send(keyword, { title: '告警: disk full' })).toEqual({ ok: true });
  });

  it('other answers: group errcodes systemic, busy transient, IP hint', async () => {
    fake.steps.push({ errcode: 400013, errmsg: '群已被解散' }, { errcode: 310000, errmsg: 'ip 203.0.113.9 not in whitelist' }, { errcode: -1, errmsg: '系统繁忙' });
    expect(await send()).toMatchObject({ cls: 'systemic', errcode: 400013, message: expect.stringMatching(/disbanded/) });
    expect(await send()).toMatchObject({ cls: 'systemic', errcode: 310000, message: expect.stringMatching(/allows only some IP addresses/) });
    expect(await send()).toMatchObject({ cls: 'transient', errcode: -1 });
  });
});
