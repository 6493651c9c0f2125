import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../lib/logger';
import { FAKE_SMTP_CERT, FakeSmtp } from '../../test-support/fakes/fake-smtp';
import { startPushServer, type PushTestServer } from './helpers';

/** Email end to end: /send through the real HTTP server to the fake SMTP server (STARTTLS, AUTH), and the channel's password kept. */

const PASSWORD = 'app-password-0001';
const logLines: string[] = [];
let smtp: FakeSmtp;
let t: PushTestServer;

beforeAll(async () => {
  smtp = await new FakeSmtp().start();
  t = await startPushServer({
    logger: createLogger('debug', (line) => logLines.push(line)),
    settings: { push: { callTimeoutMs: 2000, requestDeadlineMs: 6000 }, network: { publicBaseUrl: 'https://pp.example.net/' } },
  });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});
beforeEach(() => smtp.reset());

const config = (extra: Record<string, unknown> = {}) => ({
  smtpHost: smtp.host,
  smtpPort: smtp.port,
  smtpSecurity: 'starttls',
  smtpUser: 'sender@example.net',
  smtpPassword: PASSWORD,
  fromAddress: 'sender@example.net',
  fromName: 'PennyPost',
  smtpCaCert: FAKE_SMTP_CERT,
  ...extra,
});

async function emailApp(recipients: string[]) {
  const channel = await t.call('push.createChannel', { name: 'Mail', type: 'email', config: config() });
  expect(channel.code).toBe(200);
  const app = await t.call('push.createApp', { name: 'Nightly', channelId: channel.data.id });
  for (const address of recipients) expect((await t.call('push.addRecipient', { appId: app.data.id, address })).code).toBe(200);
  return { channel: channel.data, app: app.data };
}

describe('email channel through /send', () => {
  it('delivers a push to each address as its own mail: subject, HTML and text, priority, thread; the password masked and never logged', async () => {
    const { channel, app } = await emailApp(['alice@example.com', 'bob@example.com']);
    expect(channel.config).toMatchObject({ smtpHost: '127.0.0.1', smtpPassword: '••••0001', fromAddress: 'sender@example.net' });
    // Sealed at rest with the server's key; opened only for delivery.
    const push = t.server.app.services.push;
    const stored = push.targets.get(channel.id)!;
    expect(JSON.stringify(stored)).not.toContain(PASSWORD);
    expect(push.targets.openConfig(stored).smtpPassword).toBe(PASSWORD);
    const res = await t.push(`/send/${app.appKey}`, { json: { title: 'Backup failed', desp: 'Disk **full** on `nas`', priority: 'high', group: 'backups' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ total: 2, success: 2, failed: 0 });
    expect(res.body.data.results.map((r: { recipient: string; class: string }) => [r.recipient, r.class])).toEqual([
      ['alice@example.com', 'ok'],
      ['bob@example.com', 'ok'],
    ]);
    const mail = smtp.sentTo('alice@example.com').at(0)!;
    expect(mail).toMatchObject({ secure: true, user: 'sender@example.net', subject: '[backups] Backup failed', to: ['alice@example.com'] });
    expect(mail.html).toContain('Disk <strong>full</strong> on <code>nas</code>');
    expect(mail.text).toContain(`Disk **full** on \`nas\`\n\n${res.body.data.url}`);
    expect(mail.headers.get('x-priority')).toBe('2 (High)');
    const again = await t.push(`/send/${app.appKey}`, { query: { title: 'Backup done', group: 'backups' } });
    expect(again.body.data.success).toBe(2);
    const next = smtp.sentTo('alice@example.com').at(1)!;
    expect(next.headers.get('references')).toBe(mail.headers.get('references'));
    expect(next.headers.get('x-priority')).toBeUndefined();
    // The channel's pool: the two recipients in parallel took (at most) two connections, which the second push reused.
    expect(smtp.received).toHaveLength(4);
    expect(smtp.connections).toBeLessThanOrEqual(2);
    const all = logLines.join('\n');
    expect(all).not.toContain(PASSWORD);
    expect(all).not.toContain(Buffer.from(PASSWORD).toString('base64'));
  });

  it('reports an unknown mailbox for its recipient only, and refuses an address that is not one email address', async () => {
    const { app } = await emailApp(['alice@example.com', 'gone@example.com']);
    smtp.mailboxes.add('alice@example.com');
    const res = await t.push(`/send/${app.appKey}`, { json: { title: 'Hello' } });
    expect(res.body.data).toMatchObject({ total: 2, success: 1, failed: 1 });
    expect(res.body.data.results[1]).toMatchObject({ recipient: 'gone@example.com', ok: false, class: 'recipient', errcode: 550, attempts: 1 });
    const bad = await t.call('push.addRecipient', { appId: app.id, address: 'Alice <alice@example.com>' });
    expect([bad.code, (bad.data as { field?: string } | null)?.field]).toEqual([400, 'params.address']);
  });

  it('tests the login, and asks for the password again when the server changes', async () => {
    const { channel } = await emailApp([]);
    expect((await t.call('push.testChannel', { id: channel.id })).data).toMatchObject({ ok: true, message: expect.stringMatching(/accepted the connection and the login/) });
    const moved = await t.call('push.updateChannel', { id: channel.id, config: { ...channel.config, smtpHost: 'localhost' } });
    expect([moved.code, (moved.data as { field?: string } | null)?.field]).toEqual([400, 'params.config.smtpPassword']);
    const renamed = await t.call('push.updateChannel', { id: channel.id, config: { ...channel.config, fromName: 'Alerts' } });
    expect(renamed.code).toBe(200);
    const wrong = await t.call('push.updateChannel', { id: channel.id, config: { smtpPassword: 'not-the-password' } });
    expect(wrong.code).toBe(200);
    expect((await t.call('push.testChannel', { id: channel.id })).data).toMatchObject({ ok: false, class: 'systemic', errcode: 535 });
  });
});

describe('email channel at shutdown', () => {
  it("closes the channel's pooled SMTP connections when the server stops, not 30 s later", async () => {
    // A fake of its own: the other tests' server keeps its pooled connections to `smtp`.
    const fake = await new FakeSmtp().start();
    // An idle pooled connection also ends when its socket timeout (callTimeoutMs) passes: kept well above the test's 3 s.
    const own = await startPushServer({ settings: { push: { callTimeoutMs: 20_000, requestDeadlineMs: 30_000 } } });
    try {
      const channel = await own.call('push.createChannel', { name: 'Mail', type: 'email', config: config({ smtpPort: fake.port }) });
      const app = await own.call('push.createApp', { name: 'Nightly', channelId: channel.data.id });
      await own.call('push.addRecipient', { appId: app.data.id, address: 'alice@example.com' });
      const res = await own.push(`/send/${app.data.appKey}`, { json: { title: 'Before the stop' } });
      expect(res.body.data).toMatchObject({ total: 1, success: 1 });
      expect(fake.received).toHaveLength(1);
      // The pool keeps its connection open for the next mail (up to 30 s idle).
      expect(fake.open.size).toBe(1);
    } finally {
      await own.close();
    }
    try {
      const stopped = performance.now();
      await vi.waitFor(() => expect(fake.open.size).toBe(0), { timeout: 3000, interval: 20 });
      expect(performance.now() - stopped).toBeLessThan(3000);
    } finally {
      await fake.close();
    }
  });
});
