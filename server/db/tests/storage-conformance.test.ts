/**
 * RxStorage conformance at the storage-instance level. The same suite runs against PennyPost's
 * LevelDB storage (real files in a temp dir) and RxDB's memory storage with identical
 * expectations: if the memory storage passes, the suite checks RxDB's semantics, not our quirks.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  getChangedDocumentsSince,
  normalizeMangoQuery,
  now,
  prepareQuery,
  randomToken,
  type EventBulk,
  type MangoQuery,
  type RxDocumentData,
  type RxStorageChangeEvent,
  type RxStorageInstance,
} from 'rxdb';
import { createRecordInstance, filledRecordSchema, makeRecords, makeStorage, seededRandom, STORAGE_KINDS, toStored, type AccountRecord, type StorageUnderTest } from './fixtures';
import { oracle, QUERY_CASES } from './query-cases';

type Instance = RxStorageInstance<AccountRecord, any, any>;

function prepared(query: MangoQuery<AccountRecord>) {
  const withDeleted = { ...query, selector: { ...query.selector, _deleted: { $eq: false } } } as MangoQuery;
  return prepareQuery<AccountRecord>(filledRecordSchema, normalizeMangoQuery(filledRecordSchema, withDeleted));
}

function strip(doc: RxDocumentData<AccountRecord>): AccountRecord {
  const { _deleted, _rev, _meta, _attachments, ...rest } = doc as any;
  return rest;
}

async function writeOk(instance: Instance, rows: Parameters<Instance['bulkWrite']>[0]) {
  const result = await instance.bulkWrite(rows, 'test');
  expect(result.error).toEqual([]);
}

describe.each(STORAGE_KINDS)('RxStorage conformance: %s', (kind) => {
  let sut: StorageUnderTest;
  beforeAll(async () => {
    sut = await makeStorage(kind);
  });
  afterAll(async () => {
    await sut.dispose();
  });

  describe('queries against an independent oracle', () => {
    let instance: Instance;
    /** What the collection holds after the writes below: the oracle's view. */
    const live = new Map<string, AccountRecord>();

    beforeAll(async () => {
      instance = await createRecordInstance(sut);
      const records = makeRecords(1500, 7);
      const stored = new Map<string, RxDocumentData<AccountRecord>>();
      for (let i = 0; i < records.length; i += 500) {
        const lwt = now();
        const rows = records.slice(i, i + 500).map((r) => ({ document: toStored(r, lwt) }));
        await writeOk(instance, rows);
        for (const row of rows) stored.set(row.document.id, row.document);
      }
      for (const r of records) live.set(r.id, r);
      // Updates that move index keys (category, asset, date) and deletions.
      const rand = seededRandom(99);
      const rows = [];
      for (const r of records) {
        const n = Number(r.id.slice(4));
        const previous = stored.get(r.id)!;
        if (n % 17 === 0) {
          rows.push({ previous, document: { ...previous, _deleted: true, _rev: '2-d', _meta: { lwt: now() } } });
          live.delete(r.id);
        } else if (n % 13 === 0) {
          const changed: AccountRecord = { ...r, category: 'rent', asset: '💳 visa', date: r.date + Math.floor(rand() * 1e9) };
          rows.push({ previous, document: toStored(changed, now(), '2-u') });
          live.set(r.id, changed);
        }
      }
      await writeOk(instance, rows);
    });
    afterAll(async () => {
      await instance.close();
    });

    for (const c of QUERY_CASES) {
      it(`query: ${c.name}`, async () => {
        const expected = oracle([...live.values()], c);
        const result = await instance.query(prepared({ selector: c.selector, sort: c.sort, skip: c.skip, limit: c.limit }));
        expect(result.documents.map((d) => d.id)).toEqual(expected);
        for (const doc of result.documents) expect(strip(doc)).toEqual(live.get(doc.id));
      });
    }

    it('the oracle cases are not trivial (they select something and not everything)', () => {
      const sizes = QUERY_CASES.filter((c) => c.limit === undefined).map((c) => oracle([...live.values()], c).length);
      expect(sizes.every((n) => n > 0 && n < live.size)).toBe(true);
    });

    it('count over index ranges and over non-indexed filters', async () => {
      for (const c of QUERY_CASES) {
        const expected = oracle([...live.values()], { ...c, skip: undefined, limit: undefined }).length;
        const result = await instance.count(prepared({ selector: c.selector }));
        expect(result.count, c.name).toBe(expected);
      }
    });

    it('queries never return deleted documents, findDocumentsById does on request', async () => {
      const all = await instance.query(prepared({ selector: {} }));
      expect(all.documents.length).toBe(live.size);
      expect(all.documents.some((d) => d._deleted)).toBe(false);
      const deletedIds = ['rec-0000017', 'rec-0000034'];
      expect(await instance.findDocumentsById(deletedIds, false)).toEqual([]);
      const withDeleted = await instance.findDocumentsById(deletedIds, true);
      expect(withDeleted.map((d) => [d.id, d._deleted]).sort()).toEqual([
        ['rec-0000017', true],
        ['rec-0000034', true],
      ]);
      const found = await instance.findDocumentsById(['rec-0000001', 'missing'], false);
      expect(found.map((d) => d.id)).toEqual(['rec-0000001']);
    });
  });

  describe('writes', () => {
    let instance: Instance;
    afterEach(async () => {
      await instance.close();
    });

    it('a stale _rev is a 409 in the response and changes nothing', async () => {
      instance = await createRecordInstance(sut);
      const [r] = makeRecords(1, 3);
      const v1 = toStored(r, now(), '1-a');
      await writeOk(instance, [{ document: v1 }]);
      const v2 = toStored({ ...r, amount: 2 }, now(), '2-b');
      await writeOk(instance, [{ previous: v1, document: v2 }]);

      const stale = toStored({ ...r, amount: 3, category: 'stale' }, now(), '2-c');
      const other = toStored({ ...r, id: 'other' }, now(), '1-a');
      const result = await instance.bulkWrite([{ previous: v1, document: stale }, { document: other }], 'test');
      expect(result.error.length).toBe(1);
      expect(result.error[0]).toMatchObject({ status: 409, documentId: r.id, isError: true });
      expect((result.error[0] as any).documentInDb).toMatchObject({ _rev: '2-b', amount: 2 });

      const [inDb] = await instance.findDocumentsById([r.id], false);
      expect(inDb).toEqual(v2);
      // The conflict does not stop the rest of the batch.
      expect((await instance.findDocumentsById(['other'], false)).length).toBe(1);
      // The stale write left no index entry behind: the category query finds nothing.
      const byCategory = await instance.query(prepared({ selector: { userId: r.userId, category: 'stale' } }));
      expect(byCategory.documents).toEqual([]);
    });

    it('inserting an existing id without previous is a 409; so is inserting over a tombstone', async () => {
      instance = await createRecordInstance(sut);
      const [r] = makeRecords(1, 4);
      const v1 = toStored(r, now());
      await writeOk(instance, [{ document: v1 }]);
      const again = await instance.bulkWrite([{ document: toStored({ ...r, amount: 5 }, now(), '1-z') }], 'test');
      expect(again.error.map((e) => e.status)).toEqual([409]);
      expect((await instance.findDocumentsById([r.id], false))[0]).toEqual(v1);

      const tomb = { ...v1, _deleted: true, _rev: '2-d', _meta: { lwt: now() } };
      await writeOk(instance, [{ previous: v1, document: tomb }]);
      const overTomb = await instance.bulkWrite([{ document: toStored(r, now(), '1-q') }], 'test');
      expect(overTomb.error.map((e) => e.status)).toEqual([409]);
      // ... while a write based on the tombstone revives it.
      await writeOk(instance, [{ previous: tomb, document: toStored(r, now(), '3-r') }]);
      expect((await instance.findDocumentsById([r.id], false)).map((d) => d._rev)).toEqual(['3-r']);
    });

    it('concurrent writes based on the same revision: exactly one wins', async () => {
      instance = await createRecordInstance(sut);
      const [r] = makeRecords(1, 6);
      const v1 = toStored(r, now());
      await writeOk(instance, [{ document: v1 }]);
      const writes = [10, 20, 30, 40].map((amount) => instance.bulkWrite([{ previous: v1, document: toStored({ ...r, amount }, now(), `2-${amount}`) }], 'test'));
      const results = await Promise.all(writes);
      expect(results.filter((res) => res.error.length === 0).length).toBe(1);
      expect(results.filter((res) => res.error[0]?.status === 409).length).toBe(3);
      const [inDb] = await instance.findDocumentsById([r.id], false);
      if (!inDb) throw new Error('the record is gone');
      expect(inDb._rev).toBe(`2-${inDb.amount}`);
      const byUser = await instance.query(prepared({ selector: { userId: r.userId } }));
      expect(byUser.documents.map((d) => d.amount)).toEqual([inDb.amount]);
    });

    it('two instances of the same collection share state, conflicts and events', async () => {
      const databaseName = 'db' + randomToken(8);
      instance = await createRecordInstance(sut, databaseName);
      const twin = await createRecordInstance(sut, databaseName);
      try {
        const seen: string[] = [];
        const sub = instance.changeStream().subscribe((bulk) => bulk.events.forEach((e) => seen.push(e.operation)));
        const [r] = makeRecords(1, 8);
        const v1 = toStored(r, now());
        await writeOk(twin, [{ document: v1 }]);
        expect((await instance.findDocumentsById([r.id], false)).length).toBe(1);
        const results = await Promise.all([
          instance.bulkWrite([{ previous: v1, document: toStored({ ...r, amount: 1 }, now(), '2-a') }], 'test'),
          twin.bulkWrite([{ previous: v1, document: toStored({ ...r, amount: 2 }, now(), '2-b') }], 'test'),
        ]);
        sub.unsubscribe();
        expect(results.map((res) => res.error.length).sort()).toEqual([0, 1]);
        expect(seen).toEqual(['INSERT', 'UPDATE']);
      } finally {
        await twin.close();
      }
    });

    it('emits INSERT, UPDATE and DELETE events with the checkpoint of the newest row', async () => {
      instance = await createRecordInstance(sut);
      const bulks: EventBulk<RxStorageChangeEvent<any>, any>[] = [];
      const sub = instance.changeStream().subscribe((b) => bulks.push(b));
      const [a, b] = makeRecords(2, 5);
      const a1 = toStored(a, now());
      const b1 = toStored(b, now());
      await writeOk(instance, [{ document: a1 }, { document: b1 }]);
      const a2 = toStored({ ...a, amount: 77 }, now(), '2-x');
      await writeOk(instance, [{ previous: a1, document: a2 }]);
      const b2 = { ...b1, _deleted: true, _rev: '2-y', _meta: { lwt: now() } };
      await writeOk(instance, [{ previous: b1, document: b2 }]);
      // A write that only conflicts emits nothing.
      await instance.bulkWrite([{ document: toStored(a, now(), '1-c') }], 'test');
      sub.unsubscribe();

      expect(bulks.map((bulk) => bulk.events.map((e) => [e.operation, e.documentId]))).toEqual([
        [
          ['INSERT', a.id],
          ['INSERT', b.id],
        ],
        [['UPDATE', a.id]],
        [['DELETE', b.id]],
      ]);
      expect(bulks.map((bulk) => bulk.checkpoint)).toEqual([
        { id: b.id, lwt: b1._meta.lwt },
        { id: a.id, lwt: a2._meta.lwt },
        { id: b.id, lwt: b2._meta.lwt },
      ]);
      expect(bulks[1]?.events[0]?.documentData.amount).toBe(77);
      expect(bulks[1]?.events[0]?.previousDocumentData).toEqual(a1);
      expect(bulks.every((bulk) => bulk.context === 'test')).toBe(true);
    });

    it('getChangedDocumentsSince walks thousands of docs once each, in lwt/id order, resumable', async () => {
      instance = await createRecordInstance(sut);
      const records = makeRecords(3000, 11);
      const stored = new Map<string, RxDocumentData<AccountRecord>>();
      // Batches share one lwt so the id is the tie-breaker; insert in reverse id order.
      const reversed = [...records].reverse();
      let lwt = 1_000_000;
      for (let i = 0; i < reversed.length; i += 250) {
        lwt += 1000;
        const rows = reversed.slice(i, i + 250).map((r) => ({ document: toStored(r, lwt) }));
        await writeOk(instance, rows);
        for (const row of rows) stored.set(row.document.id, row.document);
      }
      // Touch some (they move to the end) and delete some (deletions are changes too).
      lwt += 1000;
      const touched = records
        .filter((_, n) => n % 7 === 0)
        .map((r) => {
          const previous = stored.get(r.id)!;
          const document = { ...previous, _rev: '2-t', _deleted: Number(r.id.slice(4)) % 2 === 0, _meta: { lwt } };
          stored.set(r.id, document);
          return { previous, document };
        });
      await writeOk(instance, touched);

      const expected = [...stored.values()].sort((x, y) => x._meta.lwt - y._meta.lwt || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0)).map((d) => d.id);

      const seen: string[] = [];
      const checkpoints: any[] = [undefined];
      let checkpoint: any;
      for (;;) {
        const page = await getChangedDocumentsSince(instance, 97, checkpoint);
        if (page.documents.length === 0) {
          expect(page.checkpoint).toEqual(checkpoint);
          break;
        }
        for (const doc of page.documents) {
          seen.push(doc.id);
          expect(doc).toEqual(stored.get(doc.id));
        }
        checkpoint = page.checkpoint;
        const last = page.documents.at(-1)!; // the page is not empty (checked above)
        expect(checkpoint).toEqual({ id: last.id, lwt: last._meta.lwt });
        checkpoints.push(checkpoint);
      }
      expect(seen.length).toBe(3000);
      expect(seen).toEqual(expected);
      // Resuming from any checkpoint continues exactly where that page ended.
      for (let i = 0; i < checkpoints.length; i += 5) {
        const page = await getChangedDocumentsSince(instance, 50, checkpoints[i]);
        expect(page.documents.map((d) => d.id)).toEqual(expected.slice(i * 97, i * 97 + 50));
      }
    });

    it('cleanup removes only tombstones older than the given age', async () => {
      instance = await createRecordInstance(sut);
      const records = makeRecords(60, 12);
      const t = now();
      const v1 = records.map((r) => toStored(r, t));
      await writeOk(
        instance,
        v1.map((document) => ({ document })),
      );
      const hour = 60 * 60 * 1000;
      // 0..19 deleted an hour ago, 20..39 deleted just now, 40..59 alive.
      await writeOk(
        instance,
        v1.slice(0, 40).map((previous, i) => ({
          previous,
          document: { ...previous, _deleted: true, _rev: '2-d', _meta: { lwt: i < 20 ? t - hour : now() } },
        })),
      );
      const ids = records.map((r) => r.id);
      expect((await instance.findDocumentsById(ids, true)).length).toBe(60);

      const done = await instance.cleanup(10 * 60 * 1000);
      expect(done).toBe(true);
      const left = (await instance.findDocumentsById(ids, true)).map((d) => d.id).sort();
      expect(left).toEqual(ids.slice(20));
      const alive = await instance.query(prepared({ selector: {} }));
      expect(alive.documents.map(strip).sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual(records.slice(40));
      // Old tombstones are gone from the changes feed too; young ones stay in it.
      const changes = await getChangedDocumentsSince(instance, 1000);
      expect(changes.documents.map((d) => d.id).sort()).toEqual(ids.slice(20));
    });

    it('after cleanup an id can be inserted again without previous', async () => {
      instance = await createRecordInstance(sut);
      const [r] = makeRecords(1, 14);
      const v1 = toStored(r, now());
      await writeOk(instance, [{ document: v1 }]);
      await writeOk(instance, [{ previous: v1, document: { ...v1, _deleted: true, _rev: '2-d', _meta: { lwt: now() - 3_600_000 } } }]);
      await instance.cleanup(0);
      await writeOk(instance, [{ document: toStored({ ...r, amount: 1 }, now(), '1-n') }]);
      const found = await instance.query(prepared({ selector: { userId: r.userId } }));
      expect(found.documents.map((d) => [d.id, d.amount, d._rev])).toEqual([[r.id, 1, '1-n']]);
    });

    it('a concurrent reader sees a bulkWrite completely or not at all', async () => {
      instance = await createRecordInstance(sut);
      const records = makeRecords(2000, 15).map((r) => ({ ...r, userId: 'atomic' }));
      const write = instance.bulkWrite(
        records.map((r) => ({ document: toStored(r, now()) })),
        'test',
      );
      const counts: number[] = [];
      const reads: Promise<void>[] = [];
      for (let i = 0; i < 20; i++) {
        reads.push(
          instance.query(prepared({ selector: { userId: 'atomic' } })).then((res) => {
            counts.push(res.documents.length);
          }),
        );
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect((await write).error).toEqual([]);
      await Promise.all(reads);
      expect(
        counts.every((n) => n === 0 || n === 2000),
        counts.join(','),
      ).toBe(true);
      expect((await instance.count(prepared({ selector: { userId: 'atomic' } }))).count).toBe(2000);
    });

    it('an already-deleted document can be inserted (as replication does) and stays invisible', async () => {
      instance = await createRecordInstance(sut);
      const events: string[] = [];
      const sub = instance.changeStream().subscribe((bulk) => bulk.events.forEach((e) => events.push(e.operation)));
      const [r] = makeRecords(1, 16);
      const tomb = toStored(r, now(), '3-remote', true);
      await writeOk(instance, [{ document: tomb }]);
      sub.unsubscribe();
      expect(events).toEqual([]);
      expect(await instance.findDocumentsById([r.id], false)).toEqual([]);
      expect(await instance.findDocumentsById([r.id], true)).toEqual([tomb]);
      expect((await instance.query(prepared({ selector: { userId: r.userId } }))).documents).toEqual([]);
      expect((await instance.count(prepared({ selector: {} }))).count).toBe(0);
      expect((await getChangedDocumentsSince(instance, 10)).documents).toEqual([tomb]);
    });

    it('remove() drops that collection only', async () => {
      const databaseName = 'db' + randomToken(8);
      instance = await createRecordInstance(sut, databaseName, 'records');
      const sibling = await createRecordInstance(sut, databaseName, 'records_archive');
      const [a, b] = makeRecords(2, 13);
      await writeOk(instance, [{ document: toStored(a, now()) }]);
      await writeOk(sibling, [{ document: toStored(b, now()) }]);
      await instance.remove();

      expect((await sibling.findDocumentsById([b.id], true)).map((d) => d.id)).toEqual([b.id]);
      expect((await sibling.query(prepared({ selector: {} }))).documents.length).toBe(1);
      await sibling.close();
      instance = await createRecordInstance(sut, databaseName, 'records');
      expect(await instance.findDocumentsById([a.id], true)).toEqual([]);
      expect((await instance.count(prepared({ selector: {} }))).count).toBe(0);
    });
  });
});
