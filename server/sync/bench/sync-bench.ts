/**
 * npm run bench:sync — CouchDB sync speed against the in-process stand-in (express-pouchdb on
 * PouchDB's memory adapter, in this same process): initial push of N records from one PennyPost,
 * initial pull of them into an empty second PennyPost (its own process), and the latency of a
 * live change from one to the other. Prints one table; goals from issue 8.
 */
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { startServer } from '../../server';
import { createLogger } from '../../lib/logger';
import { newId } from '../../lib/ids';
import { CouchStandin } from '../../test-support/fakes/couchdb-standin';
import { startChildServer } from '../../test-support/child-server';
import type { RecordDoc } from '../../ledger/schema';

const N = Number(process.env.BENCH_SYNC_RECORDS ?? 20_000);
const LIVE_SAMPLES = Number(process.env.BENCH_SYNC_LIVE ?? 20);

async function api(url: string, action: string, params: unknown, token?: string) {
  const res = await fetch(`${url}/api`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ action, params }),
  });
  const body = (await res.json()) as { code: number; message: string; data: any };
  if (body.code !== 200) throw new Error(`${action}: ${body.code} ${body.message}`);
  return body.data;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, label: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${label}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function main() {
  const couch = await new CouchStandin().start();
  const dirA = mkdtempSync(path.join(os.tmpdir(), 'pennypost-bench-sync-a-'));
  const dirB = mkdtempSync(path.join(os.tmpdir(), 'pennypost-bench-sync-b-'));
  const settings = { rateLimit: { apiPerToken: 10_000_000, authPerAddress: 1000 }, sync: { retrySeconds: 1, batchSize: 1000 } };
  const a = await startServer({ dataDir: dirA, port: 0, logger: createLogger('warn'), settings });
  const b = await startChildServer(dirB, settings as never);
  try {
    const userA = await api(a.url, 'user.register', { username: 'bench_a', email: 'a@example.com', password: 'bench-password' });
    const cash = (await api(a.url, 'asset.create', { name: 'Cash', type: 'debit_card', currency: 'USD', balance: 1_000_000 }, userA.token)).id;
    const records = a.app.db.collection<RecordDoc>('records');
    const start = Date.UTC(2021, 0, 1);
    for (let done = 0; done < N; done += 1000) {
      const batch: RecordDoc[] = [];
      for (let i = done; i < Math.min(N, done + 1000); i++) {
        const date = start + i * 60_000;
        batch.push({
          id: newId(date), userId: userA.id, type: 'expense', amount: 100 + (i % 5000), asset: cash, toAsset: '', toAmount: 0, fee: 0,
          category: 'Food', description: `r${i}`, searchText: `r${i}`, date, tags: [], attachments: [], importKey: '', createdAt: date, updatedAt: date,
        });
      }
      await records.bulkInsert(batch);
    }

    // Initial push: A configures sync and everything goes up.
    const t0 = performance.now();
    await api(a.url, 'sync.configure', { url: couch.url, username: 'admin', password: 'admin-secret', prefix: 'bench_', collections: ['assets', 'records', 'categories'] }, userA.token);
    await a.app.services.sync.awaitInSync(userA.id);
    await waitFor(async () => (await couch.local('bench_records').info()).doc_count >= N, 600_000, 'push');
    const pushSeconds = (performance.now() - t0) / 1000;

    // Initial pull: an empty PennyPost (own process) joins the ledger.
    const userB = await api(b.url, 'user.register', { username: 'bench_b', email: 'b@example.com', password: 'bench-password' });
    const t1 = performance.now();
    await api(b.url, 'sync.configure', { url: couch.url, username: 'admin', password: 'admin-secret', prefix: 'bench_', collections: ['assets', 'records', 'categories'] }, userB.token);
    await waitFor(async () => (await api(b.url, 'accounting.query', { pageSize: 1 }, userB.token)).total >= N, 600_000, 'pull');
    const pullSeconds = (performance.now() - t1) / 1000;

    // Live: a record created on A, visible on B.
    const latencies: number[] = [];
    for (let i = 0; i < LIVE_SAMPLES; i++) {
      const s = performance.now();
      const created = await api(a.url, 'accounting.create', { type: 'expense', amount: 1, asset: cash, category: 'Food', description: `live ${i}` }, userA.token);
      await waitFor(async () => {
        const res = await fetch(`${b.url}/api`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${userB.token}` },
          body: JSON.stringify({ action: 'accounting.get', params: { id: created.id } }),
        });
        return ((await res.json()) as { code: number }).code === 200;
      }, 30_000, 'live');
      latencies.push(performance.now() - s);
    }
    latencies.sort((x, y) => x - y);
    const p50 = latencies[Math.floor(latencies.length / 2)];
    const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))];

    console.log(`\nSync benchmark: ${N.toLocaleString('en')} records, CouchDB stand-in (express-pouchdb, memory) in-process; second PennyPost in its own process`);
    console.log(`machine: ${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}, node ${process.version}\n`);
    console.log('measure                                   value            goal            met');
    console.log(`initial push (A → CouchDB)                ${(N / pushSeconds).toFixed(0).padStart(6)} docs/s   ≥ 5,000 docs/s   ${N / pushSeconds >= 5000 ? 'yes' : 'NO'}   (${pushSeconds.toFixed(1)} s)`);
    console.log(`initial pull (CouchDB → empty B)          ${(N / pullSeconds).toFixed(0).padStart(6)} docs/s   ≥ 5,000 docs/s   ${N / pullSeconds >= 5000 ? 'yes' : 'NO'}   (${pullSeconds.toFixed(1)} s)`);
    console.log(`live change A → visible on B, p50         ${p50.toFixed(0).padStart(6)} ms       < 1,000 ms       ${p50 < 1000 ? 'yes' : 'NO'}   (p99 ${p99.toFixed(0)} ms, ${LIVE_SAMPLES} samples)`);
  } finally {
    await b.stop();
    await a.close();
    await couch.close();
    rmSync(dirA, { recursive: true, force: true });
    rmSync(dirB, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
