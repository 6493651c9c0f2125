import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../../server';
import { createLogger } from '../../lib/logger';
import { startTestServer, tempDataDir } from '../../test-support/test-server';
import { commonErrors } from '../../lib/errors';
import { expectRefusal } from '../../test-support/refusal';
import { openDatabase } from '../database';
import { DatabaseDamagedError } from '../integrity';
import { enforceDataDirPrivacy } from '../data-dir-privacy';
import { recordsCollection } from '../../ledger/schema';
import { flipInsideCollection, flipMiddle, inventory, levelFiles, seedDataDir, writeAheadLog } from './damage';

/**
 * Issue 15, findings 1–5: PennyPost never starts over existing data, notices damage at the open,
 * answers requests that meet damaged data with a 503 naming the damage, explains why it cannot
 * start, and keeps the data dir private. Real LevelDB files on disk, real servers.
 */

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

async function seed(records: number, restarts = 0) {
  const seeded = await seedDataDir(records, { restarts });
  made.push(seeded.dataDir);
  return seeded;
}

const start = (dataDir: string) => startServer({ dataDir, port: 0, host: '127.0.0.1', logger: createLogger('silent') });

async function refusal(dataDir: string): Promise<Error> {
  const error = await start(dataDir).then(
    async (server) => {
      await server.close();
      return null;
    },
    (e: unknown) => e as Error,
  );
  if (!error) throw new Error('the server started on a damaged data dir');
  return error;
}

async function signIn(t: Awaited<ReturnType<typeof startTestServer>>, email: string, password: string): Promise<string> {
  const answer = await t.api('user.login', { email, password });
  if (answer.code !== 200) throw new Error(`login: ${answer.code} ${answer.message}`);
  return answer.data.token as string;
}

describe('opening a data dir', () => {
  it('a brand-new data dir, and one with an empty db folder, open normally', async () => {
    const fresh = path.join(tempDataDir('fresh'), 'new');
    made.push(path.dirname(fresh));
    const db = await openDatabase({ dataDir: fresh, collections: [] });
    await db.close();
    const empty = tempDataDir('emptydb');
    made.push(empty);
    mkdirSync(path.join(empty, 'db'));
    const db2 = await openDatabase({ dataDir: empty, collections: [] });
    await db2.close();
    expect(readdirSync(path.join(empty, 'db'))).toContain('CURRENT');
  });

  it('finding 1: a missing db/CURRENT is refused with the folder, the cause and the remedy, and nothing is deleted', async () => {
    const seeded = await seed(5);
    unlinkSync(path.join(seeded.dataDir, 'db', 'CURRENT'));
    const before = inventory(seeded.dataDir);
    expect(Object.keys(before).some((f) => /\.(ldb|log)$/.test(f))).toBe(true);
    const error = await refusal(seeded.dataDir);
    expect(error).toBeInstanceOf(DatabaseDamagedError);
    expect(error.message).toContain(path.join(seeded.dataDir, 'db'));
    expect(error.message).toMatch(/CURRENT is missing/);
    expect(error.message).toContain(`pennypost repair --data-dir ${seeded.dataDir}`);
    expect(inventory(seeded.dataDir)).toEqual(before);
    // Twice: the first refusal left nothing behind that makes the second open "succeed".
    expect(await refusal(seeded.dataDir)).toBeInstanceOf(DatabaseDamagedError);
    expect(inventory(seeded.dataDir)).toEqual(before);
  });

  it('finding 4: a deleted MANIFEST is refused with the folder, the cause and the remedy', async () => {
    const seeded = await seed(3);
    for (const manifest of levelFiles(seeded.dataDir, /^MANIFEST-/)) unlinkSync(manifest);
    const before = inventory(seeded.dataDir);
    const error = await refusal(seeded.dataDir);
    expect(error.message).toContain(path.join(seeded.dataDir, 'db'));
    expect(error.message).toMatch(/MANIFEST named by CURRENT \(MANIFEST-\d+, the list of table files\) is missing/);
    expect(error.message).toContain(`pennypost repair --data-dir ${seeded.dataDir}`);
    expect(error.message).not.toMatch(/^Database failed to open$/);
    expect(inventory(seeded.dataDir)).toEqual(before);
  });

  it('finding 2: 64 flipped bytes in the middle of the log are refused before LevelDB drops acknowledged records', async () => {
    const seeded = await seed(50);
    const log = writeAheadLog(seeded.dataDir);
    expect(statSync(log).size).toBeGreaterThan(64 * 1024);
    flipMiddle(log, 64);
    const before = inventory(seeded.dataDir);
    const error = await refusal(seeded.dataDir);
    expect(error).toBeInstanceOf(DatabaseDamagedError);
    expect(error.message).toMatch(/write-ahead log is damaged \(\d+\.log: \d+ bytes at offset \d+ unreadable/);
    expect(error.message).toMatch(/silently drop records that were saved and acknowledged/);
    expect(error.message).toContain(`pennypost repair --data-dir ${seeded.dataDir}`);
    // The damaged log is still there, as it was: LevelDB never replayed (and deleted) it.
    expect(inventory(seeded.dataDir)).toEqual(before);
  });

  it('a log cut off in its last record (the write in flight at a crash, never acknowledged) still opens', async () => {
    const seeded = await seed(10);
    const log = writeAheadLog(seeded.dataDir);
    const size = statSync(log).size;
    const { truncateSync } = await import('node:fs');
    truncateSync(log, size - 100);
    const t = await startTestServer({ dataDir: seeded.dataDir, logger: createLogger('silent') });
    try {
      const token = await signIn(t, seeded.email, seeded.password);
      const records = await t.api('accounting.query', { pageSize: 100 }, token);
      expect(records.code).toBe(200);
      // Every income is there unless the cut reached the last one (the log ends with session writes).
      expect(records.data.total).toBeGreaterThanOrEqual(9);
    } finally {
      await t.close(true);
    }
  });
});

describe('finding 3: damaged table files met by requests', () => {
  it('answers 503 naming the damage and the remedy, never 500', async () => {
    const seeded = await seed(120, 1); // the restart turns the log into a table file
    const table = await flipInsideCollection(seeded.dataDir, 'records', recordsCollection.schema.version, 100);
    expect(statSync(table).size).toBeGreaterThan(16 * 1024);
    const t = await startTestServer({ dataDir: seeded.dataDir, logger: createLogger('silent') });
    try {
      const token = await signIn(t, seeded.email, seeded.password);
      for (const [action, params] of [
        ['accounting.query', { pageSize: 200 }],
        ['asset.checkBalances', {}],
        ['accounting.create', { type: 'income', amount: 1, asset: seeded.assetId }],
      ] as const) {
        const answer = await t.api(action, params, token);
        if (action === 'accounting.create' && answer.code === 200) continue; // a write need not touch the damaged block
        expectRefusal(answer, commonErrors.rows.unavailable, { label: action });
        expect(answer.message).toMatch(/database on disk is damaged/);
        expect(answer.message).toMatch(/pennypost repair --data-dir/);
        expect(answer.data).toEqual({ storage: 'damaged' });
      }
    } finally {
      await t.close(true);
    }
  });
});

describe('finding 3, silent form: a stored document whose bytes were garbled', () => {
  it('answers 503 damaged, not 500 (LevelDB reads without checksums; the JSON is what breaks)', async () => {
    const seeded = await seed(3);
    const { ClassicLevel } = await import('classic-level');
    const { collectionPrefix, docPrefix, encodeKey, prefixEnd } = await import('../leveldb-storage/keys');
    const level = new ClassicLevel<Buffer, string>(path.join(seeded.dataDir, 'db'), { keyEncoding: 'buffer', createIfMissing: false });
    await level.open();
    const prefix = docPrefix(collectionPrefix('pennypost', 'records', recordsCollection.schema.version));
    const [key] = await level.keys({ gte: encodeKey(prefix), lt: encodeKey(prefixEnd(prefix)), limit: 1 }).all();
    if (!key) throw new Error('no record stored');
    const raw = (await level.get(key))!;
    await level.put(key, raw.slice(0, 40) + '\u0000garbled' + raw.slice(48), { sync: true });
    await level.close();
    const t = await startTestServer({ dataDir: seeded.dataDir, logger: createLogger('silent') });
    try {
      const token = await signIn(t, seeded.email, seeded.password);
      const answer = await t.api('accounting.query', {}, token);
      expectRefusal(answer, commonErrors.rows.unavailable);
      expect(answer.data).toEqual({ storage: 'damaged' });
    } finally {
      await t.close(true);
    }
  });
});

describe('finding 5: the data dir is private', () => {
  it('a 0755 data dir with 0644 files becomes 0700 with 0600 files at start, and the change is logged once', async () => {
    const dataDir = tempDataDir('modes');
    made.push(dataDir);
    await (await startTestServer({ dataDir })).close(true);
    mkdirSync(path.join(dataDir, 'extra', 'deep'), { recursive: true });
    writeFileSync(path.join(dataDir, 'extra', 'deep', 'note.txt'), 'x');
    const loosen = (dir: string) => {
      chmodSync(dir, 0o755);
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) loosen(full);
        else chmodSync(full, 0o644);
      }
    };
    loosen(dataDir);
    const lines: string[] = [];
    const server = await startServer({ dataDir, port: 0, host: '127.0.0.1', logger: createLogger('info', (line) => lines.push(line)) });
    await server.close();
    const modes: string[] = [];
    const walk = (dir: string) => {
      modes.push(`${path.relative(dataDir, dir) || '.'} ${(statSync(dir).mode & 0o777).toString(8)}`);
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else modes.push(`${path.relative(dataDir, full)} ${(statSync(full).mode & 0o777).toString(8)}`);
      }
    };
    walk(dataDir);
    const loose = modes.filter((m) => !/ (700|600)$/.test(m));
    expect(loose).toEqual([]);
    expect(modes).toContain('extra/deep/note.txt 600');
    expect(modes).toContain('db 700');
    const logged = lines.filter((l) => l.includes('made private'));
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0]!).paths).toContain('.');
    // Already private: nothing to tighten, nothing logged.
    expect(enforceDataDirPrivacy(dataDir)).toEqual([]);
    expect(existsSync(dataDir)).toBe(true);
  });
});
