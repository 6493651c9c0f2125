import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock';
import { newId } from '../../lib/ids';
import type { GoalDoc } from '../../savings/schema';
import { seal } from '../../sync/credentials';
import { registerUser } from '../../test-support/test-server';
import { SYNC_PAUSED_ALERT_MS, SYNC_RECOVERED_MS } from '../sources';
import { DAY, eventually, HOUR, NotifyHarness, type User } from './helpers';

/** Monday 2026-11-23 00:00 UTC. */
const T0 = Date.UTC(2026, 10, 23);
const clock = new ManualClock(T0);
const h = new NotifyHarness(clock);
const MINUTE = 60_000;
const SYNC_PASSWORD = 'Sync-Secret-Password-77';
/** The first account: the server's owner. */
let owner: User;

beforeAll(async () => {
  await h.start({ sync: { retrySeconds: 0.2, requestTimeoutMs: 1000 } });
  owner = await registerUser(h.t);
}, 30_000);
afterAll(() => h.close());

async function userWithDesktop(events: Record<string, unknown>): Promise<{ user: User; appId: string }> {
  const user = await registerUser(h.t);
  const appId = await h.app(user, 'desktop');
  await h.ok(user, 'notify.configure', { appId, events });
  return { user, appId };
}

const shownTo = (user: User, title: RegExp) => h.desktop.filter((m) => m.userId === user.id && title.test(m.title));

describe('weekly summary', () => {
  it('fires once at the configured hour in each of two weeks as the clock advances, not again after a restart', async () => {
    clock.set(T0);
    const { user } = await userWithDesktop({ weeklySummary: { weekday: 'WE', hour: 9 } });
    const firedAt: number[] = [];
    for (let hour = 0; hour < 15 * 24; hour++) {
      clock.advance(HOUR);
      const before = shownTo(user, /week ahead/).length;
      await h.notifier.tick();
      if (shownTo(user, /week ahead/).length > before) firedAt.push(clock.now());
    }
    expect(firedAt.map((t) => new Date(t).toISOString())).toEqual(['2026-11-25T09:00:00.000Z', '2026-12-02T09:00:00.000Z']);
    const summaries = shownTo(user, /week ahead/);
    expect(summaries[0]?.title).toBe('Your week ahead (2026-W48)');
    expect(summaries[1]?.title).toBe('Your week ahead (2026-W49)');
    // Budgets and bills come from the planning domain (none here): the message still reads well.
    expect(summaries[0]?.desp).toContain('**Budgets in November 2026**');
    expect(summaries[0]?.desp).toContain('No budgets yet.');
    expect(summaries[1]?.desp).toContain('**Budgets in December 2026**');
    expect(summaries[1]?.desp).toContain('Nothing due.');

    // Back to Wednesday 2 December 10:00 after a restart: that week's summary was sent already.
    clock.set(Date.UTC(2026, 11, 2, 10));
    await h.restart();
    await h.notifier.tick();
    clock.advance(HOUR);
    await h.notifier.tick();
    expect(shownTo(user, /week ahead/)).toHaveLength(2);
  }, 60_000);
});

describe('goalReached', () => {
  it('announces a goal completed here once, and one completed on another device (arriving by sync) once', async () => {
    clock.set(T0 + 20 * DAY);
    const { user } = await userWithDesktop({ goalReached: true });
    const goal = await h.ok(user, 'savings.createGoal', { title: 'New bike', targetAmount: 300, currency: 'USD', endDate: clock.now() + 30 * DAY });
    await h.ok(user, 'savings.updateProgress', { goalId: goal.id, amount: 100 });
    await h.ok(user, 'savings.updateProgress', { goalId: goal.id, amount: 200 });
    const done = await eventually(
      () => shownTo(user, /^Goal reached/),
      (list) => list.length === 1,
    );
    expect(done[0]).toMatchObject({ title: 'Goal reached: New bike' });
    expect(done[0]?.desp).toContain('**300.00 USD**');

    // A goal completed elsewhere arrives as a document written by replication.
    const goals = h.t.server.app.db.collection<GoalDoc>('goals');
    const stored = (await goals.findOne(goal.id).exec())!.toJSON() as GoalDoc;
    const synced: GoalDoc = {
      ...stored,
      id: newId(clock.now()),
      title: 'Laptop',
      targetAmount: 120000,
      currentAmount: 120000,
      peakAmount: 120000,
      completedAt: clock.now() - HOUR,
    };
    await goals.insert(synced);
    await eventually(
      () => shownTo(user, /^Goal reached/),
      (list) => list.length === 2,
    );
    // Later writes of completed goals (a re-sync, a restart) do not announce them again.
    await h.restart();
    const again = h.t.server.app.db.collection<GoalDoc>('goals');
    await again.upsert({ ...synced, updatedAt: synced.updatedAt + 1 });
    // A goal completed after that write is announced: the write before it has been seen by then.
    await again.insert({ ...synced, id: newId(clock.now()), title: 'Marker' });
    await eventually(
      () => shownTo(user, /^Goal reached: Marker/),
      (list) => list.length === 1,
    );
    expect(shownTo(user, /^Goal reached/).map((m) => m.title)).toEqual(['Goal reached: New bike', 'Goal reached: Laptop', 'Goal reached: Marker']);
  });
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A configured sync of `user` against `url` (sync.configure itself needs a reachable server, so the setting is stored directly). */
async function storeSyncSetting(user: User, url: string, collections: string[]): Promise<void> {
  // The CouchDB addresses of these tests are on 127.0.0.1, which only the owner, and admins the owner
  // allows, may reach (docs/security.md, "Outbound requests").
  await h.ok(owner, 'settings.update', { network: { localDestinations: 'ownerAndAdmins' } });
  await h.ok(owner, 'user.setRole', { userId: user.id, role: 'admin' });
  const app = h.t.server.app;
  await app.db.local.put(`sync:${user.id}`, {
    url,
    username: 'couch-user-name',
    password: seal(app.secrets, SYNC_PASSWORD),
    live: true,
    collections,
    prefix: 'pp_',
    ownerId: user.id,
    generation: 0,
    enabled: false,
    configuredAt: clock.now(),
  });
}

describe('syncProblem', () => {
  it('sends once per episode: after the server was unreachable for 30 minutes, not again while it lasts, again for the next episode', async () => {
    clock.set(T0 + 40 * DAY);
    const { user } = await userWithDesktop({ syncProblem: true });
    const url = `http://127.0.0.1:${await closedPort()}/`;
    // A configured sync whose CouchDB has gone away (sync.configure itself needs a reachable server).
    await storeSyncSetting(user, url, ['records', 'assets']);
    const paused = async () => {
      await h.ok(user, 'sync.start');
      await eventually(
        () => h.ok(user, 'sync.status'),
        (s) => s.collections.some((c: { state: string }) => c.state === 'paused'),
      );
    };
    const problems = () => shownTo(user, /^Sync/);

    await paused();
    await h.notifier.tick();
    clock.advance(SYNC_PAUSED_ALERT_MS - MINUTE);
    await h.notifier.tick();
    expect(problems()).toHaveLength(0);
    clock.advance(MINUTE);
    await h.notifier.tick();
    expect(problems()).toHaveLength(1);
    for (let i = 0; i < 5; i++) {
      clock.advance(10 * MINUTE);
      await h.notifier.tick();
    }
    expect(problems()).toHaveLength(1);
    const message = problems().at(0);
    expect(message?.title).toBe('Sync cannot reach its server');
    expect(message?.desp).toMatch(/Sync of \*\*(records, assets|assets, records)\*\* has not reached its server since 2027-01-02 00:00/);
    for (const secret of [SYNC_PASSWORD, 'couch-user-name', url]) expect(JSON.stringify(message)).not.toContain(secret);

    // A restart while the problem lasts is the same episode: no second message.
    await h.restart();
    await eventually(
      () => h.ok(user, 'sync.status'),
      (s) => s.collections.some((c: { state: string }) => c.state === 'paused'),
    );
    await h.notifier.tick();
    clock.advance(SYNC_PAUSED_ALERT_MS);
    await h.notifier.tick();
    expect(problems()).toHaveLength(1);

    // Sync stopped: the episode ends. Started again and still unreachable: a new episode, one more message.
    await h.ok(user, 'sync.stop');
    await h.notifier.tick();
    await paused();
    await h.notifier.tick();
    clock.advance(SYNC_PAUSED_ALERT_MS);
    await h.notifier.tick();
    await h.notifier.tick();
    expect(problems()).toHaveLength(2);
    await h.ok(user, 'sync.stop');
    expect(SYNC_RECOVERED_MS).toBeGreaterThan(0);
  }, 60_000);
});

describe('syncProblem while the reminder app is gone', () => {
  it('is announced once another app is chosen, not lost with the deleted one', async () => {
    clock.set(T0 + 60 * DAY);
    const { user, appId } = await userWithDesktop({ syncProblem: true });
    await storeSyncSetting(user, `http://127.0.0.1:${await closedPort()}/`, ['records']);
    await h.ok(user, 'sync.start');
    await eventually(
      () => h.ok(user, 'sync.status'),
      (s) => s.collections.some((c: { state: string }) => c.state === 'paused'),
    );
    await h.notifier.tick();
    await h.ok(user, 'push.deleteApp', { id: appId });
    clock.advance(SYNC_PAUSED_ALERT_MS);
    await h.notifier.tick();
    expect(shownTo(user, /^Sync/)).toHaveLength(0);
    const other = await h.app(user, 'desktop');
    await h.ok(user, 'notify.configure', { appId: other, events: { syncProblem: true } });
    clock.advance(MINUTE);
    await h.notifier.tick();
    await h.notifier.tick();
    expect(shownTo(user, /^Sync/)).toHaveLength(1);
    await h.ok(user, 'sync.stop');
  }, 60_000);
});

describe('syncProblem after an error', () => {
  it('sends at once when CouchDB refuses the password, once, without naming the server or the user', async () => {
    clock.set(T0 + 50 * DAY);
    const { user } = await userWithDesktop({ syncProblem: true });
    const refusing: Server = createServer((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"error":"unauthorized","reason":"Name or password is incorrect."}');
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/`;
      await storeSyncSetting(user, url, ['records']);
      await h.ok(user, 'sync.start');
      await eventually(
        () => h.ok(user, 'sync.status'),
        (s) => s.collections.every((c: { state: string }) => c.state === 'error'),
      );
      await h.notifier.tick();
      clock.advance(MINUTE);
      await h.notifier.tick();
      const sent = shownTo(user, /^Sync/);
      expect(sent).toHaveLength(1);
      expect(sent[0]?.title).toBe('Sync stopped with an error');
      expect(sent[0]?.desp).toContain('Sync of **records** stopped with an error');
      for (const secret of [SYNC_PASSWORD, 'couch-user-name', url, 'incorrect']) expect(JSON.stringify(sent[0])).not.toContain(secret);
      await h.ok(user, 'sync.stop');
    } finally {
      await new Promise((resolve) => refusing.close(resolve));
    }
  }, 30_000);
});

describe('backupProblem', () => {
  it('tells the owner (and admins) who want it of a failed daily snapshot once; members are not told', async () => {
    clock.set(T0 + 60 * DAY);
    expect((await h.t.server.app.services.users.findById(owner.id))?.role).toBe('owner');
    const appId = await h.app(owner, 'desktop');
    await h.ok(owner, 'notify.configure', { appId, events: { backupProblem: true } });
    const { user: member } = await userWithDesktop({ backupProblem: true });
    expect((await h.t.server.app.services.users.findById(member.id))?.role).toBe('member');
    const { user: other } = await userWithDesktop({ budget80: true });
    await h.notifier.backupFailed({ id: 'snap-1', at: clock.now() });
    await h.notifier.backupFailed({ id: 'snap-1', at: clock.now() });
    expect(shownTo(owner, /backup failed/)).toHaveLength(1);
    expect(shownTo(owner, /backup failed/)[0]?.desp).toContain('The daily snapshot of 2027-01-22 00:00 failed');
    expect(shownTo(member, /backup failed/)).toHaveLength(0);
    expect(shownTo(other, /backup failed/)).toHaveLength(0);
    await h.notifier.backupFailed({ id: 'snap-2', at: clock.now() + DAY });
    expect(shownTo(owner, /backup failed/)).toHaveLength(2);
  });
});
