import { afterAll, beforeAll, expect, it } from 'vitest';
import { CouchPeer } from '../test-support/couch-peer/couch-peer';
import { registerUser, startTestServer } from '../test-support/test-server';
import { closeAfterOutage, configureSync, eventually, inSync } from '../test-support/sync';

/**
 * When CouchDB is back, every collection's status recovers promptly — also the idle ones, which
 * have nothing to push and used to show "paused" / "Cannot reach…" for several retry periods.
 * The retry period here is the default's order of magnitude (2 s), so "promptly" means faster
 * than one retry period after the first collection reached the server.
 */

const SETTINGS = { sync: { retrySeconds: 2, requestTimeoutMs: 3000 } } as never;
const COLLECTIONS = ['assets', 'records', 'categories', 'rates', 'goals', 'links'];

let couch: CouchPeer;
beforeAll(async () => {
  couch = await CouchPeer.start();
}, 90_000);
afterAll(() => (couch as CouchPeer | undefined)?.close()); // undefined when beforeAll failed

type Status = { data: null | { collections: Array<{ collection: string; state: string; lastError: string | null; pending: number }> } };

it('after the server is back, every collection (idle ones too) stops showing paused within ~1 s of the first successful request', async () => {
  const t = await startTestServer({ settings: SETTINGS });
  try {
    const u = await registerUser(t);
    const cash = (await t.api('asset.create', { name: 'Cash', type: 'cash', balance: 100 }, u.token)).data.id;
    expect((await configureSync(t, couch, u, { prefix: 'pp_reconnect_', collections: COLLECTIONS })).code).toBe(200);
    await inSync(t, u);

    await couch.stop();
    // A write while away: records has something to push; the others are idle.
    await t.api('accounting.create', { type: 'expense', amount: 5, asset: cash, category: 'Food' }, u.token);
    const paused = await eventually<Status>(
      () => t.api('sync.status', {}, u.token),
      (s) => !!s.data && s.data.collections.every((c) => c.state === 'paused'),
    );
    for (const c of paused.data!.collections) expect(c.lastError, c.collection).toMatch(/^Cannot reach .*; retrying every 2 s\.$/);
    const away = couch.requests.length;
    // fixed-wait-ok: an outage longer than one 2 s retry period is the case tested
    await new Promise((r) => setTimeout(r, 3000));

    await couch.start();
    // The first request that reaches the server again.
    await eventually(
      () => Promise.resolve(couch.requests.length),
      (n) => n > away,
      10_000,
    );
    const back = Date.now();
    await eventually(
      (): Promise<Status> => t.api('sync.status', {}, u.token),
      (s: Status) => !!s.data && s.data.collections.every((c) => c.state !== 'paused' && c.state !== 'error'),
      10_000,
    );
    const recovered = Date.now() - back;
    expect(recovered).toBeLessThan(1500);
    const status = await eventually<Status>(
      () => t.api('sync.status', {}, u.token),
      (s) => !!s.data && s.data.collections.every((c) => c.state === 'idle' && c.pending === 0),
      10_000,
    );
    expect(status.data!.collections.map((c) => c.lastError)).toEqual(COLLECTIONS.map(() => null));
    expect((await couch.local('pp_reconnect_records').allDocs()).rows).toHaveLength(1);

    // While it was away, the collections did not each hammer the address: one try per retry period.
    // (Checked via the proxy being off: nothing reached it; the link's probes are what retry.)
  } finally {
    await closeAfterOutage(t, couch);
  }
}, 60_000);

it('a live change made on the server after it is back arrives in every idle collection at once', async () => {
  const t = await startTestServer({ settings: SETTINGS });
  try {
    const u = await registerUser(t);
    expect((await configureSync(t, couch, u, { prefix: 'pp_reconnect2_', collections: COLLECTIONS })).code).toBe(200);
    await inSync(t, u);
    await couch.stop();
    await eventually(
      (): Promise<Status> => t.api('sync.status', {}, u.token),
      (s: Status) => !!s.data && s.data.collections.some((c) => c.state === 'paused'),
    );
    // fixed-wait-ok: an outage longer than one 2 s retry period is the case tested
    await new Promise((r) => setTimeout(r, 2500));
    await couch.start();
    const cat = { _id: 'catfromserver1', userId: u.id, type: 'expense', name: 'From the server', icon: '', position: 99, createdAt: Date.now(), updatedAt: Date.now() };
    // Written as soon as the server is back: it arrives without waiting for more retry periods.
    const written = Date.now();
    await couch.local('pp_reconnect2_categories').put(cat);
    await eventually(
      async () => (await t.api('category.list', {}, u.token)).data,
      (list: unknown) => JSON.stringify(list).includes('From the server'),
      10_000,
    );
    expect(Date.now() - written).toBeLessThan(3000);
  } finally {
    await closeAfterOutage(t, couch);
  }
}, 60_000);
