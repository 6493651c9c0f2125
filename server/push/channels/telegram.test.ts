import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../lib/clock';
import { FakeTelegram, parseTelegramHtml } from '../../test-support/fakes/fake-telegram';
import { listenFake } from '../../test-support/fakes/listen';
import { DesktopHub } from '../desktop';
import type { Outcome } from '../deliver';
import type { OutgoingMessage } from './driver';
import { telegramChannel, telegramText } from './telegram';
import { withOutbound } from '../tests/channel-env';
import { outgoing, PLAIN_APP as app, refusal } from '../tests/channel-bed';

/** The telegram driver on its own: config, chat ids, the HTML it writes, and every answer of a fake Bot API. */

const message = outgoing({ title: 'Backup <done> & dusted', desp: 'All **3** jobs _OK_ <script>alert(1)</script>\n\n- `a<b`\n- [site](https://ex.com/?a=1&b=2)' });
const TOKEN = '123456789:AAfakeTelegramBotTokenForTests_0123';

const plainOf = (html: string) => {
  const parsed = parseTelegramHtml(html);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.plain;
};

describe('telegram config and chats', () => {
  it('completes a config with Telegram’s API and masks the bot token', () => {
    const config = telegramChannel.normalize({ botToken: ` ${TOKEN} ` });
    expect(config).toEqual({ botToken: TOKEN, telegramApiBase: 'https://api.telegram.org' });
    expect(telegramChannel.mask(config)).toEqual({ botToken: '••••0123', telegramApiBase: 'https://api.telegram.org' });
    expect(telegramChannel.destination(config)).toBe('https://api.telegram.org/');
    expect(telegramChannel.destination({ ...config, telegramApiBase: 'http://127.0.0.1:8081' })).not.toBe(telegramChannel.destination(config));
  });

  it('refuses a token that is not a bot token and a base that is not a URL, naming the field', () => {
    expect(refusal(() => telegramChannel.normalize({}))).toMatchObject({ field: 'config.botToken', message: expect.stringMatching(/@BotFather/) });
    expect(refusal(() => telegramChannel.normalize({ botToken: 'AAfakeTelegramBotTokenForTests_0123' })).field).toBe('config.botToken');
    expect(refusal(() => telegramChannel.normalize({ botToken: TOKEN, telegramApiBase: 'ftp://x' })).field).toBe('config.telegramApiBase');
  });

  it('takes user, group and channel ids and @channelusernames as recipients', () => {
    const config = telegramChannel.normalize({ botToken: TOKEN });
    for (const address of ['123456789', '-4012345678', '-1001234567890', '@pennypost_news']) expect(() => telegramChannel.checkAddress(config, address)).not.toThrow();
    for (const address of ['@ab', 'someone', '12 34', '+123']) expect(refusal(() => telegramChannel.checkAddress(config, address)).field).toBe('address');
    expect(telegramChannel.recipientLabel(config, '-1001234567890')).toBe('-1001234567890');
  });
});

describe('telegram message text', () => {
  it('writes Telegram’s HTML subset: bold title, Markdown as tags, everything else escaped', () => {
    const { text, silent, threadId } = telegramChannel.render(message, app);
    expect(text).toBe(
      '<b>Backup &lt;done&gt; &amp; dusted</b>\n\nAll <b>3</b> jobs <i>OK</i> &lt;script&gt;alert(1)&lt;/script&gt;\n\n• <code>a&lt;b</code>\n• <a href="https://ex.com/?a=1&amp;b=2">site</a>',
    );
    expect(plainOf(text)).toContain('<script>alert(1)</script>');
    expect([silent, threadId]).toEqual([false, undefined]);
  });

  it('maps priority and group: low is silent, a numeric group is a forum topic, any other group a bold prefix', () => {
    expect(telegramChannel.render({ ...message, priority: 'low' }, app).silent).toBe(true);
    expect(telegramChannel.render({ ...message, priority: 'urgent' }, app).silent).toBe(false);
    expect(telegramChannel.render({ ...message, group: '42' }, app)).toMatchObject({ threadId: 42, text: expect.stringMatching(/^<b>Backup/) });
    expect(telegramChannel.render({ ...message, group: 'nightly <jobs>' }, app).text).toMatch(/^<b>\[nightly &lt;jobs&gt;\] Backup/);
  });

  it('cuts a long text to 4096 characters with the page link, every tag closed', () => {
    const long = { ...message, desp: Array.from({ length: 400 }, (_, i) => `Line **${i}** with <stuff> & more`).join('\n\n') };
    const text = telegramText(long);
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(text).toMatch(/…\n\n<a href="https:\/\/pp\.example\.net\/m\/token">Read the whole message<\/a>$/);
    expect(plainOf(text).length).toBeLessThanOrEqual(4096);
    const noLink = telegramText({ ...long, url: undefined });
    expect(noLink).toMatch(/…$/);
    expect(telegramText({ ...message, desp: '' })).toBe('<b>Backup &lt;done&gt; &amp; dusted</b>');
  });
});

describe('telegram delivery (fake Bot API)', () => {
  const fake = new FakeTelegram(TOKEN);
  const channel = { id: 'c1', name: 'Ops bot', userId: 'u1' };
  const link = telegramChannel.connect(withOutbound({ clock: systemClock, desktop: new DesktopHub() }));
  let config: ReturnType<typeof telegramChannel.normalize>;
  const outcomes: unknown[] = [];
  const send = async (address: string, msg: OutgoingMessage = message, timeoutMs = 3000, cfg = config): Promise<Outcome> => {
    const outcome = await link.delivery(channel, cfg, telegramChannel.render(msg, app)).send({ label: address, address }, timeoutMs);
    outcomes.push(outcome);
    return outcome;
  };

  beforeAll(async () => {
    await fake.start();
    config = telegramChannel.normalize({ botToken: TOKEN, telegramApiBase: fake.url });
    fake.chats.set('123456789', {});
    fake.chats.set('-1001234567890', { topics: [42] });
    fake.chats.set('@pennypost_news', {});
    fake.chats.set('555', { blocked: 'user' });
    fake.chats.set('-1009', { blocked: 'channel' });
    fake.chats.set('-4000', { migratedTo: -1004000 });
  });
  afterAll(async () => {
    await fake.close();
    // The bot token is in the request path; it must never be in what a push answers.
    expect(JSON.stringify(outcomes)).not.toContain(TOKEN);
    expect(JSON.stringify(outcomes)).not.toContain(TOKEN.split(':')[1]);
  });
  beforeEach(() => {
    fake.sent.length = 0;
  });

  it('sends HTML to the chat with the token in the path and answers the message id', async () => {
    expect(await send('123456789', { ...message, priority: 'low' })).toEqual({ ok: true, msgId: expect.stringMatching(/^\d+$/) });
    expect(fake.paths.at(-1)).toBe(`/bot${TOKEN}/sendMessage`);
    expect(fake.sent[0]).toMatchObject({
      chatId: '123456789',
      parseMode: 'HTML',
      disableNotification: true,
      plain: expect.stringMatching(/^Backup <done> & dusted\n\nAll 3 jobs OK <script>/),
    });
    expect(await send('-1001234567890', { ...message, group: '42' })).toMatchObject({ ok: true });
    expect(fake.sent[1]).toMatchObject({ chatId: '-1001234567890', threadId: 42 });
    expect(await send('@pennypost_news', { ...message, desp: 'x'.repeat(9000) })).toMatchObject({ ok: true });
    expect(fake.sent[2]?.plain).toMatch(/…\n\nRead the whole message$/);
  });

  it('a wrong bot token is systemic, and a wrong or redirecting API base too', async () => {
    const wrong = { ...config, botToken: '123456789:AAsomeOtherTokenThatTelegramRefuses99' };
    const refused = await send('123456789', message, 3000, wrong);
    expect(refused).toMatchObject({ ok: false, cls: 'systemic', errcode: 401, message: expect.stringMatching(/refused the bot token/) });
    expect(JSON.stringify(refused)).not.toContain('AAsomeOtherToken');
    expect(await send('123456789', message, 3000, { ...config, telegramApiBase: `${fake.url}/elsewhere` })).toMatchObject({ ok: false, cls: 'systemic', errcode: 404 });
    const redirecting = await listenFake((_req, res) => {
      res.writeHead(302, { location: 'https://elsewhere.example/' });
      res.end();
    });
    expect(await send('123456789', message, 3000, { ...config, telegramApiBase: redirecting.url })).toMatchObject({ ok: false, cls: 'systemic', errcode: 302 });
    await redirecting.close();
  });

  it('chat not found, blocked, not a member, migrated and an unknown topic are the recipient’s', async () => {
    expect(await send('987654321')).toMatchObject({ ok: false, cls: 'recipient', errcode: 400, message: expect.stringMatching(/does not know this chat.*chat not found/) });
    expect(await send('555')).toMatchObject({ ok: false, cls: 'recipient', errcode: 403, message: expect.stringMatching(/bot was blocked by the user/) });
    expect(await send('-1009')).toMatchObject({ ok: false, cls: 'recipient', errcode: 403, message: expect.stringMatching(/not a member/) });
    expect(await send('-4000')).toMatchObject({ ok: false, cls: 'recipient', message: expect.stringMatching(/chat id is now -1004000/) });
    expect(await send('123456789', { ...message, group: '77' })).toMatchObject({ ok: false, cls: 'recipient', message: expect.stringMatching(/message thread not found/) });
  });

  it('waits out a short retry_after within the call’s time; a long one is transient and not retried now; 5xx is transient', async () => {
    fake.program('123456789', { status: 429, retryAfter: 1 });
    const started = performance.now();
    expect(await send('123456789', message, 2500)).toMatchObject({ ok: true });
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
    fake.program('123456789', { status: 429, retryAfter: 30 });
    expect(await send('123456789', message, 2500)).toMatchObject({
      ok: false,
      cls: 'transient',
      errcode: 429,
      retryable: false,
      message: expect.stringMatching(/retry after 30 s/),
    });
    fake.program('123456789', { status: 500 });
    expect(await send('123456789')).toMatchObject({ ok: false, cls: 'transient', errcode: 500 });
    expect(fake.sent).toHaveLength(1);
  });

  it('an unreachable API is transient', async () => {
    const closed = await listenFake(() => undefined);
    await closed.close();
    expect(await send('123456789', message, 1000, { ...config, telegramApiBase: closed.url })).toMatchObject({
      ok: false,
      cls: 'transient',
      message: expect.stringMatching(/could not connect/),
    });
  });

  it('tests a channel: getMe names the bot; with a chat id it sends the test message', async () => {
    expect(await link.test(channel, config, { timeoutMs: 1000, time: message.time })).toEqual({
      ok: true,
      message: 'Telegram accepted the bot token: this is the bot @pennypost_test_bot.',
    });
    expect(fake.paths.at(-1)).toBe(`/bot${TOKEN}/getMe`);
    const wrong = await link.test(channel, { ...config, botToken: '1:AAanotherWrongTokenForTheTestChannel' }, { timeoutMs: 1000, time: message.time });
    expect(wrong).toMatchObject({ ok: false, class: 'systemic', errcode: 401 });
    expect(await link.test(channel, config, { address: '123456789', timeoutMs: 1000, time: message.time })).toMatchObject({ ok: true });
    expect(fake.sent[0]?.plain).toMatch(/^PennyPost test message\n\nThis is a test of the channel "Ops bot"/);
    expect(await link.test(channel, config, { address: 'nobody', timeoutMs: 1000, time: message.time })).toMatchObject({ ok: false, class: 'recipient' });
  });
});
