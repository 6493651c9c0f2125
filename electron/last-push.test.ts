import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, startTestServer, type TestServer } from '../server/test-support/test-server';
import { watchLastPush, type LastPush } from './last-push';

let t: TestServer;
let appKey: string;
beforeAll(async () => {
  t = await startTestServer({ settings: { push: { sendPerAppKey: 10_000, sendPerAddress: 10_000 } } });
  const user = await registerUser(t);
  const channel = await t.api('push.createChannel', { name: 'Desk', type: 'desktop' }, user.token);
  const app = await t.api('push.createApp', { name: 'Home', channelId: channel.data.id }, user.token);
  appKey = app.data.appKey;
});
afterAll(() => t.close());

const send = (title: string) =>
  t.fetch(`/send/${appKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title }) }).then((r) => expect(r.status).toBe(200));

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 300 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe("the tray's last push", () => {
  it('starts with the newest push already in the history, then follows new ones', async () => {
    await send('first');
    await send('second');
    const seen: LastPush[] = [];
    const stop = watchLastPush(t.server.app, (push) => seen.push(push));
    try {
      await until(() => seen.length > 0);
      expect(seen.at(-1)).toMatchObject({ title: 'second', appName: 'Home', status: 'success' });
      await send('third');
      await until(() => seen.at(-1)?.title === 'third');
      expect(seen.at(-1)).toMatchObject({ title: 'third', status: 'success' });
      expect(seen.map((p) => p.title)).not.toContain('first');
    } finally {
      stop();
    }
  });

  it('does nothing in a build without the push domain', () => {
    const stop = watchLastPush({ services: {} } as never, () => {
      throw new Error('no push expected');
    });
    expect(() => stop()).not.toThrow();
  });
});
