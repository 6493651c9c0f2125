/**
 * `npm run soak`: ten minutes of steady mixed traffic (/api reads and writes, /send pushes) at a
 * fixed rate against a PennyPost process with 100,000 records, sampling its RSS every 5 s. The
 * writes edit existing records (the ledger keeps every record of a user in its in-memory view,
 * so new records would grow memory by design); pushes add history rows, which live on disk.
 *
 * Fails (exit code 1) when memory keeps growing. V8 grows the heap in a sawtooth (RSS climbs
 * for a minute or two, then a major GC hands memory back), so averages depend on the phase; a
 * leak shows in the floor. After a 2-minute warm-up the rest is cut into four windows: it fails
 * when the lowest RSS of each window is at least the one before and the last floor is above
 * the first by more than max(10 MB, 5 %). Writes its result into docs/benchmarks.md.
 *
 *   SOAK_MINUTES=3 SOAK_RATE=100 BENCH_RECORDS=20000 npm run soak     a shorter run
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { call, loadAverage, machine, mb, median, ROOT, seedLedger, sleep, startServerProcess } from './lib';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const RATE = Number(process.env.SOAK_RATE ?? 150);
const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000);
const WARMUP_MINUTES = Math.min(2, MINUTES / 5);
const SAMPLE_MS = 5000;
const OUT = process.env.BENCH_OUT ?? path.join(ROOT, 'docs', 'benchmarks.md');
const SOAK_START = '<!-- soak:start -->';
const SOAK_END = '<!-- soak:end -->';

function slopeMbPerMinute(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadBefore = loadAverage();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pennypost-soak-'));
  process.stderr.write(`soak: seeding ${RECORDS} records…\n`);
  const seed = await seedLedger(dataDir, RECORDS);
  const server = await startServerProcess(dataDir);
  try {
    const token = (await call(server.url, 'user.login', { email: seed.email, password: seed.password })).token as string;
    const auth = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const api = (action: string, params: unknown) => ({ method: 'POST', path: '/api', headers: auth, body: JSON.stringify({ action, params }) });
    const year = { startDate: Date.UTC(2025, 0, 1), endDate: Date.UTC(2026, 0, 1) };
    const edited = (await call(server.url, 'accounting.create', { type: 'expense', amount: 0.5, asset: seed.assets[0], category: 'Food', description: 'soak' }, token))
      .id as string;
    const transfer = (await call(server.url, 'accounting.create', { type: 'transfer', amount: 0.25, fromAsset: seed.assets[1], toAsset: seed.assets[2] }, token)).id as string;
    const requests = [
      api('accounting.query', { page: 1, pageSize: 20 }),
      api('asset.query', {}),
      api('accounting.update', { id: edited, amount: 0.75, description: 'soak edit a' }),
      { method: 'GET', path: `/send/${seed.appKey}?title=soak` },
      api('stats.getIncomeExpense', { ...year, groupBy: 'month', timeZone: 'UTC' }),
      api('accounting.query', { category: 'Travel', page: 3, pageSize: 20 }),
      api('accounting.update', { id: transfer, amount: 0.3 }),
      api('accounting.update', { id: edited, amount: 0.5, description: 'soak edit b' }),
      { method: 'GET', path: `/send/${seed.appKey}?title=soak&desp=two` },
      api('stats.getCategoryStats', year),
      api('push.queryMessages', { pageSize: 20 }),
    ];
    const samples: Array<[number, number]> = [];
    const t0 = performance.now();
    const timer = setInterval(() => samples.push([(performance.now() - t0) / 60_000, mb(server.rss())]), SAMPLE_MS);
    process.stderr.write(`soak: ${MINUTES} min at ${RATE} req/s…\n`);
    const result = await autocannon({ url: server.url, connections: 10, overallRate: RATE, duration: MINUTES * 60, workers: 1, requests: requests as any });
    clearInterval(timer);
    await sleep(SAMPLE_MS);
    const idleAfter = mb(server.rss());

    const after = samples.filter(([t]) => t >= WARMUP_MINUTES);
    const size = Math.max(1, Math.floor(after.length / 4));
    const windows = [0, 1, 2, 3].map((i) => after.slice(i * size, i === 3 ? after.length : (i + 1) * size).map(([, y]) => y));
    const floors = windows.map((w) => Math.min(...w));
    const peaks = windows.map((w) => Math.max(...w));
    const medians = windows.map((w) => median(w));
    const slope = slopeMbPerMinute(after);
    const firstFloor = floors.at(0) ?? NaN;
    const rising = floors.every((f, i) => i === 0 || f >= (floors.at(i - 1) ?? f));
    const growth = (floors.at(-1) ?? NaN) - firstFloor;
    const keepsGrowing = rising && growth > Math.max(10, firstFloor * 0.05);
    const errors = result.errors + result.timeouts + result.non2xx;
    const verdict = keepsGrowing
      ? `FAILED: memory keeps growing (floor +${growth.toFixed(1)} MB)`
      : `passed: memory does not keep growing (floor ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MB over the run)`;
    const m = machine();
    const text = [
      SOAK_START,
      `Last run: ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${m.cpu}, ${m.cores} cores, Node ${m.node}; load average ${loadBefore.join(' / ')} before, ${loadAverage().join(' / ')} after.`,
      '',
      `${MINUTES} minutes of mixed traffic at ${RATE} req/s (records pages, asset balances, statistics, edits of an expense and a transfer, /send pushes, push history) against ${RECORDS.toLocaleString('en')} records; ${result.requests.total} requests, ${errors} errors, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms. The writes edit existing records, so the data held in memory stays the same size; the ~${Math.round(result.requests.total * 0.2).toLocaleString('en')} pushes add history rows on disk. RSS sampled every ${SAMPLE_MS / 1000} s; the first ${WARMUP_MINUTES} min are warm-up, the rest is cut into four windows.`,
      '',
      '| | RSS MB |',
      '|---|---:|',
      `| first sample | ${samples[0]?.[1] ?? 'n/a'} |`,
      `| floor (lowest) per window after warm-up | ${floors.map((x) => x.toFixed(1)).join(' / ')} |`,
      `| median per window | ${medians.map((x) => x.toFixed(1)).join(' / ')} |`,
      `| peak per window | ${peaks.map((x) => x.toFixed(1)).join(' / ')} |`,
      `| 5 s after the load | ${idleAfter} |`,
      `| fitted slope after warm-up | ${slope.toFixed(2)} MB/min |`,
      '',
      `**Result: ${verdict}.** RSS moves in a sawtooth (V8 grows the heap, then a major collection hands memory back), so the verdict looks at the floors: it fails when each window's lowest RSS is at least the previous one and the last is above the first by more than max(10 MB, 5 %).`,
      '',
      `RSS samples (minute: MB): ${samples.map(([t, y]) => `${t.toFixed(1)}: ${y}`).join(', ')}`,
      SOAK_END,
    ].join('\n');
    process.stdout.write(`${text}\n`);

    const doc = existsSync(OUT) ? readFileSync(OUT, 'utf8') : '';
    let next: string;
    if (doc.includes(SOAK_START) && doc.includes(SOAK_END)) next = doc.slice(0, doc.indexOf(SOAK_START)) + text + doc.slice(doc.indexOf(SOAK_END) + SOAK_END.length);
    else next = `${doc.trimEnd()}\n\n## Soak (\`npm run soak\`)\n\n${text}\n`;
    writeFileSync(OUT, next);
    process.stderr.write(`soak: ${verdict}; wrote ${OUT}\n`);
    if (keepsGrowing || errors > result.requests.total * 0.01) process.exitCode = 1;
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
