/**
 * Actual Budget's Node API (@actual-app/api, pinned in bench/actual/package.json) on the synthetic
 * ledger of the lifetime benchmark, so that PennyPost's figures can be printed beside Actual's.
 *
 * Every figure comes from a child process (actual-child.mjs) that this module spawns: a start is
 * timed from before the spawn until the child's answer line arrives, so it holds Node's start, the
 * API's import and init, loadBudget and the query. The budget is imported once per dataset into
 * `<cacheDir>/actual-<records>-<hash>/` and reused while its meta.json says the import completed.
 * Each answer is checked against the dataset itself; a wrong answer throws.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CHILD = path.join(HERE, 'actual-child.mjs');
const API_PACKAGE = path.join(HERE, 'node_modules', '@actual-app', 'api', 'package.json');
/** better-sqlite3's native build: missing when an install skipped its build script. */
const SQLITE_ADDON = path.join(HERE, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
const MARK = '@@actual-bench ';
const IDLE_MS = 3000;
/** Longest wait for one answer of a child (the import of 100,000 transactions takes 1.5–2 min). */
const CHILD_TIMEOUT_MS = 15 * 60_000;

/** @typedef {import('./actual-figures.ts').ActualFigures} ActualFigures */
/** @typedef {import('./actual-figures.ts').MeasureActualOptions} MeasureOptions */
/** @typedef {{ budgetId: string, bulkLoadSeconds: number, records: number, version: string, complete: boolean }} CacheMeta */
/** @typedef {{ kind: string, data: any, atMs: number }} Marker */

/** Installs bench/actual/node_modules with `npm ci --no-audit --no-fund` (cwd bench/actual) when @actual-app/api (or its better-sqlite3 build) is missing. */
export async function ensureActualInstalled() {
  if (existsSync(API_PACKAGE) && existsSync(SQLITE_ADDON)) return;
  // npm's output goes to stderr: stdout belongs to whoever prints the benchmark's tables.
  const child = spawn('npm', ['ci', '--no-audit', '--no-fund'], { cwd: HERE, stdio: ['ignore', 2, 2] });
  const code = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`npm ci in ${HERE} exited with ${String(code)}`);
  if (!existsSync(API_PACKAGE) || !existsSync(SQLITE_ADDON)) throw new Error(`npm ci in ${HERE} installed no @actual-app/api or built no better-sqlite3`);
}

/** Children still running: killed if this process exits before it stopped them. */
const running = new Set();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * A running actual-child.mjs: `next(kind)` waits for its next marker line of that kind, timed in ms
 * from just before the spawn.
 * @param {string[]} args
 */
function startChild(args) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [CHILD, ...args], { cwd: HERE, stdio: ['pipe', 'pipe', 'pipe'] });
  // A child that ended by itself (seed, warm) may have closed its stdin before stop() ends it.
  child.stdin.on('error', () => {});
  running.add(child);
  let stderr = '';
  child.stderr.on('data', (/** @type {Buffer} */ chunk) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  /** @type {Marker[]} */
  const arrived = [];
  /** @type {(() => void) | null} */
  let wake = null;
  createInterface({ input: child.stdout }).on('line', (line) => {
    const at = line.indexOf(MARK);
    if (at < 0) return;
    const rest = line.slice(at + MARK.length);
    const space = rest.indexOf(' ');
    try {
      arrived.push({ kind: rest.slice(0, space), data: JSON.parse(rest.slice(space + 1)), atMs: performance.now() - t0 });
    } catch {
      stderr += `\nunreadable line on stdout: ${line}`;
    }
    wake?.();
  });
  // 'close', not 'exit': the child's last lines are read by then.
  let closed = false;
  /** @type {Promise<number | null>} */
  const exited = new Promise((resolve) =>
    child.once('close', (code) => {
      closed = true;
      running.delete(child);
      resolve(code);
      wake?.();
    }),
  );
  const failure = () => new Error(`actual-child ${args[0]} failed (exit ${String(child.exitCode)}): ${stderr.trim().split('\n').slice(-8).join('\n')}`);

  return {
    pid: /** @type {number} */ (child.pid),
    /** @param {string} kind @returns {Promise<Marker>} */
    async next(kind) {
      const deadline = Date.now() + CHILD_TIMEOUT_MS;
      for (;;) {
        const index = arrived.findIndex((m) => m.kind === kind);
        if (index >= 0) return arrived.splice(index, 1)[0];
        if (closed) throw failure();
        if (Date.now() > deadline) {
          child.kill('SIGKILL');
          throw new Error(`actual-child ${args[0]}: no ${kind} within ${CHILD_TIMEOUT_MS / 60_000} min`);
        }
        await new Promise((resolve) => {
          wake = () => resolve(undefined);
          setTimeout(wake, 1000);
        });
        wake = null;
      }
    },
    /** Ends a child that is still running (after a failure): it must not outlive the measurement. */
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
    /** Closes the child's stdin (its signal to shut down) and waits for a clean exit. */
    async stop() {
      child.stdin.end();
      const code = await exited;
      if (code !== 0) throw failure();
    },
  };
}

/** @param {number} pid @returns {number} VmRSS in MB, NaN where there is no /proc */
function rssMb(pid) {
  try {
    const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return Math.round((kb / 1024) * 10) / 10;
  } catch {
    return NaN;
  }
}

/**
 * Runs `use` on a new child; a child that is still running when `use` fails is killed.
 * @template T
 * @param {string[]} args
 * @param {(child: ReturnType<typeof startChild>) => Promise<T>} use
 * @returns {Promise<T>}
 */
async function withChild(args, use) {
  const child = startChild(args);
  try {
    return await use(child);
  } finally {
    child.kill();
  }
}

/** @param {string} dir @returns {number} bytes of every file under dir */
function bytesOf(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += bytesOf(full);
    else if (entry.isFile()) total += statSync(full).size;
  }
  return total;
}

/** @param {number[]} samples */
function p50(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(0.5 * sorted.length))];
}

/**
 * What the answers must be, computed straight from the dataset (dates in UTC, minor units).
 * @param {any} dataset
 * @param {number} year
 */
function expectedAnswers(dataset, year) {
  const months = Array.from({ length: 12 }, (_, i) => ({ month: `${year}-${String(i + 1).padStart(2, '0')}`, income: 0, expense: 0 }));
  /** @type {Map<string, number>} */
  const balance = new Map(dataset.accounts.map((/** @type {any} */ a) => [a.id, a.openingBalance]));
  for (const t of dataset.transactions) {
    balance.set(t.account, /** @type {number} */ (balance.get(t.account)) + (t.type === 'income' ? t.amount : -t.amount));
    const d = new Date(t.date);
    if (d.getUTCFullYear() !== year) continue;
    const m = months[d.getUTCMonth()];
    if (t.type === 'income') m.income += t.amount;
    else m.expense += t.amount;
  }
  const balances = dataset.accounts.map((/** @type {any} */ a) => ({ name: a.name, balance: balance.get(a.id) }));
  return { months: JSON.stringify(months), balances: JSON.stringify(balances) };
}

/**
 * @param {string} what
 * @param {unknown} answered
 * @param {string} expected
 */
function check(what, answered, expected) {
  if (JSON.stringify(answered) !== expected) throw new Error(`Actual answered ${what} differently from the dataset: ${JSON.stringify(answered)} vs ${expected}`);
}

/**
 * The cached budget of this dataset, imported first when there is none (or an unfinished one).
 * @param {string} datasetFile
 * @param {string} dir
 * @param {string} version
 * @param {(line: string) => void} log
 * @returns {Promise<CacheMeta & { cached: boolean }>}
 */
async function cachedBudget(datasetFile, dir, version, log) {
  const metaFile = path.join(dir, 'meta.json');
  if (existsSync(metaFile)) {
    const meta = /** @type {CacheMeta} */ (JSON.parse(readFileSync(metaFile, 'utf8')));
    if (meta.complete && meta.version === version && existsSync(path.join(dir, 'budgets', meta.budgetId))) return { ...meta, cached: true };
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, 'budgets'), { recursive: true });
  log(`importing ${datasetFile} into a new budget (${dir})…`);
  const { data } = await withChild(['seed', datasetFile, path.join(dir, 'budgets')], async (child) => {
    const seeded = await child.next('SEEDED');
    await child.stop();
    return seeded;
  });
  /** @type {CacheMeta} */
  const meta = { budgetId: data.budgetId, bulkLoadSeconds: data.seconds, records: data.records, version, complete: true };
  writeFileSync(metaFile, JSON.stringify(meta, null, 2) + '\n');
  log(`imported ${meta.records} transactions in ${meta.bulkLoadSeconds.toFixed(1)} s`);
  return { ...meta, cached: false };
}

/**
 * @param {MeasureOptions} options
 * @returns {Promise<ActualFigures>}
 */
export async function measureActual(options) {
  const { starts, warmRuns, year } = options;
  // The children run in bench/actual: paths handed to them must not depend on the caller's cwd.
  const datasetFile = path.resolve(options.datasetFile);
  const cacheDir = path.resolve(options.cacheDir);
  const log = options.log ?? (() => {});
  await ensureActualInstalled();
  const version = /** @type {{ version: string }} */ (JSON.parse(readFileSync(API_PACKAGE, 'utf8'))).version;

  const bytes = readFileSync(datasetFile);
  const dataset = JSON.parse(bytes.toString('utf8'));
  const expected = expectedAnswers(dataset, year);
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 12);
  const dir = path.join(cacheDir, `actual-${dataset.transactions.length}-${hash}`);
  const budget = await cachedBudget(datasetFile, dir, version, log);
  if (budget.records !== dataset.transactions.length) throw new Error(`the budget holds ${budget.records} transactions, the dataset ${dataset.transactions.length}`);
  const dataDir = path.join(dir, 'budgets');

  /** @type {ActualFigures} */
  const figures = {
    version,
    records: budget.records,
    bulkLoadSeconds: budget.bulkLoadSeconds,
    bulkLoadCached: budget.cached,
    coldIncomeExpenseMs: [],
    coldBalancesMs: [],
    firstQueryMs: [],
    warmIncomeExpenseP50Ms: NaN,
    warmBalancesP50Ms: NaN,
    rssIdleMb: [],
    diskMb: NaN,
  };
  /** @type {{ importedAtMs: number, initMs: number, loadMs: number }[]} */
  const phases = [];
  for (let i = 0; i < starts; i++) {
    await withChild(['cold-ie', dataDir, budget.budgetId, String(year)], async (child) => {
      const answer = await child.next('ANSWER');
      check(`income/expense of ${year}`, answer.data.months, expected.months);
      figures.coldIncomeExpenseMs.push(answer.atMs);
      figures.firstQueryMs.push(answer.data.firstQueryMs);
      phases.push(answer.data.phases);
      await child.next('IDLE');
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      figures.rssIdleMb.push(rssMb(child.pid));
      await child.stop();
    });
  }
  for (let i = 0; i < starts; i++) {
    await withChild(['cold-bal', dataDir, budget.budgetId], async (child) => {
      const answer = await child.next('ANSWER');
      check('the balances', answer.data.balances, expected.balances);
      figures.coldBalancesMs.push(answer.atMs);
      await child.stop();
    });
  }
  const round = (/** @type {number[]} */ values) => values.map((n) => n.toFixed(0)).join(', ');
  log(`cold income/expense ${round(figures.coldIncomeExpenseMs)} ms; balances ${round(figures.coldBalancesMs)} ms; RSS ${figures.rssIdleMb.join(', ')} MB`);
  const phase = (/** @type {(p: (typeof phases)[number]) => number} */ pick) => p50(phases.map(pick)).toFixed(0);
  log(
    `cold income/expense, p50 of the child's own clock: node start + import of the API ${phase((p) => p.importedAtMs)} ms, init ${phase((p) => p.initMs)} ms, loadBudget ${phase((p) => p.loadMs)} ms, query ${p50(figures.firstQueryMs).toFixed(0)} ms`,
  );

  const { data } = await withChild(['warm', dataDir, budget.budgetId, String(year), String(warmRuns)], async (child) => {
    const warm = await child.next('WARM');
    await child.stop();
    return warm;
  });
  figures.warmIncomeExpenseP50Ms = p50(data.incomeExpenseMs);
  figures.warmBalancesP50Ms = p50(data.balancesMs);
  figures.diskMb = Math.round((bytesOf(path.join(dataDir, budget.budgetId)) / 1024 ** 2) * 10) / 10;
  log(`warm income/expense p50 ${figures.warmIncomeExpenseP50Ms.toFixed(2)} ms, balances p50 ${figures.warmBalancesP50Ms.toFixed(2)} ms; disk ${figures.diskMb} MB`);
  return figures;
}
