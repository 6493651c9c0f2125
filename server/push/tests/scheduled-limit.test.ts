import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock';
import { createLogger } from '../../lib/logger';
import { usersDomain } from '../../users';
import { pushDomain } from '..';
import { startPushServer, type PushTestServer } from './helpers';

/** Scheduled pushes: the per-account limit under concurrent requests, and the timer at shutdown. */

const START = Date.UTC(2026, 10, 23, 2, 0, 0);
const LIMIT = 5;

describe('the per-account limit of waiting pushes', () => {
  let t: PushTestServer;
  let appKey: string;
  beforeAll(async () => {
    t = await startPushServer({ clock: new ManualClock(START), domains: [usersDomain(), pushDomain({ scheduledPerUser: LIMIT })] });
    ({ appKey } = await t.setup({ type: 'desktop' }));
  });
  afterAll(() => t.close());

  const schedule = (title: string) => t.push(`/send/${appKey}`, { json: { title, delay: '10m' } });
  const stored = async () => (await t.server.app.db.local.entries('push-scheduled:')).length;

  it('holds under concurrent requests: exactly the limit is stored, the rest are refused; cancelling one frees a slot', async () => {
    const answers = await Promise.all(Array.from({ length: 4 * LIMIT }, (_, i) => schedule(`push ${i}`)));
    const accepted = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    expect(accepted).toHaveLength(LIMIT);
    for (const answer of accepted) expect(answer.body.data).toMatchObject({ scheduled: true });
    expect(refused).toHaveLength(3 * LIMIT);
    for (const answer of refused) {
      expect(answer.status).toBe(400);
      expect(answer.body.message).toBe(`You already have ${LIMIT} scheduled pushes waiting, the most PennyPost keeps per account. Nothing was sent.`);
    }
    expect((await t.call('push.queryScheduled', {})).data.total).toBe(LIMIT);
    expect(await stored()).toBe(LIMIT);

    expect((await t.call('push.cancelScheduled', { id: accepted[0]?.body.data.pushId })).code).toBe(200);
    const again = await Promise.all([schedule('one more'), schedule('one too many')]);
    expect(again.map((a) => a.status).sort()).toEqual([200, 400]);
    expect(await stored()).toBe(LIMIT);
  });

  it('frees the slot of a push whose write failed', async () => {
    const push = t.server.app.services.push;
    const id = (await t.call('push.queryScheduled', {})).data.list[0].id as string;
    expect((await t.call('push.cancelScheduled', { id })).code).toBe(200);
    const local = t.server.app.db.local;
    const put = local.put.bind(local);
    local.put = () => Promise.reject(Object.assign(new Error('disk full'), { code: 'ENOSPC' }));
    try {
      expect((await schedule('refused by the disk')).status).toBe(503);
    } finally {
      local.put = put;
    }
    expect((await schedule('fits')).status).toBe(200);
    expect(push.scheduled.list(t.user.id)).toHaveLength(LIMIT);
  });
});

describe('the scheduled-push timer at shutdown', () => {
  it('is stopped when the server closes: a push due after the close is not picked up, and nothing fails', async () => {
    const clock = new ManualClock(START);
    const lines: string[] = [];
    const t = await startPushServer({ clock, logger: createLogger('debug', (line) => lines.push(line)) });
    const { appKey } = await t.setup({ type: 'desktop' });
    const seen: string[] = [];
    t.server.app.services.push.onDesktopMessage((message) => seen.push(message.title));
    const answer = await t.push(`/send/${appKey}`, { json: { title: 'after the close', at: START + 1300 } });
    expect(answer.body.data).toMatchObject({ scheduled: true });
    // Another push coming and going re-arms the timer for the first one: due in 100 ms of real time.
    clock.advance(1200);
    const other = await t.push(`/send/${appKey}`, { json: { title: 'cancelled', delay: '1h' } });
    expect((await t.call('push.cancelScheduled', { id: other.body.data.pushId })).code).toBe(200);
    const armedBy = Date.now(); // the timer was re-armed before this: due by armedBy + 100 ms
    await t.close();
    clock.advance(1000);
    // Node fires timers in the order they are due: once this one fires, the push timer would have
    // fired (had the close not stopped it), and its failed run would be logged a few turns later.
    // fixed-wait-ok: waits out the 100 ms timer whose stopping is what is tested (at most 101 ms)
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, armedBy + 101 - Date.now())));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toEqual([]);
    expect(lines.filter((line) => /scheduled push/.test(line))).toEqual([]);
  });
});
