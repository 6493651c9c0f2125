/**
 * Storage benchmark: PennyPost's LevelDB RxStorage against RxDB's memory storage, same run,
 * same 100k realistic accounting records, both through RxDB collections wrapped in ajv
 * validation (as the app uses them). Run with `npm run bench:storage`.
 * BENCH_DOCS=20000 npm run bench:storage   runs a smaller data set.
 */
import { spawn } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { createRxDatabase, normalizeMangoQuery, prepareQuery, type MangoQuery, type RxCollection } from 'rxdb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { wrappedValidateAjvStorage } from 'rxdb/plugins/validate-ajv';
import { levelDirOf, openDatabase } from '../../server/db/database';
import { DATE_MIN, makeRecords, recordSchema, seededRandom, tempDir, type AccountRecord } from '../../server/db/tests/fixtures';
import { columnWidths, median, padCells } from '../lib';

const DOCS = Number(process.env.BENCH_DOCS ?? 100_000);
const USERS = 10;
const BATCH = 1000;
const RUNS = 20;

interface Result {
  insertMs: number;
  rangeP50: number;
  rangeStorageP50: number;
  countP50: number;
  countResult: number;
  scanP50: number;
  scanResults: number;
}

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now();
  const value = await fn();
  return [performance.now() - t, value];
}

function dirSize(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    total += entry.isDirectory() ? dirSize(p) : statSync(p).size;
  }
  return total;
}

const datesByUser = new WeakMap<AccountRecord[], Map<string, number[]>>();

/** Start dates of range queries that have at least 1,000 later records of that user (any BENCH_DOCS). */
function rangeStarts(records: AccountRecord[], seed: number): Array<{ userId: string; from: number }> {
  let byUser = datesByUser.get(records);
  if (!byUser) {
    byUser = new Map();
    for (const r of records) {
      let dates = byUser.get(r.userId);
      if (!dates) byUser.set(r.userId, (dates = []));
      dates.push(r.date);
    }
    for (const dates of byUser.values()) dates.sort((a, b) => a - b);
    datesByUser.set(records, byUser);
  }
  const rand = seededRandom(seed);
  const out = [];
  for (let i = 0; i < RUNS; i++) {
    const userId = `user-${Math.floor(rand() * USERS)}`;
    const dates = byUser.get(userId) ?? [];
    // A date with at least 1,000 of the user's records from it on (the first half at 100k documents).
    const last = Math.max(0, Math.min(dates.length - 1000, Math.floor(dates.length / 2)));
    const from = dates[Math.floor(rand() * last)] ?? DATE_MIN;
    out.push({ userId, from });
  }
  return out;
}

async function insertAll(records: RxCollection<AccountRecord>, data: AccountRecord[]): Promise<number> {
  const [insertMs] = await timed(async () => {
    for (let i = 0; i < data.length; i += BATCH) {
      const res = await records.bulkInsert(data.slice(i, i + BATCH));
      if (res.error.length) throw new Error(`insert failed: ${res.error.length} errors`);
    }
  });
  return insertMs;
}

async function runQueries(records: RxCollection<AccountRecord>, data: AccountRecord[]): Promise<Omit<Result, 'insertMs'>> {
  // Warm-up (JIT, caches) with ranges that are not measured below.
  for (const { userId, from } of rangeStarts(data, 99).slice(0, 5)) {
    await records.find({ selector: { userId, date: { $gte: from } }, sort: [{ date: 'asc' }], limit: 1000 }).exec();
  }
  // Different ranges each run, so RxDB's query cache never answers instead of the storage.
  const rangeTimes: number[] = [];
  for (const { userId, from } of rangeStarts(data, 1)) {
    const [ms, docs] = await timed(() => records.find({ selector: { userId, date: { $gte: from } }, sort: [{ date: 'asc' }], limit: 1000 }).exec());
    if (docs.length !== 1000) throw new Error(`range query returned ${docs.length}`);
    rangeTimes.push(ms);
  }
  const schema = records.storageInstance.schema;
  const storageTimes: number[] = [];
  for (const { userId, from } of rangeStarts(data, 2)) {
    const q = { selector: { userId, date: { $gte: from }, _deleted: { $eq: false } }, sort: [{ date: 'asc' }], limit: 1000 } as MangoQuery;
    const [ms, res] = await timed(() => records.storageInstance.query(prepareQuery(schema, normalizeMangoQuery(schema as any, q))));
    if (res.documents.length !== 1000) throw new Error(`storage range query returned ${res.documents.length}`);
    storageTimes.push(ms);
  }
  const countTimes: number[] = [];
  let countResult = 0;
  for (const { userId, from } of rangeStarts(data, 3)) {
    const to = from + 365 * 86_400_000;
    const [ms, n] = await timed(() => records.count({ selector: { userId, date: { $gte: from, $lt: to } } }).exec());
    countTimes.push(ms);
    countResult = n;
  }
  const scanTimes: number[] = [];
  let scanResults = 0;
  for (let i = 0; i < 5; i++) {
    // Non-indexed field: every document is examined.
    const [ms, docs] = await timed(() => records.find({ selector: { amount: { $gte: 499_000 - i } } }).exec());
    scanTimes.push(ms);
    scanResults = docs.length;
  }
  return {
    rangeP50: median(rangeTimes),
    rangeStorageP50: median(storageTimes),
    countP50: median(countTimes),
    countResult,
    scanP50: median(scanTimes),
    scanResults,
  };
}

function coldOpen(dataDir: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'cold-open-child.ts'), dataDir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`cold-open child exited ${String(code)}`))));
  });
}

async function fsyncCost(sync: boolean): Promise<number> {
  const dir = tempDir('pennypost-bench-fsync-');
  try {
    const db = await openDatabase({ dataDir: dir, collections: [{ name: 'records', schema: recordSchema }], sync });
    const data = makeRecords(300, 9);
    const records = db.collection<AccountRecord>('records');
    const [ms] = await timed(async () => {
      for (const r of data) await records.insert(r);
    });
    await db.close();
    return ms / data.length;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 2 : 0)} ms`);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function main() {
  console.log(`Generating ${DOCS.toLocaleString('en')} records (${USERS} users, 5 years)...`);
  const data = makeRecords(DOCS, 2026, USERS);

  const dataDir = tempDir('pennypost-bench-');
  let level: Result;
  let cold: any;
  let disk: number;
  try {
    console.log('LevelDB storage: insert...');
    const collections = [{ name: 'records', schema: recordSchema }];
    let db = await openDatabase({ dataDir, collections });
    const insertMs = await insertAll(db.collection<AccountRecord>('records'), data);
    await db.close();
    disk = dirSize(levelDirOf(dataDir));
    console.log('cold open in a fresh process...');
    const colds = [];
    for (let i = 0; i < 3; i++) colds.push(await coldOpen(dataDir));
    cold = colds.sort((a, b) => a.openToFirstQueryMs - b.openToFirstQueryMs)[1]; // median of 3
    // Queries run on the reopened database, as after an app start; right after a 100k
    // import LevelDB is still compacting in the background and reads are ~2x slower.
    console.log('queries...');
    db = await openDatabase({ dataDir, collections });
    level = { insertMs, ...(await runQueries(db.collection<AccountRecord>('records'), data)) };
    await db.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }

  console.log('memory storage...');
  const rssBefore = process.memoryUsage().rss;
  const mem = await createRxDatabase({
    name: 'benchmem',
    storage: wrappedValidateAjvStorage({ storage: getRxStorageMemory() }),
    multiInstance: false,
    eventReduce: true,
  });
  await mem.addCollections({ records: { schema: recordSchema } });
  const memRecords = mem.records as RxCollection<AccountRecord>;
  const memory = { insertMs: await insertAll(memRecords, data), ...(await runQueries(memRecords, data)) };
  const memRssGrowth = process.memoryUsage().rss - rssBefore;
  await mem.close();

  console.log('fsync cost (300 single inserts)...');
  const perWriteSync = await fsyncCost(true);
  const perWriteNoSync = await fsyncCost(false);

  if (level.countResult !== memory.countResult || level.scanResults !== memory.scanResults) {
    throw new Error('the two storages disagree on results');
  }

  const goal = (ok: boolean) => (ok ? 'met' : 'MISSED');
  const header = ['', 'LevelDB (PennyPost)', 'memory (RxDB)', 'goal', ''];
  const rows: string[][] = [
    [`bulk insert ${DOCS.toLocaleString('en')} (batches of ${BATCH})`, fmt(level.insertMs), fmt(memory.insertMs), '< 5 s', goal(level.insertMs < 5000)],
    ['range query → 1,000 docs, find() p50', fmt(level.rangeP50), fmt(memory.rangeP50), '≤ 2× memory', goal(level.rangeP50 <= 2 * memory.rangeP50)],
    ['range query → 1,000 docs, storage.query p50', fmt(level.rangeStorageP50), fmt(memory.rangeStorageP50), '', ''],
    [`count over a 1-year range (≈${level.countResult}) p50`, fmt(level.countP50), fmt(memory.countP50), '', ''],
    [`full scan, non-indexed filter (${level.scanResults} hits) p50`, fmt(level.scanP50), fmt(memory.scanP50), '', ''],
    ['cold open → first query (fresh process)', fmt(cold.openToFirstQueryMs), 'n/a', '< 300 ms', goal(cold.openToFirstQueryMs < 300)],
    ['  same, counted from process start', fmt(cold.processStartToFirstQueryMs), 'n/a', '', ''],
    ['RSS after cold open + first query', mb(cold.rss), `+${mb(memRssGrowth)} RSS growth in-process`, '< 150 MB', goal(cold.rss < 150 * 1024 * 1024)],
    ['  of which before opening (node + tsx + rxdb loaded)', mb(cold.rssBeforeOpen), '', '', ''],
    ['size on disk', mb(disk), 'n/a', '', ''],
    ['single insert, sync: true (fsync)', fmt(perWriteSync), '', '', ''],
    ['single insert, sync: false', fmt(perWriteNoSync), '', '', ''],
  ];
  const widths = columnWidths([header, ...rows]);
  const line = (r: readonly string[]) => '| ' + padCells(r, widths).join(' | ') + ' |';
  console.log();
  console.log(line(header));
  console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const r of rows) console.log(line(r));
  console.log(`\nnode ${process.version}, ${process.platform}/${process.arch}`);
}

await main();
