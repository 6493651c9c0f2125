/**
 * `npm run bench:startup`: how fast the server is up and how much memory it holds idle, started
 * the way people start it (`node bin/pennypost.mjs serve`, what `npm start` and `npm run serve`
 * hand over to), side by side with the earlier way of running the TypeScript sources through tsx.
 *
 *   process start → ready line, empty data dir: a first start (a new folder every run: the
 *     database, keys and settings are created) and a restart (the same folder again);
 *   process start → ready line with 100,000 records (5 years, 10 assets);
 *   RSS 3 s after the ready line, untouched (idle).
 *
 * Prints a table (figure | PennyPost | baseline | goal | verdict) that `npm run bench` reads.
 *   BENCH_STARTS=7 BENCH_RECORDS=100000 npx tsx bench/startup.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// @ts-expect-error plain ESM script without types
import { buildServer } from '../scripts/build-server.mjs';
import { BENCH_SETTINGS, loadAverage, median, seedLedger, sleep, startServerProcess, type ServerLaunch } from './lib';

const STARTS = Number(process.env.BENCH_STARTS ?? 7);
const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000);
const IDLE_MS = 3000;

const mb = (bytes: number) => bytes / 1024 / 1024;
const log = (line: string) => process.stderr.write(`bench:startup: ${line}\n`);

interface Series {
  readyMs: number[];
  rssMb: number[];
}
/** The same starts of the compiled bundle and of the TypeScript sources. */
interface Pair {
  compiled: Series;
  source: Series;
}

async function measure(dataDirFor: (i: number) => string, launch: ServerLaunch, idle: boolean, cleanup?: (dir: string) => void): Promise<Series> {
  const out: Series = { readyMs: [], rssMb: [] };
  for (let i = 0; i < STARTS; i++) {
    const dir = dataDirFor(i);
    const server = await startServerProcess(dir, BENCH_SETTINGS, launch);
    out.readyMs.push(server.startupMs);
    if (idle) {
      await sleep(IDLE_MS);
      out.rssMb.push(mb(server.rss()));
    }
    await server.stop();
    cleanup?.(dir);
  }
  return out;
}

async function main(): Promise<void> {
  // The compiled server as a fresh checkout gets it on first use; one warm-up start writes V8's code cache.
  await buildServer();
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'pennypost-bench-startup-'));
  const load = loadAverage();
  try {
    const fresh = (i: number) => mkdtempSync(path.join(scratch, `fresh-${i}-`));
    const remove = (dir: string) => rmSync(dir, { recursive: true, force: true });
    await measure(fresh, 'compiled', false, remove); // warm-up: code cache, OS file cache

    log(`empty data dir, first start ×${STARTS}`);
    const first: Pair = { compiled: await measure(fresh, 'compiled', true, remove), source: await measure(fresh, 'source', true, remove) };
    const same = path.join(scratch, 'same');
    log(`empty data dir, restart ×${STARTS}`);
    const restart: Pair = { compiled: await measure(() => same, 'compiled', true), source: await measure(() => same, 'source', true) };

    const full = path.join(scratch, 'full');
    log(`seeding ${RECORDS.toLocaleString('en')} records…`);
    const t0 = performance.now();
    await seedLedger(full, RECORDS);
    log(`seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${RECORDS.toLocaleString('en')} records ×${STARTS}`);
    const withRecords: Pair = { compiled: await measure(() => full, 'compiled', true), source: await measure(() => full, 'source', true) };

    const results = { first, restart, full: withRecords };
    const row = (figure: string, compiled: number[], source: number[], unit: string, goal: string, met: boolean | null) =>
      `| ${figure} | ${median(compiled).toFixed(0)} ${unit} (${Math.min(...compiled).toFixed(0)}–${Math.max(...compiled).toFixed(0)}) | ${median(source).toFixed(0)} ${unit} | ${goal} | ${met === null ? '—' : met ? 'met' : 'MISSED'} |`;
    const records = RECORDS.toLocaleString('en');
    const lines = [
      `Server startup: median of ${STARTS} starts each (min–max), node ${process.version}, ${os.cpus().length} cores, load average ${load.join(' / ')}.`,
      'PennyPost = `node bin/pennypost.mjs serve` (compiled bundle + V8 code cache); baseline = `node --import tsx server/cli.ts` (the TypeScript sources, as before).',
      '',
      '| figure | PennyPost | baseline (tsx) | goal | |',
      '|---|---|---|---|---|',
      row(
        'process start → ready line, empty data dir (first start)',
        results.first.compiled.readyMs,
        results.first.source.readyMs,
        'ms',
        '< 300 ms',
        median(results.first.compiled.readyMs) < 300,
      ),
      row(
        'process start → ready line, empty data dir (restart)',
        results.restart.compiled.readyMs,
        results.restart.source.readyMs,
        'ms',
        '< 300 ms',
        median(results.restart.compiled.readyMs) < 300,
      ),
      row(
        `process start → ready line, ${records} records`,
        results.full.compiled.readyMs,
        results.full.source.readyMs,
        'ms',
        '< 500 ms',
        median(results.full.compiled.readyMs) < 500,
      ),
      row('idle RSS, empty data dir (3 s after ready)', results.restart.compiled.rssMb, results.restart.source.rssMb, 'MB', '< 90 MB', median(results.restart.compiled.rssMb) < 90),
      row(`idle RSS, ${records} records (3 s after ready, no request yet)`, results.full.compiled.rssMb, results.full.source.rssMb, 'MB', '—', null),
    ];
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
