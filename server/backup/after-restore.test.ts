import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, startTestServer, type TestServer } from '../test-support/test-server';

/**
 * A snapshot restore swaps the database under a running server (app.replaceDatabase): every domain
 * restarts with a new service. Whatever is kept in memory — app keys, message pages, the desktop
 * feed, inbox keys, short links, sessions, ledger views, scheduled pushes, files — must follow the
 * swap: each kind of key and cache is used here right after a restore, both ones made before the
 * snapshot and ones made after the restore (found: a push app created after a restore answered
 * "Unknown app key" until the server restarted).
 */

let t: TestServer;
let u: Awaited<ReturnType<typeof registerUser>>;

async function ok<T = any>(action: string, params: unknown = {}): Promise<T> {
  const answer = await t.api<T>(action, params, u.token);
  if (answer.code !== 200) throw new Error(`${action}: ${answer.code} ${answer.message}`);
  return answer.data as T;
}

async function send(appKey: string, title: string, path = `/send/${appKey}`) {
  const res = await fetch(`${t.url}${path}?title=${encodeURIComponent(title)}`);
  return { status: res.status, body: (await res.json()) as { code: number; data?: { pushId?: string } } };
}

/** Reads the desktop feed (SSE) until a push with this title arrives. */
async function feedUntil(title: string, trigger: () => Promise<unknown>): Promise<boolean> {
  const controller = new AbortController();
  const res = await fetch(`${t.url}/events/push?token=${u.token}`, { signal: controller.signal });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  await trigger();
  // A deadline, not a wait: it ends the read only when the push never comes.
  const deadline = setTimeout(() => controller.abort(), 5000);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return false;
      text += decoder.decode(value);
      if (text.includes(title)) return true;
    }
  } catch (error) {
    if (controller.signal.aborted) return false;
    throw error;
  } finally {
    clearTimeout(deadline);
    controller.abort();
  }
}

beforeAll(async () => {
  t = await startTestServer();
  u = await registerUser(t);
});
afterAll(() => t.close());

describe('after a snapshot restore, without a restart', () => {
  it('every kind of key and cache works: made before the snapshot, and made after the restore', async () => {
    // Before the snapshot.
    const channel = await ok<{ id: string }>('push.createChannel', { name: 'desk', type: 'desktop', config: {} });
    const oldApp = await ok<{ id: string; appKey: string }>('push.createApp', { name: 'Before', channelId: channel.id });
    const { inboxKey: oldInbox } = await ok<{ inboxKey: string }>('inbox.getKey');
    const cash = (await ok<{ id: string }>('asset.create', { name: 'Cash', type: 'cash', currency: 'USD', balance: 100, isDefault: true })).id;
    const oldLink = await ok<{ code: string }>('shortlink.create', { url: 'https://example.com/before' });
    const snapshot = await ok<{ id: string }>('backup.createSnapshot');

    // Restore (the current state is the snapshot's, plus nothing): every domain restarts.
    await ok('backup.restoreSnapshot', { id: snapshot.id });

    // The session from before still signs requests; a new sign-in works too.
    expect((await t.api('asset.query', {}, u.token)).code).toBe(200);
    expect((await t.api('user.login', { email: u.email, password: u.password })).code).toBe(200);

    // Push: the app from before, a new app, a drop-in form, its message page, the desktop feed.
    expect((await send(oldApp.appKey, 'old app')).status).toBe(200);
    const newApp = await ok<{ id: string; appKey: string }>('push.createApp', { name: 'After', channelId: channel.id });
    const pushed = await send(newApp.appKey, 'new app');
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
    expect((await send(newApp.appKey, 'bare form', `/${newApp.appKey}`)).status).toBe(200);
    const message = await ok<{ url: string }>('push.getMessage', { id: pushed.body.data!.pushId });
    expect((await fetch(new URL(message.url, t.url))).status).toBe(200);
    expect(await feedUntil('on the feed', () => send(newApp.appKey, 'on the feed'))).toBe(true);
    // A scheduled push made after the restore is listed by the restarted scheduler.
    const scheduled = await fetch(`${t.url}/send/${newApp.appKey}?title=later&delay=1h`);
    expect(scheduled.status).toBe(200);
    expect((await ok<{ total: number }>('push.queryScheduled')).total).toBe(1);
    // A reset key: the old one stops, the new one works.
    const reset = await ok<{ appKey: string }>('push.resetAppKey', { id: newApp.id });
    expect((await send(newApp.appKey, 'reset')).status).toBe(404);
    expect((await send(reset.appKey, 'reset')).status).toBe(200);

    // Inbox: the key from before, and a rotated one.
    const notice = (key: string) => fetch(`${t.url}/in/${key}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'Card purchase 12.00 USD at Shop' });
    expect((await notice(oldInbox)).status).toBe(200);
    const { inboxKey: newInbox } = await ok<{ inboxKey: string }>('inbox.getKey', { rotate: true });
    expect((await notice(newInbox)).status).toBe(200);
    expect((await notice(oldInbox)).status).toBe(404);

    // Short links: from before, and new.
    expect((await fetch(`${t.url}/s/${oldLink.code}`, { redirect: 'manual' })).status).toBe(302);
    const newLink = await ok<{ code: string }>('shortlink.create', { url: 'https://example.com/after' });
    expect((await fetch(`${t.url}/s/${newLink.code}`, { redirect: 'manual' })).status).toBe(302);

    // Ledger views: a record written now moves the balance at once.
    await ok('accounting.create', { type: 'expense', amount: 30, asset: cash });
    expect((await ok<{ balance: number }>('asset.detail', { id: cash })).balance).toBe(70);

    // Files: announce, upload, read back.
    const bytes = Buffer.from('%PDF-1.4\n%after restore\n');
    const ticket = await ok<{ fileId: string; uploadUrl: string }>('file.upload', {
      fileName: 'a.pdf',
      fileType: 'application/pdf',
      fileSize: bytes.length,
      category: 'statement',
    });
    expect((await fetch(t.url + ticket.uploadUrl, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: bytes })).status).toBe(200);
    const file = await fetch(`${t.url}/files/${ticket.fileId}`, { headers: { authorization: `Bearer ${u.token}` } });
    expect(Buffer.from(await file.arrayBuffer()).equals(bytes)).toBe(true);
  });
});
