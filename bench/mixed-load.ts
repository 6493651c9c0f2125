/**
 * The whole server under load: startup times, memory, and a mixed load of realistic /api traffic
 * and /send pushes against a PennyPost process holding 100,000 records, next to a bare Express
 * baseline in the same run. Part of `npm run bench` (bench/run.ts); alone:
 *
 *   npx tsx bench/mixed-load.ts [--json out.json]
 *   BENCH_RECORDS=20000 BENCH_MIXED_SECONDS=10 npx tsx bench/mixed-load.ts
 *
 * The server runs as `npm run serve` runs it (node bin/pennypost.mjs serve: the compiled bundle, its own process);
 * the load generator is autocannon in a worker thread of this process. All on 127.0.0.1.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { call, loadAverage, machine, mb, median, ROOT, seedLedger, sleep, startServerProcess } from './lib';
import { dashboardUnavailable, measureDashboard } from './ui-dashboard';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000);
const MIXED_SECONDS = Number(process.env.BENCH_MIXED_SECONDS ?? 30);
const EACH_SECONDS = Number(process.env.BENCH_EACH_SECONDS ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const STARTS = 3;

export interface LoadRow {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
}

export interface MixedResult {
  machine: ReturnType<typeof machine>;
  records: number;
  connections: number;
  seedSeconds: number;
  startup: { emptyMs: number[]; fullMs: number[] };
  firstQueryMs: number;
  memory: { idleAfterStartMb: number; idleWarmMb: number; loadPeakMb: number; loadMeanMb: number; afterLoadMb: number; emptyIdleMb: number };
  rows: LoadRow[];
  mixed: LoadRow & { mix: string };
  /** Dashboard complete, ms from navigation start: with the server warm, and right after a restart (the user's view cold). */
  ui: { warmMs: number[]; afterRestartMs: number; note: string };
  loadAverage: { before: number[]; after: number[] };
}

type Req = { method: 'GET' | 'POST'; path: string; headers?: Record<string, string>; body?: string };

async function load(name: string, url: string, requests: Req[], seconds: number, sample?: () => void): Promise<LoadRow> {
  const timer = sample ? setInterval(sample, 250) : undefined;
  try {
    const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, pipelining: 1, workers: 1, requests: requests });
    const bad = result.errors + result.timeouts + result.non2xx;
    return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, requests: result.requests.total, errors: bad };
  } finally {
    if (timer) clearInterval(timer);
  }
}

function startBare(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/bare-express.ts')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout.once('data', (chunk: Buffer) => {
      const [url = ''] = chunk.toString().trim().split('\n'); // its first line is its address
      resolve({ url, stop: () => child.kill('SIGTERM') });
    });
  });
}

export async function runMixed(): Promise<MixedResult> {
  const before = loadAverage();
  const log = (line: string) => process.stderr.write(`mixed-load: ${line}\n`);

  // Startup with an empty data dir (a first start also creates the keys and the database).
  const emptyMs: number[] = [];
  let emptyIdleMb = NaN;
  for (let i = 0; i < STARTS; i++) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pennypost-bench-empty-'));
    try {
      const server = await startServerProcess(dir);
      emptyMs.push(server.startupMs);
      await sleep(1000);
      emptyIdleMb = mb(server.rss());
      await server.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  log(`startup (empty): ${emptyMs.map((n) => n.toFixed(0)).join(', ')} ms`);

  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pennypost-bench-mixed-'));
  const bare = await startBare();
  try {
    log(`seeding ${RECORDS} records…`);
    const seed = await seedLedger(dataDir, RECORDS);
    const fullMs: number[] = [];
    for (let i = 0; i < STARTS - 1; i++) {
      const server = await startServerProcess(dataDir);
      fullMs.push(server.startupMs);
      await server.stop();
    }
    const server = await startServerProcess(dataDir);
    fullMs.push(server.startupMs);
    log(`startup (${RECORDS} records): ${fullMs.map((n) => n.toFixed(0)).join(', ')} ms`);
    try {
      await sleep(1000);
      const idleAfterStartMb = mb(server.rss());
      const login = await call(server.url, 'user.login', { email: seed.email, password: seed.password });
      const token = login.token as string;
      const q0 = performance.now();
      await call(server.url, 'accounting.query', { page: 1, pageSize: 20 }, token);
      const firstQueryMs = performance.now() - q0;
      await sleep(2000);
      const idleWarmMb = mb(server.rss());

      const auth = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
      const apiReq = (action: string, params: unknown): Req => ({ method: 'POST', path: '/api', headers: auth, body: JSON.stringify({ action, params }) });
      const year = { startDate: Date.UTC(2025, 0, 1), endDate: Date.UTC(2026, 0, 1) };
      const reqs = {
        assetQuery: apiReq('asset.query', {}),
        recordsPage: apiReq('accounting.query', { page: 1, pageSize: 20 }),
        recordsFiltered: apiReq('accounting.query', { category: 'Food', page: 2, pageSize: 20 }),
        statsYear: apiReq('stats.getIncomeExpense', { ...year, groupBy: 'month', timeZone: 'UTC' }),
        categoryStats: apiReq('stats.getCategoryStats', year),
        create: apiReq('accounting.create', { type: 'expense', amount: 1.25, asset: seed.assets[0], category: 'Food', description: 'bench' }),
        transfer: apiReq('accounting.create', { type: 'transfer', amount: 2.5, fromAsset: seed.assets[1], toAsset: seed.assets[2] }),
        send: { method: 'GET', path: `/send/${seed.appKey}?title=${encodeURIComponent('CPU 91% on host-7')}&desp=${encodeURIComponent('load **high**')}` } as Req,
      };

      const rows: LoadRow[] = [];
      await load('warm-up', server.url, [reqs.recordsPage, reqs.assetQuery], 2);
      log('baselines and single endpoints…');
      rows.push(
        await load(
          'bare Express: POST /api (JSON in, envelope out)',
          bare.url,
          [{ method: 'POST', path: '/api', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ action: 'asset.query', params: {} }) }],
          EACH_SECONDS,
        ),
      );
      rows.push(await load('bare Express: GET /send/:key', bare.url, [{ method: 'GET', path: '/send/x?title=hi' }], EACH_SECONDS));
      rows.push(await load('asset.query (10 assets, live balances)', server.url, [reqs.assetQuery], EACH_SECONDS));
      rows.push(await load('accounting.query first page (20 of 100k)', server.url, [reqs.recordsPage], EACH_SECONDS));
      rows.push(await load('accounting.query category filter, page 2', server.url, [reqs.recordsFiltered], EACH_SECONDS));
      rows.push(await load('stats.getIncomeExpense 1 year by month', server.url, [reqs.statsYear], EACH_SECONDS));
      rows.push(await load('accounting.create (expense, fsynced)', server.url, [reqs.create], EACH_SECONDS));
      rows.push(await load('GET /send (desktop channel, history fsynced)', server.url, [reqs.send], EACH_SECONDS));

      // The mix a household's PennyPost sees in a busy moment: mostly reads, some writes, pushes.
      const mix: Array<[Req, number, string]> = [
        [reqs.recordsPage, 4, 'records page'],
        [reqs.assetQuery, 3, 'asset.query'],
        [reqs.recordsFiltered, 1, 'filtered records'],
        [reqs.statsYear, 1, 'year stats'],
        [reqs.categoryStats, 1, 'category stats'],
        [reqs.create, 2, 'expense'],
        [reqs.transfer, 1, 'transfer'],
        [reqs.send, 3, '/send push'],
      ];
      const sequence: Req[] = [];
      for (const [req, weight] of mix) for (let i = 0; i < weight; i++) sequence.push(req);
      // Interleave so each connection cycles through a varied order.
      const interleaved = sequence
        .map((r, i) => ({ r, k: (i * 7) % sequence.length }))
        .sort((a, b) => a.k - b.k)
        .map((x) => x.r);
      const rss: number[] = [];
      log(`mixed load for ${MIXED_SECONDS} s…`);
      const mixedRow = await load('mixed load', server.url, interleaved, MIXED_SECONDS, () => rss.push(server.rss()));
      await sleep(5000);
      const afterLoadMb = mb(server.rss());
      const ui: MixedResult['ui'] = { warmMs: [], afterRestartMs: NaN, note: dashboardUnavailable() ?? '' };
      if (!ui.note) {
        const session = {
          token,
          expiresAt: login.expiresAt as number,
          user: { id: login.id as string, username: login.username as string, email: (login.email as string | undefined) ?? '' },
        };
        try {
          log('dashboard in Chromium…');
          ui.warmMs = await measureDashboard(server.url, session, 5);
          await server.stop();
          const again = await startServerProcess(dataDir);
          try {
            ui.afterRestartMs = (await measureDashboard(again.url, session, 1)).at(0) ?? NaN;
          } finally {
            await again.stop();
          }
        } catch (error) {
          ui.note = `measurement failed: ${(error as Error).message.split('\n')[0] ?? ''}`;
        }
      }
      const total = mix.reduce((n, [, w]) => n + w, 0);
      const mixText = mix.map(([, w, label]) => `${Math.round((w / total) * 100)}% ${label}`).join(', ');
      return {
        machine: machine(),
        records: RECORDS,
        connections: CONNECTIONS,
        seedSeconds: seed.seedMs / 1000,
        startup: { emptyMs, fullMs },
        firstQueryMs,
        memory: {
          emptyIdleMb,
          idleAfterStartMb,
          idleWarmMb,
          loadPeakMb: mb(Math.max(...rss)),
          loadMeanMb: mb(rss.reduce((a, b) => a + b, 0) / Math.max(1, rss.length)),
          afterLoadMb,
        },
        rows,
        mixed: { ...mixedRow, mix: mixText },
        ui,
        loadAverage: { before, after: loadAverage() },
      };
    } finally {
      await server.stop();
    }
  } finally {
    bare.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function formatMixed(r: MixedResult): string {
  const lines: string[] = [];
  const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');
  lines.push(`Mixed load: ${r.records.toLocaleString('en')} records, ${r.connections} connections; machine ${r.machine.cpu} × ${r.machine.cores}, node ${r.machine.node}`);
  lines.push(
    `startup to ready line: empty ${r.startup.emptyMs.map((n) => n.toFixed(0)).join('/')} ms (median ${median(r.startup.emptyMs).toFixed(0)}), ${r.records} records ${r.startup.fullMs.map((n) => n.toFixed(0)).join('/')} ms (median ${median(r.startup.fullMs).toFixed(0)})`,
  );
  lines.push(`first accounting.query after start (loads the user's view): ${r.firstQueryMs.toFixed(0)} ms`);
  lines.push(
    `RSS: empty idle ${r.memory.emptyIdleMb} MB; ${r.records} records idle ${r.memory.idleAfterStartMb} MB, after first query ${r.memory.idleWarmMb} MB, under load peak ${r.memory.loadPeakMb} MB (mean ${r.memory.loadMeanMb}), 5 s after ${r.memory.afterLoadMb} MB`,
  );
  lines.push('');
  lines.push('| scenario | req/s | p50 ms | p99 ms | requests | errors |');
  lines.push('|---|---:|---:|---:|---:|---:|');
  for (const row of [...r.rows, r.mixed]) lines.push(`| ${row.name} | ${f(row.rps, 0)} | ${f(row.p50)} | ${f(row.p99)} | ${row.requests} | ${row.errors} |`);
  lines.push('');
  lines.push(`mix: ${r.mixed.mix}`);
  lines.push(
    r.ui.note && r.ui.warmMs.length === 0
      ? `dashboard: not measured (${r.ui.note})`
      : `dashboard complete (Chromium, from navigation start): warm server ${r.ui.warmMs.map((n) => n.toFixed(0)).join('/')} ms (median ${median(r.ui.warmMs).toFixed(0)}), first after a server restart ${Number.isFinite(r.ui.afterRestartMs) ? `${r.ui.afterRestartMs.toFixed(0)} ms` : 'not measured'}${r.ui.note ? ` (${r.ui.note})` : ''}`,
  );
  return lines.join('\n');
}

// Run as a script (npm run bench runs `node --import tsx bench/mixed-load.ts --json …`), not when imported.
const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  runMixed()
    .then((result) => {
      console.log(formatMixed(result));
      const out = process.argv.indexOf('--json');
      if (out > 0) {
        const file = process.argv[out + 1];
        if (!file) throw new Error('--json needs the file to write');
        writeFileSync(file, JSON.stringify(result, null, 2));
      }
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
