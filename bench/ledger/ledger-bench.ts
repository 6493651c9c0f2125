/**
 * npm run bench:ledger — the ledger through HTTP with 100,000 records over 5 years and 10 assets
 * for one user. Prints one table (p50/p95/p99 per operation) and the goals of issues 4 and 19 (search);
 * then the recurring scheduler's tick with 1,000 rules (issue 21, scheduler-bench.ts).
 * Seeding writes the records straight into the collection (through RxDB, like sync would);
 * everything measured goes through POST /api on 127.0.0.1.
 * Then the CSV import (issue 15): a file of BENCH_IMPORT_ROWS rows (default 100,000; 0 skips it)
 * for a second user, sent in parts under the 1 MiB request limit like the UI does: preview, first
 * import, then the same file again (preview and import), which must create nothing.
 * Then statement imports (issue 22, statement-bench.ts): an Alipay bill of 100,000 rows.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '../../server/server';
import { createLogger } from '../../server/lib/logger';
import { BENCH_CATEGORIES, seededRandom, seedSyntheticRecords } from '../../server/test-support/synthetic-records';
import type { RecordDoc } from '../../server/ledger/schema';
import { cycled, percentile, required } from '../lib';
import { budgetBench } from './budget-bench';
import { printSchedulerRows, schedulerBench } from './scheduler-bench';
import { statementImportBench } from './statement-bench';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const YEARS = 5;
const IMPORT_ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000);
/** Characters per request body part, as the UI's splitCsv (renderer/src/screens/settings/split-csv.ts). */
const PART_CHARS = 700_000;

/** A CSV like a bank export: `rows` rows over 5 years, 10 assets, 2 % of rows repeated (same content). */
function syntheticCsv(rows: number, end: number, seed = 7): string {
  const random = seededRandom(seed);
  const start = end - YEARS * 365 * 86_400_000;
  const lines = ['date,type,amount,currency,asset,category,tags,description'];
  let previous = '';
  for (let i = 0; i < rows; i++) {
    if (i > 0 && random() < 0.02) {
      lines.push(previous); // two identical coffees: both are real rows
      continue;
    }
    const date = new Date(Math.floor(start + random() * (end - start))).toISOString().slice(0, 16).replace('T', ' ');
    const income = random() < 0.1;
    const amount = (1 + Math.floor(random() * 50_000) / 100).toFixed(2);
    const category = income ? 'Salary' : cycled(BENCH_CATEGORIES, Math.floor(random() * BENCH_CATEGORIES.length));
    const tags = random() < 0.3 ? 'work' : '';
    previous = `${date},${income ? 'income' : 'expense'},${amount},USD,Asset ${Math.floor(random() * 10)},${category},${tags},"${income ? 'salary' : `shop ${Math.floor(random() * 5000)}, card`}"`;
    lines.push(previous);
  }
  return lines.join('\n');
}

/** Splits at row boundaries into parts of at most PART_CHARS, each with the header (no quoted newlines here). */
function splitParts(csv: string): string[] {
  const [header = '', ...lines] = csv.split('\n');
  const parts: string[] = [];
  let current: string[] = [];
  let size = header.length;
  for (const line of lines) {
    if (size + line.length + 1 > PART_CHARS && current.length > 0) {
      parts.push([header, ...current].join('\n'));
      current = [];
      size = header.length;
    }
    current.push(line);
    size += line.length + 1;
  }
  if (current.length > 0) parts.push([header, ...current].join('\n'));
  return parts;
}

async function call(url: string, token: string, action: string, params: unknown) {
  const res = await fetch(`${url}/api`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ action, params }),
  });
  const body = (await res.json()) as { code: number; message: string; data: any };
  if (body.code !== 200) throw new Error(`${action}: ${body.code} ${body.message}`);
  return body.data;
}

async function measure(runs: number, fn: (i: number) => Promise<unknown>) {
  for (let i = 0; i < 5; i++) await fn(i); // warm-up
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn(i);
    times.push(performance.now() - t0);
  }
  return { p50: percentile(times, 50), p95: percentile(times, 95), p99: percentile(times, 99) };
}

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pennypost-bench-ledger-'));
  // No daily snapshot: after the restart below it would start copying the seeded ledger in the
  // background, and an import waits for a snapshot in progress. The import's own safety snapshot
  // (taken before it writes, finished in the background) is part of what is measured.
  const settings = { rateLimit: { apiPerToken: 10_000_000, authPerAddress: 1000 }, backup: { automatic: false } };
  let server: RunningServer = await startServer({ dataDir, port: 0, logger: createLogger('warn'), settings });
  try {
    const reg = await fetch(`${server.url}/api`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'user.register', params: { username: 'bench', email: 'bench@example.com', password: 'bench-password' } }),
    }).then((r) => r.json() as Promise<{ data: { token: string; id: string } }>);
    let token = reg.data.token;
    const userId = reg.data.id;
    const assets: string[] = [];
    for (let i = 0; i < 10; i++) {
      assets.push((await call(server.url, token, 'asset.create', { name: `Asset ${i}`, type: i === 9 ? 'credit_card' : 'debit_card', currency: 'USD', balance: 10_000_000 })).id);
    }
    const end = Date.UTC(2026, 0, 1);
    const start = end - YEARS * 365 * 86_400_000;
    const t0 = performance.now();
    const records = server.app.db.collection<RecordDoc>('records');
    await seedSyntheticRecords(records, { userId: userId, assets: assets, count: RECORDS, end });
    const seedMs = performance.now() - t0;

    // Restart: the numbers below include the cold load of the per-user view on the first call.
    await server.close();
    server = await startServer({ dataDir, port: 0, logger: createLogger('warn'), settings });
    const url = server.url;
    token = (
      await fetch(`${url}/api`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ action: 'user.login', params: { email: 'bench@example.com', password: 'bench-password' } }),
      }).then((r) => r.json() as Promise<{ data: { token: string } }>)
    ).data.token;
    const c0 = performance.now();
    await call(url, token, 'accounting.query', { page: 1, pageSize: 20 });
    const coldFirstQuery = performance.now() - c0;

    const year = { startDate: Date.UTC(2025, 0, 1), endDate: Date.UTC(2026, 0, 1) };
    const rows: Array<[string, { p50: number; p95: number; p99: number }, number | null]> = [];
    rows.push(['accounting.query first page (20, newest first, totals)', await measure(RUNS, () => call(url, token, 'accounting.query', { page: 1, pageSize: 20 })), 20]);
    rows.push([
      'accounting.query category + text filter',
      await measure(RUNS, () => call(url, token, 'accounting.query', { category: 'Food', text: 'purchase 1', pageSize: 20 })),
      null,
    ]);
    // The search box (issue 19): a different query on every call, so no result is served from the
    // per-filter cache; each scans the whole ledger (or the date span a date term narrows it to).
    const searches: Array<[string, (i: number) => string]> = [
      ['search: free word (notes, categories, tags, assets)', (i) => `purchase ${i % 1000}`],
      ['search: amount >N', (i) => `>${(i * 37) % 5000}`],
      ['search: exact amount', (i) => `${(i * 13) % 900}.${i % 100}`],
      ['search: tag + category word + amount', (i) => `tag:work ${cycled(BENCH_CATEGORIES, i).toLowerCase()} <${100 + i}`],
      ['search: month + word', (i) => `${2021 + (i % 5)}-${String(1 + (i % 12)).padStart(2, '0')} ${i % 10}`],
      ['search: asset name + amount range', (i) => `asset ${i % 10} ${i}..${i + 300}`],
    ];
    for (const [label, make] of searches) {
      rows.push([`accounting.query q ${label}`, await measure(RUNS, (i) => call(url, token, 'accounting.query', { q: make(i), timeZone: 'UTC', pageSize: 100 })), 50]);
    }
    rows.push([
      'stats.getIncomeExpense 1 year, groupBy month',
      await measure(RUNS, () => call(url, token, 'stats.getIncomeExpense', { ...year, groupBy: 'month', timeZone: 'UTC' })),
      50,
    ]);
    rows.push(['stats.getCategoryStats 1 year', await measure(RUNS, () => call(url, token, 'stats.getCategoryStats', { ...year })), null]);
    rows.push([
      'stats.getTrend balance 5 years by month',
      await measure(Math.min(RUNS, 50), () => call(url, token, 'stats.getTrend', { type: 'balance', startDate: start, endDate: end, groupBy: 'month', timeZone: 'UTC' })),
      null,
    ]);
    rows.push(['asset.query with balances', await measure(RUNS, () => call(url, token, 'asset.query', {})), 20]);
    rows.push([
      'accounting.create (expense)',
      await measure(RUNS, (i) => call(url, token, 'accounting.create', { type: 'expense', amount: 1.25, asset: assets[i % 9], category: 'Food', description: 'bench' })),
      10,
    ]);
    // Budgets (issue 21): bench/ledger/budget-bench.ts.
    const recompute = async (month: string) => {
      (await server.app.services.ledger.views.get(userId)).derived.clear();
      return server.app.services.budgets.query(userId, month, 'UTC');
    };
    rows.push(...(await budgetBench((action, params) => call(url, token, action, params), measure, RUNS, required(assets.at(0), 'the first asset'), recompute)));

    const pad = (s: string, n: number) => s.padEnd(n);
    const num = (n: number) => n.toFixed(2).padStart(9);
    console.log(`\nLedger benchmark: ${RECORDS.toLocaleString('en')} records, ${YEARS} years, 10 assets, one user; ${RUNS} sequential HTTP calls each`);
    console.log(`machine: ${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}, node ${process.version}`);
    console.log(
      `seeding ${RECORDS} records (bulkInsert): ${(seedMs / 1000).toFixed(1)} s; cold first accounting.query after restart (loads the view): ${coldFirstQuery.toFixed(0)} ms\n`,
    );
    console.log(`${pad('operation', 72)}  p50 ms    p95 ms    p99 ms   goal p50   met`);
    for (const [name, r, goal] of rows) {
      console.log(
        `${pad(name, 72)}${num(r.p50)} ${num(r.p95)} ${num(r.p99)}   ${goal === null ? '      -' : `< ${String(goal).padStart(3)} ms`}   ${goal === null ? '-' : r.p50 < goal ? 'yes' : 'NO'}`,
      );
    }
    if (IMPORT_ROWS > 0) await importRows(url);
    // Issue 22: statement imports (Alipay bill), bench/ledger/statement-bench.ts.
    await statementImportBench(
      (token, action, params) => call(url, token, action, params),
      async (name) => {
        const answer = await fetch(`${url}/api`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ action: 'user.register', params: { username: name, email: `${name}@example.com`, password: 'bench-password' } }),
        }).then((r) => r.json() as Promise<{ data: { token: string } }>);
        return answer.data.token;
      },
    );
    console.log(`\nRSS after the run: ${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MB`);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  // Issue 21: the recurring scheduler's tick with 1,000 rules (its own server, after this one closed).
  printSchedulerRows(await schedulerBench());
}

/** CSV import of IMPORT_ROWS rows into a fresh user, then the same file again. */
async function importRows(url: string) {
  const reg = await fetch(`${url}/api`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ action: 'user.register', params: { username: 'importer', email: 'importer@example.com', password: 'bench-password' } }),
  }).then((r) => r.json() as Promise<{ data: { token: string } }>);
  const token = reg.data.token;
  for (let i = 0; i < 10; i++) await call(url, token, 'asset.create', { name: `Asset ${i}`, type: 'debit_card', currency: 'USD', balance: 10_000_000 });
  const parts = splitParts(syntheticCsv(IMPORT_ROWS, Date.UTC(2026, 0, 1)));
  const run = async (dryRun: boolean) => {
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const sum = { create: 0, duplicate: 0, invalid: 0 };
    for (const csv of parts) {
      const answer = await call(url, token, 'accounting.importCsv', { csv, dryRun, timeZone: 'UTC', createMissingCategories: true });
      const summary = answer.summary as typeof sum;
      sum.create += summary.create;
      sum.duplicate += summary.duplicate;
      sum.invalid += summary.invalid;
    }
    const cpu = process.cpuUsage(cpu0);
    return { seconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6, ...sum };
  };
  const firstPreview = await run(true);
  const first = await run(false);
  const againPreview = await run(true);
  const again = await run(false);
  const total = (await call(url, token, 'accounting.query', { page: 1, pageSize: 1 })).total as number;
  if (first.create + first.duplicate !== IMPORT_ROWS || first.invalid > 0) throw new Error(`first import: ${JSON.stringify(first)}`);
  if (again.create !== 0 || againPreview.create !== 0 || total !== first.create) throw new Error(`re-import created records: ${JSON.stringify({ againPreview, again, total })}`);

  const goal = IMPORT_ROWS === 100_000 ? 10 : (10 * IMPORT_ROWS) / 100_000; // 10 s per 100,000 rows
  const rows: Array<[string, { seconds: number; cpuSeconds: number; create: number; duplicate: number }, string, boolean | null]> = [
    ['preview (dry run) of a new file', firstPreview, '-', null],
    ['first import', first, `≤ ${goal.toFixed(1)} s`, first.seconds <= goal],
    ['preview (dry run) of the same file again', againPreview, '-', null],
    ['re-import of the same file', again, '≤ first import', again.seconds <= first.seconds],
  ];
  const pad = (s: string, n: number) => s.padEnd(n);
  console.log(
    `\nCSV import: ${IMPORT_ROWS.toLocaleString('en')} rows (${(parts.join('').length / 1e6).toFixed(1)} MB) in ${parts.length} requests of ≤ ${PART_CHARS.toLocaleString('en')} characters, a fresh user with 10 assets`,
  );
  console.log(`${pad('operation', 44)}  seconds   cpu s   created  duplicate   goal              met`);
  for (const [name, r, g, met] of rows) {
    console.log(
      `${pad(name, 44)}${r.seconds.toFixed(2).padStart(9)}${r.cpuSeconds.toFixed(2).padStart(8)} ${String(r.create).padStart(9)} ${String(r.duplicate).padStart(10)}   ${pad(g, 16)}  ${met === null ? '-' : met ? 'met' : 'MISSED'}`,
    );
  }
  console.log('(seconds: wall clock, the goal; cpu s: CPU time of the whole process, server included, all threads)');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
