import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildServer } from '../test-support/child-server';
import { CouchPeer } from '../test-support/couch-peer/couch-peer';
import { configureSync, COUCH_START_TIMEOUT, eventually, FAST, inSync } from '../test-support/sync';
import { registerUser, startTestServer, tempDataDir, type TestServer } from '../test-support/test-server';
import { occurrenceRecordId } from './recurring-store';

/**
 * Two PennyPosts syncing one ledger through the same CouchDB both write the same `auto`
 * occurrences while they cannot reach each other: each occurrence is still one record, because both
 * give it the same id (from the rule's id and the date), so the sync sees two versions of one
 * document, not two documents.
 */

const DAY = 86_400_000;
let couch: CouchPeer;
beforeAll(async () => {
  couch = await CouchPeer.start();
}, COUCH_START_TIMEOUT);
afterAll(() => (couch as CouchPeer | undefined)?.close());

describe('two synced PennyPosts', () => {
  it('write the same occurrences while apart: one record each once they sync', { timeout: 90_000 }, async () => {
    // The second instance runs in its own process (one process holds one PennyPost's collections).
    const home: TestServer = await startTestServer({ settings: FAST });
    const laptop = await startChildServer(tempDataDir('recurring-laptop'), { sync: { retrySeconds: 0.2, requestTimeoutMs: 3000 } });
    try {
      const a = await registerUser(home);
      const b = (await laptop.api('user.register', { username: 'laptop_rec', email: 'laptop-rec@example.com', password: 'a long password' })).data as { token: string };
      const card = (await home.api('asset.create', { name: 'Card', type: 'credit_card', currency: 'USD' }, a.token)).data.id as string;
      expect((await configureSync(home, couch, a, { prefix: 'pp_rec_' })).code).toBe(200);
      // A confirm rule that started four days ago: nothing is written until it becomes auto.
      const start = Date.now() - 4 * DAY + 60_000;
      const rule = (
        await home.api(
          'recurring.create',
          { template: { type: 'expense', amount: 9, category: 'Food', asset: card }, rule: { freq: 'daily' }, startDate: start, timeZone: 'UTC', mode: 'confirm' },
          a.token,
        )
      ).data;
      expect(rule.id).toBeTruthy();
      await inSync(home, a);
      const joined = await laptop.api('sync.configure', { url: couch.url, username: 'admin', password: 'admin-secret', prefix: 'pp_rec_' }, b.token);
      expect(joined.data).toMatchObject({ joined: true });
      await eventually(
        async () => (await laptop.api('recurring.query', {}, b.token)).data?.total,
        (n) => n === 1,
      );
      // Apart: neither reaches CouchDB; both turn the rule to auto and catch up the same days.
      expect((await home.api('sync.stop', {}, a.token)).code).toBe(200);
      expect((await laptop.api('sync.stop', {}, b.token)).code).toBe(200);
      await home.api('recurring.update', { id: rule.id, mode: 'auto' }, a.token);
      await laptop.api('recurring.update', { id: rule.id, mode: 'auto' }, b.token);
      await home.server.app.services.recurring.tick();
      const occurrencesOf = async (api: (action: string, params: unknown, token: string) => Promise<{ data: any }>, token: string) =>
        ((await api('accounting.query', { pageSize: 200 }, token)).data.list as Array<{ id: string; occurrence?: string }>)
          .filter((r) => r.occurrence)
          .map((r) => `${r.id} ${r.occurrence ?? ''}`)
          .sort();
      /** The occurrence date of an `<id> <date>` line. */
      const dateOf = (line: string) => line.split(' ')[1] ?? '';
      const homeApi = (action: string, params: unknown, token: string) => home.api(action, params, token);
      const laptopApi = (action: string, params: unknown, token: string) => laptop.api(action, params, token);
      const written = await occurrencesOf(homeApi, a.token);
      expect(written.length).toBeGreaterThanOrEqual(4);
      expect(written.map((w) => w.split(' ')[0])).toEqual(written.map((w) => occurrenceRecordId(rule.id, dateOf(w))));
      // The laptop's timer catches up by itself within a second or so.
      await eventually(
        () => occurrencesOf(laptopApi, b.token),
        (list) => list.length === written.length,
      );
      expect(await occurrencesOf(laptopApi, b.token)).toEqual(written);
      // Together again: the same ids meet, still one record per occurrence.
      await home.api('sync.start', {}, a.token);
      await laptop.api('sync.start', {}, b.token);
      await inSync(home, a);
      // Until both have pushed and pulled: with other ids the laptop would keep its own records
      // beside home's, and CouchDB would hold both, so this would never hold.
      const remoteKeys = async () => {
        const remote = await couch.client('pp_rec_records').allDocs({ include_docs: true });
        return (remote.rows as Array<{ doc: { importKey: string } }>)
          .map((row) => row.doc.importKey)
          .filter((k) => k.startsWith('recurring:'))
          .sort();
      };
      const expectedKeys = written.map((w) => `recurring:${rule.id}:${dateOf(w)}`).sort();
      const same = (x: string[], y: string[]) => JSON.stringify(x) === JSON.stringify(y);
      await eventually(
        async () => ({ home: await occurrencesOf(homeApi, a.token), laptop: await occurrencesOf(laptopApi, b.token), remote: await remoteKeys() }),
        (now) => same(now.home, written) && same(now.laptop, written) && same(now.remote, expectedKeys),
      );
      await inSync(home, a);
      expect(await occurrencesOf(homeApi, a.token)).toEqual(written);
      expect(await occurrencesOf(laptopApi, b.token)).toEqual(written);
      expect(await remoteKeys()).toEqual(expectedKeys);
    } finally {
      await home.close();
      await laptop.stop();
    }
  });
});
