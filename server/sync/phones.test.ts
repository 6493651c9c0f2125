import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUCH_ADMIN, CouchPeer } from '../test-support/couch-peer/couch-peer';
import { expectRefusal } from '../test-support/refusal';
import { registerUser, startTestServer, type TestServer } from '../test-support/test-server';
import { configureSync, COUCH_START_TIMEOUT, FAST, inSync, type SyncUser } from '../test-support/sync';
import { syncErrors } from './errors';
import { decodePairing, encodePairing, type Pairing } from './pairing-link';

/**
 * Pairing a phone (docs/phone.md, "Pairing"), against the CouchDB peer: the phone's own user may
 * use this ledger's databases and nothing else, CORS is switched on for the app's origin, the
 * list shows the phone and its last sync, and a revoked phone is refused everywhere.
 */

const PREFIX = 'pp_pair_';
const APP = 'http://127.0.0.1:9/phone/';

let couch: CouchPeer;
let t: TestServer;
let u: SyncUser;

/** A request to CouchDB as the phone would make it from a browser (Basic auth, optional Origin). */
async function asPhone(p: Pairing, path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Basic ${btoa(`${p.user}:${p.pw}`)}`);
  if (!headers.has('content-type') && init.body !== undefined) headers.set('content-type', 'application/json');
  return fetch(`${p.url}${path}`, { ...init, headers });
}

/** A request to CouchDB as its server admin. */
const asAdmin = (path: string, init: RequestInit = {}) =>
  asPhone({ v: 1, url: couch.url, prefix: '', user: COUCH_ADMIN.username, pw: COUCH_ADMIN.password, owner: '', label: '' }, path, init);

beforeAll(async () => {
  couch = await CouchPeer.start();
  t = await startTestServer({ settings: FAST });
  u = await registerUser(t);
  expect((await configureSync(t, couch, u, { prefix: PREFIX })).code).toBe(200);
  await inSync(t, u);
}, COUCH_START_TIMEOUT);
afterAll(async () => {
  await (t as TestServer | undefined)?.close();
  await (couch as CouchPeer | undefined)?.close();
});

describe('pairing a phone', () => {
  let pairing: Pairing;

  it('makes a user of its own that reaches only this ledger, and a link that carries it', async () => {
    const added = await t.api('sync.addPhone', { label: "Anna's phone", appUrl: APP }, u.token);
    expect(added.code).toBe(200);
    pairing = added.data.pairing;
    expect(pairing.user).toMatch(/^pennypost-phone-[0-9a-z]{12}$/);
    expect(pairing.user).not.toBe('admin');
    expect(pairing.pw).toHaveLength(32);
    expect(pairing).toMatchObject({ url: couch.url, prefix: PREFIX, owner: u.id, label: "Anna's phone" });
    expect(added.data.link.startsWith(`${APP}#pair=`)).toBe(true);
    expect(decodePairing(added.data.link)).toEqual(pairing);

    for (const db of ['meta', 'assets', 'records', 'categories', 'rates', 'plans']) {
      expect((await asPhone(pairing, `${PREFIX}${db}/_all_docs`)).status, db).toBe(200);
    }
    expect((await asPhone(pairing, `${PREFIX}meta/ledger-owner`)).status).toBe(200);
    // Not this ledger's databases, not the users, not the server.
    expect((await asPhone(pairing, `${PREFIX}links/_all_docs`)).status).toBe(403);
    expect((await asPhone(pairing, `${PREFIX}push_targets/_all_docs`)).status).toBeGreaterThanOrEqual(403);
    await asAdmin('other_ledger_records', { method: 'PUT' });
    expect((await asPhone(pairing, 'other_ledger_records/_all_docs')).status).toBe(403);
    expect((await asPhone(pairing, '_users/_all_docs')).status).toBeGreaterThanOrEqual(401);
    expect((await asPhone(pairing, `_users/${encodeURIComponent(`org.couchdb.user:${pairing.user}`)}`)).status).toBe(403);
    expect((await asPhone(pairing, '_all_dbs')).status).toBe(401);
    expect((await asPhone(pairing, `${PREFIX}records/_security`, { method: 'PUT', body: '{}' })).status).toBe(401);
  });

  it("switches CouchDB's CORS on for the app's origin: a browser's preflight is answered", async () => {
    const preflight = await fetch(`${couch.url}${PREFIX}records/_changes`, {
      method: 'OPTIONS',
      headers: { origin: 'http://127.0.0.1:9', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:9');
    const other = await fetch(`${couch.url}${PREFIX}records/_changes`, { method: 'OPTIONS', headers: { origin: 'http://evil.example', 'access-control-request-method': 'GET' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    // A second phone from the same origin changes nothing.
    const again = await t.api('sync.addPhone', { label: 'Spare', appUrl: `${APP}?x=1` }, u.token);
    expect(again.data.cors).toBe('already');
  });

  it('lists the phones with the last sync each one reported', async () => {
    const at = Date.UTC(2026, 10, 29, 8, 0);
    expect((await asPhone(pairing, `${PREFIX}meta/device:${pairing.user}`, { method: 'PUT', body: JSON.stringify({ lastSyncAt: at, label: pairing.label }) })).status).toBe(201);
    const listed = await t.api('sync.phones', {}, u.token);
    expect(listed.code).toBe(200);
    expect(listed.data.list.map((p: { label: string }) => p.label)).toEqual(["Anna's phone", 'Spare']);
    expect(listed.data.list[0]).toMatchObject({ username: pairing.user, lastSyncAt: at });
    expect(listed.data.list[1].lastSyncAt).toBeNull();
    expect(JSON.stringify(listed.data)).not.toContain(pairing.pw);
  });

  it('revokes a phone: it is refused everywhere, and leaves the list', async () => {
    const revoked = await t.api('sync.revokePhone', { username: pairing.user }, u.token);
    expect(revoked.data).toEqual({ username: pairing.user, revoked: true });
    expect((await asPhone(pairing, `${PREFIX}records/_all_docs`)).status).toBe(401);
    expect((await asPhone(pairing, `${PREFIX}meta/ledger-owner`)).status).toBe(401);
    // Its name is gone from the members too, so a later user of the same name would not be let in.
    const security = (await (await asAdmin(`${PREFIX}records/_security`)).json()) as { members: { names?: string[] } };
    expect(security.members.names ?? []).not.toContain(pairing.user);
    const listed = await t.api('sync.phones', {}, u.token);
    expect(listed.data.list.map((p: { label: string }) => p.label)).toEqual(['Spare']);
    expectRefusal(await t.api('sync.revokePhone', { username: pairing.user }, u.token), syncErrors.rows.phoneNotFound);
    expectRefusal(await t.api('sync.revokePhone', { username: 'admin' }, u.token), syncErrors.rows.phoneNotFound);
  });

  it('says what the CouchDB admin must do when the configured user is not one', async () => {
    // The same account (only the owner of this PennyPost may reach a CouchDB on this computer), now with a plain CouchDB user.
    await couch.setUser('plain_person', 'plain-secret', { members: ['pp_plain_meta', 'pp_plain_assets', 'pp_plain_records'] });
    const configured = await t.api(
      'sync.configure',
      { url: couch.url, username: 'plain_person', password: 'plain-secret', prefix: 'pp_plain_', collections: ['assets', 'records'] },
      u.token,
    );
    expect(configured.code).toBe(200);
    const refused = await t.api('sync.addPhone', { label: 'x', appUrl: APP }, u.token);
    expectRefusal(refused, syncErrors.rows.phoneNeedsAdmin);
    expect(refused.message).toContain('pp_plain_meta, pp_plain_assets, pp_plain_records');
    expectRefusal(await t.api('sync.addPhone', { label: 'x', appUrl: APP }, (await registerUser(t)).token), syncErrors.rows.notConfigured);
  });
});

describe('the pairing link', () => {
  const pairing: Pairing = {
    v: 1,
    url: 'https://couch.example.net/',
    prefix: 'pennypost_anna_',
    user: 'pennypost-phone-abc',
    pw: 'p'.repeat(32),
    owner: 'owner1',
    label: '安娜的手机',
  };

  it('round-trips through a link, a bare fragment and the bare code, in any script', () => {
    const link = encodePairing('https://pp.example.net/phone/#old', pairing);
    expect(link.startsWith('https://pp.example.net/phone/#pair=')).toBe(true);
    expect(decodePairing(link)).toEqual(pairing);
    expect(decodePairing(link.slice(link.indexOf('#')))).toEqual(pairing);
    expect(decodePairing(`  ${link.slice(link.indexOf('pair=') + 5)}\n`)).toEqual(pairing);
  });

  it("carries the desktop's language and base currency, and drops them when they are not one", () => {
    const withPrefs = encodePairing('https://pp.example.net/phone/', { ...pairing, lang: 'zh-CN', base: 'CNY' });
    expect(decodePairing(withPrefs)).toEqual({ ...pairing, lang: 'zh-CN', base: 'CNY' });
    const odd = encodePairing('https://pp.example.net/phone/', { ...pairing, lang: 'xx' as 'en', base: 'yuan' });
    expect(decodePairing(odd)).toEqual(pairing);
  });

  it('is null, never an exception, for anything else', () => {
    for (const input of ['', 'hello', '#pair=', `#pair=${btoa('{"v":2}')}`, `#pair=${btoa('[1,2]')}`, '#pair=%%%%', `#pair=${'A'.repeat(5000)}`])
      expect(decodePairing(input)).toBeNull();
    const notHttp = encodePairing('https://x/', { ...pairing, url: 'javascript:alert(1)' });
    expect(decodePairing(notHttp)).toBeNull();
  });
});
