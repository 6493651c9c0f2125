import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CouchPeer } from '../test-support/couch-peer/couch-peer';
import { registerUser, startTestServer } from '../test-support/test-server';
import { eventually, inSync } from '../test-support/sync';
import { commonErrors } from '../lib/errors';
import { expectRefusal } from '../test-support/refusal';
import { forwardRequest } from '../test-support/forward-request';

/**
 * One credentials state for all collections of a user (server/sync/link.ts), against the CouchDB
 * peer (whose front locks users out as CouchDB 3 does: 5 failures lock the user out — the right
 * password too — here for 4 s instead of CouchDB's 5 minutes): a password changed on the server
 * costs at most a few refused requests — never enough for the lockout — and every collection
 * stops at once with one clear message; a user that is locked out anyway is told so in words.
 */
const LOCKOUT_MS = 4000;

const FAST = { sync: { retrySeconds: 0.2, requestTimeoutMs: 3000 } } as never;
const COLLECTIONS = ['assets', 'records', 'categories', 'rates', 'goals', 'links'];

let couch: CouchPeer;
/** Status codes of every answer that went through `counter` (in front of the CouchDB's proxy). */
const answers: Array<{ request: string; status: number }> = [];
let counter: Server;
let counterUrl: string;

beforeAll(async () => {
  couch = await CouchPeer.start({ lockoutMs: LOCKOUT_MS });
  const target = new URL(couch.url);
  counter = createServer((req, res) => {
    forwardRequest(req, res, target, { onAnswer: (status) => answers.push({ request: `${String(req.method)} ${String(req.url)}`, status }) });
  });
  await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', resolve));
  counterUrl = `http://127.0.0.1:${(counter.address() as AddressInfo).port}/`;
}, 30_000);

afterAll(async () => {
  // Undefined when beforeAll failed.
  const proxy = counter as Server | undefined;
  proxy?.closeAllConnections();
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  await (couch as CouchPeer | undefined)?.close();
});

/** Waits until CouchDB refuses the password (one refused request; the accepted ones count nothing). */
async function refusedOnce(username: string, password: string, db: string): Promise<void> {
  const authorization = 'Basic ' + Buffer.from(`${username}:${password}`).toString('base64');
  await eventually(
    async () => (await fetch(`${couch.directUrl}${db}`, { headers: { authorization } })).status,
    (status) => status === 401,
    20_000,
  );
}

const refusals = () => answers.filter((a) => a.status === 401 || a.status === 403).length;

it('a password changed on CouchDB stops every collection after at most a few refusals (no lockout); the new password works at once', async () => {
  const prefix = 'pp_pwchange_';
  const name = `alice_${process.pid}`;
  await couch.setUser(name, 'old-secret', { members: [`${prefix}meta`, ...COLLECTIONS.map((c) => `${prefix}${c}`)] });
  const t = await startTestServer({ settings: FAST });
  try {
    const u = await registerUser(t);
    const cash = (await t.api('asset.create', { name: 'Cash', type: 'cash', balance: 100 }, u.token)).data.id;
    const configured = await t.api('sync.configure', { url: counterUrl, username: name, password: 'old-secret', prefix, collections: COLLECTIONS }, u.token);
    expect(configured.code, configured.message).toBe(200);
    await inSync(t, u);
    expect(refusals()).toBe(0);

    await couch.setUser(name, 'new-secret');
    // CouchDB's auth cache takes a few seconds to see the change; until then the old password still
    // works. Wait for it with the old password directly (not through the counter): this adds one
    // failure to CouchDB's count, the sync's must stay below the lockout together with it.
    await refusedOnce(name, 'old-secret', `${prefix}assets`);
    const before = answers.length;
    // Writes in several collections at once: each one pushes.
    await Promise.all([
      t.api('asset.create', { name: 'Second', type: 'cash' }, u.token),
      t.api('accounting.create', { type: 'expense', amount: 5, asset: cash, category: 'Food' }, u.token),
      t.api('category.create', { type: 'expense', name: 'Pets' }, u.token),
      t.api('currency.setRate', { from: 'EUR', to: 'USD', rate: '1.1' }, u.token),
    ]);
    const message = `CouchDB refused the password for user ${name} — enter the new one in Settings → Sync.`;
    const stopped = await eventually(
      () => t.api('sync.status', {}, u.token),
      (s) => s.data.collections.every((c: { state: string }) => c.state === 'error'),
    );
    for (const c of stopped.data.collections) expect(c.lastError, c.collection).toBe(message);
    // fixed-wait-ok: ten retry periods (0.2 s) pass: how few requests go meanwhile is what is tested
    await new Promise((r) => setTimeout(r, 2000));
    const refused = answers.slice(before).filter((a) => a.status === 401 || a.status === 403);
    expect(
      refused.every((a) => a.status === 401),
      JSON.stringify(refused),
    ).toBe(true);
    expect(refused.length, JSON.stringify(refused)).toBeGreaterThanOrEqual(1);
    expect(refused.length, JSON.stringify(refused)).toBeLessThanOrEqual(3); // CouchDB locks after 5 (one is the wait above)
    const quiet = answers.length;
    // fixed-wait-ok: five retry periods of silence are what is tested
    await new Promise((r) => setTimeout(r, 1000));
    expect(answers.length - quiet).toBe(0); // nothing is sent any more

    // The new password works at once (no "Account is temporarily locked"), and everything goes up.
    const again = await t.api('sync.configure', { url: counterUrl, username: name, password: 'new-secret', prefix, collections: COLLECTIONS }, u.token);
    expect(again.code, again.message).toBe(200);
    await inSync(t, u);
    const running = await eventually(
      () => t.api('sync.status', {}, u.token),
      (s) => s.data.collections.every((c: { state: string; pending: number }) => c.state === 'idle' && c.pending === 0),
    );
    expect(running.data.collections.map((c: { lastError: string | null }) => c.lastError)).toEqual(COLLECTIONS.map(() => null));
    const remoteAssets = await couch.local(`${prefix}assets`).allDocs();
    expect(remoteAssets.rows).toHaveLength(2);
  } finally {
    await t.close();
  }
}, 60_000);

it('sync.start with a password changed while the server was stopped costs one refusal, not one per collection', async () => {
  const prefix = 'pp_pwrestart_';
  const name = `bob_${process.pid}`;
  await couch.setUser(name, 'old-secret', { members: [`${prefix}meta`, ...COLLECTIONS.map((c) => `${prefix}${c}`)] });
  const t = await startTestServer({ settings: FAST });
  try {
    const u = await registerUser(t);
    await t.api('asset.create', { name: 'Cash', type: 'cash', balance: 100 }, u.token);
    expect((await t.api('sync.configure', { url: counterUrl, username: name, password: 'old-secret', prefix, collections: COLLECTIONS }, u.token)).code).toBe(200);
    await inSync(t, u);
    await t.api('sync.stop', {}, u.token);
    await couch.setUser(name, 'new-secret');
    await refusedOnce(name, 'old-secret', `${prefix}assets`);
    const before = answers.length;
    // Every collection starts at once (pull, push, long-poll): one request goes first.
    await t.api('sync.start', {}, u.token);
    await eventually(
      () => t.api('sync.status', {}, u.token),
      (s) => s.data.collections.every((c: { state: string }) => c.state === 'error'),
    );
    // fixed-wait-ok: five retry periods in which no second refusal may come are what is tested
    await new Promise((r) => setTimeout(r, 1000));
    expect(answers.slice(before).filter((a) => a.status === 401 || a.status === 403)).toHaveLength(1);
    // sync.start retries: one more refusal, no more.
    await t.api('sync.start', {}, u.token);
    // fixed-wait-ok: five retry periods in which no third refusal may come are what is tested
    await new Promise((r) => setTimeout(r, 1000));
    expect(answers.slice(before).filter((a) => a.status === 401 || a.status === 403)).toHaveLength(2);
    expect((await t.api('sync.configure', { url: counterUrl, username: name, password: 'new-secret', prefix, collections: COLLECTIONS }, u.token)).code).toBe(200);
  } finally {
    await t.close();
  }
}, 60_000);

it("CouchDB's lockout is reported as such, stops every collection, and sync resumes once it is over", async () => {
  const prefix = 'pp_locked_';
  const name = `carol_${process.pid}`;
  await couch.setUser(name, 'right-secret', { members: [`${prefix}meta`, ...COLLECTIONS.map((c) => `${prefix}${c}`)] });
  const t = await startTestServer({ settings: FAST });
  try {
    const u = await registerUser(t);
    const cash = (await t.api('asset.create', { name: 'Cash', type: 'cash', balance: 100 }, u.token)).data.id;
    expect((await t.api('sync.configure', { url: counterUrl, username: name, password: 'right-secret', prefix, collections: COLLECTIONS }, u.token)).code).toBe(200);
    await inSync(t, u);
    await t.api('sync.stop', {}, u.token);
    // Someone tries wrong passwords for this user from this address: CouchDB locks it out.
    const wrong = 'Basic ' + Buffer.from(`${name}:guess`).toString('base64');
    for (let i = 0; i < 5; i++) await (await fetch(`${couch.directUrl}_session`, { headers: { authorization: wrong } })).body?.cancel();

    const before = answers.length;
    await t.api('sync.start', {}, u.token);
    const message = `CouchDB has locked user ${name} for a few minutes after failed logins — wait, then enter the password in Settings → Sync.`;
    const stopped = await eventually(
      () => t.api('sync.status', {}, u.token),
      (s) => s.data.collections.every((c: { state: string }) => c.state === 'error'),
    );
    for (const c of stopped.data.collections) expect(c.lastError, c.collection).toBe(message);
    // fixed-wait-ok: five retry periods in which no other collection may ask are what is tested
    await new Promise((r) => setTimeout(r, 1000));
    const refused = answers.slice(before).filter((a) => a.status === 401 || a.status === 403);
    expect(refused.map((a) => a.status)).toEqual([403]); // one request learnt it; the others never asked

    // sync.configure with the right password while locked: refused in words, the lockout named.
    const configured = await t.api('sync.configure', { url: counterUrl, username: name, password: 'right-secret', prefix, collections: COLLECTIONS }, u.token);
    expectRefusal(configured, commonErrors.rows.forbidden);
    expect(configured.message).toContain('Account is temporarily locked due to multiple authentication failures');

    // Once the lockout is over, sync.start resumes and what was written meanwhile goes up.
    await t.api('accounting.create', { type: 'expense', amount: 5, asset: cash, category: 'Food' }, u.token);
    // Until the lockout is over: a try with the right password while locked is not counted as a failure.
    const right = 'Basic ' + Buffer.from(`${name}:right-secret`).toString('base64');
    await eventually(
      async () => {
        const answer = await fetch(`${couch.directUrl}_session`, { headers: { authorization: right } });
        await answer.body?.cancel();
        return answer.status;
      },
      (status) => status === 200,
      LOCKOUT_MS + 10_000,
    );
    expect((await t.api('sync.start', {}, u.token)).code).toBe(200);
    await eventually(
      () => t.api('sync.status', {}, u.token),
      (s) => s.data.collections.every((c: { state: string; pending: number }) => c.state === 'idle' && c.pending === 0),
      15_000,
    );
    expect((await couch.local(`${prefix}records`).allDocs()).rows).toHaveLength(1);
  } finally {
    await t.close();
  }
}, 60_000);
