import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../lib/clock';
import { registerUser, startTestServer, tempDataDir, type TestServer } from '../test-support/test-server';
import { listSnapshots, readManifest, snapshotsDir, type SnapshotEntry } from './snapshots';
import { planRotation } from './rotation';
import { readBack } from './level-copy';
import { backupErrors } from './errors';
import { commonErrors } from '../lib/errors';
import { usersErrors } from '../users/errors';
import { expectRefusal } from '../test-support/refusal';

/** Polls `read` until `done` holds (snapshots taken before an import finish in the background). */
async function eventually<T>(read: () => T, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
}

const servers: TestServer[] = [];
afterEach(async () => {
  for (const t of servers.splice(0)) await t.close().catch(() => undefined);
});

async function start(options: Parameters<typeof startTestServer>[0] = {}) {
  const t = await startTestServer(options);
  servers.push(t);
  return t;
}

async function ok<T = any>(t: TestServer, action: string, params: unknown, token: string): Promise<T> {
  const answer = await t.api<T>(action, params, token);
  if (answer.code !== 200) throw new Error(`${action}: ${answer.code} ${answer.message}`);
  return answer.data as T;
}

const minor = (major: number) => Math.round(major * 100);

/** Every record of the user (pages of 200). */
async function allRecords(t: TestServer, token: string) {
  const out: Array<{ id: string; type: string; amount: number; asset: string; description: string }> = [];
  for (let page = 1; ; page++) {
    const data = await ok(t, 'accounting.query', { page, pageSize: 200 }, token);
    out.push(...data.list);
    if (out.length >= data.total || data.list.length === 0) return out;
  }
}

describe('the snapshot before an upgrade', () => {
  it('is taken when another version opens a data dir with data, before its collections open, and only once', async () => {
    const { writeFileSync, readFileSync, rmSync } = await import('node:fs');
    const dataDir = tempDataDir('upgrade');
    const settings = { backup: { automatic: false } };
    let t = await start({ dataDir, settings });
    const u = await registerUser(t);
    await ok(t, 'asset.create', { name: 'Cash', type: 'cash', currency: 'USD' }, u.token);
    await t.close();
    const version = (JSON.parse(readFileSync(path.join(dataDir, 'version.json'), 'utf8')) as { version: string }).version;
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(listSnapshots(dataDir).filter((s) => s.reason === 'upgrade')).toEqual([]);

    // The data dir was last run by an older version.
    writeFileSync(path.join(dataDir, 'version.json'), JSON.stringify({ version: '0.0.1' }));
    t = await start({ dataDir, settings });
    const upgrades = listSnapshots(dataDir).filter((s) => s.reason === 'upgrade');
    const [upgrade] = upgrades;
    expect(upgrades).toHaveLength(1);
    expect(upgrade?.status).toBe('ok');
    expect(readManifest(dataDir, upgrade!.id)?.collections['assets']).toBe(1);
    expect((JSON.parse(readFileSync(path.join(dataDir, 'version.json'), 'utf8')) as { version: string }).version).toBe(version);
    await t.close();

    // Same version again: no snapshot. No version file but data (a version before this check): one.
    t = await start({ dataDir, settings });
    await t.close();
    expect(listSnapshots(dataDir).filter((s) => s.reason === 'upgrade')).toHaveLength(1);
    rmSync(path.join(dataDir, 'version.json'));
    t = await start({ dataDir, settings });
    expect(listSnapshots(dataDir).filter((s) => s.reason === 'upgrade')).toHaveLength(2);
    await t.close(); // RxDB's open-source build allows one server's collections open at a time

    // A new, empty data dir needs none.
    const fresh = await start({ settings });
    expect(listSnapshots(fresh.dataDir)).toEqual([]);
  }, 60_000);
});

describe('snapshots and restore (running server)', () => {
  it('a snapshot taken while writes run is one point in time, and restoring it brings exactly that state back', async () => {
    const t = await start({ settings: { backup: { automatic: false } } });
    const u = await registerUser(t);
    const { id: cash } = await ok(t, 'asset.create', { name: 'Cash', type: 'cash', currency: 'USD', balance: 1000 }, u.token);
    for (let i = 0; i < 20; i++) await ok(t, 'accounting.create', { type: 'income', amount: 10, asset: cash, description: `before ${i}` }, u.token);

    // 60 writes in flight around the snapshot: each is either completely in it or not at all.
    const writes = Array.from({ length: 60 }, (_, i) =>
      t.api('accounting.create', { type: i % 3 === 0 ? 'expense' : 'income', amount: 1 + (i % 7) * 0.25, asset: cash, description: `during ${i}` }, u.token),
    );
    const snapshot = await ok<{ id: string; reason: string; records: number }>(t, 'backup.createSnapshot', {}, u.token);
    const finished = await Promise.all(writes);
    expect(finished.every((w) => w.code === 200)).toBe(true);
    expect(snapshot.reason).toBe('manual');
    const manifest = readManifest(t.dataDir, snapshot.id)!;
    expect(manifest.records).toBe(snapshot.records);
    expect(snapshot.records).toBeGreaterThanOrEqual(20);
    expect(snapshot.records).toBeLessThanOrEqual(80);

    // Changes after the snapshot: a record, a deleted record, a new user.
    await ok(t, 'accounting.create', { type: 'income', amount: 99, asset: cash, description: 'after' }, u.token);
    const before = await allRecords(t, u.token);
    await ok(t, 'accounting.delete', { id: before.find((r) => r.description === 'before 0')!.id }, u.token);
    const late = await registerUser(t);

    const listed = await ok(t, 'backup.listSnapshots', {}, u.token);
    expect(listed.list.map((s: SnapshotEntry) => s.id)).toContain(snapshot.id);

    // Requests during the restore answer 200 or 503 "restoring", never anything else.
    const during = Array.from({ length: 20 }, () => t.api('asset.query', {}, u.token));
    const restored = await ok(t, 'backup.restoreSnapshot', { id: snapshot.id }, u.token);
    for (const answer of await Promise.all(during)) {
      expect([200, 503]).toContain(answer.code);
      if (answer.code === 503) expect(answer.data).toEqual({ restoring: true });
    }
    expect(restored.restored).toBe(snapshot.id);
    expect(readManifest(t.dataDir, restored.snapshotBefore)?.reason).toBe('restore');

    // The state of the snapshot, consistent: the balance is the recomputation over its records.
    const records = await allRecords(t, u.token);
    expect(records.length).toBe(snapshot.records);
    expect(records.some((r) => r.description === 'after')).toBe(false);
    expect(records.some((r) => r.description === 'before 0')).toBe(true);
    const assets = await ok(t, 'asset.query', {}, u.token);
    const recomputed = 100_000 + records.reduce((sum, r) => sum + (r.type === 'income' ? minor(r.amount) : -minor(r.amount)), 0);
    expect(minor(assets.list.find((a: { id: string }) => a.id === cash).balance)).toBe(recomputed);
    expect((await ok(t, 'asset.checkBalances', {}, u.token)).ok).toBe(true);
    // The user registered after the snapshot is gone; the session of the first one was in it.
    expectRefusal(await t.api('asset.query', {}, late.token), usersErrors.rows.sessionSignedOut);
    // Writes work on the restored database, and survive a restart.
    await ok(t, 'accounting.create', { type: 'income', amount: 1, asset: cash, description: 'after restore' }, u.token);
    await t.close(true);
    servers.pop();
    const again = await start({ dataDir: t.dataDir, settings: { backup: { automatic: false } } });
    expect((await allRecords(again, u.token)).length).toBe(snapshot.records + 1);
    // No folder of the swap is left behind.
    expect(readdirSync(t.dataDir).filter((n) => n.startsWith('db.'))).toEqual([]);
  }, 60_000);

  it('restoring again to the snapshot taken before a restore undoes it; unknown and malformed ids change nothing', async () => {
    const t = await start({ settings: { backup: { automatic: false } } });
    const u = await registerUser(t);
    const { id: cash } = await ok(t, 'asset.create', { name: 'Cash', type: 'cash', currency: 'USD' }, u.token);
    const first = await ok(t, 'backup.createSnapshot', {}, u.token);
    await ok(t, 'accounting.create', { type: 'income', amount: 5, asset: cash }, u.token);
    const restored = await ok(t, 'backup.restoreSnapshot', { id: first.id }, u.token);
    expect((await allRecords(t, u.token)).length).toBe(0);
    await ok(t, 'backup.restoreSnapshot', { id: restored.snapshotBefore }, u.token);
    expect((await allRecords(t, u.token)).length).toBe(1);

    const count = listSnapshots(t.dataDir).length;
    const unknown = await t.api('backup.restoreSnapshot', { id: '20200101-000000-000-abcd' }, u.token);
    expectRefusal(unknown, backupErrors.rows.snapshotNotFound);
    const traversal = await t.api('backup.restoreSnapshot', { id: '../db' }, u.token);
    expectRefusal(traversal, commonErrors.rows.invalid);
    expect(listSnapshots(t.dataDir).length).toBe(count);
    expect((await allRecords(t, u.token)).length).toBe(1);
    expectRefusal(await t.api('backup.listSnapshots', {}), commonErrors.rows.unauthorized);
  }, 60_000);

  it('imports and JSON restores take a snapshot first (one for an import sent in parts)', async () => {
    const t = await start({ settings: { backup: { automatic: false } } });
    const u = await registerUser(t);
    await ok(t, 'asset.create', { name: 'Cash', type: 'cash', currency: 'USD' }, u.token);
    const csv = 'date,type,amount,asset\n2026-01-02,income,5,Cash\n';
    await ok(t, 'accounting.importCsv', { csv, dryRun: true }, u.token);
    expect(listSnapshots(t.dataDir)).toEqual([]);
    await ok(t, 'accounting.importCsv', { csv, dryRun: false }, u.token);
    await ok(t, 'accounting.importCsv', { csv: 'date,type,amount,asset\n2026-01-03,income,6,Cash\n', dryRun: false }, u.token);
    // The import waits only until the snapshot's point in time is fixed; the copy is finished and
    // verified in the background, and holds the ledger as it was before the import's writes.
    const imports = await eventually(
      () => listSnapshots(t.dataDir).filter((s) => s.reason === 'import'),
      (list) => list.length > 0,
    );
    expect(imports.length).toBe(1);
    expect(imports[0]).toMatchObject({ status: 'ok', records: 0 });

    const backup = await ok(t, 'ledger.backup', {}, u.token);
    const other = await registerUser(t);
    await ok(t, 'ledger.restore', { backup }, other.token);
    const restores = await eventually(
      () => listSnapshots(t.dataDir).filter((s) => s.reason === 'restore'),
      (list) => list.length > 0,
    );
    expect(restores.length).toBe(1);
    expect(restores[0]?.records).toBe(2);
  }, 60_000);
});

describe('automatic snapshots and rotation (manual clock)', () => {
  const at = (iso: string) => Date.parse(iso);

  it('keeps the newest 3, one per day for 7 days, per ISO week for 4 weeks, per month for 6 months', () => {
    const list: SnapshotEntry[] = [];
    for (let t = at('2025-01-01T12:00:00Z'); t <= at('2025-06-30T12:00:00Z'); t += 86_400_000) {
      list.push({ id: new Date(t).toISOString().slice(0, 10), createdAt: t, reason: 'daily', status: 'ok', bytes: 1, records: 0, files: 0 });
    }
    list.push({ id: '2025-06-30b', createdAt: at('2025-06-30T13:00:00Z'), reason: 'import', status: 'ok', bytes: 1, records: 0, files: 0 });
    list.push({ id: '2025-06-30c', createdAt: at('2025-06-30T14:00:00Z'), reason: 'manual', status: 'ok', bytes: 1, records: 0, files: 0 });
    // Taken by hand long ago: kept until the person deletes it, whatever rotation keeps.
    list.push({ id: '2025-01-05m', createdAt: at('2025-01-05T08:00:00Z'), reason: 'manual', status: 'ok', bytes: 1, records: 0, files: 0 });
    const { keep, remove } = planRotation(list, { keepLast: 3, keepDaily: 7, keepWeekly: 4, keepMonthly: 6 });
    expect(keep.sort()).toEqual(
      [
        '2025-06-30c', // by hand
        '2025-01-05m', // by hand
        '2025-06-30',
        '2025-06-30b',
        '2025-06-29', // the newest 3 automatic ones
        '2025-06-28',
        '2025-06-27',
        '2025-06-26',
        '2025-06-25',
        '2025-06-24', // days
        '2025-06-22',
        '2025-06-15', // ISO weeks end on Sunday
        '2025-05-31',
        '2025-04-30',
        '2025-03-31',
        '2025-02-28',
        '2025-01-31', // months
      ].sort(),
    );
    expect(keep.length + remove.length).toBe(list.length);
  });

  it('a snapshot taken by hand outlives rotation until it is deleted with backup.deleteSnapshot', async () => {
    const clock = new ManualClock(at('2025-03-01T10:00:00Z'));
    const t = await start({ clock, settings: { backup: { automatic: true, keepLast: 1, keepDaily: 1, keepWeekly: 1, keepMonthly: 1 } } });
    const u = await registerUser(t);
    const manual = await ok<{ id: string }>(t, 'backup.createSnapshot', {}, u.token);
    const service = t.server.app.services.backup!;
    for (let day = 0; day < 3; day++) {
      clock.advance(25 * 3_600_000);
      expect(await service.tick()).not.toBeNull();
    }
    const listed = (await ok<{ list: SnapshotEntry[] }>(t, 'backup.listSnapshots', {}, u.token)).list;
    expect(listed.map((s) => s.id)).toContain(manual.id);
    expect(listed.filter((s) => s.reason === 'daily')).toHaveLength(1); // the automatic ones rotate as before
    expect(await ok(t, 'backup.deleteSnapshot', { id: manual.id }, u.token)).toEqual({ deleted: manual.id });
    expect((await ok<{ list: SnapshotEntry[] }>(t, 'backup.listSnapshots', {}, u.token)).list.map((s) => s.id)).not.toContain(manual.id);
    expect(existsSync(path.join(snapshotsDir(t.dataDir), manual.id))).toBe(false);
    expectRefusal(await t.api('backup.deleteSnapshot', { id: manual.id }, u.token), backupErrors.rows.snapshotNotFound);
  });

  it('the running server takes the daily snapshot when the newest is 24 h old, and rotation removes the right folders', async () => {
    const clock = new ManualClock(at('2025-01-10T10:00:00Z'));
    const settings = { backup: { automatic: true, keepLast: 1, keepDaily: 2, keepWeekly: 1, keepMonthly: 2 } };
    const t = await start({ clock, settings });
    await registerUser(t);
    const service = t.server.app.services.backup!;
    expect(await service.tick()).not.toBeNull(); // data and no snapshot yet: due
    clock.set(at('2025-01-11T09:59:00Z'));
    expect(await service.tick()).toBeNull(); // 23 h 59 min later: not yet
    const plan: Array<[string, 'manual' | 'tick']> = [
      ['2025-02-10T10:00:00Z', 'tick'],
      ['2025-03-01T10:00:00Z', 'tick'],
      ['2025-03-02T10:00:00Z', 'tick'],
      ['2025-03-03T10:00:00Z', 'tick'],
      ['2025-03-03T11:00:00Z', 'manual'],
    ];
    const ids: string[] = [];
    for (const [when, how] of plan) {
      clock.set(at(when));
      const made = how === 'tick' ? await service.tick() : await service.createSnapshot('manual');
      expect(made).not.toBeNull();
      ids.push(made!.id);
    }
    // The one by hand (Mar 3 11:00) is kept apart; of the automatic ones keepLast 1 → Mar 3 10:00;
    // daily 2 → + Mar 2; weekly 1 → Mar 3 10:00; monthly 2 → + Feb 10.
    const kept = listSnapshots(t.dataDir).map((s) => s.id);
    expect(kept.sort()).toEqual([ids[0], ids[2], ids[3], ids[4]].sort());
    const folders = readdirSync(snapshotsDir(t.dataDir)).sort();
    expect(folders).toEqual(kept.sort());
    expect(listSnapshots(t.dataDir).find((s) => s.id === ids[4])!.reason).toBe('manual');
    expect(listSnapshots(t.dataDir).find((s) => s.id === ids[2])!.reason).toBe('daily');
  }, 60_000);

  it('at start, a snapshot is taken when the newest is older than 24 h (not for an empty data dir)', async () => {
    const clock = new ManualClock(at('2025-05-01T08:00:00Z'));
    const dataDir = tempDataDir('backup');
    const t = await start({ dataDir, clock });
    // The start's own check runs first (queued at the start); this one, after it, finds nothing due either.
    expect(await t.server.app.services.backup?.tick()).toBeNull();
    expect(listSnapshots(dataDir)).toEqual([]); // nothing to keep yet
    await registerUser(t);
    await t.close(true);
    servers.pop();
    const again = await start({ dataDir, clock });
    for (let i = 0; i < 100 && listSnapshots(dataDir).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    const [first] = listSnapshots(dataDir);
    if (!first) throw new Error('no daily snapshot within 5 s');
    expect(first.reason).toBe('daily');
    expect(first.createdAt).toBe(clock.now());
    const check = await readBack(path.join(snapshotsDir(dataDir), first.id, 'db'));
    expect(check.digest).toBe(readManifest(dataDir, first.id)!.digest);
    await again.close(true);
    servers.pop();
    clock.advance(23 * 3600_000);
    const third = await start({ dataDir, clock });
    expect(await third.server.app.services.backup?.tick()).toBeNull();
    expect(listSnapshots(dataDir).length).toBe(1);
    expect(existsSync(path.join(dataDir, 'snapshots'))).toBe(true);
  }, 60_000);
});
