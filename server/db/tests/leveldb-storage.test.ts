/**
 * Properties only the LevelDB storage has: persistence across close/reopen, index ranges that
 * read only what they need, the attachment refusal, and the one-writer lock.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { normalizeMangoQuery, now, prepareQuery, type MangoQuery } from 'rxdb';
import { DataDirLockedError, openDatabase, type AppDatabase } from '../database';
import { createRecordInstance, filledRecordSchema, makeRecords, makeStorage, recordSchema, tempDir, toStored, type AccountRecord, type StorageUnderTest } from './fixtures';

const COLLECTIONS = [{ name: 'records', schema: recordSchema }];

function prepared(query: MangoQuery<AccountRecord>) {
  const q = { ...query, selector: { ...query.selector, _deleted: { $eq: false } } } as MangoQuery;
  return prepareQuery<AccountRecord>(filledRecordSchema, normalizeMangoQuery(filledRecordSchema, q));
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function dataDir(): string {
  const dir = tempDir();
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('LevelDB storage: persistence', () => {
  it('keeps documents, tombstones, indexes and checkpoints across close and reopen', async () => {
    const dir = dataDir();
    const records = makeRecords(400, 31);
    let db: AppDatabase = await openDatabase({ dataDir: dir, collections: COLLECTIONS });
    await db.collection<AccountRecord>('records').bulkInsert(records);
    const patched = await db.collection<AccountRecord>('records').findOne(records[3]!.id).exec(true);
    await patched.incrementalPatch({ category: '𝄞 music', amount: 4242 });
    await db.collection<AccountRecord>('records').bulkRemove([records[5]!.id, records[6]!.id]);
    const query = { selector: { userId: 'user-2', date: { $gte: Date.UTC(2023, 0, 1) } }, sort: [{ date: 'desc' as const }] };
    const before = (await db.collection<AccountRecord>('records').find(query).exec()).map((d) => d.toJSON());
    const changesBefore = await db.collection('records').storageInstance.getChangedDocumentsSince!(1000);
    await db.close();

    db = await openDatabase({ dataDir: dir, collections: COLLECTIONS });
    cleanups.push(() => db.close());
    const records2 = db.collection<AccountRecord>('records');
    expect(await records2.count().exec()).toBe(398);
    expect((await records2.find(query).exec()).map((d) => d.toJSON())).toEqual(before);
    expect(before.length).toBeGreaterThan(10);
    const found = await records2.findOne(records[3]!.id).exec(true);
    expect([found.category, found.amount]).toEqual(['𝄞 music', 4242]);
    expect((await records2.find({ selector: { userId: found.userId, category: { $gt: 'zz-last' } } }).exec()).map((d) => d.id)).toContain(records[3]!.id);
    const tombstones = await records2.storageInstance.findDocumentsById([records[5]!.id, records[6]!.id], true);
    expect(tombstones.map((d) => d._deleted)).toEqual([true, true]);
    const changesAfter = await records2.storageInstance.getChangedDocumentsSince!(1000);
    expect(changesAfter).toEqual(changesBefore);
    // Writes keep working and conflicts are still detected against what is on disk.
    await expect(records2.insert(records[0]!)).rejects.toMatchObject({ code: 'CONFLICT' });
    await records2.insert({ ...records[0]!, id: 'after-reopen' });
    expect(await records2.count().exec()).toBe(399);
  });

  it('the local store persists too and never shows up in RxDB', async () => {
    const dir = dataDir();
    let db = await openDatabase({ dataDir: dir, collections: COLLECTIONS });
    await db.local.put('session:abc', { userId: 'user-1', expires: 123 });
    await db.local.batch([
      { type: 'put', key: 'session:def', value: { userId: 'user-2', expires: 456 } },
      { type: 'put', key: 'secret:jwt', value: 'x' },
    ]);
    await db.local.del('session:abc');
    await db.close();
    db = await openDatabase({ dataDir: dir, collections: COLLECTIONS });
    cleanups.push(() => db.close());
    expect(await db.local.get('session:abc')).toBeUndefined();
    expect(await db.local.entries('session:')).toEqual([['session:def', { userId: 'user-2', expires: 456 }]]);
    expect(await db.collection('records').count().exec()).toBe(0);
  });
});

describe('LevelDB storage: index ranges read only what they need', () => {
  let sut: StorageUnderTest;

  /** Counts documents fetched by getMany and entries yielded by iterators. */
  function instrument(level: NonNullable<StorageUnderTest['level']>) {
    const counts = { docsFetched: 0, entriesIterated: 0, docScans: 0 };
    const getMany = level.getMany.bind(level);
    const iterator = level.iterator.bind(level);
    (level as any).getMany = (keys: Buffer[], options?: any) => {
      counts.docsFetched += keys.length;
      return getMany(keys, options);
    };
    (level as any).iterator = (options?: any) => {
      const it = iterator(options);
      // A scan over the documents themselves opens on the "d" key space.
      const start: Buffer | undefined = options?.gte ?? options?.gt;
      if (start && Buffer.from(start).swap16().toString('utf16le').includes('\u0001d\u0001')) counts.docScans++;
      const nextv = it.nextv.bind(it);
      (it as any).nextv = async (size: number, o?: any) => {
        const chunk = await nextv(size, o);
        counts.entriesIterated += chunk.length;
        return chunk;
      };
      const all = it.all.bind(it);
      (it as any).all = async (o?: any) => {
        const rows = await all(o);
        counts.entriesIterated += rows.length;
        return rows;
      };
      return it;
    };
    return {
      counts,
      restore() {
        (level as any).getMany = getMany;
        (level as any).iterator = iterator;
      },
      reset() {
        counts.docsFetched = counts.entriesIterated = counts.docScans = 0;
      },
    };
  }

  it('a query on [userId,date] with a limit touches about limit documents, count touches none', async () => {
    sut = await makeStorage('leveldb');
    cleanups.push(() => sut.dispose());
    const instance = await createRecordInstance(sut);
    cleanups.push(() => instance.close());
    const records = makeRecords(6000, 32, 10);
    for (let i = 0; i < records.length; i += 1000) {
      const res = await instance.bulkWrite(
        records.slice(i, i + 1000).map((r) => ({ document: toStored(r, now()) })),
        't',
      );
      expect(res.error).toEqual([]);
    }
    const probe = instrument(sut.level!);
    cleanups.push(() => probe.restore());

    const from = Date.UTC(2022, 0, 1);
    const ranged = await instance.query(prepared({ selector: { userId: 'user-3', date: { $gte: from } }, sort: [{ date: 'asc' }], limit: 20 }));
    expect(ranged.documents.length).toBe(20);
    expect(ranged.documents.every((d) => d.userId === 'user-3' && d.date >= from)).toBe(true);
    expect(probe.counts.docsFetched).toBeLessThanOrEqual(20);
    expect(probe.counts.entriesIterated).toBeLessThanOrEqual(20);
    expect(probe.counts.docScans).toBe(0);

    probe.reset();
    const paged = await instance.query(prepared({ selector: { userId: 'user-3', category: 'rent' }, sort: [{ date: 'asc' }], skip: 30, limit: 5 }));
    expect(paged.documents.length).toBe(5);
    // Skipping is done on the index alone: only the 5 returned documents are read.
    expect(probe.counts.docsFetched).toBe(5);

    probe.reset();
    const userThreeInRange = records.filter((r) => r.userId === 'user-3' && r.date >= from).length;
    const counted = await instance.count(prepared({ selector: { userId: 'user-3', date: { $gte: from } } }));
    expect(counted.count).toBe(userThreeInRange);
    expect(probe.counts.docsFetched).toBe(0);
    expect(probe.counts.entriesIterated).toBe(userThreeInRange);
    expect(userThreeInRange).toBeLessThan(records.length / 5);

    // The instrument does see a full scan when there is nothing to narrow by.
    probe.reset();
    const scan = await instance.query(prepared({ selector: { amount: { $lt: 1000 } } }));
    expect(scan.documents.length).toBe(records.filter((r) => r.amount < 1000).length);
    expect(probe.counts.docsFetched + probe.counts.entriesIterated).toBeGreaterThanOrEqual(records.length);
  });
});

describe('LevelDB storage: refusals', () => {
  it('refuses attachments with a clear error', async () => {
    const sut = await makeStorage('leveldb');
    cleanups.push(() => sut.dispose());
    await expect(createRecordInstance(sut, 'dbatt', 'files', { ...filledRecordSchema, attachments: {} })).rejects.toThrow(/attachments.*files outside the database/);
    const instance = await createRecordInstance(sut);
    cleanups.push(() => instance.close());
    await expect(instance.getAttachmentData('a', 'b', 'c')).rejects.toThrow(/not supported/);
  });

  it('refuses every call after close', async () => {
    const sut = await makeStorage('leveldb');
    cleanups.push(() => sut.dispose());
    const instance = await createRecordInstance(sut);
    await instance.close();
    expect(() => instance.bulkWrite([], 't')).toThrow(/closed/);
    await expect(instance.findDocumentsById(['x'], true)).rejects.toThrow(/closed/);
  });
});

function runChild(script: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('one writer per data dir', () => {
  it('a second open in the same process fails with DataDirLockedError naming the dir', async () => {
    const dir = dataDir();
    const first = await openDatabase({ dataDir: dir, collections: COLLECTIONS });
    cleanups.push(() => first.close());
    await first.collection('records').insert(makeRecords(1, 33)[0]);

    const second = openDatabase({ dataDir: dir, collections: COLLECTIONS });
    await expect(second).rejects.toBeInstanceOf(DataDirLockedError);
    const error = (await second.catch((e: unknown) => e)) as DataDirLockedError;
    expect(error.dataDir).toBe(path.resolve(dir));
    expect(error.message).toContain(path.resolve(dir));
    expect(error.code).toBe('DATA_DIR_LOCKED');

    // The first holder is unharmed, and after it closes the dir opens again.
    expect(await first.collection('records').count().exec()).toBe(1);
    await first.close();
    const third = await openDatabase({ dataDir: dir, collections: COLLECTIONS });
    cleanups.push(() => third.close());
    expect(await third.collection('records').count().exec()).toBe(1);
  });

  it('a second process fails the same way', async () => {
    const dir = dataDir();
    const first = await openDatabase({ dataDir: dir, collections: COLLECTIONS });
    cleanups.push(() => first.close());
    const child = await runChild(path.join(__dirname, 'lock-child.ts'), [dir]);
    expect(child.stderr).toBe('');
    expect(child.code).toBe(0);
    expect(JSON.parse(child.stdout.trim())).toEqual({
      opened: false,
      name: 'DataDirLockedError',
      code: 'DATA_DIR_LOCKED',
      dataDir: path.resolve(dir),
      mentionsDir: true,
    });
    await first.close();
    // With the lock released the child can open the dir.
    const again = await runChild(path.join(__dirname, 'lock-child.ts'), [dir]);
    expect(JSON.parse(again.stdout.trim())).toEqual({ opened: true });
  });
});

describe('durability policy', () => {
  /** Records the options of every write that reaches LevelDB (chained and array batches). */
  function recordWrites(level: NonNullable<StorageUnderTest['level']>) {
    const syncFlags: boolean[] = [];
    const batch = level.batch.bind(level) as (...args: any[]) => any;
    (level as any).batch = (...args: any[]) => {
      if (args.length > 0) {
        syncFlags.push(args[1]?.sync === true);
        return batch(...args);
      }
      const chained = batch();
      const write = chained.write.bind(chained);
      chained.write = (options?: any) => {
        syncFlags.push(options?.sync === true);
        return write(options);
      };
      return chained;
    };
    return syncFlags;
  }

  it('every acknowledged write is one fsynced LevelDB batch (sync: true) by default', async () => {
    const sut = await makeStorage('leveldb');
    cleanups.push(() => sut.dispose());
    const instance = await createRecordInstance(sut);
    cleanups.push(() => instance.close());
    const flags = recordWrites(sut.level!);
    const records = makeRecords(50, 34);
    const docs = records.map((r) => toStored(r, now()));
    await instance.bulkWrite(
      docs.map((document) => ({ document })),
      't',
    );
    const [first] = docs;
    if (!first) throw new Error('no documents made');
    await instance.bulkWrite([{ previous: first, document: { ...first, _deleted: true, _rev: '2-x', _meta: { lwt: now() - 3_600_000 } } }], 't');
    await instance.cleanup(0);
    // One batch per bulkWrite (50 docs + their index keys atomically), one for cleanup.
    expect(flags).toEqual([true, true, true]);
  });

  it('sync: false (benchmarks only) is passed through', async () => {
    const dir = tempDir();
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const { openLevel, getRxStorageLevel } = await import('../leveldb-storage');
    const level = await openLevel(path.join(dir, 'db'));
    cleanups.push(() => level.close());
    const storage = getRxStorageLevel(level, { sync: false });
    const instance = await createRecordInstance({ kind: 'leveldb', storage, level, dispose: () => Promise.resolve() });
    cleanups.push(() => instance.close());
    const flags = recordWrites(level);
    await instance.bulkWrite([{ document: toStored(makeRecords(1, 35)[0], now()) }], 't');
    expect(flags).toEqual([false]);
  });
});
