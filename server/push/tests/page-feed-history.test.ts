import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock';
import { registerUser } from '../../test-support/test-server';
import type { DesktopMessage } from '../desktop';
import { startPushServer, type PushTestServer } from './helpers';
import { pushErrors } from '../errors';
import { expectRefusal } from '../../test-support/refusal';

const DAY = 24 * 3600 * 1000;
const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0));
let t: PushTestServer;
let desktop: { appKey: string; appId: string; channelId: string };

beforeAll(async () => {
  t = await startPushServer({ clock });
  desktop = await t.setup({ type: 'desktop' });
});
afterAll(() => t.close());

async function pushed(title: string, desp = '') {
  const res = await t.push(`/send/${desktop.appKey}`, { json: { title, desp } });
  expect(res.status).toBe(200);
  return res.body.data as { pushId: string; url: string };
}

async function page(url: string) {
  const res = await t.fetch(new URL(url).pathname);
  return { status: res.status, headers: res.headers, html: await res.text() };
}

describe('message page', () => {
  it('renders Markdown under a strict CSP with a same-origin stylesheet', async () => {
    const { url } = await pushed('Report', '# Heading\n\n**bold** and `code`\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n[docs](https://example.org/docs)\n\n```js\nconst x = 1;\n```');
    const { status, headers, html } = await page(url);
    expect(status).toBe(200);
    expect(headers.get('content-type')).toMatch(/text\/html/);
    const csp = headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(headers.get('x-content-type-options')).toBe('nosniff');
    expect(headers.get('referrer-policy')).toBe('no-referrer');
    expect(headers.get('cache-control')).toBe('private, no-store');
    expect(html).toContain('<h1>Heading</h1>');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<code>code</code>');
    expect(html).toContain('<td>1</td>');
    expect(html).toContain('<a href="https://example.org/docs" rel="noopener noreferrer nofollow" target="_blank">docs</a>');
    expect(html).toContain('<code class="language-js">');
    expect(html).not.toMatch(/<style|style=/);
    const css = await t.fetch('/m/page.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/text\/css/);
  });

  it('lets no script, event handler, javascript: or data: URL through, in desp or title', async () => {
    const payloads = [
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(1)>',
      '<a href="javascript:alert(1)">raw</a>',
      '[click](javascript:alert(1))',
      '[mixed](JaVaScRiPt:alert(1))',
      '[tab](java\tscript:alert(1))',
      '[entity](javascript&#58;alert(1))',
      '[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
      '![img](javascript:alert(1))',
      '![svg](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)',
      '<javascript:alert(1)>',
      '<svg onload=alert(1)>',
      '<iframe src="https://evil.example"></iframe>',
      '[vb](vbscript:msgbox(1))',
      '<div style="background:url(javascript:alert(1))">x</div>',
      '"><script>alert(1)</script>',
    ];
    const { url } = await pushed('<script>alert("title")</script></title><img src=x onerror=alert(2)>', payloads.join('\n\n'));
    const { html } = await page(url);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<(img|svg|iframe|div|a)\b[^>]*\son\w+\s*=/i);
    expect(html).not.toMatch(/<iframe/i);
    expect(html).not.toMatch(/<svg/i);
    // inside real tags (escaped text like &lt;a href="javascript:…"&gt; is harmless)
    expect(html).not.toMatch(/<[a-z][^<>]*\s(href|src)\s*=\s*["']?\s*(javascript|vbscript|data):/i);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt;');
  });

  it('answers 404 for unknown, malformed or forged tokens', async () => {
    const { url, pushId } = await pushed('secret page');
    const path = new URL(url).pathname;
    const token = path.slice(3);
    const forged = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    for (const bad of [`/m/${forged}`, `/m/${pushId}`, '/m/nothing', `/m/${pushId}.${'A'.repeat(22)}`]) {
      const res = await t.fetch(bad);
      expect(res.status, bad).toBe(404);
      expect(await res.text()).toMatch(/Message not available/);
    }
  });
});

describe('desktop feed (Server-Sent Events) and the shell hook', () => {
  async function openFeed(token: string | null, headers: Record<string, string> = {}) {
    const controller = new AbortController();
    const res = await t.fetch(`/events/push${token ? `?token=${encodeURIComponent(token)}` : ''}`, { signal: controller.signal, headers });
    const reader = res.body!.getReader();
    let buffer = '';
    const decoder = new TextDecoder();
    return {
      res,
      async next(): Promise<any> {
        for (;;) {
          const match = /(?:^|\n\n)(id: [^\n]*\nevent: push\ndata: [^\n]*)\n\n/.exec(buffer);
          if (match) {
            buffer = buffer.slice(match.index + match[0].length);
            const data = match
              .at(1)!
              .split('\n')
              .find((l) => l.startsWith('data: '))!
              .slice(6);
            return JSON.parse(data);
          }
          const { value, done } = await reader.read();
          if (done) throw new Error('feed ended');
          buffer += decoder.decode(value);
        }
      },
      close: () => controller.abort(),
    };
  }

  it("streams the user's desktop pushes to the feed and the onDesktopMessage listeners, not to other users", async () => {
    const shell: DesktopMessage[] = [];
    const unsubscribe = t.server.app.services.push.onDesktopMessage((m) => shell.push(m));
    const other = await registerUser(t);
    const mine = await openFeed(t.user.token);
    expect(mine.res.status).toBe(200);
    expect(mine.res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const theirs = await openFeed(other.token);
    const { pushId } = await pushed('Coffee is ready', 'kitchen');
    const event = await mine.next();
    expect(event).toMatchObject({ id: pushId, appId: desktop.appId, title: 'Coffee is ready', desp: 'kitchen', url: expect.stringMatching(/^\/m\//) });
    expect(shell.map((m) => m.id)).toContain(pushId);
    // the other user's feed gets only their own pushes
    const otherApp = await (async () => {
      const ch = await t.api('push.createChannel', { name: 'd', type: 'desktop' }, other.token);
      const app = await t.api('push.createApp', { name: 'theirs', channelId: ch.data.id }, other.token);
      return app.data.appKey as string;
    })();
    await t.push(`/send/${otherApp}`, { query: { title: 'for the other user' } });
    expect((await theirs.next()).title).toBe('for the other user');
    mine.close();
    theirs.close();
    unsubscribe();
  });

  it('replays missed messages after Last-Event-ID, and refuses missing or invalid tokens', async () => {
    const first = await pushed('one');
    await pushed('two');
    await pushed('three');
    const feed = await openFeed(t.user.token, { 'Last-Event-ID': first.pushId });
    expect((await feed.next()).title).toBe('two');
    expect((await feed.next()).title).toBe('three');
    feed.close();
    const none = await t.fetch('/events/push');
    expect(none.status).toBe(401);
    const bad = await t.fetch('/events/push', { headers: { Authorization: 'Bearer not-a-token' } });
    expect(bad.status).toBe(401);
  });

  it('does not keep the server from stopping while a feed is open', async () => {
    const s = await startPushServer();
    const res = await s.fetch(`/events/push?token=${s.user.token}`);
    expect(res.status).toBe(200);
    await s.close();
    await res.body?.cancel().catch(() => undefined);
  });
});

describe('history', () => {
  it('queries newest first with app, status and date filters and paging', async () => {
    const h = await startPushServer({ clock });
    try {
      const a = await h.setup({ type: 'desktop' });
      const b = await h.setup({ type: 'webhook', config: { format: 'json', url: 'http://127.0.0.1:9' } });
      const start = clock.now();
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        clock.advance(60_000);
        times.push(clock.now());
        await h.push(`/send/${a.appKey}`, { query: { title: `a${i}`, desp: 'x'.repeat(300) } });
      }
      clock.advance(60_000);
      await h.push(`/send/${b.appKey}`, { query: { title: 'b-empty' } });
      const all = await h.call('push.queryMessages', {});
      expect(all.data).toMatchObject({ total: 6, page: 1, pageSize: 20 });
      expect(all.data.list.map((m: any) => m.title)).toEqual(['b-empty', 'a4', 'a3', 'a2', 'a1', 'a0']);
      expect(all.data.list[1].despPreview).toHaveLength(141);
      expect(all.data.list[1]).not.toHaveProperty('results');
      const pageTwo = await h.call('push.queryMessages', { appId: a.appId, page: 2, pageSize: 2 });
      expect(pageTwo.data).toMatchObject({ total: 5, page: 2, pageSize: 2 });
      expect(pageTwo.data.list.map((m: any) => m.title)).toEqual(['a2', 'a1']);
      const empty = await h.call('push.queryMessages', { status: 'empty' });
      expect(empty.data.list.map((m: any) => m.title)).toEqual(['b-empty']);
      const range = await h.call('push.queryMessages', { appId: a.appId, startDate: times[1], endDate: times[3] });
      expect(range.data.list.map((m: any) => m.title)).toEqual(['a3', 'a2', 'a1']);
      expectRefusal(await h.call('push.queryMessages', { startDate: start, endDate: start - 1 }), pushErrors.rows.startAfterEnd);
      expect((await h.call('push.queryMessages', { status: 'weird' })).message).toMatch(/must be one of/);
      // the history of a deleted app stays queryable
      await h.call('push.deleteApp', { id: a.appId });
      expect((await h.call('push.queryMessages', { appId: a.appId })).data.total).toBe(5);
    } finally {
      await h.close();
    }
  });

  it('prunes messages older than the retention setting; their pages say so', async () => {
    const h = await startPushServer({ clock, settings: { push: { retentionDays: 3 } } });
    try {
      const a = await h.setup({ type: 'desktop' });
      const old = (await h.push(`/send/${a.appKey}`, { query: { title: 'old' } })).body.data;
      clock.advance(2 * DAY);
      await h.push(`/send/${a.appKey}`, { query: { title: 'recent' } });
      clock.advance(1 * DAY + 1000);
      expect(await h.server.app.services.push.prune()).toBe(1);
      const left = await h.call('push.queryMessages', {});
      expect(left.data.list.map((m: any) => m.title)).toEqual(['recent']);
      expectRefusal(await h.call('push.getMessage', { id: old.pushId }), pushErrors.rows.messageNotFound);
      const gone = await h.fetch(new URL(old.url).pathname);
      expect(gone.status).toBe(404);
      expect(await gone.text()).toMatch(/keeps messages for 3 days/);
    } finally {
      await h.close();
    }
  });

  it('records a push interrupted by a crash (journal without history row) as failed at the next start', async () => {
    const first = await startPushServer({ clock });
    const a = await first.setup({ type: 'desktop' });
    const done = (await first.push(`/send/${a.appKey}`, { query: { title: 'finished' } })).body.data;
    const id = '0' + clock.now().toString(36).padStart(8, '0') + 'crashcrash';
    await first.server.app.db.local.put(`push-pending:${id}`, {
      id,
      userId: first.user.id,
      appId: a.appId,
      appName: 'Test app',
      channelId: a.channelId,
      channelType: 'desktop',
      title: 'in flight',
      desp: '',
      caller: '127.0.0.1',
      createdAt: clock.now(),
      recipients: [{ label: 'desktop', name: 'This computer' }],
    });
    // a journal entry whose row was written (crash after the insert) is just dropped
    await first.server.app.db.local.put(`push-pending:${done.pushId}`, { id: done.pushId, recipients: [] });
    await first.close(true);
    const second = await startPushServer({ clock, dataDir: first.dataDir });
    try {
      const list = await second.api('push.queryMessages', {}, first.user.token);
      expect(list.data.total).toBe(2);
      const interrupted = await second.api('push.getMessage', { id }, first.user.token);
      expect(interrupted.data).toMatchObject({ title: 'in flight', status: 'failed', failed: 1 });
      expect(interrupted.data.results[0]).toMatchObject({ ok: false, class: 'transient', errmsg: expect.stringMatching(/stopped while this push was being delivered/) });
      expect(await second.server.app.db.local.entries('push-pending:')).toEqual([]);
    } finally {
      await second.close();
    }
  });
});
