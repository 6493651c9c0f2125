/**
 * Disk faults at the storage level (leveldb-storage/health.ts): after an I/O error, writes are
 * refused (without touching LevelDB) until one reopen of the shared ClassicLevel succeeds; reads
 * keep working throughout; nothing acknowledged is lost.
 *
 * The first tests inject the error (they run everywhere); the last two use a real full tmpfs
 * (ENOSPC) and a real ext4 file system forced read-only (EROFS), and need root.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type AppDatabase } from '../database';
import { StorageUnavailableError, isIoError } from '../leveldb-storage/health';
import { ext4Disk, loopUnavailable, mountUnavailable, tmpfsDisk } from './disk';
import { makeRecords, recordSchema, tempDir, type AccountRecord } from './fixtures';

const COLLECTIONS = [{ name: 'records', schema: recordSchema }];
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** Makes the next `times` LevelDB batch writes fail like a full disk does. */
function failNextWrites(db: AppDatabase, times: number) {
  const level = (db.health as unknown as { level: any }).level;
  const batch = level.batch.bind(level);
  let left = times;
  level.batch = (...args: any[]) => {
    if (args.length > 0) {
      if (left-- > 0) return Promise.reject(Object.assign(new Error('IO error: 000005.log: No space left on device'), { code: 'LEVEL_IO_ERROR' }));
      return batch(...args);
    }
    const chained = batch();
    const write = chained.write.bind(chained);
    chained.write = (options?: any) => {
      if (left-- > 0) {
        return chained.close().then(() => Promise.reject(Object.assign(new Error('IO error: 000005.log: No space left on device'), { code: 'LEVEL_IO_ERROR' })));
      }
      return write(options);
    };
    return chained;
  };
}

describe('I/O errors (injected)', () => {
  it('refuses writes during the cool-down without touching LevelDB, keeps reads, then reopens once and writes again', async () => {
    const dir = tempDir();
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    let now = 1_000_000;
    let probes = 0;
    const events: string[] = [];
    const db = await openDatabase({
      dataDir: dir,
      collections: COLLECTIONS,
      health: {
        coolDownMs: 1000,
        now: () => now,
        probe: () => {
          probes++;
          return Promise.resolve();
        },
        onEvent: (e) => events.push(e),
      },
    });
    cleanups.push(() => db.close());
    const records = db.collection<AccountRecord>('records');
    const data = makeRecords(40, 7);
    await records.bulkInsert(data.slice(0, 10));
    await db.local.put('k', { v: 1 });

    failNextWrites(db, 1);
    const failed = await records.insert(data[10]!).then(
      () => null,
      (error: unknown) => error,
    );
    expect(isIoError(failed)).toBe(true);
    expect(db.health.degraded).toBe(true);
    expect(events).toEqual(['failed']);

    // Cool-down: refused at once, LevelDB not touched (the injected failure budget is spent, so a real write would pass).
    const level = (db.health as unknown as { level: any }).level;
    const batchesBefore = level.batch;
    let batchCalls = 0;
    level.batch = (...args: any[]) => (batchCalls++, batchesBefore(...args));
    await expect(records.insert(data[11]!)).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(db.local.put('k', { v: 2 })).rejects.toBeInstanceOf(StorageUnavailableError);
    expect(batchCalls).toBe(0);
    expect(probes).toBe(0);

    // Reads work while degraded.
    expect((await records.find({ selector: { userId: { $gte: '' } } }).exec()).length).toBe(10);
    expect(await records.count().exec()).toBe(10);
    expect(await db.local.get('k')).toEqual({ v: 1 });

    // After the cool-down, concurrent writers share one probe and one reopen, then all succeed.
    now += 1001;
    await Promise.all([records.insert(data[12]!), records.insert(data[13]!), db.local.put('k', { v: 3 }), records.bulkInsert(data.slice(14, 20))]);
    expect(probes).toBe(1);
    expect(db.health.reopens).toBe(1);
    expect(db.health.degraded).toBe(false);
    expect(events).toEqual(['failed', 'recovered']);
    // The local store (a sublevel, closed with its parent) works after the reopen.
    expect(await db.local.get('k')).toEqual({ v: 3 });
    expect(await records.count().exec()).toBe(18);
    // The change stream of the collection still works after the reopen.
    const seen: string[] = [];
    const sub = records.$.subscribe((e) => seen.push(e.documentId));
    await records.insert(data[20]!);
    sub.unsubscribe();
    expect(seen).toEqual([data[20]!.id]);
  });

  it('stays degraded while the probe says the disk still refuses writes', async () => {
    const dir = tempDir();
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    let now = 0;
    let diskOk = false;
    const db = await openDatabase({
      dataDir: dir,
      collections: COLLECTIONS,
      health: {
        coolDownMs: 500,
        now: () => now,
        probe: () => (diskOk ? Promise.resolve() : Promise.reject(Object.assign(new Error('No space left on device'), { code: 'ENOSPC' }))),
      },
    });
    cleanups.push(() => db.close());
    const records = db.collection<AccountRecord>('records');
    const data = makeRecords(5, 8);
    failNextWrites(db, 1);
    await expect(records.insert(data[0]!)).rejects.toSatisfy(isIoError);
    now += 600;
    const refused = await records.insert(data[1]!).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StorageUnavailableError);
    expect((refused as Error).message).toMatch(/No space left on device/);
    expect(db.health.reopens).toBe(0);
    // The probe failure restarts the cool-down.
    now += 100;
    await expect(records.insert(data[1]!)).rejects.toBeInstanceOf(StorageUnavailableError);
    diskOk = true;
    now += 600;
    await records.insert(data[2]!);
    expect(db.health.reopens).toBe(1);
    expect((await records.find().exec()).map((d) => d.id)).toEqual([data[2]!.id]);
  });
});

/** Writes until the first failure; returns the ids acknowledged and the error. */
async function writeUntilFailure(db: AppDatabase, data: AccountRecord[]): Promise<{ acked: string[]; error: unknown }> {
  const records = db.collection<AccountRecord>('records');
  const acked: string[] = [];
  for (let i = 0; i < data.length; i += 20) {
    const chunk = data.slice(i, i + 20);
    try {
      await records.bulkInsert(chunk);
      acked.push(...chunk.map((d) => d.id));
    } catch (error) {
      return { acked, error };
    }
  }
  throw new Error('the disk never filled up');
}

async function retryWrite(fn: () => Promise<unknown>): Promise<number> {
  for (let attempt = 1; attempt <= 100; attempt++) {
    try {
      await fn();
      return attempt;
    } catch (error) {
      if (!isIoError(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error('writes did not recover');
}

const noMount = mountUnavailable();
const noLoop = loopUnavailable();

describe.skipIf(noMount !== null)(`real disk full (tmpfs)${noMount ? ` — skipped: ${noMount}` : ''}`, () => {
  it('ENOSPC: writes fail, reads keep working, writes resume when space returns, nothing acknowledged is lost', async () => {
    const disk = tmpfsDisk(24);
    cleanups.push(() => disk.dispose());
    const dataDir = path.join(disk.dir, 'data');
    let db = await openDatabase({ dataDir, collections: COLLECTIONS, health: { coolDownMs: 100 } });
    cleanups.push(() => db.close());
    const records = db.collection<AccountRecord>('records');
    const data = makeRecords(3000, 9);
    await records.bulkInsert(data.slice(0, 100));
    disk.fill();
    // Big documents fill the last bytes quickly.
    const { acked, error } = await writeUntilFailure(
      db,
      data.slice(100).map((d) => ({ ...d, description: 'x'.repeat(20_000) })),
    );
    expect(isIoError(error), String(error)).toBe(true);
    await expect(db.local.put('x', 1)).rejects.toSatisfy(isIoError);
    expect(await records.count().exec()).toBe(100 + acked.length);
    expect((await records.findByIds([data[0]!.id]).exec()).size).toBe(1);

    disk.free();
    await retryWrite(() => records.insert({ ...data[2999]!, id: 'after-space' }));
    await db.local.put('x', 2);
    expect(db.health.reopens).toBeGreaterThanOrEqual(1);
    await db.close();
    db = await openDatabase({ dataDir, collections: COLLECTIONS });
    const again = db.collection<AccountRecord>('records');
    const expected = [...data.slice(0, 100).map((d) => d.id), ...acked, 'after-space'];
    const found = await again.findByIds(expected).exec();
    expect(expected.filter((id) => !found.has(id))).toEqual([]);
    expect(await db.local.get('x')).toBe(2);
    await db.close();
  });
});

describe.skipIf(noLoop !== null)(`real read-only file system (ext4 abort)${noLoop ? ` — skipped: ${noLoop}` : ''}`, () => {
  it('EROFS: writes fail, reads keep working, writes resume on the repaired disk, nothing acknowledged is lost', async () => {
    const disk = ext4Disk(64);
    cleanups.push(() => disk.dispose());
    const dataDir = path.join(disk.dir, 'data');
    let db = await openDatabase({ dataDir, collections: COLLECTIONS, health: { coolDownMs: 100 } });
    cleanups.push(() => db.close());
    const records = db.collection<AccountRecord>('records');
    const data = makeRecords(300, 10);
    await records.bulkInsert(data.slice(0, 200));
    await db.local.put('y', 1);
    disk.breakReadOnly();
    const error = await records.bulkInsert(data.slice(200, 210)).then(
      (r) => (r.error.length ? r.error : null),
      (e: unknown) => e,
    );
    expect(isIoError(error), String(error)).toBe(true);
    expect(String((error as Partial<Error>).message)).toMatch(/Read-only file system|IO error/);
    expect(await records.count().exec()).toBe(200);
    expect(await db.local.get('y')).toBe(1);
    await expect(records.insert(data[220]!)).rejects.toSatisfy(isIoError);

    disk.repair();
    await retryWrite(() => records.insert(data[221]!));
    await db.local.put('y', 2);
    await db.close();
    db = await openDatabase({ dataDir, collections: COLLECTIONS });
    const again = db.collection<AccountRecord>('records');
    const expected = [...data.slice(0, 200).map((d) => d.id), data[221]!.id];
    const found = await again.findByIds(expected).exec();
    expect(expected.filter((id) => !found.has(id))).toEqual([]);
    expect(await db.local.get('y')).toBe(2);
    await db.close();
  });
});
