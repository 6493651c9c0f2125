import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildServer, type ChildServer } from '../test-support/child-server';
import { COUCH_ADMIN, CouchPeer } from '../test-support/couch-peer/couch-peer';
import { registerUser, startTestServer, tempDataDir, type TestServer } from '../test-support/test-server';
import { eventually, FAST, inSync, type SyncUser } from '../test-support/sync';
import { syncErrors } from './errors';
import { ledgerErrors } from '../ledger/errors';
import { expectRefusal } from '../test-support/refusal';

/**
 * Conflicts between two PennyPosts of the same person (docs/sync.md, "Conflicts"), against a real
 * CouchDB: `home` runs in this process, `laptop` in a child process (one RxDB database per process).
 */

const PREFIX = 'pp_conf_';
let couch: CouchPeer;
let home: TestServer;
let laptop: ChildServer;
let a: SyncUser;
let b: { token: string; id: string };
let cash: string;

const pause = (ms = 25) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  couch = await CouchPeer.start();
  home = await startTestServer({ settings: FAST });
  laptop = await startChildServer(tempDataDir('laptop'), { sync: { retrySeconds: 0.2, requestTimeoutMs: 3000 } });
  a = await registerUser(home);
  b = (await laptop.api('user.register', { username: 'laptop_user', email: 'laptop@example.com', password: 'a long password' })).data;
  cash = (await home.api('asset.create', { name: 'Cash', type: 'cash', balance: 1000 }, a.token)).data.id;
  const sync = { url: couch.url, username: COUCH_ADMIN.username, password: COUCH_ADMIN.password, prefix: PREFIX };
  expect((await home.api('sync.configure', { ...sync, collections: ['assets', 'records'] }, a.token)).code).toBe(200);
  await inSync(home, a);
  expect((await laptop.api('sync.configure', { ...sync, collections: ['assets', 'records'] }, b.token)).data).toMatchObject({ joined: true });
  await eventually(
    async () => (await laptop.api('asset.detail', { id: cash }, b.token)).data?.balance,
    (v) => v === 1000,
  );
}, 120_000);

afterAll(async () => {
  // Undefined when beforeAll failed.
  await (home as TestServer | undefined)?.close();
  await (laptop as ChildServer | undefined)?.stop();
  await (couch as CouchPeer | undefined)?.close();
});

const homeRecord = async (id: string) => (await home.api('accounting.get', { id }, a.token)).data ?? null;
const laptopRecord = async (id: string) => (await laptop.api('accounting.get', { id }, b.token)).data ?? null;
const remoteRecord = async (id: string) =>
  (await couch
    .local(`${PREFIX}records`)
    .get(id)
    .catch(() => null)) as Record<string, any> | null;

/** A record made at home that the laptop has too. */
async function sharedRecord(description: string, amount = 10): Promise<string> {
  const id = (await home.api('accounting.create', { type: 'expense', amount, asset: cash, category: 'Food', description }, a.token)).data.id as string;
  await eventually(
    () => laptopRecord(id),
    (r) => r?.description === description,
  );
  return id;
}

async function stopBoth(): Promise<void> {
  await home.api('sync.stop', {}, a.token);
  await laptop.api('sync.stop', {}, b.token);
}

async function laptopSettled(): Promise<void> {
  await eventually(
    () => laptop.api('sync.status', {}, b.token),
    (s) => s.data.collections.every((c: { state: string; pending: number }) => c.state === 'idle' && c.pending === 0),
    15_000,
  );
}

async function startHome(): Promise<void> {
  await home.api('sync.start', {}, a.token);
  await inSync(home, a);
}

async function startLaptop(): Promise<void> {
  await laptop.api('sync.start', {}, b.token);
  await laptopSettled();
}

describe('edit against delete: the later one wins, whichever PennyPost syncs first', () => {
  it('a later edit beats an earlier delete when the deleting PennyPost syncs first (finding 1)', async () => {
    const id = await sharedRecord('shared x');
    await stopBoth();
    await home.api('accounting.delete', { id }, a.token);
    await pause();
    await laptop.api('accounting.update', { id, description: 'edited later on the laptop' }, b.token);
    await startHome();
    await eventually(
      () => remoteRecord(id),
      (doc) => doc === null,
    ); // the delete is on the server
    await startLaptop();
    await eventually(
      () => remoteRecord(id),
      (doc) => doc?.description === 'edited later on the laptop',
    );
    await eventually(
      () => homeRecord(id),
      (r) => r?.description === 'edited later on the laptop',
    );
    expect((await laptopRecord(id))?.description).toBe('edited later on the laptop');
    // the delete that lost is in the laptop's conflict log
    const log = await laptop.api('sync.conflicts', {}, b.token);
    expect(log.data.list.find((c: { documentId: string }) => c.documentId === id)).toMatchObject({ collection: 'records', kind: 'delete-undone', lost: 'other-device' });
  }, 60_000);

  it('a later edit beats an earlier delete when the editing PennyPost syncs first', async () => {
    const id = await sharedRecord('shared y');
    await stopBoth();
    await home.api('accounting.delete', { id }, a.token);
    await pause();
    await laptop.api('accounting.update', { id, description: 'edited later, synced first' }, b.token);
    await startLaptop();
    await eventually(
      () => remoteRecord(id),
      (doc) => doc?.description === 'edited later, synced first',
    );
    await startHome();
    await eventually(
      () => homeRecord(id),
      (r) => r?.description === 'edited later, synced first',
    );
    await inSync(home, a); // whatever home had to push (its delete, were it to win) has gone up
    expect((await remoteRecord(id))?.description).toBe('edited later, synced first');
    expect((await laptopRecord(id))?.description).toBe('edited later, synced first');
  }, 60_000);

  it('a later delete beats an earlier edit, whichever syncs first', async () => {
    for (const first of ['deleting', 'editing'] as const) {
      const id = await sharedRecord(`shared z ${first}`);
      await stopBoth();
      await laptop.api('accounting.update', { id, description: 'edited earlier on the laptop' }, b.token);
      await pause();
      await home.api('accounting.delete', { id }, a.token);
      if (first === 'deleting') {
        await startHome();
        await startLaptop();
      } else {
        await startLaptop();
        await startHome();
      }
      await eventually(
        async () => (await laptop.api('accounting.get', { id }, b.token)).code,
        (code) => code === ledgerErrors.rows.recordNotFound.code,
      );
      await inSync(home, a); // home has pushed what it had (its delete) and pulled what it was sent
      expectRefusal(await home.api('accounting.get', { id }, a.token), ledgerErrors.rows.recordNotFound, { label: first });
      expect(await remoteRecord(id), first).toBeNull();
    }
  }, 90_000);
});

describe('a bad revision from a phone does not block a later edit (finding 3)', () => {
  it('an edit on home after a phone wrote an invalid revision reaches CouchDB and the laptop; the bad revision is reported', async () => {
    const id = await sharedRecord('shared v', 10);
    const phone = couch.client(`${PREFIX}records`);
    const current = await phone.get(id);
    await phone.put({ ...current, amount: '12.00', updatedAt: Date.now() });
    await eventually(
      () => home.api('sync.status', {}, a.token),
      (s) => s.data.collections.find((c: { collection: string }) => c.collection === 'records').ignored.some((i: { id: string }) => i.id === id),
    );
    await pause();
    expect((await home.api('accounting.update', { id, amount: 20 }, a.token)).code).toBe(200);
    await eventually(
      () => remoteRecord(id),
      (doc) => doc?.amount === 2000,
    );
    await eventually(
      () => laptopRecord(id),
      (r) => r?.amount === 20,
    );
    const status = await eventually(
      () => home.api('sync.status', {}, a.token),
      (s) => s.data.collections.every((c: { state: string; pending: number }) => c.state === 'idle' && c.pending === 0),
    );
    expect(status.data.collections.find((c: { collection: string }) => c.collection === 'records').lastError).toBeNull();
  }, 60_000);
});

describe('conflicts a person understands', () => {
  it('merges changes of different fields: the description from home and the amount from the laptop both survive', async () => {
    const id = await sharedRecord('merge me', 10);
    const before = (await laptop.api('sync.conflicts', { pageSize: 100 }, b.token)).data.total as number;
    await stopBoth();
    await home.api('accounting.update', { id, description: 'described at home' }, a.token);
    await pause();
    await laptop.api('accounting.update', { id, amount: 33 }, b.token);
    await startHome();
    await startLaptop();
    await eventually(
      () => homeRecord(id),
      (r) => r?.amount === 33 && r?.description === 'described at home',
    );
    expect(await laptopRecord(id)).toMatchObject({ amount: 33, description: 'described at home' });
    expect(await remoteRecord(id)).toMatchObject({ amount: 3300, description: 'described at home', searchText: 'described at home' });
    // nothing anybody wrote was overwritten: no conflict entry
    expect((await laptop.api('sync.conflicts', { pageSize: 100 }, b.token)).data.total).toBe(before);
  }, 60_000);

  it('the same field changed on both: the later edit wins, the overwritten value is logged and can be kept instead', async () => {
    const id = await sharedRecord('both edit', 10);
    await stopBoth();
    await home.api('accounting.update', { id, description: 'home, earlier', amount: 11 }, a.token);
    await pause();
    await laptop.api('accounting.update', { id, description: 'laptop, later' }, b.token);
    await startHome();
    await startLaptop();
    await eventually(
      () => homeRecord(id),
      (r) => r?.description === 'laptop, later' && r?.amount === 11,
    );
    const log = await laptop.api('sync.conflicts', { page: 1, pageSize: 5 }, b.token);
    const entry = log.data.list.find((c: { documentId: string }) => c.documentId === id);
    expect(entry).toMatchObject({ collection: 'records', kind: 'fields', lost: 'other-device', status: 'open' });
    expect(entry.fields).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'description', lost: 'home, earlier', kept: 'laptop, later' })]));
    expect(entry.fields.map((f: { field: string }) => f.field)).not.toContain('amount'); // merged, not lost
    expect(entry.summary).toContain('home, earlier');

    const kept = await laptop.api('sync.keepOtherVersion', { conflictId: entry.id }, b.token);
    expect(kept.code).toBe(200);
    expect(kept.data.status).toBe('kept-other');
    await eventually(
      () => homeRecord(id),
      (r) => r?.description === 'home, earlier',
    );
    expect(await laptopRecord(id)).toMatchObject({ description: 'home, earlier', amount: 11 });
    expectRefusal(await laptop.api('sync.keepOtherVersion', { conflictId: entry.id }, b.token), syncErrors.rows.conflictClosed);
    expectRefusal(await laptop.api('sync.dismissConflict', { conflictId: 'nope' }, b.token), syncErrors.rows.conflictNotFound);
  }, 60_000);
});
