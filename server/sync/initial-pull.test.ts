import { afterAll, beforeAll, expect, it } from 'vitest';
import { CouchPeer } from '../test-support/couch-peer/couch-peer';
import { registerUser, startTestServer } from '../test-support/test-server';
import { configureSync, COUCH_START_TIMEOUT, eventually, statusOf, couchRecord } from '../test-support/sync';

/**
 * The initial pull reads CouchDB's changes feed page by page, and RxDB takes a page with fewer
 * documents than it asked for as the end of the feed. Documents the fetch does not import (they
 * break a rule) leave a page short: the pull must go on and bring the rest all the same. Small
 * pages (batchSize 5) against the CouchDB peer of the test suite.
 */

const SETTINGS = { sync: { retrySeconds: 0.2, requestTimeoutMs: 3000, batchSize: 5 } } as never;

let couch: CouchPeer;
beforeAll(async () => {
  couch = await CouchPeer.start();
}, COUCH_START_TIMEOUT);
afterAll(() => (couch as CouchPeer | undefined)?.close()); // undefined when beforeAll failed

it('pages of the initial pull that lose documents to the arrival checks do not end it: every valid document arrives', async () => {
  const t = await startTestServer({ settings: SETTINGS });
  try {
    const u = await registerUser(t);
    const cash = (await t.api('asset.create', { name: 'Cash', type: 'cash', balance: 0 }, u.token)).data.id;
    const prefix = 'pp_pages_';
    const broken = Array.from({ length: 12 }, (_, i) => couchRecord(u.id, `rec-broken-${String(i).padStart(2, '0')}`, { asset: cash, amount: 1e16 }));
    const valid = Array.from({ length: 12 }, (_, i) => couchRecord(u.id, `rec-valid-${String(i).padStart(2, '0')}`, { asset: cash, amount: 100 + i }));
    // On the server before the sync starts: only the initial pull can bring them (the live feed
    // starts from "now").
    await couch.client(`${prefix}records`).bulkDocs([...broken, ...valid]);
    expect((await configureSync(t, couch, u, { prefix, collections: ['assets', 'records'] })).code).toBe(200);
    const records = t.server.app.db.collection('records');
    const arrived = await eventually(
      async () => (await records.findByIds(valid.map((doc) => doc._id)).exec()).size,
      (size) => size === valid.length,
    );
    expect(arrived).toBe(valid.length);
    expect((await records.findByIds(broken.map((doc) => doc._id)).exec()).size).toBe(0);
    const status = await eventually(
      () => statusOf(t, u, 'records'),
      (s) => s.ignoredCount === broken.length,
    );
    expect(status.ignoredCount).toBe(broken.length);
  } finally {
    await t.close();
  }
}, 60_000);
