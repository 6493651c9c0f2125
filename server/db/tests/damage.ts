import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { itemAt } from '../../lib/item-at';
import { registerUser, startTestServer, tempDataDir } from '../../test-support/test-server';

/** Helpers for the storage-damage tests: a data dir with real records, and byte flips. */

export interface SeededDataDir {
  dataDir: string;
  email: string;
  password: string;
  assetId: string;
  balance: number;
  records: number;
}

/**
 * A data dir written through a real server: one user, one cash asset, `records` incomes
 * (each acknowledged). `restarts` extra start/stop cycles turn the log into a table file.
 */
export async function seedDataDir(records: number, { restarts = 0, label = 'damage' } = {}): Promise<SeededDataDir> {
  const dataDir = tempDataDir(label);
  const t = await startTestServer({ dataDir });
  const user = await registerUser(t);
  const asset = await t.api('asset.create', { name: 'Cash', type: 'cash', currency: 'USD', balance: 100 }, user.token);
  if (asset.code !== 200) throw new Error(`asset.create: ${asset.message}`);
  let balance = 10_000;
  for (let i = 0; i < records; i++) {
    const amount = i + 1;
    const answer = await t.api(
      'accounting.create',
      { type: 'income', amount, asset: asset.data.id, category: 'Salary', description: `payment ${i} `.padEnd(300, 'x') },
      user.token,
    );
    if (answer.code !== 200) throw new Error(`accounting.create: ${answer.message}`);
    balance += amount * 100;
  }
  await t.close(true);
  for (let i = 0; i < restarts; i++) await (await startTestServer({ dataDir })).close(true);
  return { dataDir, email: user.email, password: user.password, assetId: asset.data.id, balance, records };
}

export function levelFiles(dataDir: string, pattern: RegExp): string[] {
  const dir = path.join(dataDir, 'db');
  return readdirSync(dir)
    .filter((name) => pattern.test(name))
    .map((name) => path.join(dir, name));
}

/** The data dir's write-ahead log (the first `*.log` of db/); throws when there is none. */
export function writeAheadLog(dataDir: string): string {
  const [log] = levelFiles(dataDir, /\.log$/);
  if (log === undefined) throw new Error(`no write-ahead log in ${dataDir}`);
  return log;
}

/**
 * XORs `count` bytes with 0xff in the middle of a file — in a write-ahead log seeded by
 * seedDataDir, across the record written halfway (found by its description), so that the damage
 * always hits a record whatever the size of the documents around it.
 */
export function flipMiddle(file: string, count: number): void {
  const bytes = readFileSync(file);
  // Across the structure of that record's JSON (its "date" field), not inside a string, where
  // flipped bytes would leave a parseable document with other text.
  const record = bytes.indexOf('payment 25 ');
  const marker = record >= 0 ? bytes.indexOf('"date":', record) : -1;
  const middle = marker >= 0 ? marker + Math.floor(count / 2) : Math.floor(bytes.length / 2);
  flipBytes(bytes, middle - Math.floor(count / 2), count);
  writeFileSync(file, bytes);
}

/** XORs bytes [start, start + count) with 0xff; all of them must be in the file (a flip past its end would damage nothing). */
function flipBytes(bytes: Buffer, start: number, count: number): void {
  if (start < 0 || start + count > bytes.length) throw new Error(`cannot flip bytes ${start} to ${start + count} of a file of ${bytes.length}`);
  const stretch = bytes.subarray(start, start + count);
  for (const [i, byte] of stretch.entries()) stretch[i] = byte ^ 0xff;
}

/** Every file under the data dir with its size (what "nothing deleted" is checked against). */
export function inventory(dataDir: string): Record<string, number> {
  const out: Record<string, number> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else out[path.relative(dataDir, full)] = statSync(full).size;
    }
  };
  walk(dataDir);
  return out;
}

/**
 * Flips `count` bytes inside the table block that holds the middle document of `collection`
 * (found with LevelDB's own block offsets, approximateSize), so requests reading that
 * collection meet the damage. The data dir must be closed and its data in one table file.
 */
export async function flipInsideCollection(dataDir: string, collection: string, schemaVersion: number, count: number): Promise<string> {
  const { ClassicLevel } = await import('classic-level');
  const { DATABASE_NAME } = await import('../database');
  const { collectionPrefix, docPrefix, encodeKey, prefixEnd } = await import('../leveldb-storage/keys');
  const [table, ...others] = levelFiles(dataDir, /\.ldb$/);
  if (!table || others.length > 0) throw new Error('expected exactly one table file');
  const level = new ClassicLevel<Buffer, string>(path.join(dataDir, 'db'), { keyEncoding: 'buffer', createIfMissing: false });
  await level.open();
  let offset: number;
  try {
    const prefix = docPrefix(collectionPrefix(DATABASE_NAME, collection, schemaVersion));
    const keys: Buffer[] = [];
    for await (const key of level.keys({ gte: encodeKey(prefix), lt: encodeKey(prefixEnd(prefix)) })) keys.push(key);
    if (keys.length === 0) throw new Error(`no ${collection} documents`);
    offset = await level.approximateSize(Buffer.from([0]), itemAt(keys, keys.length >> 1));
  } finally {
    await level.close();
  }
  const bytes = readFileSync(table);
  flipBytes(bytes, offset + 16, count);
  writeFileSync(table, bytes);
  return table;
}
