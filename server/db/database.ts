import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { addRxPlugin, createRxDatabase, type RxCollection, type RxCollectionCreator, type RxDatabase } from 'rxdb';
import { RxDBMigrationSchemaPlugin } from 'rxdb/plugins/migration-schema';
import { assertCollectionBudget, type CollectionDefinition } from './collections';
import { conflictHandlerOf } from './conflict-merge';
import { getRxStorageLevel, openLevel, type LevelDb } from './leveldb-storage';
import { DerivedStore } from './derived-store';
import { LocalStore } from './local-store';
import { healthOf, type HealthOptions, type LevelHealth } from './leveldb-storage/health';
import { damageReportedAtOpen, DatabaseDamagedError, explainOpenFailure, inspectLevelDir } from './integrity';
import { wrappedValidatedStorage } from './validated-storage';

addRxPlugin(RxDBMigrationSchemaPlugin);

/** Thrown when another process (or another open in this one) holds the data dir. */
export class DataDirLockedError extends Error {
  readonly code = 'DATA_DIR_LOCKED';
  constructor(readonly dataDir: string) {
    super(`The data directory ${dataDir} is already in use by another PennyPost process. Close it first, or choose another directory with --data-dir.`);
    this.name = 'DataDirLockedError';
  }
}

export interface OpenDatabaseOptions {
  dataDir: string;
  collections: readonly CollectionDefinition[];
  /** fsync every write (default true). Only benchmarks turn this off, to show its cost. */
  sync?: boolean;
  /** Disk-fault recovery (leveldb-storage/health.ts): cool-down before a reopen, event hook. */
  health?: Pick<HealthOptions, 'coolDownMs' | 'onEvent' | 'probe' | 'now'>;
  /** Runs once LevelDB is open, before RxDB's collections (and their migrations) touch it: the snapshot before an upgrade. */
  beforeCollections?: (level: LevelDb) => Promise<unknown>;
  /**
   * A LevelDB that lives in memory, used instead of the data dir's folder (the in-process test
   * tier, server/test-support/in-process.ts): nothing of the database touches the disk.
   */
  memoryLevel?: () => LevelDb;
}

export interface AppDatabase {
  readonly dataDir: string;
  readonly rx: RxDatabase;
  /** Local-only key/value state outside RxDB (sessions, secrets): never replicated. */
  readonly local: LocalStore;
  /** Rebuildable summaries of the documents (the ledger's saved views): never the only copy of anything. */
  readonly derived: DerivedStore;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- RxDB's own default; callers outside server/db (files, ledger views, tests) use it untyped: name the type there first
  collection<T = any>(name: string): RxCollection<T>;
  /** The collections whose definition is marked `sync` (replicated per user), in definition order. */
  readonly syncedCollections: readonly string[];
  /** Disk-fault state and recovery of the LevelDB handle (degraded, reopens, onEvent). */
  readonly health: LevelHealth;
  /** The LevelDB handle under RxDB (the data tools read it raw: server/data-tools/). */
  readonly level: LevelDb;
  close(): Promise<void>;
}

export const DATABASE_NAME = 'pennypost';

/** Where the LevelDB files live inside a data dir. */
export function levelDirOf(dataDir: string): string {
  return path.join(dataDir, 'db');
}

/**
 * Opens the data dir's LevelDB without ever starting over existing data (server/db/integrity.ts):
 * the folder is inspected first (a used folder without CURRENT/MANIFEST, or a damaged log, is
 * refused with nothing changed), a used folder is opened with createIfMissing off, and damage
 * LevelDB reports in its LOG during this open makes the open fail too.
 */
async function openLevelLocked(dataDir: string): Promise<LevelDb> {
  const levelDir = levelDirOf(dataDir);
  let state;
  try {
    state = inspectLevelDir(dataDir, levelDir);
  } catch (error) {
    if (!(error instanceof DatabaseDamagedError)) throw explainOpenFailure(dataDir, levelDir, error);
    // A PennyPost running on this dir may have been rotating its files while we read them: look again.
    state = inspectLevelDir(dataDir, levelDir);
  }
  let level: LevelDb;
  try {
    level = await openLevel(levelDir, { createIfMissing: !state.existing });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    if (cause?.code === 'LEVEL_LOCKED') throw new DataDirLockedError(dataDir);
    throw explainOpenFailure(dataDir, levelDir, error);
  }
  const reported = damageReportedAtOpen(levelDir);
  if (reported.length > 0) {
    await level.close().catch(() => undefined);
    throw new DatabaseDamagedError(dataDir, levelDir, `LevelDB reported damage while opening it: ${reported.join('; ')}.`, reported);
  }
  return level;
}

/**
 * Opens (or creates) PennyPost's database in `dataDir` and registers the given collections; a
 * collection marked `sync` with an `updatedAt` field gets the per-field merge as its conflict
 * handler unless it names its own (server/db/conflict-merge.ts). LevelDB's own LOCK file makes
 * this the only writer: a second open fails at once with DataDirLockedError naming the directory.
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<AppDatabase> {
  const dataDir = path.resolve(options.dataDir);
  assertCollectionBudget(options.collections);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  let level: LevelDb;
  if (options.memoryLevel) {
    level = options.memoryLevel();
    await level.open();
  } else level = await openLevelLocked(dataDir);
  if (options.beforeCollections) {
    try {
      await options.beforeCollections(level);
    } catch (error) {
      await level.close().catch(() => undefined);
      throw error;
    }
  }
  const health = healthOf(level, options.health);
  let rx: RxDatabase | undefined;
  try {
    const storage = wrappedValidatedStorage({ storage: getRxStorageLevel(level, { sync: options.sync }) });
    rx = await createRxDatabase({
      name: DATABASE_NAME,
      storage,
      multiInstance: false,
      eventReduce: true,
    });
    const spec: Record<string, RxCollectionCreator> = {};
    for (const def of options.collections) {
      const conflictHandler = conflictHandlerOf(def);
      spec[def.name] = { schema: def.schema, migrationStrategies: def.migrationStrategies ?? {}, ...(conflictHandler ? { conflictHandler } : {}) };
    }
    if (options.collections.length > 0) await rx.addCollections(spec);
  } catch (error) {
    if (rx) await rx.close().catch(() => undefined);
    await level.close().catch(() => undefined);
    throw error;
  }
  const database = rx;
  const local = new LocalStore(level);
  const derived = new DerivedStore(level);
  const syncedCollections = options.collections.filter((def) => def.sync).map((def) => def.name);
  let closing: Promise<void> | undefined;
  return {
    dataDir,
    rx: database,
    local,
    derived,
    health,
    level,
    syncedCollections,
    collection<T>(name: string): RxCollection<T> {
      const opened: Partial<Record<string, RxCollection>> = database.collections;
      const found = opened[name];
      if (!found) throw new Error(`unknown collection "${name}"`);
      return found as RxCollection<T>;
    },
    close() {
      closing ??= (async () => {
        await database.close();
        await local.close();
        await level.close();
      })();
      return closing;
    },
  };
}
