import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../lib/clock';
import { FAKE_SMTP_CERT, FakeSmtp } from '../../test-support/fakes/fake-smtp';
import { DesktopHub } from '../desktop';
import { emailChannel, PRIORITY_HEADERS, renderEmail } from './email';
import { isLocalHost } from './email-api';
import { withOutbound } from '../tests/channel-env';
import { outgoing, refusal } from '../tests/channel-bed';

/** The email driver on its own: config, rendering, and delivery against the fake SMTP server (STARTTLS, AUTH, 5xx/4xx). */

const PASSWORD = 'app-password-0001';

const message = outgoing({
  appId: 'app1',
  appName: 'Alerts',
  title: 'Disk almost full',
  desp: '/var is **91%** full\n\n<script>alert(1)</script>[docs](javascript:alert(1))',
  time: new Date(2026, 0, 5, 9, 30, 0).getTime(),
});

const base = { smtpHost: 'smtp.example.net', smtpUser: 'me@example.net', smtpPassword: PASSWORD, fromAddress: 'me@example.net' };

describe('email config', () => {
  it('completes a config: STARTTLS on the default port, host lower-cased, a PEM pasted on one line put back in shape', () => {
    const config = emailChannel.normalize({ ...base, smtpHost: ' SMTP.Example.NET ', fromName: ' Penny\r\nPost ' });
    expect(config).toEqual({ ...base, smtpPort: 0, smtpSecurity: 'starttls', fromName: 'Penny Post', smtpCaCert: '' });
    expect(emailChannel.destination(config)).toBe('smtp+starttls://me%40example.net@smtp.example.net:587');
    const oneLine = FAKE_SMTP_CERT.replace(/\n/g, ' ');
    expect(emailChannel.normalize({ ...base, smtpCaCert: oneLine }).smtpCaCert).toBe(FAKE_SMTP_CERT);
    // A browser's one-line field drops the line breaks altogether.
    expect(emailChannel.normalize({ ...base, smtpCaCert: FAKE_SMTP_CERT.replace(/\n/g, '') }).smtpCaCert).toBe(FAKE_SMTP_CERT);
    expect(emailChannel.normalize({ smtpHost: '192.168.1.5', smtpSecurity: 'none', fromAddress: 'nas@home.lan' })).toMatchObject({ smtpUser: '', smtpPassword: '' });
  });

  it('refuses what cannot work, naming the field', () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ ...base, smtpHost: '' }, 'config.smtpHost', /smtpHost is required/],
      [{ ...base, smtpHost: 'smtp.example.net:587' }, 'config.smtpHost', /smtpHost/],
      [{ ...base, fromAddress: 'not an address' }, 'config.fromAddress', /fromAddress is required/],
      [{ ...base, fromAddress: 'a@b.com\r\nBcc: x@y.com' }, 'config.fromAddress', /fromAddress/],
      [{ ...base, smtpPassword: '' }, 'config.smtpPassword', /app password/],
      [{ ...base, smtpUser: '' }, 'config.smtpUser', /smtpUser is required with a password/],
      [{ ...base, smtpSecurity: 'none' }, 'config.smtpSecurity', /only for a server on this computer or the local network/],
      [{ ...base, smtpPort: 70000 }, 'config.smtpPort', /port number/],
      [{ ...base, smtpCaCert: 'not a certificate' }, 'config.smtpCaCert', /PEM certificate/],
      [{ ...base, smtpCaCert: '-----BEGIN CERTIFICATE-----AAAA-----END CERTIFICATE-----' }, 'config.smtpCaCert', /PEM certificate/],
    ];
    for (const [input, field, words] of cases) {
      const error = refusal(() => emailChannel.normalize(input));
      expect([error.status, error.field, error.message], JSON.stringify(input)).toEqual([400, field, expect.stringMatching(words)]);
    }
  });

  it('allows no encryption only for this computer and the local network', () => {
    for (const host of ['localhost', '127.0.0.1', '10.0.0.2', '172.20.1.1', '192.168.1.5', '::1', 'fd00::25', 'nas', 'mail.home.arpa', 'relay.lan'])
      expect(isLocalHost(host), host).toBe(true);
    for (const host of ['smtp.gmail.com', '8.8.8.8', '172.32.0.1', '2001:db8::1', 'mail.example.local.com']) expect(isLocalHost(host), host).toBe(false);
  });

  it('masks the password; the server, port, security, login and trusted certificate are where it goes', () => {
    const config = emailChannel.normalize(base);
    expect(emailChannel.mask(config)).toEqual({ ...config, smtpPassword: '••••0001' });
    expect(emailChannel.secrets).toEqual({ smtpPassword: 'SMTP password' });
    const where = emailChannel.destination(config);
    expect(emailChannel.destination({ ...config, smtpPort: 587 })).toBe(where);
    expect(emailChannel.destination({ ...config, fromAddress: 'other@example.net', fromName: 'X' })).toBe(where);
    for (const change of [
      { smtpHost: 'smtp.evil.example' },
      { smtpPort: 2525 },
      { smtpSecurity: 'tls' as const },
      { smtpUser: 'other@example.net' },
      { smtpCaCert: FAKE_SMTP_CERT },
    ]) {
      expect(emailChannel.destination({ ...config, ...change }), JSON.stringify(change)).not.toBe(where);
    }
    expect(emailChannel.movedBy).toEqual(['smtpHost', 'smtpPort', 'smtpSecurity', 'smtpUser', 'smtpCaCert']);
  });

  it('takes one plain email address per recipient', () => {
    const config = emailChannel.normalize(base);
    for (const address of ['alice@example.com', 'a.b+tag@mail.example.co.uk']) expect(() => emailChannel.checkAddress(config, address)).not.toThrow();
    for (const address of [
      'alice',
      'Alice <alice@example.com>',
      'a@example.com, b@example.com',
      'a@example.com\r\nBcc: c@example.com',
      'a@localhost',
      `${'a'.repeat(250)}@example.com`,
    ]) {
      expect(refusal(() => emailChannel.checkAddress(config, address)).field, address).toBe('address');
    }
    expect(emailChannel.recipientLabel(config, 'alice@example.com')).toBe('alice@example.com');
    expect(emailChannel.keepsRecipients(config, { ...config, smtpHost: 'smtp.other.example' }, 'config')).toBeNull();
  });
});

describe('email rendering', () => {
  it('subject = title; HTML from the Markdown through the message page’s sanitiser; a plain-text alternative; the page link', async () => {
    const mail = await renderEmail(message);
    expect(mail.subject).toBe('Disk almost full');
    expect(mail.html).toContain('<strong>91%</strong>');
    expect(mail.html).not.toMatch(/<script|href="javascript/);
    expect(mail.html).toContain('&lt;script&gt;');
    expect(mail.html).toContain('<a href="https://pp.example.net/m/token">Open the message page</a>');
    expect(mail.html).toContain('Sent by PennyPost · Alerts');
    expect(mail.text).toBe(`${message.desp}\n\nhttps://pp.example.net/m/token\n\n-- \nSent by PennyPost · Alerts`);
    expect(mail.headers).toEqual({});
    expect(mail.thread).toBe('');
    const bare = await renderEmail({ ...message, title: 'Only <a> title\r\nhere', desp: '', url: undefined });
    expect(bare.subject).toBe('Only <a> title here');
    expect(bare.html).toContain('<p>Only &lt;a&gt; title\r\nhere</p>');
    expect(bare.html).not.toContain('message page');
  });

  it('maps the priority to X-Priority, Importance and Priority', async () => {
    expect((await renderEmail({ ...message, priority: 'low' })).headers).toEqual({ 'X-Priority': '5 (Lowest)', Importance: 'low', Priority: 'non-urgent' });
    expect((await renderEmail({ ...message, priority: 'high' })).headers).toEqual({ 'X-Priority': '2 (High)', Importance: 'high' });
    expect((await renderEmail({ ...message, priority: 'urgent' })).headers).toEqual({ 'X-Priority': '1 (Highest)', Importance: 'high', Priority: 'urgent' });
    expect(Object.keys(PRIORITY_HEADERS)).toEqual(['low', 'normal', 'high', 'urgent']);
  });

  it('a group prefixes the subject and names a thread stable per (app, group)', async () => {
    const grouped = await renderEmail({ ...message, group: 'backups' });
    expect(grouped.subject).toBe('[backups] Disk almost full');
    expect(grouped.thread).toMatch(/^[0-9a-f]{32}$/);
    expect((await renderEmail({ ...message, group: 'backups', title: 'Other' })).thread).toBe(grouped.thread);
    expect((await renderEmail({ ...message, group: 'disks' })).thread).not.toBe(grouped.thread);
    expect((await renderEmail({ ...message, group: 'backups', appId: 'app2' })).thread).not.toBe(grouped.thread);
  });
});

describe('email delivery (fake SMTP server)', () => {
  let smtp: FakeSmtp;
  let plain: FakeSmtp;
  let implicit: FakeSmtp;
  let silent: Server;
  let silentPort: number;
  const channel = { id: 'c1', name: 'Mail', userId: 'u1' };
  const outcomes: unknown[] = [];

  beforeAll(async () => {
    [smtp, plain, implicit] = await Promise.all([new FakeSmtp().start(), new FakeSmtp({ starttls: false }).start(), new FakeSmtp({ implicitTls: true }).start()]);
    silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentPort = (silent.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await Promise.all([smtp.close(), plain.close(), implicit.close(), new Promise((resolve) => silent.close(resolve))]);
    // No outcome, message or error ever carries the password, in any form.
    const seen = JSON.stringify(outcomes);
    expect(seen).not.toContain(PASSWORD);
    expect(seen).not.toContain(Buffer.from(PASSWORD).toString('base64'));
  });
  beforeEach(() => {
    for (const server of [smtp, plain, implicit]) server.reset();
  });

  const configOf = (fake: FakeSmtp, extra: Record<string, unknown> = {}) =>
    emailChannel.normalize({
      smtpHost: fake.host,
      smtpPort: fake.port,
      smtpUser: 'sender@example.net',
      smtpPassword: PASSWORD,
      fromAddress: 'sender@example.net',
      smtpCaCert: FAKE_SMTP_CERT,
      ...extra,
    });
  const recipient = (address: string) => ({ label: address, address });
  const link = () => emailChannel.connect(withOutbound({ clock: systemClock, desktop: new DesktopHub() }));
  const send = async (delivery: ReturnType<ReturnType<typeof link>['delivery']>, address: string, timeoutMs = 2000) => {
    const outcome = await delivery.send(recipient(address), timeoutMs);
    outcomes.push(outcome);
    return outcome;
  };

  it('sends over STARTTLS with a login: subject, HTML and text parts, priority and threading headers; one pooled connection', async () => {
    const live = link();
    const grouped = { ...message, priority: 'urgent' as const, group: 'backups', desp: 'Backup of **/home** failed' };
    const delivery = live.delivery(channel, configOf(smtp, { fromName: 'PennyPost' }), emailChannel.render(grouped, { messageType: '', templateId: '', templateFields: {} }));
    expect(await send(delivery, 'alice@example.com')).toEqual({ ok: true, msgId: expect.stringMatching(/@example\.net$/) });
    expect(await send(delivery, 'bob@example.com')).toMatchObject({ ok: true });
    const mail = smtp.sentTo('alice@example.com').at(0)!;
    expect(mail).toMatchObject({ secure: true, user: 'sender@example.net', from: 'sender@example.net', to: ['alice@example.com'], subject: '[backups] Disk almost full' });
    expect(mail.headers.get('from')).toBe('PennyPost <sender@example.net>');
    expect(mail.headers.get('to')).toBe('alice@example.com');
    expect(mail.html).toContain('Backup of <strong>/home</strong> failed');
    expect(mail.text).toContain('Backup of **/home** failed\n\nhttps://pp.example.net/m/token');
    expect([mail.headers.get('x-priority'), mail.headers.get('importance'), mail.headers.get('priority')]).toEqual(['1 (Highest)', 'high', 'urgent']);
    const root = mail.headers.get('references');
    expect(root).toMatch(/^<pennypost-thread-[0-9a-f]{32}@example\.net>$/);
    expect(mail.headers.get('in-reply-to')).toBe(root);
    // Bob's mail is a mail of its own (nobody sees the other recipients), in the same thread.
    expect(smtp.sentTo('bob@example.com')[0]?.headers.get('references')).toBe(root);
    expect(smtp.sentTo('bob@example.com')[0]?.headers.get('to')).toBe('bob@example.com');
    expect(smtp.authAttempts).toEqual([{ user: 'sender@example.net', secure: true }]);
    expect(smtp.connections).toBe(1);
    // A config change or `forget` replaces the pooled transport.
    live.forget?.(channel.id);
    expect(await send(delivery, 'carol@example.com')).toMatchObject({ ok: true });
    expect(smtp.connections).toBe(2);
  });

  it('classifies refusals: wrong password and sender for everyone, unknown mailbox per recipient, 4xx and silence as transient', async () => {
    const live = link();
    const mail = emailChannel.render(message, { messageType: '', templateId: '', templateFields: {} });
    const wrong = live.delivery({ ...channel, id: 'wrong' }, configOf(smtp, { smtpPassword: 'not-the-password' }), mail);
    expect(await send(wrong, 'alice@example.com')).toEqual({ ok: false, cls: 'systemic', errcode: 535, message: expect.stringMatching(/refused the login.*app password/) });

    const good = live.delivery(channel, configOf(smtp), mail);
    smtp.mailboxes.add('alice@example.com');
    expect(await send(good, 'nobody@example.com')).toMatchObject({
      ok: false,
      cls: 'recipient',
      errcode: 550,
      message: expect.stringMatching(/refused the recipient.*User unknown/),
    });
    smtp.answerRcpt('alice@example.com', { code: 451, message: '4.7.1 Greylisted, try again later' }, 1);
    expect(await send(good, 'alice@example.com')).toMatchObject({ ok: false, cls: 'transient', errcode: 451 });
    expect(await send(good, 'alice@example.com')).toMatchObject({ ok: true });
    smtp.dataAnswer = { code: 554, message: '5.7.1 Message rejected as spam' };
    expect(await send(good, 'alice@example.com')).toMatchObject({ ok: false, cls: 'recipient', errcode: 554 });

    const otherSender = live.delivery({ ...channel, id: 'sender' }, configOf(smtp, { fromAddress: 'boss@example.net' }), mail);
    expect(await send(otherSender, 'alice@example.com')).toMatchObject({ ok: false, cls: 'systemic', errcode: 553, message: expect.stringMatching(/fromAddress/) });

    const closed = live.delivery({ ...channel, id: 'closed' }, configOf(smtp, { smtpPort: 1 }), mail);
    expect(await send(closed, 'alice@example.com')).toMatchObject({ ok: false, cls: 'transient', message: expect.stringMatching(/could not be reached/) });
    const mute = live.delivery({ ...channel, id: 'mute' }, configOf(smtp, { smtpPort: silentPort }), mail);
    const started = performance.now();
    expect(await send(mute, 'alice@example.com', 300)).toMatchObject({ ok: false, cls: 'transient' });
    expect(performance.now() - started).toBeLessThan(1500);
    live.forget?.('mute');
  });

  it('requires STARTTLS when chosen: no login and no mail go out in plain text, and the message says why', async () => {
    const live = link();
    const mail = emailChannel.render(message, { messageType: '', templateId: '', templateFields: {} });
    const delivery = live.delivery(channel, configOf(plain), mail);
    expect(await send(delivery, 'alice@example.com')).toEqual({
      ok: false,
      cls: 'systemic',
      message: expect.stringMatching(/does not offer STARTTLS.*never sends the login or mail unencrypted/),
    });
    expect(plain.authAttempts).toEqual([]);
    expect(plain.received).toEqual([]);
    // An untrusted certificate, and implicit TLS against a STARTTLS port, are systemic with what to change.
    const untrusted = live.delivery({ ...channel, id: 'untrusted' }, configOf(smtp, { smtpCaCert: '' }), mail);
    expect(await send(untrusted, 'alice@example.com')).toMatchObject({ cls: 'systemic', message: expect.stringMatching(/certificate is not trusted.*smtpCaCert/) });
    const mismatch = live.delivery({ ...channel, id: 'mismatch' }, configOf(smtp, { smtpSecurity: 'tls' }), mail);
    expect(await send(mismatch, 'alice@example.com')).toMatchObject({ cls: 'systemic', message: expect.stringMatching(/Security tls is for port 465/) });
    expect(smtp.authAttempts).toEqual([]);
    // Implicit TLS (port 465 style) and, on the local network, no encryption at all.
    expect(await send(live.delivery({ ...channel, id: 'tls' }, configOf(implicit, { smtpSecurity: 'tls' }), mail), 'alice@example.com')).toMatchObject({ ok: true });
    expect(implicit.received[0]?.secure).toBe(true);
    expect(await send(live.delivery({ ...channel, id: 'none' }, configOf(plain, { smtpSecurity: 'none' }), mail), 'alice@example.com')).toMatchObject({ ok: true });
    expect(plain.received[0]?.secure).toBe(false);
    for (const id of [channel.id, 'untrusted', 'mismatch', 'tls', 'none']) live.forget?.(id);
  });

  it('tests a channel: connection and login alone, or a test mail to one address', async () => {
    const live = link();
    const time = message.time;
    expect(await live.test(channel, configOf(smtp), { timeoutMs: 2000, time })).toEqual({
      ok: true,
      message: `The mail server 127.0.0.1:${smtp.port} (STARTTLS) accepted the connection and the login.`,
    });
    expect(smtp.received).toEqual([]);
    expect(await live.test(channel, configOf(smtp), { address: 'alice@example.com', timeoutMs: 2000, time })).toMatchObject({ ok: true });
    expect(smtp.sentTo('alice@example.com')[0]).toMatchObject({ subject: 'PennyPost test message', text: expect.stringContaining('This is a test of the channel "Mail"') });
    const refused = await live.test(channel, configOf(smtp, { smtpPassword: 'not-the-password' }), { timeoutMs: 2000, time });
    outcomes.push(refused);
    expect(refused).toMatchObject({ ok: false, class: 'systemic', errcode: 535 });
  });
});
