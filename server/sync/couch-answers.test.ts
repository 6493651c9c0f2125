import { rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildServer, type ChildServer } from '../test-support/child-server';
import { listenFake, sendJson, type FakeServer } from '../test-support/fakes/listen';
import { HEALTHZ_BUDGET_MS, RSS_BUDGET_BYTES, watchServer } from '../test-support/server-watch';
import { eventually } from '../test-support/sync';
import { tempDataDir } from '../test-support/test-server';
import { commonErrors } from '../lib/errors';
import { expectRefusal } from '../test-support/refusal';

/**
 * What a CouchDB server sends back is read up to a limit (docs/security.md, "Outbound requests"):
 * 1 MiB for the calls of sync.configure, 64 MiB for the replication's pages. A server that streams
 * an answer without end costs that much memory at most, and the person gets a 502 (configure) or a
 * stopped sync (replication) in words — never a 500, a stalled server or an exhausted memory. And a
 * member's sync goes to the internet only: this computer and the local network are the owner's.
 *
 * The PennyPost under test runs in its own process (its RSS is its own), watched from outside
 * (server/test-support/server-watch.ts).
 */

/** How much the fake streams at most (like the 1.4 GB of the review), should nothing stop reading. */
const FLOOD_BYTES = 1536 * 1024 * 1024;

/** An answer that does not end: JSON that opens a string and fills it, 64 KiB at a time, as fast as the reader takes it. */
function flood(res: ServerResponse, counter: { bytes: number }): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"couchdb":"Welcome","version":"3.4.3","pad":"');
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const pump = () => {
    while (!res.destroyed && counter.bytes < FLOOD_BYTES) {
      counter.bytes += chunk.length;
      if (!res.write(chunk)) return;
    }
    if (!res.destroyed) res.end('"}');
  };
  res.on('drain', pump);
  pump();
}

describe('CouchDB answers are read up to a limit', () => {
  let dataDir: string;
  let child: ChildServer;
  let owner: { token: string; id: string };
  let member: { token: string; id: string };
  /** Answers every request with a flood. */
  let endless: FakeServer;
  const endlessSent = { bytes: 0 };
  /** A CouchDB for sync.configure (welcome, databases, owner document) whose replication pages flood. */
  let pagesFlood: FakeServer;
  const pagesSent = { bytes: 0 };
  const pagesRequests: string[] = [];

  beforeAll(async () => {
    endless = await listenFake((_req, res) => {
      flood(res, endlessSent);
    });
    pagesFlood = await listenFake((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      pagesRequests.push(`${req.method ?? ''} ${path}`);
      if (path === '/') sendJson(res, { couchdb: 'Welcome', version: '3.4.3' });
      else if (/^\/[a-z][a-z0-9_]*\/?$/.test(path)) sendJson(res, { db_name: path.replaceAll('/', '') });
      else if (path.endsWith('/ledger-owner') && req.method === 'PUT') sendJson(res, { ok: true, id: 'ledger-owner', rev: '1-a' }, 201);
      else if (path.endsWith('/ledger-owner')) sendJson(res, { error: 'not_found', reason: 'missing' }, 404);
      else flood(res, pagesSent);
    });
    dataDir = tempDataDir('couch-answers');
    child = await startChildServer(dataDir, { sync: { retrySeconds: 0.2, requestTimeoutMs: 15_000 } });
    const register = async (name: string) => {
      const answer = await child.api('user.register', { username: name, email: `${name}@example.com`, password: 'correct horse battery' });
      expect(answer.code).toBe(200);
      return { token: answer.data.token as string, id: answer.data.id as string };
    };
    owner = await register('couchowner');
    member = await register('couchmember');
  }, 60_000);

  afterAll(async () => {
    await child.stop();
    await endless.close();
    await pagesFlood.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sync.configure against a server whose answer never ends: 502 in words, memory and /healthz within budget', async () => {
    const pid = child.child.pid ?? 0;
    const watched = await watchServer(child.url, pid, () => child.api('sync.configure', { url: endless.url, username: 'admin', password: 'secret-pass' }, owner.token));
    expectRefusal(watched.result, commonErrors.rows.badGateway);
    expect(watched.result.message).toMatch(/CouchDB server sent an answer larger than 1 MiB/);
    // It stopped reading at the limit: the fake got to send little more than that (socket buffers).
    expect(endlessSent.bytes).toBeLessThan(64 * 1024 * 1024);
    expect(watched.healthzAnswers).toBeGreaterThan(0);
    expect(watched.worstHealthzMs).toBeLessThan(HEALTHZ_BUDGET_MS);
    expect(watched.rssRise).toBeLessThan(RSS_BUDGET_BYTES);
    console.log(`configure flood: RSS rise ${(watched.rssRise / 1048576).toFixed(1)} MB, worst /healthz ${watched.worstHealthzMs} ms, bytes sent ${endlessSent.bytes}`);
    expect((await child.api('sync.status', {}, owner.token)).data).toEqual({ configured: false });
  }, 60_000);

  it('a replication page that never ends stops the sync in words, within the memory and /healthz budgets', async () => {
    const pid = child.child.pid ?? 0;
    const watched = await watchServer(child.url, pid, async () => {
      const configured = await child.api(
        'sync.configure',
        { url: pagesFlood.url, username: 'admin', password: 'secret-pass', collections: ['assets'], prefix: 'flood_' },
        owner.token,
      );
      expect(configured.status).toBe(200);
      return eventually(
        async () => (await child.api('sync.status', {}, owner.token)).data,
        (status) => status.collections?.[0]?.state === 'error',
        40_000,
      );
    });
    expect(watched.result.collections[0].lastError).toMatch(/Sync stopped: The CouchDB server sent an answer larger than 64 MiB/);
    expect(pagesRequests.some((request) => request.includes('/flood_assets/_changes'))).toBe(true);
    expect(pagesSent.bytes).toBeLessThan(256 * 1024 * 1024);
    expect(watched.worstHealthzMs).toBeLessThan(HEALTHZ_BUDGET_MS);
    expect(watched.rssRise).toBeLessThan(RSS_BUDGET_BYTES);
    console.log(`replication flood: RSS rise ${(watched.rssRise / 1048576).toFixed(1)} MB, worst /healthz ${watched.worstHealthzMs} ms, bytes sent ${pagesSent.bytes}`);
    expect((await child.api('sync.remove', {}, owner.token)).status).toBe(200);
  }, 90_000);

  it("refuses a member's CouchDB on this computer or the local network (403 naming url), and this server itself to anyone (400)", async () => {
    const before = pagesRequests.length;
    for (const url of [
      pagesFlood.url,
      'http://localhost:5984/',
      'http://[::1]:5984/',
      'http://2130706433:5984/',
      'http://10.1.2.3:5984/',
      'http://192.168.1.20:5984/',
      'http://169.254.169.254/',
    ]) {
      const answer = await child.api('sync.configure', { url, username: 'admin', password: 'secret-pass' }, member.token);
      expect(answer.status, url).toBe(403);
      expect(answer.data, url).toMatchObject({ field: 'params.url' });
      expect(answer.message, url).toMatch(/this computer or the local network.*Only the owner/);
    }
    expect(pagesRequests.length).toBe(before);
    const itself = await child.api('sync.configure', { url: `${child.url}/`, username: 'admin', password: 'secret-pass' }, owner.token);
    expectRefusal(itself, commonErrors.rows.invalid);
    expect(itself.data).toMatchObject({ field: 'params.url' });
    expect(itself.message).toMatch(/this PennyPost server itself/);
  });
});
