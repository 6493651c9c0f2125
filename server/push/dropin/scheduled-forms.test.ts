import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDropinServer, type DropinServer } from '../tests/dropin-helpers';

/** Issue 20: `at` / `delay` work on every form, each answering in its own shape; nothing arrives before its time. */

let s: DropinServer;
beforeAll(async () => {
  s = await startDropinServer();
});
afterAll(() => s.t.close());

const scheduled = async () => ((await s.t.call('push.queryScheduled', {})).data as { list: { id: string; title: string; at: number }[] }).list;

describe('scheduled pushes through the drop-in forms', () => {
  it('ServerChan, ntfy (Delay / In / At headers), Bark and Gotify all schedule instead of sending', async () => {
    const arrivedBefore = s.arrived.length;
    const hour = Date.now() + 3600_000;

    const serverchan = await s.t.push(`/send/${s.appKey}.send`, { form: { text: 'ServerChan later', desp: 'x', delay: '1h' } });
    expect(serverchan.status).toBe(200);
    expect(serverchan.body).toMatchObject({ code: 0, data: { scheduled: true } });

    const ntfy = await s.t.fetch(`/${s.appKey}`, { method: 'POST', body: 'ntfy later', headers: { 'content-type': 'text/plain', Title: 'ntfy later', Delay: '30m' } });
    expect(ntfy.status).toBe(200);
    const ntfyBody = (await ntfy.json()) as { event: string; time: number };
    expect(ntfyBody.event).toBe('message');
    // ntfy answers a delayed message with the time it goes out.
    expect(ntfyBody.time).toBeGreaterThan(Math.floor(Date.now() / 1000) + 29 * 60);

    const ntfyAt = await s.t.fetch(`/${s.appKey}`, { method: 'PUT', body: 'ntfy at', headers: { At: String(Math.floor(hour / 1000)), Title: 'ntfy at' } });
    expect(ntfyAt.status).toBe(200);

    const bark = await s.t.fetch(`/${s.appKey}/Bark%20later/body?delay=2h`);
    expect(bark.status).toBe(200);
    expect(await bark.json()).toMatchObject({ code: 200, message: 'success' });

    const gotify = await s.t.fetch(`/message?token=${s.appKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Gotify later', message: 'm', at: hour }),
    });
    expect(gotify.status).toBe(200);

    const list = await scheduled();
    expect(list.map((p) => p.title).sort()).toEqual(['Bark later', 'Gotify later', 'ServerChan later', 'ntfy at', 'ntfy later']);
    expect(s.arrived.length).toBe(arrivedBefore);

    // A bad time is refused in the form's own error shape, and nothing is stored.
    const bad = await s.t.fetch(`/${s.appKey}`, { method: 'POST', body: 'never', headers: { 'content-type': 'text/plain', Delay: 'next tuesday' } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ http: 400 });
    expect((await scheduled()).length).toBe(5);
  });
});
