import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildServer } from '../test-support/child-server';
import { CouchPeer } from '../test-support/couch-peer/couch-peer';
import { registerUser, startTestServer, tempDataDir, type TestServer } from '../test-support/test-server';
import { balanceOf, closeAfterOutage, configureSync, COUCH_START_TIMEOUT, couchRecord, eventually, FAST, inSync, phoneAccount, type SyncUser as User } from '../test-support/sync';
import { commonErrors } from '../lib/errors';
import { ledgerErrors } from '../ledger/errors';
import { syncErrors } from './errors';
import { expectRefusal } from '../test-support/refusal';

/**
 * The sync against the CouchDB peer of the test suite (server/test-support/couch-peer/couch-peer.ts:
 * PouchDB Server behind a front that answers as CouchDB 3 does for authentication and lockout,
 * `_security` and admin-only new databases; `_bulk_docs` conflicts and delete stubs are the
 * server's own). Going offline is the recording proxy in front of it taking the server off the network.
 */

let couch: CouchPeer;
beforeAll(async () => {
  couch = await CouchPeer.start();
  // A plain user (not a server admin): may not create databases.
  await couch.setUser('reader', 'reader-secret');
  // Gets a wrong password in the configure test: its own account, so the lockout CouchDB applies
  // after repeated failures never touches `admin`. (Accounts here are `_users` users: a server
  // admin added through the config API is refused for a moment after it is added, and every
  // refusal counts towards that lockout.)
  await couch.setUser('configure_tester', 'tester-secret');
  // Signed in once before the test (CouchDB may rewrite a new account's password hash on its first
  // sign-in; the configure test wants the account settled).
  for (const [name, password] of [
    ['reader', 'reader-secret'],
    ['configure_tester', 'tester-secret'],
  ] as const) {
    const session = await fetch(`${couch.url}_session`, { headers: { authorization: 'Basic ' + Buffer.from(`${name}:${password}`).toString('base64') } });
    expect(session.status).toBe(200);
  }
}, COUCH_START_TIMEOUT);
afterAll(() => (couch as CouchPeer | undefined)?.close()); // undefined when beforeAll failed

async function configure(t: TestServer, u: User, extra: Record<string, unknown> = {}) {
  return configureSync(t, couch, u, extra);
}

describe('sync.configure', () => {
  it('answers clear errors for a bad URL, wrong credentials, a user who may not create databases, an unreachable server', async () => {
    const t = await startTestServer({ settings: FAST });
    try {
      const u = await registerUser(t);
      expectRefusal(await t.api('sync.configure', { url: 'ftp://x/', username: 'a', password: 'b' }, u.token), syncErrors.rows.urlNotHttp);
      expect((await t.api('sync.configure', { url: 'http://admin:pw@127.0.0.1/', username: 'a', password: 'b' }, u.token)).message).toMatch(/not in the URL/);
      const wrong = await t.api('sync.configure', { url: couch.url, username: 'configure_tester', password: 'nope' }, u.token);
      expectRefusal(wrong, commonErrors.rows.invalid);
      expect(wrong.message).toBe('CouchDB refused the username or password.');
      expect(JSON.stringify(wrong)).not.toContain('nope');
      const reader = await t.api('sync.configure', { url: couch.url, username: 'reader', password: 'reader-secret', prefix: 'readeronly_' }, u.token);
      expect(reader.status, reader.message).toBe(403);
      expect(reader.message).toMatch(/may not create it.*admin/);
      const down = await t.api('sync.configure', { url: 'http://127.0.0.1:9/', username: 'a', password: 'b' }, u.token);
      expectRefusal(down, commonErrors.rows.badGateway);
      expect(down.message).toMatch(/Cannot reach the CouchDB server/);
      expectRefusal(await t.api('sync.configure', { url: couch.url, username: 'admin', password: 'x', collections: ['users'] }, u.token), syncErrors.rows.notSyncable);
      expect((await t.api('sync.status', {}, u.token)).data).toEqual({ configured: false });
      expectRefusal(await t.api('sync.start', {}, u.token), syncErrors.rows.notConfiguredToStart);
    } finally {
      await t.close();
    }
  });
});

describe('push and pull', () => {
  let t: TestServer;
  let u: User;
  beforeAll(async () => {
    t = await startTestServer({ settings: FAST });
    u = await registerUser(t);
  });
  afterAll(() => t.close());

  it('pushes every synced collection under the owner id, never secrets, and pulls documents written on the server', async () => {
    const cash = (await t.api('asset.create', { name: 'Cash', type: 'cash', balance: 100 }, u.token)).data.id;
    await t.api('accounting.create', { type: 'expense', amount: 5, asset: cash, category: 'Food' }, u.token);
    await t.api('currency.setRate', { from: 'EUR', to: 'USD', rate: '1.1' }, u.token);
    await t.api('category.create', { type: 'expense', name: 'Pets' }, u.token);
    const configured = await configure(t, u, { prefix: 'pp_all_' });
    expect(configured.code).toBe(200);
    expect(configured.data).toMatchObject({ configured: true, password: '********', prefix: 'pp_all_', ownerId: u.id, joined: false });
    expect(JSON.stringify(configured.data)).not.toContain('admin-secret');
    await inSync(t, u);

    const names = configured.data.collections.map((c: { collection: string }) => c.collection) as string[];
    expect(names).toEqual(expect.arrayContaining(['assets', 'records', 'categories', 'rates']));
    expect(names).not.toContain('users');
    for (const name of ['assets', 'records', 'categories', 'rates']) {
      const remote = await couch.client(`pp_all_${name}`).allDocs({ include_docs: true });
      expect(remote.rows.length, name).toBeGreaterThan(0);
      for (const row of remote.rows) {
        expect(row.doc.userId).toBe(u.id);
        expect(JSON.stringify(row.doc)).not.toMatch(/passwordHash|_meta/);
      }
    }
    const dbs = await couch.databases();
    expect(dbs).toEqual(expect.arrayContaining(['pp_all_meta', 'pp_all_records']));
    // (`_users` and `_replicator` are CouchDB's own system databases.)
    expect(dbs.filter((name) => !name.startsWith('_'))).not.toEqual(expect.arrayContaining([expect.stringMatching(/users|push|session/)]));

    // A copy of each pushed document, written on the server, arrives locally.
    for (const name of names) {
      const remoteDb = couch.client(`pp_all_${name}`);
      const { rows } = await remoteDb.allDocs({ include_docs: true });
      if (rows.length === 0) continue;
      const { _id, _rev, ...fields } = rows[0].doc;
      const copyId = `${_id}-copy`.slice(0, 40);
      await remoteDb.put({ ...fields, _id: copyId, ...('updatedAt' in fields ? { updatedAt: Date.now() } : {}) });
      await eventually(
        async () => (await t.server.app.db.collection(name).findOne(copyId).exec())?.toJSON() as { userId?: string } | undefined,
        (doc) => doc?.userId === u.id,
      );
    }
    expect((await t.api('asset.checkBalances', {}, u.token)).data.ok).toBe(true);
  });

  it('a phone (plain PouchDB client) writes and deletes records on the server: balances follow', async () => {
    const cash = (await t.api('asset.query', {}, u.token)).data.list[0].id as string;
    const before = await balanceOf(t, u, cash);
    // The phone signs in as a plain CouchDB user, a member of the ledger's databases only.
    const phone = couch.client('pp_all_records', await phoneAccount(couch, 'pp_all_', ['meta', 'assets', 'records']));
    const now = Date.now();
    const doc = {
      _id: `phone-${now}`,
      userId: u.id,
      type: 'expense',
      amount: 1234,
      asset: cash,
      toAsset: '',
      toAmount: 0,
      fee: 0,
      category: 'Food',
      description: 'from the phone',
      searchText: 'from the phone',
      date: now,
      tags: ['mobile'],
      attachments: [],
      importKey: '',
      createdAt: now,
      updatedAt: now,
    };
    const put = await phone.put(doc);
    await eventually(
      () => balanceOf(t, u, cash),
      (b) => b === before - 12.34,
    );
    const list = await t.api('accounting.query', { tag: 'mobile' }, u.token);
    expect(list.data.list[0]).toMatchObject({ id: doc._id, amount: 12.34, description: 'from the phone' });
    // The server-side delete arrives as a stub {_id, _rev, _deleted} (rxdb issue 7444): it must still delete.
    await phone.remove(doc._id, put.rev);
    await eventually(
      () => balanceOf(t, u, cash),
      (b) => b === before,
    );
    expectRefusal(await t.api('accounting.get', { id: doc._id }, u.token), ledgerErrors.rows.recordNotFound);
    expect((await t.api('asset.checkBalances', {}, u.token)).data.ok).toBe(true);
  });

  it('ignores and reports documents of a foreign or missing owner and documents that break the schema', async () => {
    const phone = couch.client('pp_all_records');
    const now = Date.now();
    const base = { amount: 100, asset: 'x' };
    await phone.put(couchRecord('somebody-else', `foreign-${now}`, base));
    const { userId: _noOwner, ...ownerless } = couchRecord('', `ownerless-${now}`, base);
    await phone.put(ownerless);
    await phone.put(couchRecord(u.id, `broken-${now}`, { ...base, amount: 'a lot' }));
    const status = await eventually(
      () => t.api('sync.status', {}, u.token),
      (s) => (s.data.collections.find((c: { collection: string }) => c.collection === 'records')?.ignoredCount ?? 0) >= 3,
    );
    const records = status.data.collections.find((c: { collection: string }) => c.collection === 'records');
    const reasons = records.ignored.map((i: { id: string; reason: string }) => `${i.id}: ${i.reason}`).join('\n');
    expect(reasons).toMatch(new RegExp(`foreign-${now}: the document belongs to another ledger owner`));
    expect(reasons).toMatch(new RegExp(`ownerless-${now}: the document has no owner`));
    expect(reasons).toMatch(new RegExp(`broken-${now}: it does not match the records schema`));
    const local = t.server.app.db.collection('records');
    for (const id of [`foreign-${now}`, `ownerless-${now}`, `broken-${now}`]) expect(await local.findOne(id).exec()).toBeNull();
    expect(records.state).not.toBe('error');
  });
});

describe('two PennyPost instances of the same person', () => {
  it('join the same remote ledger and converge, with edits and deletes on either side and last-write-wins conflicts', async () => {
    // The second instance runs in its own process, as it would on another computer.
    const home = await startTestServer({ settings: FAST });
    const laptop = await startChildServer(tempDataDir('laptop'), { sync: { retrySeconds: 0.2, requestTimeoutMs: 3000 } });
    try {
      const a = await registerUser(home);
      const b = (await laptop.api('user.register', { username: 'laptop_user', email: 'laptop@example.com', password: 'a long password' })).data;
      const cash = (await home.api('asset.create', { name: 'Cash', type: 'cash', balance: 200 }, a.token)).data.id as string;
      const rec = (await home.api('accounting.create', { type: 'expense', amount: 20, asset: cash, category: 'Food', description: 'home' }, a.token)).data;
      expect((await configure(home, a, { prefix: 'pp_two_' })).data.ownerId).toBe(a.id);
      await inSync(home, a);
      const joined = await laptop.api('sync.configure', { url: couch.url, username: 'admin', password: 'admin-secret', prefix: 'pp_two_' }, b.token);
      expect(joined.data).toMatchObject({ ownerId: a.id, joined: true });
      const laptopBalance = async () => (await laptop.api('asset.detail', { id: cash }, b.token)).data?.balance;
      // the laptop's account now holds the ledger: same asset, same balance
      await eventually(laptopBalance, (v) => v === 180);

      // a record made on the laptop reaches home; an edit on the laptop reaches home; a delete at home reaches the laptop
      const laptopRec = await laptop.api('accounting.create', { type: 'income', amount: 50, asset: cash, category: 'Salary', description: 'laptop' }, b.token);
      expect(laptopRec.code).toBe(200);
      await eventually(
        () => balanceOf(home, a, cash),
        (v) => v === 230,
      );
      await laptop.api('accounting.update', { id: rec.id, amount: 25, description: 'edited on laptop' }, b.token);
      await eventually(
        () => home.api('accounting.get', { id: rec.id }, a.token),
        (r) => r.data?.description === 'edited on laptop',
      );
      await home.api('accounting.delete', { id: laptopRec.data.id }, a.token);
      await eventually(
        async () => (await laptop.api('accounting.get', { id: laptopRec.data.id }, b.token)).code,
        (code) => code === ledgerErrors.rows.recordNotFound.code,
      );
      await eventually(laptopBalance, (v) => v === 175);
      expect(await balanceOf(home, a, cash)).toBe(175);

      // a conflict: both edit the same record while the laptop is not syncing; the later edit wins on both
      await laptop.api('sync.stop', {}, b.token);
      await home.api('accounting.update', { id: rec.id, description: 'home, earlier' }, a.token);
      await inSync(home, a);
      await new Promise((r) => setTimeout(r, 5));
      await laptop.api('accounting.update', { id: rec.id, description: 'laptop, later' }, b.token);
      await laptop.api('sync.start', {}, b.token);
      await eventually(
        () => home.api('accounting.get', { id: rec.id }, a.token),
        (r) => r.data?.description === 'laptop, later',
      );
      await eventually(
        () => laptop.api('accounting.get', { id: rec.id }, b.token),
        (r) => r.data?.description === 'laptop, later',
      );
      expect((await laptop.api('asset.checkBalances', {}, b.token)).data.ok).toBe(true);
      expect((await home.api('asset.checkBalances', {}, a.token)).data.ok).toBe(true);
      // the laptop's own account id never reached the server: documents go up under the owner id
      const remote = await couch.client('pp_two_records').allDocs({ include_docs: true });
      expect(remote.rows.every((row: { doc: { userId: string } }) => row.doc.userId === a.id)).toBe(true);
    } finally {
      await home.close();
      expect(await laptop.stop()).toBe(0);
    }
  }, 90_000);
});

describe('offline and errors', () => {
  it('keeps working offline, shows paused, and resumes by itself without duplicates', async () => {
    const t = await startTestServer({ settings: FAST });
    try {
      const u = await registerUser(t);
      const cash = (await t.api('asset.create', { name: 'Cash', type: 'cash', balance: 100 }, u.token)).data.id;
      await configure(t, u, { prefix: 'pp_offline_', collections: ['assets', 'records'] });
      await inSync(t, u);
      await couch.stop();
      for (let i = 0; i < 3; i++) expect((await t.api('accounting.create', { type: 'expense', amount: 1, asset: cash, category: 'Food' }, u.token)).code).toBe(200);
      const paused = await eventually(
        () => t.api('sync.status', {}, u.token),
        (s) => s.data.collections.some((c: { state: string }) => c.state === 'paused'),
      );
      const records = paused.data.collections.find((c: { collection: string }) => c.collection === 'records');
      expect(records.pending).toBe(3);
      await couch.start();
      await eventually(
        async () => (await couch.client('pp_offline_records').allDocs()).rows.length,
        (n) => n === 3,
        15_000,
      );
      await eventually(
        () => t.api('sync.status', {}, u.token),
        (s) => s.data.collections.every((c: { state: string; pending: number }) => c.state !== 'paused' && c.pending === 0),
        15_000,
      );
      // a re-sync exchanges everything again and creates no duplicates
      await t.api('sync.resync', {}, u.token);
      await inSync(t, u);
      expect((await couch.client('pp_offline_records').allDocs()).rows).toHaveLength(3);
      expect((await t.api('accounting.query', {}, u.token)).data.total).toBe(3);
    } finally {
      await closeAfterOutage(t, couch);
    }
  }, 60_000);

  it('stops with a clear error, and no retry storm, when the credentials stop working', async () => {
    const t = await startTestServer({ settings: FAST });
    // A plain user, a member of the ledger's databases (made by the admin): may sync, not create.
    await couch.setUser('temp', 'temp-secret', { members: ['pp_creds_meta', 'pp_creds_assets'] });
    try {
      const u = await registerUser(t);
      await t.api('asset.create', { name: 'Cash', type: 'cash' }, u.token);
      const configured = await t.api('sync.configure', { url: couch.url, username: 'temp', password: 'temp-secret', prefix: 'pp_creds_', collections: ['assets'] }, u.token);
      expect(configured.code, configured.message).toBe(200);
      await inSync(t, u);
      await couch.setUser('temp', 'changed');
      await t.api('asset.create', { name: 'Second', type: 'cash' }, u.token);
      const failed = await eventually(
        () => t.api('sync.status', {}, u.token),
        (s) => s.data.collections[0].state === 'error',
      );
      expect(failed.data.collections[0].lastError).toMatch(/^CouchDB refused the (username or password\.|password for user temp\b)/);
      const before = couch.requests.length;
      // fixed-wait-ok: seven retry periods (0.2 s) pass: that no retry storm comes in them is what is tested
      await new Promise((r) => setTimeout(r, 1500));
      expect(couch.requests.length - before).toBeLessThanOrEqual(1);
    } finally {
      await t.close();
    }
  }, 30_000);

  it('does not loop when a delete is pushed for a document already deleted on the server without a checkpoint', async () => {
    const t = await startTestServer({ settings: FAST });
    try {
      const u = await registerUser(t);
      const cash = (await t.api('asset.create', { name: 'Cash', type: 'cash', balance: 10 }, u.token)).data.id;
      const rec = (await t.api('accounting.create', { type: 'expense', amount: 1, asset: cash }, u.token)).data;
      await configure(t, u, { prefix: 'pp_nullloop_', collections: ['assets', 'records'] });
      await inSync(t, u);
      await t.api('sync.stop', {}, u.token);
      // deleted on both sides while disconnected; the re-sync starts without a checkpoint
      const remote = couch.client('pp_nullloop_records');
      const remoteDoc = await remote.get(rec.id);
      await remote.remove(remoteDoc);
      await t.api('accounting.delete', { id: rec.id }, u.token);
      await t.api('sync.resync', {}, u.token);
      await inSync(t, u);
      const status = await eventually(
        () => t.api('sync.status', {}, u.token),
        (s) => s.data.collections.every((c: { state: string }) => c.state === 'idle'),
      );
      expect(status.data.collections.map((c: { lastError: string | null }) => c.lastError)).toEqual([null, null]);
      const before = couch.requests.length;
      // fixed-wait-ok: five retry periods pass: that no push loop runs in them is what is tested
      await new Promise((r) => setTimeout(r, 1000));
      expect(couch.requests.length - before).toBeLessThan(10); // no push loop
      expect((await t.api('asset.detail', { id: cash }, u.token)).data.balance).toBe(10);
    } finally {
      await t.close();
    }
  }, 30_000);

  it('survives a restart: sync resumes with the stored (encrypted) credentials', async () => {
    const first = await startTestServer({ settings: FAST });
    const dataDir = first.dataDir;
    const u = await registerUser(first);
    const cash = (await first.api('asset.create', { name: 'Cash', type: 'cash', balance: 10 }, u.token)).data.id;
    await configure(first, u, { prefix: 'pp_restart_', collections: ['assets', 'records'] });
    await inSync(first, u);
    await first.close(true);
    const { readdirSync, readFileSync } = await import('node:fs');
    const files = readdirSync(`${dataDir}/db`).map((f) => readFileSync(`${dataDir}/db/${f}`));
    expect(files.some((content) => content.includes(Buffer.from('admin-secret')))).toBe(false);
    const second = await startTestServer({ dataDir, settings: FAST });
    try {
      await second.api('accounting.create', { type: 'expense', amount: 2, asset: cash }, u.token);
      await eventually(
        async () => (await couch.client('pp_restart_records').allDocs()).rows.length,
        (n) => n === 1,
      );
    } finally {
      await second.close();
    }
  }, 30_000);
});
