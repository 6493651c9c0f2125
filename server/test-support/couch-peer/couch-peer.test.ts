import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUCH_ADMIN, CouchPeer } from './couch-peer';
import { ADMIN_ONLY_SECURITY, authorizePath, checkMember, Lockout, LOCKOUT_REASON } from './couchdb3-behaviour';

/**
 * The CouchDB peer of the test suite: PouchDB Server behind a front that answers as Apache CouchDB 3
 * where PennyPost (and a phone) rely on it. Each answer below is CouchDB 3.4's, as its own server
 * gives it (status, `error`, `reason`); docs/sync.md › "The CouchDB peer of the tests" lists them.
 */

const basic = (user: string, password: string) => ({ authorization: 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64') });
const ADMIN = basic(COUCH_ADMIN.username, COUCH_ADMIN.password);
const JSON_TYPE = { 'content-type': 'application/json' };

describe('the CouchDB peer of the test suite', () => {
  let couch: CouchPeer;
  /** One request to the peer: status and JSON body. */
  const call = async (path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) => {
    const res = await fetch(new URL(path, couch.url), {
      method: init.method ?? 'GET',
      headers: { ...JSON_TYPE, ...(init.headers ?? {}) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const body: any = await res.json();
    return { status: res.status, body };
  };

  beforeAll(async () => {
    couch = await CouchPeer.start({ lockoutMs: 1500 });
  }, 30_000);
  afterAll(() => (couch as CouchPeer | undefined)?.close()); // unset when beforeAll failed

  it('is PouchDB Server, answers through the recording proxy, and goes away and back with its data', async () => {
    const welcome = await (await fetch(couch.url)).json();
    expect(welcome).toMatchObject({ 'express-pouchdb': 'Welcome!' });
    const db = couch.client('smoke');
    await couch.local('smoke').info(); // created by the admin, not through the proxy
    expect(couch.requests.some((r) => r.startsWith('PUT /smoke'))).toBe(false);
    await db.put({ _id: 'a', n: 1 });
    expect(couch.requests.some((r) => r.startsWith('PUT /smoke/a'))).toBe(true);
    await couch.stop();
    await expect(fetch(couch.url)).rejects.toThrow();
    await couch.start();
    expect((await couch.client('smoke').get('a')).n).toBe(1);
  });

  it('makes a new database admin-only, as CouchDB 3 does (default_security = admin_only)', async () => {
    expect(await call('fresh', { method: 'PUT', headers: ADMIN })).toEqual({ status: 201, body: { ok: true } });
    expect((await call('fresh/_security', { headers: ADMIN })).body).toEqual(ADMIN_ONLY_SECURITY);
    await couch.setUser('stranger', 'stranger-secret');
    expect(await call('fresh', { headers: basic('stranger', 'stranger-secret') })).toEqual({
      status: 403,
      body: { error: 'forbidden', reason: 'You are not allowed to access this db.' },
    });
    expect(await call('fresh/_all_docs')).toEqual({ status: 401, body: { error: 'unauthorized', reason: 'You are not authorized to access this db.' } });
    // Writing is refused the same way, and nothing is written.
    expect((await call('fresh/_bulk_docs', { method: 'POST', headers: basic('stranger', 'stranger-secret'), body: { docs: [{ _id: 'x' }] } })).status).toBe(403);
    expect((await couch.local('fresh').info()).doc_count).toBe(0);
  });

  it('lets only server admins create or delete databases; PouchDB Server never sees those requests (it crashed on them)', async () => {
    await couch.setUser('plain', 'plain-secret');
    const notAdmin = { error: 'unauthorized', reason: 'You are not a server admin.' };
    expect(await call('anon_db', { method: 'PUT' })).toEqual({ status: 401, body: notAdmin });
    expect(await call('plain_db', { method: 'PUT', headers: basic('plain', 'plain-secret') })).toEqual({ status: 401, body: notAdmin });
    expect(await call('fresh', { method: 'DELETE', headers: basic('plain', 'plain-secret') })).toEqual({ status: 401, body: notAdmin });
    expect(await call('_all_dbs', { headers: basic('plain', 'plain-secret') })).toEqual({ status: 401, body: notAdmin });
    expect(await couch.databases()).not.toContain('anon_db');
    expect(await couch.databases()).not.toContain('plain_db');
    // Still up.
    expect((await call('', {})).status).toBe(200);
  });

  it('a plain user reads and writes only the databases it is a member of, never _users; wrong passwords get 401', async () => {
    await couch.setUser('phone', 'phone-secret', { members: ['phone_records'] });
    const phone = couch.client('phone_records', { username: 'phone', password: 'phone-secret' });
    await phone.put({ _id: 'r1', amount: 1 });
    await expect(couch.client('smoke', { username: 'phone', password: 'phone-secret' }).get('a')).rejects.toMatchObject({ status: 403 });
    await expect(couch.client('phone_records', { username: 'phone', password: 'nope' }).get('r1')).rejects.toMatchObject({ status: 401 });
    const asPhone = basic('phone', 'phone-secret');
    expect(await call('_users/_all_docs', { headers: asPhone })).toEqual({ status: 401, body: { error: 'unauthorized', reason: 'You are not a server admin.' } });
    for (const path of ['_users/org.couchdb.user:phone', '_users/org.couchdb.user:stranger', '_users']) {
      expect(await call(path, { headers: asPhone }), path).toEqual({ status: 403, body: { error: 'forbidden', reason: 'You are not allowed to access this db.' } });
    }
    expect(await call('_node/_local/_config', { headers: asPhone })).toEqual({ status: 401, body: { error: 'unauthorized', reason: 'You are not a server admin.' } });
  });

  it('answers per-document conflicts inside a 201 from _bulk_docs', async () => {
    await couch.local('bulk').info();
    const first = await call('bulk/_bulk_docs', { method: 'POST', headers: ADMIN, body: { docs: [{ _id: 'a', x: 1 }] } });
    expect(first.status).toBe(201);
    const again = await call('bulk/_bulk_docs', {
      method: 'POST',
      headers: ADMIN,
      body: {
        docs: [
          { _id: 'a', x: 2 },
          { _id: 'b', x: 1 },
        ],
      },
    });
    expect(again.status).toBe(201);
    expect(again.body[0]).toMatchObject({ id: 'a', error: 'conflict' });
    expect(again.body[1]).toMatchObject({ id: 'b', ok: true });
  });

  it('sends a bare delete down the changes feed as a stub {_id, _rev, _deleted}, and a delete with fields with its fields', async () => {
    const db = couch.local('tombstones');
    const bare = await db.put({ _id: 'bare', amount: 5 });
    await db.remove('bare', bare.rev);
    const timed = await db.put({ _id: 'timed', amount: 5 });
    await db.put({ _id: 'timed', _rev: timed.rev, amount: 5, updatedAt: 42, _deleted: true });
    const feed = await call('tombstones/_changes?include_docs=true&style=all_docs', { headers: ADMIN });
    const docs = Object.fromEntries(feed.body.results.map((r: { id: string; doc: unknown }) => [r.id, r.doc]));
    expect(Object.keys(docs.bare).sort()).toEqual(['_deleted', '_id', '_rev']);
    expect(docs.timed).toMatchObject({ _deleted: true, amount: 5, updatedAt: 42 });
  });

  it('answers _bulk_get for a deleted revision with its tombstone and for a missing one with not_found, as CouchDB does', async () => {
    const db = couch.local('bulkget');
    const put = await db.put({ _id: 'gone', amount: 5 });
    const deleted = await db.put({ _id: 'gone', _rev: put.rev, amount: 5, updatedAt: 42, _deleted: true });
    await db.put({ _id: 'alive', amount: 7 });
    const asked = [{ id: 'gone', rev: deleted.rev }, { id: 'gone' }, { id: 'never' }, { id: 'alive' }, { id: 'alive' }];
    const answer = await call('bulkget/_bulk_get?revs=true', { method: 'POST', headers: ADMIN, body: { docs: asked } });
    expect(answer.status).toBe(200);
    // One result per requested document, in order (PouchDB Server mixes them up when an id is asked twice).
    expect(answer.body.results.map((r: { id: string }) => r.id)).toEqual(asked.map((a) => a.id));
    const [byRev, winner, missing, alive, aliveAgain] = answer.body.results;
    expect(alive.docs[0].ok).toMatchObject({ _id: 'alive', amount: 7 });
    expect(aliveAgain).toEqual(alive);
    expect(byRev.docs[0].ok).toMatchObject({ _id: 'gone', _rev: deleted.rev, _deleted: true, amount: 5, updatedAt: 42 });
    expect(byRev.docs[0].ok._revisions.start).toBe(2);
    expect(winner.docs[0].ok).toMatchObject({ _id: 'gone', _rev: deleted.rev, _deleted: true });
    expect(missing.docs[0]).toEqual({ error: { id: 'never', rev: 'undefined', error: 'not_found', reason: 'missing' } });
  });

  it('locks a user out after 5 failed sign-ins from one address — the right password too — until the lockout ends or the password changes', async () => {
    await couch.setUser('locked', 'right');
    const locked = { status: 403, body: { error: 'forbidden', reason: LOCKOUT_REASON } };
    const wrong = { status: 401, body: { error: 'unauthorized', reason: 'Name or password is incorrect.' } };
    for (let i = 0; i < 5; i++) expect(await call('_session', { headers: basic('locked', 'wrong') })).toEqual(wrong);
    expect(await call('_session', { headers: basic('locked', 'wrong') })).toEqual(locked);
    expect(await call('_session', { headers: basic('locked', 'right') })).toEqual(locked);
    // A sign-in form is locked the same way.
    expect(await call('_session', { method: 'POST', body: { name: 'locked', password: 'right' } })).toEqual(locked);
    // Other users are not affected; a user that does not exist is never counted.
    for (let i = 0; i < 7; i++) expect((await call('_session', { headers: basic('nobody', 'x') })).status).toBe(401);
    expect((await call('_session', { headers: ADMIN })).body.userCtx).toEqual({ name: 'admin', roles: ['_admin'] });
    // A new password (a new salt) starts a new count.
    await couch.setUser('locked', 'changed');
    expect((await call('_session', { headers: basic('locked', 'changed') })).body.userCtx.name).toBe('locked');
    // The lockout ends by itself (this peer: 1.5 s; CouchDB's default: 5 minutes).
    for (let i = 0; i < 5; i++) await call('_session', { headers: basic('locked', 'wrong') });
    expect(await call('_session', { headers: basic('locked', 'changed') })).toEqual(locked);
    // Tries with the right password while locked are not counted: polling does not extend it.
    await expect.poll(async () => (await call('_session', { headers: basic('locked', 'changed') })).status, { timeout: 10_000, interval: 50 }).toBe(200);
    // Failed sign-in forms count too.
    for (let i = 0; i < 5; i++) expect((await call('_session', { method: 'POST', body: { name: 'locked', password: 'wrong' } })).status).toBe(401);
    expect(await call('_session', { headers: basic('locked', 'changed') })).toEqual(locked);
  });
});

describe("CouchDB 3's behaviour as the peer applies it", () => {
  const user = { name: 'u', roles: [] };
  const admin = { name: 'a', roles: ['_admin'] };
  it('paths', () => {
    expect(authorizePath('GET', [], { name: null, roles: [] })).toEqual({ kind: 'pass' });
    expect(authorizePath('PUT', ['db'], user).kind).toBe('refuse');
    expect(authorizePath('PUT', ['db'], admin)).toEqual({ kind: 'pass' });
    expect(authorizePath('GET', ['db', 'doc'], user)).toEqual({ kind: 'member', db: 'db' });
    expect(authorizePath('GET', ['_users', 'org.couchdb.user:u'], user)).toEqual({ kind: 'member', db: '_users' });
    expect(authorizePath('GET', ['_users', '_changes'], user).kind).toBe('refuse');
    expect(authorizePath('GET', ['_session'], { name: null, roles: [] })).toEqual({ kind: 'pass' });
    expect(authorizePath('POST', ['_replicate'], { name: null, roles: [] }).kind).toBe('refuse');
    expect(authorizePath('POST', ['db', '_compact'], user).kind).toBe('refuse');
  });
  it('membership', () => {
    expect(checkMember(user, {})).toBeNull(); // no members: public
    expect(checkMember(user, { members: { names: ['u'] } })).toBeNull();
    expect(checkMember({ name: 'r', roles: ['phones'] }, { members: { roles: ['phones'] } })).toBeNull();
    expect(checkMember(user, { admins: { names: ['u'] }, members: { names: ['x'] } })).toBeNull();
    expect(checkMember(user, ADMIN_ONLY_SECURITY)?.status).toBe(403);
    expect(checkMember({ name: null, roles: [] }, ADMIN_ONLY_SECURITY)?.status).toBe(401);
  });
  it('lockout counts per address, user and salt, and ends after its lifetime', () => {
    let now = 0;
    const lockout = new Lockout(5, 1000, () => now);
    for (let i = 0; i < 5; i++) lockout.fail('1.2.3.4', 'u', 's1');
    expect(lockout.isLocked('1.2.3.4', 'u', 's1')).toBe(true);
    expect(lockout.isLocked('5.6.7.8', 'u', 's1')).toBe(false);
    expect(lockout.isLocked('1.2.3.4', 'u', 's2')).toBe(false);
    for (let i = 0; i < 5; i++) lockout.fail('1.2.3.4', 'v', 's');
    now = 1001;
    expect(lockout.isLocked('1.2.3.4', 'v', 's')).toBe(false);
  });
});
