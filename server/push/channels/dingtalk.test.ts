import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock';
import { DomainError } from '../../lib/errors';
import { FakeDingtalk } from '../../test-support/fakes/fake-robot';
import { DesktopHub } from '../desktop';
import type { OutgoingMessage } from './driver';
import { dingtalkChannel, dingtalkMessage, dingtalkSign, dingtalkUrl, DINGTALK_TEXT_MAX_BYTES } from './dingtalk';
import { withOutbound } from '../tests/channel-env';

/** The DingTalk robot driver on its own: config, signing (加签), masking, rendering, and delivery to the fake DingTalk. */

const TOKEN = 'b3c1f0e9d8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1';
const SECRET = 'SEC0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd';
const NOW = 1_767_000_000_000;
const message: OutgoingMessage = {
  id: 'm1',
  userId: 'u1',
  appId: 'a1',
  appName: 'Backups',
  title: 'Backup finished',
  desp: 'All **3** jobs OK',
  time: NOW,
  url: 'https://pp.example.net/m/token',
  pagePath: '/m/token',
  priority: 'normal',
  group: '',
};
const app = { messageType: '', templateId: '', templateFields: {} } as const;
const channel = { id: 'c1', name: 'Ops group', userId: 'u1' };

function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('dingtalk config', () => {
  const official = `https://oapi.dingtalk.com/robot/send?access_token=${TOKEN}`;

  it('takes the webhook URL and an optional SEC… signing secret', () => {
    expect(dingtalkChannel.normalize({ webhookUrl: official })).toEqual({ webhookUrl: official, signingSecret: '' });
    expect(dingtalkChannel.normalize({ webhookUrl: `http://127.0.0.1:9/robot/send?access_token=${TOKEN}`, signingSecret: ` ${SECRET} ` }).signingSecret).toBe(SECRET);
  });

  it('refuses what cannot work, naming the field', () => {
    expect(refusal(() => dingtalkChannel.normalize({ webhookUrl: 'https://oapi.dingtalk.com/robot/send' }))).toMatchObject({
      field: 'config.webhookUrl',
      message: expect.stringMatching(/shape of a DingTalk robot/),
    });
    expect(refusal(() => dingtalkChannel.normalize({ webhookUrl: 'https://open.feishu.cn/open-apis/bot/v2/hook/abcdefgh-1234' })).message).toMatch(/webhook URL of a Feishu robot/);
    expect(refusal(() => dingtalkChannel.normalize({ webhookUrl: `${official}&timestamp=1&sign=x` })).message).toMatch(/leave out timestamp and sign/);
    const secret = refusal(() => dingtalkChannel.normalize({ webhookUrl: official, signingSecret: 'not-a-secret' }));
    expect(secret).toMatchObject({ field: 'config.signingSecret', message: expect.stringMatching(/SEC followed by letters and digits/) });
    expect(secret.message).not.toContain('not-a-secret');
  });

  it('masks the URL (service shown, token not) and the secret; the URL is the destination', () => {
    const config = dingtalkChannel.normalize({ webhookUrl: official, signingSecret: SECRET });
    expect(dingtalkChannel.mask(config)).toEqual({ webhookUrl: '•••• oapi.dingtalk.com …b2c1', signingSecret: '••••abcd' });
    expect(dingtalkChannel.mask({ ...config, signingSecret: '' }).signingSecret).toBe('');
    expect(dingtalkChannel.secrets).toEqual({ webhookUrl: 'webhook URL', signingSecret: 'signing secret' });
    expect(dingtalkChannel.movedBy).toEqual(['webhookUrl']);
    expect(dingtalkChannel.destination(config)).toBe(official);
  });

  it('keeps no recipients', () => {
    expect(refusal(() => dingtalkChannel.checkAddress(dingtalkChannel.normalize({ webhookUrl: official }), 'x')).field).toBe('appId');
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
  const clock = new ManualClock(NOW);
  const fake = new FakeDingtalk(() => NOW);
  const link = dingtalkChannel.connect(withOutbound({ clock, desktop: new DesktopHub() }));
  let signed: ReturnType<typeof dingtalkChannel.normalize>;
  const send = (config = signed, overrides: Partial<OutgoingMessage> = {}) =>
    link.delivery(channel, config, dingtalkChannel.render({ ...message, ...overrides }, app)).send(dingtalkChannel.self!, 1000);

  beforeAll(async () => {
    await fake.start();
    fake.robots.set(TOKEN, { secret: SECRET });
    fake.robots.set('plainrobot01', {});
    fake.robots.set('keywordrobot', { keywords: ['告警'] });
    signed = dingtalkChannel.normalize({ webhookUrl: fake.hook(TOKEN), signingSecret: SECRET });
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    clock.set(NOW);
    fake.sent.length = 0;
    fake.steps.length = 0;
    fake.resetLimits();
  });

  it('posts a signed message that the fake verifies; an unsigned robot gets it without signature', async () => {
    expect(await send()).toEqual({ ok: true });
    expect(await send(dingtalkChannel.normalize({ webhookUrl: fake.hook('plainrobot01') }), { priority: 'urgent' })).toEqual({ ok: true });
    expect(fake.sent).toEqual([
      { token: TOKEN, title: 'Backup finished', text: expect.stringMatching(/^#### Backup finished/), atAll: false },
      { token: 'plainrobot01', title: 'Backup finished', text: expect.any(String), atAll: true },
    ]);
  });

  it('a wrong secret, a clock off by more than an hour, or no signature: 310000, systemic, with a plain hint', async () => {
    const wrong = await send({ ...signed, signingSecret: SECRET.replace('SEC0', 'SEC1') });
    expect(wrong).toMatchObject({ ok: false, cls: 'systemic', errcode: 310000, message: expect.stringMatching(/signature did not match: copy the SEC… secret again/) });
    expect(JSON.stringify(wrong)).not.toContain(SECRET);
    clock.set(NOW + 3_600_000);
    expect(await send()).toEqual({ ok: true });
    clock.set(NOW - 3_600_001);
    expect(await send()).toMatchObject({ ok: false, cls: 'systemic', errcode: 310000, message: expect.stringMatching(/check this computer's clock/) });
    clock.set(NOW);
    expect(await send({ ...signed, signingSecret: '' })).toMatchObject({ ok: false, cls: 'systemic', errcode: 310000 });
    expect(fake.sent).toHaveLength(1);
  });

  it('custom keywords missing: 310000 with the keyword hint; unknown token systemic; too fast transient, not retried at once', async () => {
    const keyword = dingtalkChannel.normalize({ webhookUrl: fake.hook('keywordrobot') });
    expect(await send(keyword)).toMatchObject({ ok: false, cls: 'systemic', errcode: 310000, message: expect.stringMatching(/custom keywords \(自定义关键词\)/) });
    expect(await send(keyword, { title: '告警: disk full' })).toEqual({ ok: true });
    expect(await send(dingtalkChannel.normalize({ webhookUrl: fake.hook('unknownrobot') }))).toMatchObject({ ok: false, cls: 'systemic', errcode: 300001 });
    fake.perMinute = 1;
    expect(await send()).toEqual({ ok: true });
    expect(await send()).toMatchObject({ ok: false, cls: 'transient', errcode: 130101, retryable: false });
    fake.perMinute = 20;
  });

  it('other answers: token and group errcodes systemic, busy and 5xx transient, IP hint, others recipient', async () => {
    fake.steps.push(
      { errcode: 400013, errmsg: '群已被解散' },
      { errcode: 310000, errmsg: 'ip 203.0.113.9 not in whitelist' },
      { errcode: -1, errmsg: '系统繁忙' },
      { status: 503 },
      { errcode: 430102, errmsg: '含有不合适的文本' },
    );
    expect(await send()).toMatchObject({ cls: 'systemic', errcode: 400013, message: expect.stringMatching(/disbanded/) });
    expect(await send()).toMatchObject({ cls: 'systemic', errcode: 310000, message: expect.stringMatching(/allows only some IP addresses/) });
    expect(await send()).toMatchObject({ cls: 'transient', errcode: -1 });
    expect(await send()).toMatchObject({ cls: 'transient', errcode: 503 });
    expect(await send()).toMatchObject({ cls: 'recipient', errcode: 430102 });
  });

  it('tests the channel by posting a signed test message', async () => {
    expect(await link.test(channel, signed, { timeoutMs: 1000, time: NOW })).toEqual({ ok: true, message: expect.stringMatching(/accepted the robot's webhook and signature/) });
    expect(fake.sent.at(-1)).toMatchObject({ title: 'PennyPost test message' });
    expect(await link.test(channel, { ...signed, signingSecret: '' }, { timeoutMs: 1000, time: NOW })).toMatchObject({ ok: false, class: 'systemic', errcode: 310000 });
  });
});
