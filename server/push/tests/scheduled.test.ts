import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock';
import { pushErrors } from '../errors';
import { registerUser, startTestServer } from '../../test-support/test-server';
import { expectRefusal } from '../../test-support/refusal';
import { usersDomain } from '../../users';
import { pushDomain } from '..';
import { startPushServer, type PushTestServer } from './helpers';

const START = Date.UTC(2026, 10, 23, 2, 0, 0);
const clock = new ManualClock(START);
let t: PushTestServer;
let desktop: { appKey: string; appId: string };
/** Titles delivered to the desktop, in order. */
const delivered: string[] = [];

const push = (t: PushTestServer) => t.server.app.services.push;

beforeAll(async () => {
  t = await startPushServer({ clock });
  desktop = await t.setup({ type: 'desktop' });
  push(t).onDesktopMessage((message) => delivered.push(message.title));
});
afterAll(() => t.close());

const schedule = (fields: Record<string, unknown>) => t.push(`/send/${desktop.appKey}`, { json: fields });
const waiting = async () => (await t.call('push.queryScheduled', {})).data;
const historyTotal = async () => (await t.call('push.queryMessages', { appId: desktop.appId, pageSize: 1 })).data.total as number;

describe('scheduling through /send', () => {
  it('answers code 0 with scheduled: true, waits, and delivers once when due', async () => {
    const before = await historyTotal();
    const answer = await schedule({ title: 'later', desp: 'text', delay: '10m', priority: 'high', group: 'g' });
    expect(answer.status).toBe(200);
    const id = answer.body.data.pushId;
    // ServerChan's fields ride along as on every /send answer (pushid, readkey: the push's page).
    expect(answer.body).toEqual({
      code: 0,
      errno: 0,
      message: `Scheduled for ${new Date(START + 600_000).toISOString()}.`,
      data: { pushId: expect.any(String), scheduled: true, at: START + 600_000, pushid: id, readkey: expect.any(String), errno: 0, error: 'SUCCESS' },
    });
    expect((await waiting()).list).toEqual([
      { id, appId: desktop.appId, appName: 'Test app', title: 'later', priority: 'high', group: 'g', at: START + 600_000, createdAt: START, sending: false },
    ]);
    expect(await historyTotal()).toBe(before);

    clock.advance(599_000);
    await push(t).scheduled.runDue();
    expect(delivered).not.toContain('later');
    expect((await waiting()).total).toBe(1);

    clock.advance(1000);
    await push(t).scheduled.runDue();
    await push(t).scheduled.runDue();
    expect(delivered.filter((title) => title === 'later')).toHaveLength(1);
    expect((await waiting()).total).toBe(0);
    const sent = await t.call('push.getMessage', { id });
    expect(sent.data).toMatchObject({ title: 'later', desp: 'text', status: 'success', total: 1, success: 1 });
    expect(await historyTotal()).toBe(before + 1);
    // Sent: cancelling is a conflict, not a 404.
    expect(await t.call('push.cancelScheduled', { id })).toMatchObject({ status: 409, code: 409 });
  });

  it('reads Unix seconds, milliseconds, ISO 8601 with an offset, and numbers and durations as delays', async () => {
    // Nothing waits (the first test's push was sent): the clock may go back to the start.
    clock.set(START);
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ at: Math.floor(START / 1000) + 3600 }, START + 3_600_000],
      [{ at: String(START + 7_200_000) }, START + 7_200_000],
      [{ at: '2026-11-23T12:00:00+08:00' }, Date.UTC(2026, 10, 23, 4, 0, 0)],
      [{ at: '2026-11-23 03:30Z' }, Date.UTC(2026, 10, 23, 3, 30, 0)],
      [{ delay: 90 }, START + 90_000],
      [{ delay: '1h30m' }, START + 5_400_000],
      [{ delay: '2d' }, START + 2 * 86_400_000],
      [{ delay: String(Math.floor(START / 1000) + 60) }, START + 60_000],
    ];
    for (const [fields, at] of cases) {
      const answer = await schedule({ title: 'parse', ...fields });
      expect(answer.body.data, JSON.stringify(fields)).toMatchObject({ scheduled: true, at });
      expect((await t.call('push.cancelScheduled', { id: answer.body.data.pushId })).data).toEqual({ cancelled: true, id: answer.body.data.pushId, at });
    }
    // A few seconds in the past, or no wait: sent now, like any push.
    for (const fields of [{ at: Math.floor(START / 1000) - 10 }, { delay: '0' }, { delay: '' }]) {
      const answer = await schedule({ title: 'now', ...fields });
      expect(answer.body.data, JSON.stringify(fields)).toMatchObject({ total: 1, success: 1 });
    }
  });

  it('refuses bad values with a 400 and stores nothing', async () => {
    clock.set(START);
    const total = await historyTotal();
    const rows = pushErrors.rows;
    const bad: Array<[Record<string, unknown>, (typeof rows)[keyof typeof rows], RegExp]> = [
      [{ delay: 'soon' }, rows.badScheduleTime, /delay "soon" is not a time/],
      [{ at: 'tomorrow, 10am' }, rows.badScheduleTime, /at "tomorrow, 10am" is not a time/],
      [{ at: '2026-11-24T10:00:00' }, rows.badScheduleTime, /is not a time/],
      [{ delay: '-5' }, rows.badScheduleTime, /is not a time/],
      [{ at: String(START + 60_000), delay: '1m' }, rows.atAndDelay, /either at or delay/],
      [{ at: Math.floor(START / 1000) - 3600 }, rows.scheduleInPast, /in the past/],
      [{ delay: '31d' }, rows.scheduleTooFar, /at most 30 days ahead/],
      [{ delay: ['1m', '2m'] }, rows.fieldRepeated, /more than once/],
      [{ delay: '1m', title: '' }, rows.titleRequired, /title is required/],
      [{ delay: '1m', priority: 'loud' }, rows.badPriority, /priority "loud"/],
    ];
    for (const [fields, row, message] of bad) {
      const answer = await schedule({ title: 'bad', ...fields });
      expectRefusal({ status: answer.status, ...answer.body }, row, { label: JSON.stringify(fields) });
      expect(answer.body.message).toMatch(message);
    }
    expect((await waiting()).total).toBe(0);
    expect(await historyTotal()).toBe(total);
    const unknownKey = await t.push('/send/SCTnoSuchKeyAtAll1234', { json: { title: 'x', delay: '1m' } });
    expect(unknownKey.status).toBe(404);
  });

  it("pages the list, and keeps other users' pushes out of reach", async () => {
    const ids: string[] = [];
    for (const delay of ['3h', '1h', '2h']) ids.push((await schedule({ title: `p${delay}`, delay })).body.data.pushId);
    const first = (await t.call('push.queryScheduled', { pageSize: 2 })).data;
    expect(first).toMatchObject({ total: 3, page: 1, pageSize: 2 });
    expect(first.list.map((e: { title: string }) => e.title)).toEqual(['p1h', 'p2h']);
    expect((await t.call('push.queryScheduled', { page: 2, pageSize: 2 })).data.list.map((e: { title: string }) => e.title)).toEqual(['p3h']);

    const other = await registerUser(t);
    expect((await t.api('push.queryScheduled', {}, other.token)).data.total).toBe(0);
    expect(await t.api('push.cancelScheduled', { id: ids[0] }, other.token)).toMatchObject({ status: 404, code: 404 });
    for (const id of ids) expect((await t.call('push.cancelScheduled', { id })).status).toBe(200);
    expect(await t.call('push.cancelScheduled', { id: ids[0] })).toMatchObject({ status: 404, code: 404 });
    clock.advance(4 * 3_600_000);
    await push(t).scheduled.runDue();
    expect(delivered.filter((title) => title.startsWith('p'))).toEqual([]);
  });

  it('the one timer sends a due push by itself once it is re-armed (by another push coming and going), and uses the app as it is then', async () => {
    const id = (await schedule({ title: 'by the timer', delay: '1m' })).body.data.pushId;
    expect((await t.call('push.updateApp', { id: desktop.appId, name: 'Renamed' })).status).toBe(200);
    expect((await waiting()).list[0]).toMatchObject({ id, appName: 'Renamed' });
    clock.advance(120_000);
    // Another push scheduled and cancelled re-arms the timer (both do): the first one is overdue, so it fires at once.
    const other = (await schedule({ title: 'cancelled', delay: '1h' })).body.data.pushId;
    expect((await t.call('push.cancelScheduled', { id: other })).status).toBe(200);
    await expect.poll(() => delivered.filter((title) => title === 'by the timer').length, { timeout: 5000 }).toBe(1);
    await expect.poll(async () => (await push(t).history.get(id))?.status, { timeout: 5000 }).toBe('success');
    expect((await push(t).history.get(id))?.appName).toBe('Renamed');
    expect(delivered).not.toContain('cancelled');
    expect((await t.call('push.updateApp', { id: desktop.appId, name: 'Test app' })).status).toBe(200);
  });

  it('a push being sent can no longer be cancelled, and is sent once', async () => {
    const id = (await schedule({ title: 'race', delay: '1m' })).body.data.pushId;
    clock.advance(60_000);
    const run = push(t).scheduled.runDue();
    const cancel = await t.call('push.cancelScheduled', { id });
    await run;
    expect(cancel).toMatchObject({ status: 409, code: 409, message: expect.stringMatching(/being sent or was already sent/) });
    expect(delivered.filter((title) => title === 'race')).toHaveLength(1);
  });

  it('at send time: a deleted app is recorded as not sent; a disabled account sends nothing', async () => {
    const other = await t.setup({ type: 'desktop' });
    const gone = (await t.push(`/send/${other.appKey}`, { json: { title: 'orphan', delay: '5m' } })).body.data.pushId;
    expect((await t.call('push.deleteApp', { id: other.appId })).status).toBe(200);
    clock.advance(300_000);
    await push(t).scheduled.runDue();
    expect(delivered).not.toContain('orphan');
    expect((await t.call('push.getMessage', { id: gone })).data).toMatchObject({ status: 'failed', total: 0, summary: expect.stringMatching(/app "Test app" was deleted/) });

    const users = t.server.app.services.users;
    const id = (await schedule({ title: 'disabled', delay: '5m' })).body.data.pushId;
    await users.patch(t.user.id, { disabled: true });
    clock.advance(300_000);
    await push(t).scheduled.runDue();
    await users.patch(t.user.id, { disabled: false });
    expect(delivered).not.toContain('disabled');
    expect((await push(t).history.get(id))?.summary).toMatch(/account was disabled/);
  });

  it('resetting a leaked app key: what was scheduled with the old key is never sent, and the history says why', async () => {
    const leaked = await t.setup({ type: 'desktop' });
    const ids = [];
    for (const delay of ['5m', '10m']) ids.push((await t.push(`/send/${leaked.appKey}`, { json: { title: 'from the leaked key', delay } })).body.data.pushId);
    const reset = await t.call('push.resetAppKey', { id: leaked.appId });
    expect(reset.status).toBe(200);
    expect(reset.data.appKey).not.toBe(leaked.appKey);
    expect((await waiting()).list.filter((p: { appId: string }) => p.appId === leaked.appId)).toEqual([]);
    clock.advance(600_000);
    await push(t).scheduled.runDue();
    expect(delivered).not.toContain('from the leaked key');
    for (const id of ids) {
      expect((await t.call('push.getMessage', { id })).data).toMatchObject({
        status: 'failed',
        total: 0,
        summary: expect.stringMatching(/app key this push was scheduled with was reset/),
      });
    }
    // The old key answers 404; the new one schedules and delivers.
    expect((await t.push(`/send/${leaked.appKey}`, { json: { title: 'old key again', delay: '1m' } })).status).toBe(404);
    expect((await t.push(`/send/${reset.data.appKey}`, { json: { title: 'new key', delay: '1m' } })).status).toBe(200);
    clock.advance(60_000);
    await push(t).scheduled.runDue();
    expect(delivered).toContain('new key');
  });
});

describe('across restarts', () => {
  const restartClock = new ManualClock(START);
  const start = (dataDir?: string) => startTestServer({ clock: restartClock, domains: [usersDomain(), pushDomain()], ...(dataDir ? { dataDir } : {}) });

  it('keeps a scheduled push over a restart and sends it once; one interrupted mid-send is recorded, never sent again', async () => {
    const first = await start();
    const dataDir = first.dataDir;
    const user = await registerUser(first);
    const channel = (await first.api('push.createChannel', { name: 'd', type: 'desktop' }, user.token)).data;
    const app = (await first.api('push.createApp', { name: 'Restart', channelId: channel.id }, user.token)).data;
    const send = (fields: Record<string, unknown>) =>
      fetch(`${first.url}/send/${app.appKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(fields) }).then((r) => r.json());
    const kept = (await send({ title: 'kept', delay: '1h' })).data.pushId;
    const crashed = (await send({ title: 'crashed', delay: '30m' })).data.pushId;
    // What a crash between "marked as being sent" and the delivery leaves behind.
    const key = `push-scheduled:${crashed}`;
    const record = await first.server.app.db.local.get<Record<string, unknown>>(key);
    await first.server.app.db.local.put(key, { ...record, state: 'sending' });
    await first.close(true);

    const second = await start(dataDir);
    try {
      const seen: string[] = [];
      second.server.app.services.push.onDesktopMessage((message) => seen.push(message.title));
      const list = (await second.api('push.queryScheduled', {}, user.token)).data;
      expect(list.list.map((e: { id: string }) => e.id)).toEqual([kept]);
      const interrupted = (await second.api('push.getMessage', { id: crashed }, user.token)).data;
      expect(interrupted).toMatchObject({ status: 'failed', summary: expect.stringMatching(/stopped while this scheduled push was being sent/) });
      expect(await second.api('push.cancelScheduled', { id: crashed }, user.token)).toMatchObject({ status: 409 });

      restartClock.advance(3_600_000);
      await second.server.app.services.push.scheduled.runDue();
      await second.server.app.services.push.scheduled.runDue();
      expect(seen).toEqual(['kept']);
      expect((await second.api('push.getMessage', { id: kept }, user.token)).data).toMatchObject({ status: 'success' });
      expect((await second.api('push.queryScheduled', {}, user.token)).data.total).toBe(0);
    } finally {
      await second.close(true);
    }

    // A third start finds nothing left to send.
    const third = await start(dataDir);
    try {
      expect((await third.api('push.queryScheduled', {}, user.token)).data.total).toBe(0);
      const history = (await third.api('push.queryMessages', {}, user.token)).data;
      expect(history.list.map((m: { title: string }) => m.title).sort()).toEqual(['crashed', 'kept']);
    } finally {
      await third.close();
    }
  });

  it('records a push found more than a day late at start as missed, without sending it', async () => {
    const first = await start();
    const user = await registerUser(first);
    const channel = (await first.api('push.createChannel', { name: 'd', type: 'desktop' }, user.token)).data;
    const app = (await first.api('push.createApp', { name: 'Late', channelId: channel.id }, user.token)).data;
    const answer = await fetch(`${first.url}/send/${app.appKey}?title=late&delay=1h`).then((r) => r.json());
    await first.close(true);
    restartClock.advance(26 * 3_600_000);
    const second = await start(first.dataDir);
    try {
      const seen: string[] = [];
      second.server.app.services.push.onDesktopMessage((message) => seen.push(message.title));
      await second.server.app.services.push.scheduled.runDue();
      expect(seen).toEqual([]);
      expect((await second.api('push.getMessage', { id: answer.data.pushId }, user.token)).data).toMatchObject({
        status: 'failed',
        summary: expect.stringMatching(/^Missed: .*25 hours ago/),
      });
    } finally {
      await second.close();
    }
  });
});
