/**
 * `npm run bench:lifetime`: a lifetime of records. One user's ledger of 100,000 records (and of
 * 1,000,000) over 5 years ending 2026-01-01 in 10 assets — the synthetic ledger of every benchmark
 * (server/test-support/synthetic-records.ts) — measured the way a person meets it: bulk load, a
 * fresh process answering its first question (income/expense per month of a year; all balances),
 * the same questions warm, memory and disk. Beside it, Actual Budget's API (@actual-app/api,
 * bench/actual/) on the very same records.
 *
 *   process start → first income/expense answer: from before the spawn until the HTTP answer
 *     arrives (so the ready line is included), with a session token kept from an earlier start;
 *   process start → all balances (asset.query), in separate starts;
 *   first query after start: the first answer's own time, after the ready line;
 *   RSS 3 s after the queries (idle); RSS of an empty data dir 3 s after the ready line;
 *   warm p50 / p95 of 50 calls in one process; disk: every byte of the data dir.
 *
 * Prints tables (figure | PennyPost | Actual | goal | verdict) that `npm run bench` reads.
 *   npx tsx bench/lifetime.ts                                   100k with Actual, then 1M
 *   BENCH_LIFETIME_MAX=100000 npx tsx bench/lifetime.ts         100k only
 *   BENCH_RECORDS=20000 BENCH_LIFETIME_MAX=20000 BENCH_ACTUAL=0 npx tsx bench/lifetime.ts
 * BENCH_QUICK=1 (set by `BENCH_QUICK=1 npm run bench`) measures BENCH_RECORDS only; BENCH_STARTS
 * (default 5) is the number of cold starts per figure.
 */
import type { ActualBaseline, ActualFigures } from './actual/actual-figures';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
// @ts-expect-error plain ESM script without types
import { buildServer } from '../scripts/build-server.mjs';
// @ts-expect-error plain ESM script without types
import { serverSourcesNewer } from '../scripts/server-freshness.mjs';
import { BENCH_CATEGORIES, syntheticRecordBatches } from '../server/test-support/synthetic-records';
import { call, loadAverage, mb, median, percentile, ROOT, seedLedger, sleep, startServerProcess, type ServerProcess } from './lib';

const QUICK = process.env.BENCH_QUICK === '1';
const BASE = Number(process.env.BENCH_RECORDS ?? 100_000);
const MAX = Number(process.env.BENCH_LIFETIME_MAX ?? 1_000_000);
const BIG = 1_000_000;
const SIZES = [BASE, ...(!QUICK && BIG > BASE && BIG <= MAX ? [BIG] : [])];
const STARTS = Number(process.env.BENCH_STARTS ?? 5);
const WARM_RUNS = Number(process.env.BENCH_LIFETIME_RUNS ?? 50);
const ACTUAL = process.env.BENCH_ACTUAL !== '0';
const ACTUAL_TIMEOUT_MS = Number(process.env.BENCH_ACTUAL_TIMEOUT_MIN ?? 20) * 60_000;
const IDLE_MS = 3000;
const CACHE_DIR = path.join(os.homedir(), '.cache', 'pennypost-bench');
const ACTUAL_MODULE = path.join(ROOT, 'bench', 'actual', 'actual-baseline.mjs');

/** The year every query asks about: income/expense per month of 2025 (UTC). */
const YEAR = 2025;
const STATS_PARAMS = { startDate: Date.UTC(YEAR, 0, 1), endDate: Date.UTC(YEAR + 1, 0, 1), groupBy: 'month', timeZone: 'UTC' };
/** seedLedger's assets: 10, the last a credit card, each opened with 10,000,000.00 USD (asset.create takes major units). */
const ASSETS = 10;
const OPENING_BALANCE_MINOR = 10_000_000 * 100;

const log = (line: string) => process.stderr.write(`bench:lifetime: ${line}\n`);
const records = (n: number) => n.toLocaleString('en');

interface SizeResult {
  records: number;
  bulkLoadMs: number;
  /** The first start after the bulk load: process start → first income/expense answer, and that answer's own time. */
  firstStartMs: number;
  firstStartQueryMs: number;
  /** The server was rebuilt (its sources edited meanwhile) during the first start. */
  firstStartRebuilt: boolean;
  readyMs: number[];
  coldIncomeExpenseMs: number[];
  coldBalancesMs: number[];
  firstQueryMs: number[];
  firstBalancesQueryMs: number[];
  rssIdleMb: number[];
  warmIncomeExpense: { p50: number; p95: number };
  warmBalances: { p50: number; p95: number };
  diskMb: number;
  /** Cold starts during which the server was rebuilt even on the third attempt. */
  rebuiltStarts: number;
  /** Income/expense of the year as the generator wrote it vs as the server answered (minor units), when they differ. */
  mismatch: string;
}

/** Every byte of the files under `dir`. */
function bytesOf(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += bytesOf(full);
    else if (entry.isFile()) total += statSync(full).size;
  }
  return total;
}

const BUNDLE = path.join(ROOT, 'dist', 'server', 'cli.cjs');
const bundleStamp = () => (existsSync(BUNDLE) ? statSync(BUNDLE).mtimeMs : NaN);

/**
 * Rebuilds the compiled server (outside any timing) when its sources changed since the last
 * build, with one throwaway start that writes V8's code cache, as the first `npm run serve` after
 * an update does. Otherwise bin/pennypost.mjs would rebuild inside a timed start.
 */
async function ensureBuilt(): Promise<void> {
  if (!(serverSourcesNewer as () => boolean)()) return;
  log('server sources changed: rebuilding the server before the next timed start');
  await (buildServer as () => Promise<void>)();
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'pennypost-bench-lifetime-cache-'));
  try {
    await (await startServerProcess(scratch)).stop();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function start(dataDir: string): Promise<ServerProcess> {
  await ensureBuilt();
  return startServerProcess(dataDir);
}

/**
 * One timed start: `measure` gets the server and the time just before the spawn; the server is
 * stopped after it. When the server was rebuilt during the start (its sources edited meanwhile, so
 * bin/pennypost.mjs ran esbuild inside the timing) the start is measured again, up to `attempts`
 * times; `rebuilt` tells when even the last one was.
 */
async function timedStart<T>(dataDir: string, measure: (server: ServerProcess, t0: number) => Promise<T>, attempts = 3): Promise<{ value: T; rebuilt: boolean }> {
  for (let attempt = 1; ; attempt++) {
    await ensureBuilt();
    const stamp = bundleStamp();
    const t0 = performance.now();
    const server = await startServerProcess(dataDir);
    let value: T;
    try {
      value = await measure(server, t0);
    } finally {
      await server.stop();
    }
    const rebuilt = bundleStamp() !== stamp;
    if (!rebuilt || attempt >= attempts) return { value, rebuilt };
    log('the server was rebuilt during a timed start (its sources changed): measuring that start again');
  }
}

/** What the generator wrote for the year (minor units), and the dataset Actual imports when `datasetFile` is given. */
function syntheticLedger(count: number, datasetFile: string | null): { income: number; expense: number } {
  const from = STATS_PARAMS.startDate;
  const to = STATS_PARAMS.endDate;
  // Stable account ids (the i-th is "Asset i", seedLedger's i-th asset): the records pick their asset
  // by index, so they are the same records, and the same file for every run (Actual's import is cached).
  const assets = Array.from({ length: ASSETS }, (_, i) => `asset-${i}`);
  let income = 0;
  let expense = 0;
  const transactions: string[] = [];
  for (const batch of syntheticRecordBatches({ userId: 'bench', assets, count })) {
    for (const r of batch) {
      if (r.date >= from && r.date < to) {
        if (r.type === 'income') income += r.amount;
        else expense += r.amount;
      }
      if (datasetFile) {
        transactions.push(JSON.stringify({ date: r.date, amount: r.amount, type: r.type, account: r.asset, category: r.category, notes: r.description }));
      }
    }
  }
  if (datasetFile) {
    const accounts = assets.map((id, i) => ({ id, name: `Asset ${i}`, type: i === ASSETS - 1 ? 'credit_card' : 'debit_card', openingBalance: OPENING_BALANCE_MINOR }));
    const categories = [...BENCH_CATEGORIES.map((name) => ({ name, income: false })), { name: 'Salary', income: true }];
    const text = `{"accounts":${JSON.stringify(accounts)},\n"categories":${JSON.stringify(categories)},\n"transactions":[\n${transactions.join(',\n')}\n]}\n`;
    // Rewritten only when it changed, so that a cache keyed on the file stays valid.
    if (!existsSync(datasetFile) || readFileSync(datasetFile, 'utf8') !== text) writeFileSync(datasetFile, text);
  }
  return { income, expense };
}

const timed = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
  const t0 = performance.now();
  const value = await fn();
  return [value, performance.now() - t0];
};

async function measurePennyPost(count: number, scratch: string): Promise<SizeResult> {
  const dir = path.join(scratch, `ledger-${count}`);
  log(`${records(count)} records: bulk load (seedLedger)…`);
  const [seed, bulkLoadMs] = await timed(() => seedLedger(dir, count));
  log(`${records(count)} records: loaded in ${(bulkLoadMs / 1000).toFixed(1)} s (the records alone ${(seed.seedMs / 1000).toFixed(1)} s)`);
  const expected = syntheticLedger(count, null);

  // The first start after the bulk load: the seed's session, then a login whose token the cold starts use.
  // It happens once: when a rebuild fell into it, that is said beside the figure.
  let token = '';
  const firstStart = await timedStart(
    dir,
    async (server, t0) => {
      const [answer, queryMs] = await timed(() => call(server.url, 'stats.getIncomeExpense', STATS_PARAMS, seed.token));
      const totalMs = performance.now() - t0;
      token = (await call(server.url, 'user.login', { email: seed.email, password: seed.password })).token as string;
      return { answer, queryMs, totalMs, readyMs: server.startupMs };
    },
    1,
  );
  const first = firstStart.value;
  log(
    `${records(count)} records: first start after the bulk load → income/expense answer ${first.totalMs.toFixed(0)} ms (ready line ${first.readyMs.toFixed(0)} ms, the query ${first.queryMs.toFixed(0)} ms)${firstStart.rebuilt ? ' — the server was rebuilt during it' : ''}`,
  );
  const answered = { income: Math.round(Number(first.answer.income?.total) * 100), expense: Math.round(Number(first.answer.expense?.total) * 100) };
  const mismatch =
    answered.income === expected.income && answered.expense === expected.expense
      ? ''
      : `income/expense of ${YEAR}: generated ${expected.income} / ${expected.expense}, answered ${answered.income} / ${answered.expense} (minor units)`;
  if (mismatch) log(`WARNING: ${mismatch}`);

  const out: SizeResult = {
    records: count,
    bulkLoadMs,
    firstStartMs: first.totalMs,
    firstStartQueryMs: first.queryMs,
    firstStartRebuilt: firstStart.rebuilt,
    readyMs: [],
    coldIncomeExpenseMs: [],
    coldBalancesMs: [],
    firstQueryMs: [],
    firstBalancesQueryMs: [],
    rssIdleMb: [],
    warmIncomeExpense: { p50: NaN, p95: NaN },
    warmBalances: { p50: NaN, p95: NaN },
    diskMb: NaN,
    rebuiltStarts: 0,
    mismatch,
  };
  for (let i = 0; i < STARTS; i++) {
    const { value, rebuilt } = await timedStart(dir, async (server, t0) => {
      const [, queryMs] = await timed(() => call(server.url, 'stats.getIncomeExpense', STATS_PARAMS, token));
      const totalMs = performance.now() - t0;
      await call(server.url, 'asset.query', {}, token);
      await sleep(IDLE_MS);
      return { totalMs, queryMs, readyMs: server.startupMs, rssMb: mb(server.rss()) };
    });
    out.coldIncomeExpenseMs.push(value.totalMs);
    out.firstQueryMs.push(value.queryMs);
    out.readyMs.push(value.readyMs);
    out.rssIdleMb.push(value.rssMb);
    if (rebuilt) out.rebuiltStarts++;
  }
  for (let i = 0; i < STARTS; i++) {
    const { value, rebuilt } = await timedStart(dir, async (server, t0) => {
      const [, queryMs] = await timed(() => call(server.url, 'asset.query', {}, token));
      return { totalMs: performance.now() - t0, queryMs };
    });
    out.coldBalancesMs.push(value.totalMs);
    out.firstBalancesQueryMs.push(value.queryMs);
    if (rebuilt) out.rebuiltStarts++;
  }
  log(
    `${records(count)} records: cold income/expense ${out.coldIncomeExpenseMs.map((n) => n.toFixed(0)).join(', ')} ms (ready line ${out.readyMs.map((n) => n.toFixed(0)).join(', ')} ms); balances ${out.coldBalancesMs.map((n) => n.toFixed(0)).join(', ')} ms; RSS ${out.rssIdleMb.join(', ')} MB`,
  );

  const server = await start(dir);
  try {
    for (let i = 0; i < 5; i++) {
      await call(server.url, 'stats.getIncomeExpense', STATS_PARAMS, token);
      await call(server.url, 'asset.query', {}, token);
    }
    const stats: number[] = [];
    const balances: number[] = [];
    for (let i = 0; i < WARM_RUNS; i++) stats.push((await timed(() => call(server.url, 'stats.getIncomeExpense', STATS_PARAMS, token)))[1]);
    for (let i = 0; i < WARM_RUNS; i++) balances.push((await timed(() => call(server.url, 'asset.query', {}, token)))[1]);
    out.warmIncomeExpense = { p50: percentile(stats, 50), p95: percentile(stats, 95) };
    out.warmBalances = { p50: percentile(balances, 50), p95: percentile(balances, 95) };
  } finally {
    await server.stop();
  }
  out.diskMb = mb(bytesOf(dir));
  log(`${records(count)} records: warm income/expense p50 ${out.warmIncomeExpense.p50.toFixed(2)} ms, balances p50 ${out.warmBalances.p50.toFixed(2)} ms; disk ${out.diskMb} MB`);
  rmSync(dir, { recursive: true, force: true });
  return out;
}

async function emptyIdleRss(scratch: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < 3; i++) {
    const dir = mkdtempSync(path.join(scratch, 'empty-'));
    try {
      const { value } = await timedStart(dir, async (server) => {
        await sleep(IDLE_MS);
        return mb(server.rss());
      });
      out.push(value);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}

async function measureActualBaseline(count: number): Promise<ActualFigures | string> {
  try {
    mkdirSync(CACHE_DIR, { recursive: true });
    const datasetFile = path.join(CACHE_DIR, `lifetime-dataset-${count}.json`);
    syntheticLedger(count, datasetFile);
    const actual = (await import(pathToFileURL(ACTUAL_MODULE).href)) as ActualBaseline;
    log('Actual: installing (when missing)…');
    await actual.ensureActualInstalled();
    log(`Actual: ${records(count)} records…`);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no result within ${ACTUAL_TIMEOUT_MS / 60_000} min`)), ACTUAL_TIMEOUT_MS);
    });
    try {
      return await Promise.race([
        actual.measureActual({ datasetFile, cacheDir: CACHE_DIR, starts: STARTS, warmRuns: WARM_RUNS, year: YEAR, log: (line) => log(`Actual: ${line}`) }),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  } catch (error) {
    const [reason = ''] = (error instanceof Error ? error.message : String(error)).split('\n');
    log(`Actual: not measured: ${reason}`);
    return reason;
  }
}

// ---- tables ----

const ms = (n: number) => (!Number.isFinite(n) ? 'n/a' : n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0));
/** Megabytes with one decimal, so that a value just over its limit does not print as the limit. */
const mbText = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
const spread = (values: number[], unit: 'ms' | 'MB') => {
  if (values.length === 0) return 'n/a';
  const f = unit === 'MB' ? mbText : ms;
  return `${f(median(values))} ${unit} (${f(Math.min(...values))}–${f(Math.max(...values))})`;
};
const seconds = (n: number) => `${(n / 1000).toFixed(1)} s`;
const verdict = (value: number, limit: number) => (Number.isFinite(value) ? (value <= limit ? 'met' : 'MISSED') : 'MISSED');

interface Row {
  figure: string;
  ours: string;
  other: string;
  goal: string;
  /** null: informational (no verdict). */
  met: string | null;
}

const line = (r: Row) => `| ${r.figure} | ${r.ours} | ${r.other} | ${r.goal} | ${r.met ?? '—'} |`;

/** What makes figures of this run less trustworthy, said under the table. */
function caveats(r: SizeResult): string[] {
  const out: string[] = [];
  if (r.mismatch) out.push(`**Check failed:** ${r.mismatch}.`);
  if (r.firstStartRebuilt) out.push('The server was rebuilt (its sources were being edited) during the first start after the bulk load: that figure includes esbuild.');
  if (r.rebuiltStarts > 0) out.push(`The server was rebuilt during ${r.rebuiltStarts} cold start(s) even when measured a third time: those include esbuild.`);
  return out;
}

function baseTable(r: SizeResult, emptyRss: number[], actual: ActualFigures | string | null, load: number[]): string {
  const n = records(r.records);
  const a = typeof actual === 'object' && actual !== null ? actual : null;
  const other = (f: (x: ActualFigures) => string) => (a ? f(a) : '—');
  const header = a ? `Actual ${a.version.split('.').slice(0, 2).join('.')}` : 'Actual';
  const rows: Row[] = [
    {
      figure: `bulk load, ${n} records`,
      ours: seconds(r.bulkLoadMs),
      other: other((x) => `${x.bulkLoadSeconds.toFixed(1)} s${x.bulkLoadCached ? ' (cached from an earlier run)' : ''}`),
      goal: '—',
      met: null,
    },
    {
      figure: `warm: income/expense per month for a year, p50 (${n} records)`,
      ours: `${ms(r.warmIncomeExpense.p50)} ms (p95 ${ms(r.warmIncomeExpense.p95)})`,
      other: other((x) => `${ms(x.warmIncomeExpenseP50Ms)} ms`),
      goal: '≤ 6.5 ms',
      met: verdict(r.warmIncomeExpense.p50, 6.5),
    },
    {
      figure: `warm: all balances, p50 (${n} records)`,
      ours: `${ms(r.warmBalances.p50)} ms (p95 ${ms(r.warmBalances.p95)})`,
      other: other((x) => `${ms(x.warmBalancesP50Ms)} ms`),
      goal: '≤ 1.9 ms',
      met: verdict(r.warmBalances.p50, 1.9),
    },
    {
      figure: `cold: process start → first income/expense answer (${n} records)`,
      ours: spread(r.coldIncomeExpenseMs, 'ms'),
      other: other((x) => spread(x.coldIncomeExpenseMs, 'ms')),
      goal: '≤ 400 ms',
      met: verdict(median(r.coldIncomeExpenseMs), 400),
    },
    {
      figure: `cold: process start → balances (${n} records)`,
      ours: spread(r.coldBalancesMs, 'ms'),
      other: other((x) => spread(x.coldBalancesMs, 'ms')),
      goal: '≤ 400 ms',
      met: verdict(median(r.coldBalancesMs), 400),
    },
    {
      figure: `first query after start (income/expense, after the ready line; ${n} records)`,
      ours: spread(r.firstQueryMs, 'ms'),
      other: other((x) => spread(x.firstQueryMs, 'ms')),
      goal: '—',
      met: null,
    },
    {
      figure: `RSS idle after queries (${n} records)`,
      ours: spread(r.rssIdleMb, 'MB'),
      other: other((x) => spread(x.rssIdleMb, 'MB')),
      goal: '≤ 130 MB',
      met: verdict(median(r.rssIdleMb), 130),
    },
    { figure: 'RSS idle, empty data dir', ours: spread(emptyRss, 'MB'), other: '—', goal: '≤ 90 MB', met: verdict(median(emptyRss), 90) },
    { figure: `disk (${n} records)`, ours: `${r.diskMb.toFixed(1)} MB`, other: other((x) => `${x.diskMb.toFixed(1)} MB`), goal: '—', met: null },
    {
      figure: `first start after the bulk load → first income/expense answer (${n} records)`,
      ours: `${ms(r.firstStartMs)} ms (the query ${ms(r.firstStartQueryMs)} ms)`,
      other: '—',
      goal: '—',
      met: null,
    },
  ];
  const notes = [
    `A lifetime of records: ${n} records over 5 years ending 2026-01-01, 10 assets, one user; median of ${STARTS} starts (min–max), warm p50 of ${WARM_RUNS} calls; node ${process.version}, ${os.cpus().length} cores, load average ${load.join(' / ')}.`,
    'PennyPost = `node bin/pennypost.mjs serve` in its own process, asked over HTTP (`POST /api`): the warm and "first query" times include HTTP and JSON; a cold start is timed from before the spawn until the answer arrived (ready line included), with a session kept from an earlier start. Income/expense = `stats.getIncomeExpense` of 2025 by month (UTC); balances = `asset.query`.',
    a
      ? `Actual = @actual-app/api ${a.version} on the same ${records(a.records)} transactions (bench/actual/actual-baseline.mjs).`
      : `Actual: not measured${typeof actual === 'string' ? `: ${actual}` : ' (BENCH_ACTUAL=0)'}.`,
  ];
  notes.push(...caveats(r));
  return [...notes, '', `| figure (${n} records) | PennyPost | ${header} | goal | verdict |`, '|---|---|---|---|---|', ...rows.map(line), ''].join('\n');
}

function bigTable(r: SizeResult, base: SizeResult): string {
  const n = records(r.records);
  const twice = (figure: string, value: number, baseValue: number, ours: string, other: string, unit: string): Row => ({
    figure,
    ours,
    other,
    goal: `≤ 2× the ${records(base.records)} figure (${ms(2 * baseValue)} ${unit})`,
    met: verdict(value, 2 * baseValue),
  });
  const rows: Row[] = [
    { figure: `bulk load, ${n} records`, ours: seconds(r.bulkLoadMs), other: seconds(base.bulkLoadMs), goal: '—', met: null },
    twice(
      `warm: income/expense per month for a year, p50 (${n} records)`,
      r.warmIncomeExpense.p50,
      base.warmIncomeExpense.p50,
      `${ms(r.warmIncomeExpense.p50)} ms (p95 ${ms(r.warmIncomeExpense.p95)})`,
      `${ms(base.warmIncomeExpense.p50)} ms`,
      'ms',
    ),
    twice(
      `warm: all balances, p50 (${n} records)`,
      r.warmBalances.p50,
      base.warmBalances.p50,
      `${ms(r.warmBalances.p50)} ms (p95 ${ms(r.warmBalances.p95)})`,
      `${ms(base.warmBalances.p50)} ms`,
      'ms',
    ),
    twice(
      `cold: process start → first income/expense answer (${n} records)`,
      median(r.coldIncomeExpenseMs),
      median(base.coldIncomeExpenseMs),
      spread(r.coldIncomeExpenseMs, 'ms'),
      `${ms(median(base.coldIncomeExpenseMs))} ms`,
      'ms',
    ),
    twice(
      `cold: process start → balances (${n} records)`,
      median(r.coldBalancesMs),
      median(base.coldBalancesMs),
      spread(r.coldBalancesMs, 'ms'),
      `${ms(median(base.coldBalancesMs))} ms`,
      'ms',
    ),
    {
      figure: `first query after start (income/expense, after the ready line; ${n} records)`,
      ours: spread(r.firstQueryMs, 'ms'),
      other: `${ms(median(base.firstQueryMs))} ms`,
      goal: '—',
      met: null,
    },
    {
      figure: `RSS idle after queries (${n} records)`,
      ours: spread(r.rssIdleMb, 'MB'),
      other: `${mbText(median(base.rssIdleMb))} MB`,
      goal: '≤ 250 MB',
      met: verdict(median(r.rssIdleMb), 250),
    },
    { figure: `disk (${n} records)`, ours: `${r.diskMb.toFixed(1)} MB`, other: `${base.diskMb.toFixed(1)} MB`, goal: '—', met: null },
    {
      figure: `first start after the bulk load → first income/expense answer (${n} records)`,
      ours: `${ms(r.firstStartMs)} ms (the query ${ms(r.firstStartQueryMs)} ms)`,
      other: `${ms(base.firstStartMs)} ms`,
      goal: '—',
      met: null,
    },
  ];
  const notes = [`The same figures with ${n} records (PennyPost only), beside the ${records(base.records)}-record figures of this run.`];
  notes.push(...caveats(r));
  return [...notes, '', `| figure (${n} records) | PennyPost | at ${records(base.records)} | goal | verdict |`, '|---|---|---|---|---|', ...rows.map(line), ''].join('\n');
}

async function main(): Promise<void> {
  // The compiled server as `npm run serve` runs it; one throwaway start writes V8's code cache.
  await (buildServer as () => Promise<void>)();
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'pennypost-bench-lifetime-'));
  try {
    await (await start(mkdtempSync(path.join(scratch, 'warm-up-')))).stop();
    log('RSS idle with an empty data dir ×3…');
    const emptyRss = await emptyIdleRss(scratch);
    let base: SizeResult | null = null;
    for (const count of SIZES) {
      const load = loadAverage();
      const result = await measurePennyPost(count, scratch);
      if (!base) {
        base = result;
        const actual = ACTUAL ? await measureActualBaseline(count) : null;
        process.stdout.write(baseTable(result, emptyRss, actual, load) + '\n');
      } else {
        process.stdout.write(bigTable(result, base) + '\n');
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
}
// Actual's API or a stopped server may leave a handle open; the tables are written (pipes and files synchronously).
process.exit();
