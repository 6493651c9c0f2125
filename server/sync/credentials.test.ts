import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listenFake, sendJson, type FakeServer } from '../test-support/fakes/listen';
import { COUCH_ADMIN, CouchPeer } from '../test-support/couch-peer/couch-peer';
import { registerUser, startTestServer } from '../test-support/test-server';
import { allDomains } from '../domains';
import { COUCH_START_TIMEOUT, FAST } from '../test-support/sync';
import { commonErrors } from '../lib/errors';
import { expectRefusal } from '../test-support/refusal';

/**
 * The CouchDB password stays with the server and user it was entered for: sync.configure never
 * reuses the stored password, so a new address needs it entered again. `couch` is the CouchDB
 * peer of the test suite (server/test-support/couch-peer/couch-peer.ts); `second` is another address
 * with another user and password (the same peer reached directly, not through its proxy: a different
 * server as far as the stored password is concerned; its user is a member of the ledger's databases). `attacker` is a real listener that answers
 * like CouchDB's welcome and records every request (a server that is not CouchDB at all, so no
 * CouchDB can play it).
 */

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let couch: CouchPeer;
let second: { url: string; username: string; password: string };
let attacker: FakeServer;
const seen: Seen[] = [];

beforeAll(async () => {
  couch = await CouchPeer.start();
  await couch.setUser('reader', 'reader-secret');
  // A plain user, a member of the ledger's databases (made by the admin): CouchDB accepts a
  // `_users` user at once (a server admin added through the config API is refused for a moment).
  second = { url: couch.directUrl, username: 'second_user', password: 'second-secret' };
  const synced = allDomains()
    .flatMap((domain) => domain.collections ?? [])
    .filter((def) => def.sync)
    .map((def) => def.name);
  await couch.setUser(second.username, second.password, { members: ['meta', ...synced].map((name) => `cred_${name}`) });
  attacker = await listenFake((req, res, body) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    if ((req.url ?? '/') === '/') {
      sendJson(res, { couchdb: 'Welcome', version: '3.3.3' });
      return;
    }
    sendJson(res, { error: 'unauthorized', reason: 'Name or password is incorrect.' }, 401);
  });
}, COUCH_START_TIMEOUT);
afterAll(async () => {
  // Undefined when beforeAll failed.
  await (couch as CouchPeer | undefined)?.close();
  await (attacker as FakeServer | undefined)?.close();
});

/** Every password the attacker was given in a Basic header (and whether a secret shows anywhere else). */
function basicPasswords(): string[] {
  return seen
    .map((r) => r.headers.authorization ?? '')
    .filter((h) => h.startsWith('Basic '))
    .map((h) => Buffer.from(h.slice(6), 'base64').toString('utf8').split(/:(.*)/s)[1] ?? '');
}
const attackerSaw = (secret: string) =>
  basicPasswords().includes(secret) || seen.some((r) => JSON.stringify(r).includes(secret) || JSON.stringify(r).includes(Buffer.from(`admin:${secret}`).toString('base64')));

it('a stored CouchDB password cannot be sent to a new address', async () => {
  const t = await startTestServer({ settings: FAST });
  try {
    const u = await registerUser(t);
    const configured = await t.api('sync.configure', { url: couch.url, ...COUCH_ADMIN, prefix: 'cred_', live: false }, u.token);
    expect(configured.code).toBe(200);
    expect(configured.data.password).toBe('********');

    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      // Left out: the password is always required.
      [{ url: attacker.url, username: 'admin' }, /^params\.password is required$/],
      [{ url: attacker.url, username: 'admin', password: '' }, /params\.password/],
      // The placeholder sync.status shows, to another server, another path, another user, or the same place.
      [{ url: attacker.url, username: 'admin', password: '********' }, /^Enter the password again: it is kept only for the address it was entered for/],
      [{ url: `${couch.url}elsewhere/`, username: 'admin', password: '********' }, /^Enter the password again: it is kept only for the address it was entered for/],
      [{ url: couch.url, username: 'reader', password: '********' }, /^Enter the password again: it is kept only for the address it was entered for/],
      [{ url: couch.url, username: 'admin', password: '********' }, /^Enter the password again: "\*{8}" is what sync\.status shows in its place/],
    ];
    for (const [params, message] of refusals) {
      const answer = await t.api('sync.configure', params, u.token);
      expect(answer.status, JSON.stringify(params)).toBe(400);
      expect(answer.message).toMatch(message);
      expect((answer.data as { field?: string } | null)?.field).toBe('params.password');
    }
    expect(seen).toEqual([]);

    // The stored configuration is untouched, and using it goes to its own server only.
    const status = await t.api('sync.status', {}, u.token);
    expect(status.data).toMatchObject({ configured: true, url: couch.url, username: 'admin', prefix: 'cred_' });
    expect((await t.api('sync.start', {}, u.token)).code).toBe(200);
    expect((await t.api('sync.resync', {}, u.token)).code).toBe(200);
    await t.server.app.services.sync.awaitInSync(u.id);
    expect(seen).toEqual([]);

    // A password typed for the new address goes there, and only that one.
    const typed = await t.api('sync.configure', { url: attacker.url, username: 'admin', password: 'typed-for-this-server' }, u.token);
    expectRefusal(typed, commonErrors.rows.invalid);
    expect(typed.message).toBe('CouchDB refused the username or password.');
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(basicPasswords())).toEqual(new Set(['typed-for-this-server']));
    expect(attackerSaw('admin-secret')).toBe(false);
    // A failed configure keeps the previous server.
    expect((await t.api('sync.status', {}, u.token)).data.url).toBe(couch.url);

    // Entered again with a new server: accepted.
    const moved = await t.api('sync.configure', { url: second.url, username: second.username, password: second.password, prefix: 'cred_', live: false }, u.token);
    expect(moved.code).toBe(200);
    expect(moved.data).toMatchObject({ url: second.url, username: second.username, password: '********' });
    expect(attackerSaw('admin-secret')).toBe(false);
    expect(attackerSaw('second-secret')).toBe(false);
    await t.api('sync.remove', {}, u.token);
  } finally {
    await t.close();
  }
});
