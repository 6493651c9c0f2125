import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type LedgerPhone } from '../../examples/phone/ledger-phone.mjs';
import { ledgerErrors } from '../ledger/errors';
import { CouchPeer } from '../test-support/couch-peer/couch-peer';
import { registerUser, startTestServer, type TestServer } from '../test-support/test-server';
import { balanceOf, configureSync, COUCH_START_TIMEOUT, eventually, FAST, inSync, phoneAccount, statusOf, type SyncUser } from '../test-support/sync';

/**
 * The phone of docs/sync.md ("A phone client", examples/phone/ledger-phone.mjs) against the CouchDB
 * peer of the test suite (admin-only databases, as CouchDB 3 makes them): it signs in as a plain CouchDB user (a member of the ledger's databases),
 * keeps a local PouchDB copy (memory here; IndexedDB or LevelDB on a device) replicating live, and
 * PennyPost, syncing with the same databases, follows everything it does — and it follows PennyPost.
 */

const PREFIX = 'pp_phone_';

let couch: CouchPeer;
let t: TestServer;
let u: SyncUser;
let phone: LedgerPhone;
let cash: string;

beforeAll(async () => {
  couch = await CouchPeer.start();
  t = await startTestServer({ settings: FAST });
  u = await registerUser(t);
  cash = (await t.api('asset.create', { name: 'Cash', type: 'cash', balance: 100 }, u.token)).data.id;
  expect((await configureSync(t, couch, u, { prefix: PREFIX, collections: ['assets', 'records'] })).code).toBe(200);
  await inSync(t, u);
  const account = await phoneAccount(couch, PREFIX, ['meta', 'assets', 'records']);
  // CouchPeer's own PouchDB goes first: it adds its plugins to the shared pouchdb-core without
  // checking, the phone module only adds what is missing.
  await couch.local(`${PREFIX}meta`).info();
  phone = await connect({ url: couch.url, ...account, prefix: PREFIX, adapter: 'memory', localName: `phone-${process.pid}-` });
}, COUCH_START_TIMEOUT);
afterAll(async () => {
  // Undefined when beforeAll failed.
  await (phone as LedgerPhone | undefined)?.close();
  await (t as TestServer | undefined)?.close();
  await (couch as CouchPeer | undefined)?.close();
});

describe('a phone that reads and writes the ledger through CouchDB alone', () => {
  it('finds the ledger by itself: owner id from <prefix>meta, the assets and balances PennyPost has', async () => {
    expect(phone.ownerId).toBe(u.id);
    const balances = await eventually(
      () => phone.balances(),
      (b) => (b as Partial<typeof b>)[cash] !== undefined,
    );
    expect(balances[cash]).toEqual({ name: 'Cash', currency: 'USD', balance: 10_000 });
  });

  it('adds an expense offline; online again, PennyPost shows it and the balance drops — in the documented shape', async () => {
    phone.goOffline();
    const id = await phone.addExpense({ asset: cash, amount: 1250, category: 'Food', description: 'Lunch at the Café', tags: ['phone'] });
    expect((await phone.balances())[cash]).toMatchObject({ balance: 8750 }); // the phone counts it at once
    // goOffline cancelled the replications before the write: nothing is left that could carry it.
    expect(
      await couch
        .local(`${PREFIX}records`)
        .get(id)
        .catch((error: { status: number }) => error.status),
    ).toBe(404);
    expect(await balanceOf(t, u, cash)).toBe(100);

    phone.goOnline();
    await eventually(
      () => balanceOf(t, u, cash),
      (b) => b === 87.5,
    );
    expect((await t.api('accounting.get', { id }, u.token)).data).toMatchObject({
      id,
      type: 'expense',
      amount: 12.5,
      asset: cash,
      category: 'Food',
      description: 'Lunch at the Café',
      tags: ['phone'],
    });
    expect((await t.api('accounting.query', { text: 'café' }, u.token)).data.list.map((r: { id: string }) => r.id)).toContain(id);

    // What went up is exactly a records document of docs/sync.md: every field of the schema, no
    // other; integer minor units; times in ms; the ledger owner's id.
    const remote = await couch.local(`${PREFIX}records`).get(id);
    const schema = t.server.app.db.collection('records').schema.jsonSchema;
    const fields = Object.keys(schema.properties).filter((key) => !key.startsWith('_') && key !== schema.primaryKey);
    expect(Object.keys(remote).sort()).toEqual(['_id', '_rev', ...fields].sort());
    expect(remote).toMatchObject({ userId: u.id, amount: 1250, toAsset: '', toAmount: 0, fee: 0, searchText: 'lunch at the café', attachments: [], importKey: '' });
    for (const key of ['amount', 'date', 'createdAt', 'updatedAt']) expect(Number.isSafeInteger(remote[key]), key).toBe(true);
    expect(Math.abs(remote.updatedAt - Date.now())).toBeLessThan(60_000);
    expect((await statusOf(t, u, 'records')).ignoredCount).toBe(0);
    expect((await t.api('asset.checkBalances', {}, u.token)).data.ok).toBe(true);
  });

  it('sees an edit made in PennyPost, and PennyPost sees an edit made on the phone', async () => {
    const made = (await t.api('accounting.create', { type: 'expense', amount: 5, asset: cash, category: 'Transport', description: 'Bus' }, u.token)).data;
    await eventually(
      () => phone.record(made.id),
      (r) => r?.amount === 500,
    );
    await t.api('accounting.update', { id: made.id, amount: 7, description: 'Bus and tram' }, u.token);
    const seen = await eventually(
      () => phone.record(made.id),
      (r) => r?.description === 'Bus and tram',
    );
    expect(seen).toMatchObject({ amount: 700, userId: u.id });
    // 100 − 12.50 − 7 on both sides
    await eventually(
      () => phone.balances(),
      (b) => (b as Partial<typeof b>)[cash]?.balance === 8050,
    );
    expect(await balanceOf(t, u, cash)).toBe(80.5);

    await phone.editRecord(made.id, { amount: 900, description: 'Bus, tram and ferry' });
    await eventually(
      () => t.api('accounting.get', { id: made.id }, u.token),
      (r) => r.data?.description === 'Bus, tram and ferry',
    );
    expect(await balanceOf(t, u, cash)).toBe(78.5);
  });

  it('deletes a record; PennyPost drops it and the balance comes back', async () => {
    const bus = (await phone.records()).find((r) => r.category === 'Transport')!;
    await phone.deleteRecord(bus._id);
    expect(await phone.record(bus._id)).toBeUndefined();
    await eventually(
      async () => (await t.api('accounting.get', { id: bus._id }, u.token)).code,
      (code) => code === ledgerErrors.rows.recordNotFound.code,
    );
    expect(await balanceOf(t, u, cash)).toBe(87.5);
    expect((await phone.balances())[cash]).toMatchObject({ balance: 8750 });
    expect((await statusOf(t, u, 'records')).ignoredCount).toBe(0);
    expect((await t.api('asset.checkBalances', {}, u.token)).data.ok).toBe(true);
  });
});
