import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, startTestServer, type TestServer } from '../../test-support/test-server';

/**
 * Issue 36, finding 2: an inbox draft reached the Inbox screen ~23 s after its notice (the screen
 * polled every 30 s) while pushes reach the feed in ~0.1 s. The feed stream the window already
 * holds (GET /events/push) now also says `event: change` with `{topic: "inbox"}` when a notice
 * made a draft (or a rule recorded it), to that person only.
 */
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

/** Opens the user's feed and collects its events (name and data) until stopped. */
async function feed(token: string) {
  const controller = new AbortController();
  const res = await t.fetch('/events/push', { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
  expect(res.status).toBe(200);
  const events: Array<{ event: string; data: string; id: string }> = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const reading = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value);
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const field = (name: string) => new RegExp(`^${name}: ?(.*)$`, 'm').exec(block)?.[1] ?? '';
          if (/^event:/m.test(block)) events.push({ event: field('event'), data: field('data'), id: field('id') });
        }
      }
    } catch {
      // aborted
    }
  })();
  return {
    events,
    stop: async () => {
      controller.abort();
      await reading;
    },
  };
}

async function waitFor(check: () => boolean, ms: number): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return Date.now() - started;
}

describe('the feed says when the inbox changed', () => {
  it('a notice that makes a draft reaches the owner’s open windows at once as `change {topic: "inbox"}`, no one else’s', async () => {
    const ada = await registerUser(t);
    const milo = await registerUser(t);
    await t.api('asset.create', { name: 'Card', type: 'debit_card', currency: 'CNY', balance: 100 }, ada.token);
    const key = ((await t.api('inbox.getKey', {}, ada.token)).data as { inboxKey: string }).inboxKey;
    const adaFeed = await feed(ada.token);
    const adaSecondWindow = await feed(ada.token);
    const miloFeed = await feed(milo.token);
    try {
      const sent = await t.fetch(`/in/${key}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '您尾号1234的卡消费25.00元' });
      expect(sent.status).toBe(200);
      const took = await waitFor(() => adaFeed.events.length > 0 && adaSecondWindow.events.length > 0, 2000);
      expect(took).toBeLessThan(1000);
      expect(adaFeed.events).toEqual([{ event: 'change', data: '{"topic":"inbox"}', id: '' }]);
      expect(adaSecondWindow.events).toEqual(adaFeed.events);
      // The same notice again makes no draft and says nothing.
      await t.fetch(`/in/${key}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '您尾号1234的卡消费25.00元' });
      await new Promise((r) => setTimeout(r, 100));
      expect(adaFeed.events).toHaveLength(1);
      expect(miloFeed.events).toEqual([]);
    } finally {
      await Promise.all([adaFeed.stop(), adaSecondWindow.stop(), miloFeed.stop()]);
    }
  });
});
