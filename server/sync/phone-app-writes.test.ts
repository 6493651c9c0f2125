import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildModel, type LedgerDocs, type LedgerModel } from '../../phone/src/data/ledger-model';
import type { PhoneLedger } from '../../phone/src/data/phone-db';
import { addRecord, confirmOccurrence, deleteRecord, editRecord, restoreRecord, WriteRefused } from '../../phone/src/data/writes';
import type { RecordDoc } from '../ledger/schema';
import type { PlanDoc } from '../planning/schema';
import { ledgerErrors } from '../ledger/errors';
import { planningErrors } from '../planning/errors';
import { expectRefusal } from '../test-support/refusal';
import { CouchPeer } from '../test-support/couch-peer/couch-peer';
import { registerUser, startTestServer, type TestServer } from '../test-support/test-server';
import { balanceOf, configureSync, COUCH_START_TIMEOUT, eventually, FAST, inSync, statusOf, type SyncUser } from '../test-support/sync';
import type { Pairing } from './pairing-link';

/**
 * Whatever the phone app writes, every PennyPost's sync gate accepts (docs/phone.md, "Same rules"):
 * each kind of write the app makes — expense, income, transfer, a transfer between currencies, an
 * edit, a delete and its undo — is made by the app's own write module (phone/src/data/writes.ts,
 * with the desktop's record factory, balance check and sync verdict) on the phone's view of the
 * ledger, sent to CouchDB as the phone's replication sends it, and must reach PennyPost with no
 * document ignored and the balances it implies. What the app refuses, it refuses in words.
 *
 * The phone's storage here is a map (the browser's IndexedDB is the e2e test's, e2e/phone.spec.ts);
 * CouchDB, the desktop, its replication and its gate are the real ones.
 */

const PREFIX = 'pp_phone_writes_';

let couch: CouchPeer;
let t: TestServer;
let u: SyncUser;
let pairing: Pairing;
let cash: string;
let bank: string;
let euro: string;

/** CouchDB as the phone's user sees it. */
async function couchCall(path: string, init: RequestInit = {}) {
  const answer = await fetch(`${pairing.url}${path}`, {
    ...init,
    headers: { authorization: `Basic ${btoa(`${pairing.user}:${pairing.pw}`)}`, 'content-type': 'application/json' },
  });
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
}

/** The ledger's documents of one collection on CouchDB, as the phone stores them (`_id` is `id`). */
async function remoteDocs<T>(collection: string): Promise<T[]> {
  const { body } = await couchCall(`${PREFIX}${collection}/_all_docs?include_docs=true`);
  return (body.rows as Array<{ doc: Record<string, unknown> }>)
    .map(({ doc }) => doc)
    .filter((doc) => !doc._deleted)
    .map(({ _id, _rev, ...fields }) => ({ ...fields, id: _id }) as T);
}

/** The phone: its records in a map, pushed to CouchDB as its replication pushes them. */
function phoneLedger(): PhoneLedger & { store: Map<string, RecordDoc>; plans: Map<string, PlanDoc>; push(): Promise<void> } {
  const store = new Map<string, RecordDoc>();
  const plans = new Map<string, PlanDoc>();
  const deleted = new Set<string>();
  const changed = new Set<string>();
  const ledger = {
    pairing,
    sync: { online: true, pending: 0, lastSyncAt: null, revoked: false, error: null },
    store,
    plans,
    noteWrite: (collection: string, id: string) => changed.add(`${collection}/${id}`),
    docs: {
      plans: {
        upsert: (doc: PlanDoc) => {
          plans.set(doc.id, doc);
          return Promise.resolve();
        },
      },
      records: {
        insert: (doc: RecordDoc) => Promise.resolve(void store.set(doc.id, doc)),
        upsert: (doc: RecordDoc) => {
          deleted.delete(doc.id);
          store.set(doc.id, doc);
          return Promise.resolve();
        },
        findOne: (id: string) => ({
          exec: () => {
            const doc = store.get(id);
            if (!doc) return Promise.resolve(null);
            return Promise.resolve({
              incrementalPatch: (patch: Partial<RecordDoc>) => {
                store.set(id, { ...doc, ...patch });
                return Promise.resolve({ remove: () => Promise.resolve(void deleted.add(id)) });
              },
            });
          },
        }),
      },
    },
    /** One push round: each changed document with the revision CouchDB has (deletions keep their fields and time). */
    async push() {
      for (const key of changed) {
        const [collection = '', id = ''] = key.split('/');
        const doc = collection === 'plans' ? plans.get(id) : store.get(id);
        if (!doc) continue;
        const current = await couchCall(`${PREFIX}${collection}/${id}`);
        const rev = current.status === 200 ? { _rev: current.body._rev } : {};
        const { id: _id, ...fields } = doc;
        const gone = collection === 'records' && deleted.has(id);
        const written = await couchCall(`${PREFIX}${collection}/${id}`, { method: 'PUT', body: JSON.stringify({ ...fields, ...rev, ...(gone ? { _deleted: true } : {}) }) });
        expect(written.status, JSON.stringify(written.body)).toBe(201);
      }
      changed.clear();
    },
  };
  return ledger as unknown as PhoneLedger & { store: Map<string, RecordDoc>; plans: Map<string, PlanDoc>; push(): Promise<void> };
}

async function phoneModel(phone: { store: Map<string, RecordDoc>; plans: Map<string, PlanDoc> }): Promise<LedgerModel> {
  // The phone's plans: what it changed itself, else what CouchDB has.
  const remotePlans = await remoteDocs<PlanDoc>('plans');
  const docs: LedgerDocs = {
    assets: await remoteDocs('assets'),
    records: [...phone.store.values()],
    categories: await remoteDocs('categories'),
    rates: [],
    plans: remotePlans.map((plan) => phone.plans.get(plan.id) ?? plan),
  };
  return buildModel(docs, pairing.owner, 'USD');
}

beforeAll(async () => {
  couch = await CouchPeer.start();
  t = await startTestServer({ settings: FAST });
  u = await registerUser(t);
  cash = (await t.api('asset.create', { name: 'Cash', type: 'cash', balance: 100, currency: 'USD' }, u.token)).data.id;
  bank = (await t.api('asset.create', { name: 'Bank', type: 'debit_card', balance: 500, currency: 'USD' }, u.token)).data.id;
  euro = (await t.api('asset.create', { name: 'Euro', type: 'cash', balance: 50, currency: 'EUR' }, u.token)).data.id;
  await t.api('category.list', {}, u.token);
  expect((await configureSync(t, couch, u, { prefix: PREFIX })).code).toBe(200);
  await inSync(t, u);
  pairing = (await t.api('sync.addPhone', { label: 'test phone', appUrl: 'http://127.0.0.1:9/phone/' }, u.token)).data.pairing;
}, COUCH_START_TIMEOUT);
afterAll(async () => {
  await (t as TestServer | undefined)?.close();
  await (couch as CouchPeer | undefined)?.close();
});

describe("the phone app's writes reach PennyPost through its sync gate", () => {
  const phone = () => phoneLedger();
  let p: ReturnType<typeof phone>;
  beforeAll(() => {
    p = phone();
  });

  const accepted = async () => {
    await p.push();
    await inSync(t, u);
    expect((await statusOf(t, u, 'records')).ignoredCount).toBe(0);
  };

  it('an expense and an income', async () => {
    const now = Date.now();
    const lunch = await addRecord(p, await phoneModel(p), { type: 'expense', amount: '12.5', asset: cash, category: 'Food', description: 'Lunch', tags: ['work'], date: now });
    const salary = await addRecord(p, await phoneModel(p), { type: 'income', amount: '1000', asset: bank, category: 'Salary', date: now });
    await accepted();
    await eventually(
      () => balanceOf(t, u, cash),
      (b) => b === 87.5,
    );
    expect(await balanceOf(t, u, bank)).toBe(1500);
    expect((await t.api('accounting.get', { id: lunch.id }, u.token)).data).toMatchObject({ amount: 12.5, category: 'Food', tags: ['work'], description: 'Lunch' });
    expect((await t.api('accounting.get', { id: salary.id }, u.token)).data).toMatchObject({ type: 'income', amount: 1000 });
  });

  it('a transfer, and one between two currencies with the amount received', async () => {
    await addRecord(p, await phoneModel(p), { type: 'transfer', amount: '100', asset: bank, toAsset: cash, date: Date.now() });
    await addRecord(p, await phoneModel(p), { type: 'transfer', amount: '20', asset: bank, toAsset: euro, toAmount: '18.4', date: Date.now() });
    await accepted();
    await eventually(
      () => balanceOf(t, u, euro),
      (b) => b === 68.4,
    );
    expect(await balanceOf(t, u, bank)).toBe(1380);
    expect(await balanceOf(t, u, cash)).toBe(187.5);
  });

  it('an edit, a delete and its undo', async () => {
    const lunch = [...p.store.values()].find((r) => r.description === 'Lunch')!;
    const edited = await editRecord(p, await phoneModel(p), lunch, {
      type: 'expense',
      amount: '15',
      asset: cash,
      category: 'Food',
      description: 'Lunch with Ann',
      date: lunch.date,
    });
    await accepted();
    await eventually(
      () => balanceOf(t, u, cash),
      (b) => b === 185,
    );
    await deleteRecord(p, edited);
    await accepted();
    await eventually(
      async () => (await t.api('accounting.get', { id: edited.id }, u.token)).code,
      (code) => code === ledgerErrors.rows.recordNotFound.code,
    );
    expect(await balanceOf(t, u, cash)).toBe(200);
    await restoreRecord(p, p.store.get(edited.id)!);
    await accepted();
    await eventually(
      () => balanceOf(t, u, cash),
      (b) => b === 185,
    );
    expect((await t.api('asset.checkBalances', {}, u.token)).data.ok).toBe(true);
  });

  it('confirms the occurrence of a recurring item that waits for a tap, once, as the desktop would', async () => {
    const DAY = 86_400_000;
    const item = (
      await t.api(
        'recurring.create',
        {
          name: 'Rent',
          template: { type: 'expense', amount: 20, category: 'Food', asset: bank },
          rule: { freq: 'monthly' },
          startDate: Date.now() - 2 * DAY,
          timeZone: 'UTC',
          mode: 'confirm',
        },
        u.token,
      )
    ).data;
    await inSync(t, u);
    await eventually(
      async () => (await phoneModel(p)).upcoming.find((x) => x.id === item.id),
      (row) => row?.due === true && row.waitsForTap,
    );
    const written = await confirmOccurrence(p, await phoneModel(p), item.id);
    await accepted();
    await eventually(
      async () => (await t.api('accounting.get', { id: written.id }, u.token)).data,
      (record) => record?.recurringId === item.id,
    );
    expect(await balanceOf(t, u, bank)).toBe(1360);
    // The item moved on, everywhere: the desktop's own confirm finds the occurrence handled.
    const occurrence = written.importKey.split(':').at(-1);
    await eventually(
      async () => (await t.api('recurring.query', {}, u.token)).data.list.find((x: { id: string }) => x.id === item.id)?.doneThrough,
      (through) => through === occurrence,
    );
    expectRefusal(await t.api('recurring.confirm', { id: item.id, date: occurrence }, u.token), planningErrors.rows.recurringAlreadyHandled);
    expect((await phoneModel(p)).upcoming.find((x) => x.id === item.id)?.due).not.toBe(true);
  });

  it('refuses in words what the desktop would refuse, and writes nothing', async () => {
    const model = await phoneModel(p);
    const before = p.store.size;
    const refusal = (input: Parameters<typeof addRecord>[2]) =>
      addRecord(p, model, input).then(
        () => 'written',
        (e: unknown) => (e instanceof WriteRefused ? e.message : `not a refusal: ${String(e)}`),
      );
    const date = Date.now();
    expect(await refusal({ type: 'expense', amount: '500', asset: cash, category: 'Food', date })).toMatch(/Cash|balance/i);
    expect(await refusal({ type: 'expense', amount: '1.234', asset: cash, category: 'Food', date })).toMatch(/decimal|cent|2/i);
    expect(await refusal({ type: 'expense', amount: '0', asset: cash, category: 'Food', date })).toMatch(/above zero/);
    expect(await refusal({ type: 'transfer', amount: '5', asset: bank, toAsset: euro, date })).toMatch(/amount received/);
    expect(await refusal({ type: 'expense', amount: '5', asset: 'no-such-asset', category: 'Food', date })).toMatch(/asset/i);
    expect(await refusal({ type: 'expense', amount: '5', asset: cash, category: 'Food', description: 'x'.repeat(1001), date })).toMatch(/1,?000/);
    expect(p.store.size).toBe(before);
  });
});
