import { rmSync } from 'node:fs';
import v8 from 'node:v8';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type AppDatabase } from '../db/database';
import { newId } from '../lib/ids';
import { tempDataDir } from '../test-support/test-server';
import { SavedViews } from './saved-views';
import { ledgerCollections, type AssetDoc, type RecordDoc } from './schema';
import { metaKeyOf, snapshotPrefix, SnapshotDamagedError } from './view-snapshot';
import { LedgerViews } from './ledger-views';
import { UserLedgerView } from './views';

/**
 * Issue 23: a start restores each user's ledger view from its saved columns plus the records
 * written since (server/ledger/saved-views.ts). Whatever happened in between — clean stops,
 * crashes after a save, writes by sync, other users' writes, damaged or foreign snapshots — the
 * restored view must equal one rebuilt from the records.
 */

let dir: string;
let db: AppDatabase;
const ALICE = 'user-alice';
const BOB = 'user-bob';
const ASSETS = ['asset-a', 'asset-b', 'asset-c'];

beforeEach(async () => {
  dir = tempDataDir('views');
  db = await openDatabase({ dataDir: dir, collections: ledgerCollections, sync: false });
  const now = Date.UTC(2026, 0, 1);
  const assets: AssetDoc[] = [ALICE, BOB].flatMap((userId) =>
    ASSETS.map((id, i) => ({
      id: `${userId}-${id}`,
      userId,
      name: `Asset ${i}`,
      type: 'debit_card',
      currency: 'USD',
      openingBalance: 1000 * i,
      description: '',
      icon: '',
      status: 'normal',
      isDefault: i === 0,
      delFlag: false,
      createdAt: now,
      updatedAt: now,
    })),
  );
  await db.collection<AssetDoc>('assets').bulkInsert(assets);
});

afterEach(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const records = () => db.collection<RecordDoc>('records');
let counter = 0;

function recordDoc(userId: string, fields: Partial<RecordDoc> = {}): RecordDoc {
  counter++;
  const date = Date.UTC(2025, 0, 1) + (counter % 400) * 86_400_000 + counter;
  const description = `purchase ${counter % 7}`;
  return {
    id: newId(date),
    userId,
    type: 'expense',
    amount: 100 + counter,
    asset: `${userId}-${ASSETS[counter % 3]!}`,
    toAsset: '',
    toAmount: 0,
    fee: 0,
    category: ['Food', 'Rent', '餐饮'][counter % 3]!,
    description,
    searchText: description,
    date,
    tags: counter % 4 === 0 ? ['work', 'trip'] : counter % 5 === 0 ? ['work'] : [],
    attachments: [],
    importKey: '',
    createdAt: date,
    updatedAt: date,
    ...fields,
  };
}

/** What a view says about the ledger, comparable across builds (text ids depend on build order). */
function shape(view: UserLedgerView) {
  return {
    entries: view.entries.map((e) => ({ ...e, tags: [...e.tags], textId: view.texts[e.textId] })),
    balances: ASSETS.map((a) => String(view.exactBalanceOf(`${view.userId}-${a}`))),
    counts: ASSETS.map((a) => view.recordCountOf(`${view.userId}-${a}`)),
  };
}

/** The view rebuilt from the records alone. */
async function rebuilt(userId: string) {
  const views = new LedgerViews(db, { saved: false });
  return shape(await views.get(userId));
}

/** A fresh start: new views over the same database (the previous ones stopped, flushed or not). */
function startViews(): LedgerViews {
  const views = new LedgerViews(db, { saveDelayMs: 3_600_000 });
  views.start();
  return views;
}

describe('saved ledger views', () => {
  it('restores from the saved columns alone when nothing changed since', async () => {
    await records().bulkInsert(Array.from({ length: 300 }, () => recordDoc(ALICE)));
    const first = startViews();
    await first.get(ALICE);
    await first.flush();
    first.stop();

    const view = new UserLedgerView(ALICE);
    const read = await new SavedViews(db).restore(view, [], [], Date.now());
    expect(read).toBe(0); // nothing written since the save: no record was read
    expect(shape(view).entries).toEqual((await rebuilt(ALICE)).entries);
  });

  it('catches up on records written after the save by a crash-interrupted run, by sync and by other users', async () => {
    await records().bulkInsert(Array.from({ length: 200 }, () => recordDoc(ALICE)));
    const first = startViews();
    await first.get(ALICE);
    await first.flush();
    // After the save: writes the saved view does not hold, then a crash (no flush).
    const docs = await records()
      .find({ selector: { userId: ALICE }, limit: 10 })
      .exec();
    const [patched, removed, pulled] = docs;
    if (!patched || !removed || !pulled) throw new Error(`expected 10 records, found ${docs.length}`);
    await patched.patch({ amount: 999_999, tags: ['changed'] });
    await removed.remove();
    await records().bulkInsert([recordDoc(ALICE, { type: 'income', category: 'Salary' }), recordDoc(BOB)]);
    await records().bulkUpsert([{ ...recordDoc(ALICE), id: pulled.id, amount: 5 }]); // as a sync pull writes it
    first.stop();

    const second = startViews();
    expect(shape(await second.get(ALICE))).toEqual(await rebuilt(ALICE));
    second.stop();
  });

  it('keeps restored views equal to a rebuild through any mix of writes, saves, stops and crashes', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('insert' as const), n: fc.integer({ min: 1, max: 30 }), bob: fc.boolean() }),
      fc.record({ kind: fc.constant('update' as const), pick: fc.nat(), amount: fc.integer({ min: 1, max: 10 ** 9 }) }),
      fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('transfer' as const), amount: fc.integer({ min: 1, max: 10 ** 6 }), fee: fc.nat(50) }),
      fc.constant({ kind: 'save' as const }),
      fc.constant({ kind: 'stop' as const }),
      fc.constant({ kind: 'crash' as const }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 3, maxLength: 14 }), async (ops) => {
        let views = startViews();
        await views.get(ALICE);
        for (const o of ops) {
          if (o.kind === 'insert') await records().bulkInsert(Array.from({ length: o.n }, () => recordDoc(o.bob ? BOB : ALICE)));
          else if (o.kind === 'transfer')
            await records().insert(recordDoc(ALICE, { type: 'transfer', category: '', asset: `${ALICE}-asset-a`, toAsset: `${ALICE}-asset-b`, amount: o.amount, fee: o.fee }));
          else if (o.kind === 'update' || o.kind === 'delete') {
            const mine = await records()
              .find({ selector: { userId: ALICE } })
              .exec();
            if (mine.length === 0) continue;
            const doc = mine[o.pick % mine.length]!;
            if (o.kind === 'update') await doc.patch({ amount: o.amount, category: 'Moved' });
            else await doc.remove();
          } else if (o.kind === 'save') await views.flush();
          else {
            if (o.kind === 'stop') await views.flush();
            views.stop();
            views = startViews();
          }
          expect(shape(await views.get(ALICE))).toEqual(await rebuilt(ALICE));
        }
        await views.flush();
        views.stop();
      }),
      { numRuns: 12, seed: 2323 },
    );
  }, 120_000);

  it('rebuilds from the records when the saved view is damaged, of another format, or saved "in the future"', async () => {
    await records().bulkInsert(Array.from({ length: 120 }, () => recordDoc(ALICE)));
    const views = startViews();
    await views.get(ALICE);
    await views.flush();
    views.stop();
    const expected = await rebuilt(ALICE);
    const metaKey = metaKeyOf(ALICE);
    const meta = (await db.derived.get(metaKey))!;
    const saved = new SavedViews(db);
    const tryRestore = async (now = Date.now()) => {
      const view = new UserLedgerView(ALICE);
      return { read: await saved.restore(view, [], [], now), view };
    };

    // the clock went back since the save
    expect((await tryRestore(Date.UTC(2000, 0, 1))).read).toBeUndefined();
    // damaged bytes
    await db.derived.replace(snapshotPrefix(ALICE), [[metaKey, Buffer.from('not a snapshot')]]);
    expect((await tryRestore()).read).toBeUndefined();
    // a chunk missing
    await db.derived.replace(snapshotPrefix(ALICE), [[metaKey, meta]]);
    expect((await tryRestore()).read).toBeUndefined();

    // Through the views: rebuilt, correct, and saved anew for the next start.
    const again = startViews();
    expect(shape(await again.get(ALICE))).toEqual(expected);
    await again.flush();
    again.stop();
    const restored = await tryRestore();
    expect(restored.read).toBe(0);
    expect(shape(restored.view).entries).toEqual(expected.entries);
  });

  it('refuses a saved view whose bytes changed since it was saved (one flipped bit), tells why, and rebuilds', async () => {
    await records().bulkInsert(Array.from({ length: 150 }, () => recordDoc(ALICE)));
    const views = startViews();
    await views.get(ALICE);
    await views.flush();
    views.stop();
    const expected = await rebuilt(ALICE);
    const chunkKey = `${snapshotPrefix(ALICE)}c0`;
    const chunk = (await db.derived.get(chunkKey))!;
    // One bit of one amount: the chunk still decodes, with one amount 2^k minor units off.
    const decoded = v8.deserialize(chunk) as { amount: Float64Array };
    const flipped = Buffer.from(chunk);
    const amountBytes = Buffer.from(decoded.amount.buffer, decoded.amount.byteOffset, decoded.amount.byteLength);
    const at = flipped.indexOf(amountBytes);
    expect(at).toBeGreaterThan(0);
    flipped.writeUInt8(flipped.readUInt8(at + 6) ^ 0x01, at + 6);
    expect((v8.deserialize(flipped) as { amount: Float64Array }).amount[0]).not.toBe(decoded.amount[0]);
    await db.derived.replace(`${snapshotPrefix(ALICE)}c`, [[chunkKey, flipped]]);

    const damaged: Array<{ userId: string; error: Error }> = [];
    const view = new UserLedgerView(ALICE);
    expect(await new SavedViews(db, (userId, error) => damaged.push({ userId, error })).restore(view, [], [], Date.now())).toBeUndefined();
    expect(damaged).toHaveLength(1);
    expect(damaged[0]?.userId).toBe(ALICE);
    expect(damaged[0]?.error).toBeInstanceOf(SnapshotDamagedError);

    // A start rebuilds the right view (and says so), and saves a good one again.
    const told: string[] = [];
    const again = new LedgerViews(db, { saveDelayMs: 3_600_000, onSavedViewDamaged: (userId) => told.push(userId) });
    again.start();
    expect(shape(await again.get(ALICE))).toEqual(expected);
    expect(told).toEqual([ALICE]);
    await again.flush();
    again.stop();
    const good = new UserLedgerView(ALICE);
    expect(await new SavedViews(db).restore(good, [], [], Date.now())).toBe(0);
    expect(shape(good).entries).toEqual(expected.entries);
  });

  it('moves a view’s checkpoint on with other users’ writes, so a restore reads only what came after', async () => {
    await records().bulkInsert(Array.from({ length: 50 }, () => recordDoc(ALICE)));
    const views = startViews();
    await views.get(ALICE);
    await records().insert(recordDoc(ALICE));
    // Bob's writes come after Alice's last one; her view sees them go by
    await records().bulkInsert(Array.from({ length: 500 }, () => recordDoc(BOB)));
    await views.flush();
    views.stop();
    const view = new UserLedgerView(ALICE);
    expect(await new SavedViews(db).restore(view, [], [], Date.now())).toBe(0);
    expect(shape(view).entries).toEqual((await rebuilt(ALICE)).entries);
  });

  it('gives up a background save when the view changes between its chunks (saved later instead)', async () => {
    await records().bulkInsert(Array.from({ length: 50 }, () => recordDoc(ALICE)));
    const views = startViews();
    const view = await views.get(ALICE);
    const saved = new SavedViews(db);
    const saving = saved.save(view, Date.now(), true);
    view.putRecord(recordDoc(ALICE)); // a write lands while the save yields
    expect(await saving).toBe(false);
    expect(await db.derived.get(metaKeyOf(ALICE))).toBeUndefined();
    expect(await saved.save(view, Date.now(), true)).toBe(true);
    expect(await db.derived.get(metaKeyOf(ALICE))).toBeDefined();
    views.stop();
  });

  it('forgets a user’s saved view with the account', async () => {
    await records().bulkInsert([recordDoc(ALICE)]);
    const views = startViews();
    await views.get(ALICE);
    await views.flush();
    expect(await db.derived.get(metaKeyOf(ALICE))).toBeDefined();
    await views.forget(ALICE);
    expect(await db.derived.get(metaKeyOf(ALICE))).toBeUndefined();
    views.stop();
  });
});
