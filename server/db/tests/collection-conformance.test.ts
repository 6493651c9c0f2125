/**
 * Conformance at the RxDB collection level: createRxDatabase + addCollections over each storage,
 * wrapped in RxDB's ajv validation exactly as server/db/database.ts does. Same expectations for
 * PennyPost's LevelDB storage and RxDB's memory storage.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRxDatabase, randomToken, type RxCollection, type RxDatabase, type RxJsonSchema } from 'rxdb';
import { wrappedValidateAjvStorage } from 'rxdb/plugins/validate-ajv';
import { encodeKey, collectionPrefix } from '../leveldb-storage/keys';
import { makeRecords, makeStorage, recordSchema, STORAGE_KINDS, type AccountRecord, type StorageUnderTest } from './fixtures';
import { oracle, QUERY_CASES } from './query-cases';

interface CategoryDoc {
  id: string;
  userId: string;
  name: string;
}
const categorySchema: RxJsonSchema<CategoryDoc> = {
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 40 },
    userId: { type: 'string', maxLength: 40 },
    name: { type: 'string' },
  },
  required: ['id', 'userId', 'name'],
  indexes: ['userId'],
};

type Collections = { records: RxCollection<AccountRecord>; categories: RxCollection<CategoryDoc> };

async function openRx(sut: StorageUnderTest, name = 'db' + randomToken(8)) {
  const db: RxDatabase<Collections> = await createRxDatabase<Collections>({
    name,
    storage: wrappedValidateAjvStorage({ storage: sut.storage }),
    multiInstance: false,
    eventReduce: true,
  });
  await db.addCollections({ records: { schema: recordSchema }, categories: { schema: categorySchema } });
  return db;
}

const plain = (doc: { toJSON(): any }) => doc.toJSON() as AccountRecord;

describe.each(STORAGE_KINDS)('RxDB collection conformance: %s', (kind) => {
  let sut: StorageUnderTest;
  beforeAll(async () => {
    sut = await makeStorage(kind);
  });
  afterAll(async () => {
    await sut.dispose();
  });

  describe('queries through RxCollection', () => {
    let db: RxDatabase<Collections>;
    const live = new Map<string, AccountRecord>();
    beforeAll(async () => {
      db = await openRx(sut);
      const records = makeRecords(900, 21);
      const result = await db.records.bulkInsert(records);
      expect(result.error).toEqual([]);
      for (const r of records) live.set(r.id, r);
      // Modify and remove through the document API.
      for (const r of records.filter((_, n) => n % 11 === 0)) {
        const doc = await db.records.findOne(r.id).exec(true);
        const updated = await doc.incrementalPatch({ category: '🍕 pizza', date: r.date + 86_400_000 });
        live.set(r.id, plain(updated));
      }
      const removeIds = records.filter((_, n) => n % 9 === 0 && n % 11 !== 0).map((r) => r.id);
      await db.records.bulkRemove(removeIds);
      for (const id of removeIds) live.delete(id);
    });
    afterAll(async () => {
      await db.close();
    });

    for (const c of QUERY_CASES) {
      it(`find: ${c.name}`, async () => {
        const docs = await db.records.find({ selector: c.selector, sort: c.sort, skip: c.skip, limit: c.limit }).exec();
        expect(docs.map((d) => d.id)).toEqual(oracle([...live.values()], c));
        for (const d of docs) expect(plain(d)).toEqual(live.get(d.id));
      });
    }

    it('count', async () => {
      for (const c of QUERY_CASES) {
        const n = await db.records.count({ selector: c.selector }).exec();
        expect(n, c.name).toBe(oracle([...live.values()], { ...c, skip: undefined, limit: undefined }).length);
      }
    });

    it('removed documents are never found, findByIds skips them', async () => {
      const removed = 'rec-0000009';
      expect(await db.records.findOne(removed).exec()).toBeNull();
      const map = await db.records.findByIds([removed, 'rec-0000001']).exec();
      expect([...map.keys()]).toEqual(['rec-0000001']);
      expect(await db.records.count().exec()).toBe(live.size);
    });
  });

  describe('writes through RxCollection', () => {
    let db: RxDatabase<Collections>;
    afterEach(async () => {
      await db.close();
    });

    it('inserting an existing id is a CONFLICT; bulkInsert reports it per document', async () => {
      db = await openRx(sut);
      const [a, b] = makeRecords(2, 22);
      await db.records.insert(a);
      await expect(db.records.insert({ ...a, amount: 1 })).rejects.toMatchObject({ code: 'CONFLICT' });
      const bulk = await db.records.bulkInsert([{ ...a, amount: 2 }, b]);
      expect(bulk.error.map((e) => [e.documentId, e.status])).toEqual([[a.id, 409]]);
      expect(bulk.success.map((d) => d.id)).toEqual([b.id]);
      expect(plain(await db.records.findOne(a.id).exec(true))).toEqual(a);
    });

    it('a stale document cannot overwrite a newer revision', async () => {
      db = await openRx(sut);
      const [a] = makeRecords(1, 23);
      const doc = await db.records.insert(a);
      await doc.patch({ amount: 10 });
      // `doc` is the old revision; writing it directly with its stale _rev must conflict.
      const result = await db.records.storageInstance.bulkWrite([{ previous: doc.toMutableJSON(true), document: { ...doc.toMutableJSON(true), amount: 99, _rev: '9-x' } }], 'test');
      expect(result.error.map((e) => e.status)).toEqual([409]);
      expect((await db.records.findOne(a.id).exec(true)).amount).toBe(10);
    });

    it('emits insert/update/delete on the collection change stream', async () => {
      db = await openRx(sut);
      const ops: string[] = [];
      const sub = db.records.$.subscribe((e) => ops.push(`${e.operation}:${e.documentId}`));
      const [a] = makeRecords(1, 24);
      const doc = await db.records.insert(a);
      const patched = await doc.patch({ amount: 5 });
      await patched.remove();
      sub.unsubscribe();
      expect(ops).toEqual([`INSERT:${a.id}`, `UPDATE:${a.id}`, `DELETE:${a.id}`]);
    });

    it('ajv validation refuses a document that breaks the schema before it reaches storage', async () => {
      db = await openRx(sut);
      const [a] = makeRecords(1, 25);
      const batch = sut.level ? vi.spyOn(sut.level, 'batch') : undefined;
      const bad: any[] = [
        { ...a, type: 'refund' },
        { ...a, amount: 12.5 },
        { ...a, amount: -1 },
        { ...a, date: 'yesterday' },
        { ...a, userId: undefined },
        { ...a, tags: 'work' },
      ];
      for (const doc of bad) {
        await expect(db.records.insert(doc), JSON.stringify(doc)).rejects.toMatchObject({ code: 'VD2' });
      }
      if (batch) {
        expect(batch).not.toHaveBeenCalled();
        batch.mockRestore();
      }
      expect(await db.records.findOne(a.id).exec()).toBeNull();
      await db.records.insert(a); // the valid one goes through
      expect(await db.records.count().exec()).toBe(1);
    });

    it('collection.remove() removes only that collection', async () => {
      const name = 'db' + randomToken(8);
      db = await openRx(sut, name);
      const records = makeRecords(30, 26);
      await db.records.bulkInsert(records);
      await db.categories.insert({ id: 'c1', userId: 'user-1', name: 'food' });
      await db.records.remove();
      expect(db.records).toBeUndefined();
      expect((await db.categories.findOne('c1').exec(true)).name).toBe('food');
      if (sut.level) {
        const prefix = collectionPrefix(name, 'records', 0);
        const keys = await sut.level.keys({ gte: encodeKey(prefix), lt: encodeKey(prefix + '\uffff') }).all();
        expect(keys.length).toBe(0);
      }
      await db.addCollections({ records: { schema: recordSchema } });
      expect(await db.records.count().exec()).toBe(0);
    });
  });
});
