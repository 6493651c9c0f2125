import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock';
import { registerUser } from '../../test-support/test-server';
import { startPushServer, type PushTestServer } from './helpers';
import { commonErrors } from '../../lib/errors';
import { expectRefusal } from '../../test-support/refusal';

const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0));
let t: PushTestServer;
let desktop: { appKey: string; appId: string };

beforeAll(async () => {
  t = await startPushServer({ clock });
  desktop = await t.setup({ type: 'desktop' });
});
afterAll(() => t.close());

async function pushed(title: string, desp = '') {
  clock.advance(1000);
  const res = await t.push(`/send/${desktop.appKey}`, { json: { title, desp } });
  expect(res.status).toBe(200);
  return (res.body.data as { pushId: string }).pushId;
}

/** The first `event: push` of the user's feed. */
async function firstEvent(token: string): Promise<Record<string, unknown>> {
  const controller = new AbortController();
  const res = await t.fetch(`/events/push?token=${encodeURIComponent(token)}`, { signal: controller.signal });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const send = pushed('Live', '**bold** <script>alert(1)</script> [x](javascript:alert(1))');
  try {
    for (;;) {
      const match = /event: push\ndata: ([^\n]*)\n\n/.exec(buffer);
      if (match) return JSON.parse(match.at(1)!) as Record<string, unknown>;
      const { value, done } = await reader.read();
      if (done) throw new Error('feed ended');
      buffer += decoder.decode(value);
    }
  } finally {
    await send;
    controller.abort();
  }
}

describe('the live feed with rendered Markdown, and its history (push.recentFeed)', () => {
  it('sends the sanitised HTML of the Markdown with each live event', async () => {
    const event = await firstEvent(t.user.token);
    expect(event).toMatchObject({ title: 'Live', desp: expect.stringContaining('**bold**') });
    const html = event.html as string;
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('&lt;script&gt;');
    expect(html).not.toMatch(/<script|href="javascript/i);
  });

  it('lists the delivered desktop pushes newest first in the same shape, and nothing of other apps or users', async () => {
    const a = await pushed('first', '# Heading');
    const b = await pushed('second', '');
    const hook = await t.setup({ type: 'webhook', config: { format: 'json', url: 'http://127.0.0.1:9' } });
    await t.push(`/send/${hook.appKey}`, { query: { title: 'to a webhook' } });
    const other = await registerUser(t);
    const recent = await t.call('push.recentFeed', {});
    expect(recent.code).toBe(200);
    const list = (recent.data as { list: Array<Record<string, unknown>> }).list;
    expect(list.map((m) => m.title)).toEqual(['second', 'first', 'Live']);
    expect(list[0]).toEqual({ id: b, appId: desktop.appId, appName: 'Test app', title: 'second', desp: '', html: '', url: expect.stringMatching(/\/m\//), createdAt: clock.now() });
    expect(list[1]).toMatchObject({ id: a, html: '<h1>Heading</h1>\n' });
    expect((await t.call('push.recentFeed', { limit: 1 })).data).toMatchObject({ list: [{ id: b }] });
    const theirs = await t.api('push.recentFeed', {}, other.token);
    expect(theirs.data).toEqual({ list: [] });
    expectRefusal(await t.call('push.recentFeed', { limit: 101 }), commonErrors.rows.invalid);
  });
});
