/**
 * npm run bench:sync — CouchDB sync speed against the CouchDB peer of the test suite (PouchDB Server
 * from npm behind its CouchDB 3 front, server/test-support/couch-peer/): initial push of N
 * records from one PennyPost, initial pull of them into an empty second PennyPost (its own
 * process), and the latency of a live change from one to the other. Prints one table.
 *
 * BENCH_SYNC_BATCH sets the sync batchSize setting (default 1000).
 *
 * BENCH_SYNC_TRACE=1 puts a timing proxy in front of the peer and prints, per kind of request, how
 * many there were and how long the peer took (the proxy costs a little throughput).
 */
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Session } from 'node:inspector';
import { startServer } from '../../server/server';
import { createLogger } from '../../server/lib/logger';
import { newId } from '../../server/lib/ids';
import { startChildServer } from '../../server/test-support/child-server';
import type { RecordDoc } from '../../server/ledger/schema';
import { COUCH_ADMIN, CouchPeer } from '../../server/test-support/couch-peer/couch-peer';
import { percentile } from '../lib';

const N = Number(process.env.BENCH_SYNC_RECORDS ?? 20_000);
const LIVE_SAMPLES = Number(process.env.BENCH_SYNC_LIVE ?? 20);
const TRACE = process.env.BENCH_SYNC_TRACE === '1';
const ADMIN = COUCH_ADMIN;

/** Per kind of request (method and last path segment): count and CouchDB's time until its answer ended. */
const trace = new Map<string, { count: number; ms: number; docs: number }>();
/** BENCH_SYNC_TIMELINE=<file>: every proxied request (kind, start and end in ms since the bench began, documents) as JSON lines. */
const TIMELINE = process.env.BENCH_SYNC_TIMELINE;
const timeline: Array<{ kind: string; start: number; end: number; docs: number; url?: string }> = [];

/** A pass-through proxy that times every request (BENCH_SYNC_TRACE=1). */
async function timingProxy(target: URL): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const started = performance.now();
    const [pathname = '/'] = (req.url ?? '/').split('?');
    const kind = `${String(req.method)} ${pathname.split('/').filter(Boolean).slice(1).join('/') || pathname}${(req.url ?? '').includes('feed=longpoll') ? ' (longpoll)' : ''}`;
    let docs = 0;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      answer.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        const m = body.match(/"(docs|keys)":\[/);
        if (m?.[1] === 'docs') docs = (body.match(/"_id":/g) ?? []).length;
        else if (m) docs = (body.match(/","/g) ?? []).length + 1;
        const entry = trace.get(kind) ?? { count: 0, ms: 0, docs: 0 };
        entry.count += 1;
        entry.ms += performance.now() - started;
        entry.docs += docs;
        trace.set(kind, entry);
        if (TIMELINE) timeline.push({ kind, start: started, end: performance.now(), docs, url: req.url });
      });
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

/** BENCH_SYNC_PROFILE=<dir>: a CPU profile of server A during the initial push (push-a.cpuprofile). */
const PROFILE = process.env.BENCH_SYNC_PROFILE;

async function startProfile(): Promise<{ stop(file: string): Promise<void> }> {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<any>((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
  await post('Profiler.enable');
  await post('Profiler.start');
  return {
    async stop(file) {
      const { profile } = await post('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

async function docCount(couchUrl: string, db: string): Promise<number> {
  const res = await fetch(`${couchUrl}${db}`, { headers: { authorization: 'Basic ' + Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64') } });
  if (res.status !== 200) return 0;
  return ((await res.json()) as { doc_count: number }).doc_count;
}

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
  const peer = await CouchPeer.start();
  const directUrl = peer.directUrl;
  const proxy = TRACE ? await timingProxy(new URL(directUrl)) : null;
  const couch = { url: proxy?.url ?? directUrl };
  const dirA = mkdtempSync(path.join(os.tmpdir(), 'pennypost-bench-sync-a-'));
  const dirB = mkdtempSync(path.join(os.tmpdir(), 'pennypost-bench-sync-b-'));
  const settings = { rateLimit: { apiPerToken: 10_000_000, authPerAddress: 1000 }, sync: { retrySeconds: 1, batchSize: Number(process.env.BENCH_SYNC_BATCH ?? 1000) } };
  const a = await startServer({ dataDir: dirA, port: 0, logger: createLogger('warn'), settings });
  const b = await startChildServer(dirB, settings);
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
          id: newId(date),
          userId: userA.id,
          type: 'expense',
          amount: 100 + (i % 5000),
          asset: cash,
          toAsset: '',
          toAmount: 0,
          fee: 0,
          category: 'Food',
          description: `r${i}`,
          searchText: `r${i}`,
          date,
          tags: [],
          attachments: [],
          importKey: '',
          createdAt: date,
          updatedAt: date,
        });
      }
      await records.bulkInsert(batch);
    }

    // Initial push: A configures sync and everything goes up.
    const profiler = PROFILE ? await startProfile() : null;
    const t0 = performance.now();
    await api(
      a.url,
      'sync.configure',
      { url: couch.url, username: 'admin', password: 'admin-secret', prefix: 'bench_', collections: ['assets', 'records', 'categories'] },
      userA.token,
    );
    await a.app.services.sync.awaitInSync(userA.id);
    await waitFor(async () => (await docCount(directUrl, 'bench_records')) >= N, 600_000, 'push');
    const pushSeconds = (performance.now() - t0) / 1000;
    if (profiler) await profiler.stop(path.join(PROFILE!, 'push-a.cpuprofile'));
    if (TIMELINE) timeline.push({ kind: 'phase push', start: t0, end: performance.now(), docs: N });

    // Initial pull: an empty PennyPost (own process) joins the ledger.
    const userB = await api(b.url, 'user.register', { username: 'bench_b', email: 'b@example.com', password: 'bench-password' });
    const t1 = performance.now();
    await api(
      b.url,
      'sync.configure',
      { url: couch.url, username: 'admin', password: 'admin-secret', prefix: 'bench_', collections: ['assets', 'records', 'categories'] },
      userB.token,
    );
    await waitFor(async () => (await api(b.url, 'accounting.query', { pageSize: 1 }, userB.token)).total >= N, 600_000, 'pull');
    const pullSeconds = (performance.now() - t1) / 1000;
    if (TIMELINE) timeline.push({ kind: 'phase pull', start: t1, end: performance.now(), docs: N });

    // Live: a record created on A, visible on B.
    const latencies: number[] = [];
    for (let i = 0; i < LIVE_SAMPLES; i++) {
      const s = performance.now();
      const created = await api(a.url, 'accounting.create', { type: 'expense', amount: 1, asset: cash, category: 'Food', description: `live ${i}` }, userA.token);
      await waitFor(
        async () => {
          const res = await fetch(`${b.url}/api`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${userB.token}` },
            body: JSON.stringify({ action: 'accounting.get', params: { id: created.id } }),
          });
          return ((await res.json()) as { code: number }).code === 200;
        },
        30_000,
        'live',
      );
      latencies.push(performance.now() - s);
    }
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);

    console.log(
      `\nSync benchmark: ${N.toLocaleString('en')} records, the CouchDB peer (PouchDB Server from npm, in its own process) on this machine${TRACE ? ' behind a timing proxy' : ''}; second PennyPost in its own process`,
    );
    console.log(`machine: ${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}, node ${process.version}\n`);
    console.log('measure                                   value            goal            met');
    console.log(
      `initial push (A → CouchDB)                ${(N / pushSeconds).toFixed(0).padStart(6)} docs/s   ≥ 5,000 docs/s   ${N / pushSeconds >= 5000 ? 'yes' : 'NO'}   (${pushSeconds.toFixed(1)} s)`,
    );
    console.log(
      `initial pull (CouchDB → empty B)          ${(N / pullSeconds).toFixed(0).padStart(6)} docs/s   ≥ 8,000 docs/s   ${N / pullSeconds >= 8000 ? 'yes' : 'NO'}   (${pullSeconds.toFixed(1)} s)`,
    );
    console.log(
      `live change A → visible on B, p50         ${p50.toFixed(0).padStart(6)} ms       <   200 ms       ${p50 < 200 ? 'yes' : 'NO'}   (p99 ${p99.toFixed(0)} ms, ${LIVE_SAMPLES} samples)`,
    );
    if (TRACE) {
      console.log('\nrequests (through the timing proxy)        count   total ms   ms per 1,000 docs');
      for (const [kind, entry] of [...trace.entries()].sort((x, y) => y[1].ms - x[1].ms)) {
        const perK = entry.docs > 0 ? ((entry.ms / entry.docs) * 1000).toFixed(0) : '';
        console.log(`${kind.slice(0, 40).padEnd(40)} ${String(entry.count).padStart(7)} ${entry.ms.toFixed(0).padStart(10)} ${perK.padStart(19)}`);
      }
    }
    if (TIMELINE) writeFileSync(TIMELINE, timeline.map((entry) => JSON.stringify(entry)).join('\n') + '\n');
  } finally {
    await b.stop();
    await a.close();
    proxy?.server.close();
    await peer.close();
    rmSync(dirA, { recursive: true, force: true });
    rmSync(dirB, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
