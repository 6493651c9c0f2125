import { ensureRxStorageInstanceParamsAreCorrect, RXDB_VERSION, type RxStorage, type RxStorageInstanceCreationParams } from 'rxdb';
import { ClassicLevel } from 'classic-level';
import { collectionPrefix } from './keys';
import {
  createSharedCollectionState,
  RxStorageInstanceLevel,
  type SharedCollectionState,
  type LevelDb,
  type LevelInstanceCreationOptions,
  type LevelStorageInternals,
  type LevelStorageSettings,
  type OpenInstance,
} from './instance';

export type RxStorageLevel = RxStorage<LevelStorageInternals, LevelInstanceCreationOptions> & {
  readonly level: LevelDb;
  /** Storage instances that are open right now (closed ones remove themselves). */
  readonly openInstances: ReadonlySet<OpenInstance>;
};

/**
 * Opens (or creates) a LevelDB directory with the encodings this storage expects.
 * `createIfMissing: false` for a folder that already holds data: LevelDB must never take a used
 * folder whose CURRENT file is gone for a new database (it would delete the old tables).
 * LevelDB's checksum options (`paranoid_checks`, `verify_checksums`) are not exposed by
 * classic-level; server/db/integrity.ts checks what it can around the open instead.
 */
export async function openLevel(location: string, options: { createIfMissing?: boolean } = {}): Promise<LevelDb> {
  const level = new ClassicLevel<Buffer, string>(location, {
    keyEncoding: 'buffer',
    valueEncoding: 'utf8',
    createIfMissing: options.createIfMissing ?? true,
    errorIfExists: false,
    writeBufferSize: 16 * 1024 * 1024,
    // Block cache (default 8 MB): a 1,000-doc range read of a 100k collection got ~15% faster with 32 MB.
    cacheSize: 32 * 1024 * 1024,
  });
  await level.open();
  return level;
}

/**
 * PennyPost's RxStorage for RxDB 17 on LevelDB (classic-level). The caller owns `level`:
 * it opens it before creating the RxDB database and closes it after the database is closed.
 */
export function getRxStorageLevel(level: LevelDb, settings: LevelStorageSettings = {}): RxStorageLevel {
  const openInstances = new Set<OpenInstance>();
  /** Per collection prefix: one write queue and one change stream for all its instances. */
  const sharedByPrefix = new Map<string, SharedCollectionState>();
  return {
    // RxDB refuses two open databases with the same storage name + database name in one
    // process. One LevelDB directory can only be opened once anyway, so the location is part of the name.
    name: `pennypost-leveldb:${level.location}`,
    rxdbVersion: RXDB_VERSION,
    level,
    openInstances,
    createStorageInstance<RxDocType>(params: RxStorageInstanceCreationParams<RxDocType, LevelInstanceCreationOptions>): Promise<RxStorageInstanceLevel<RxDocType>> {
      // Synchronous work; a refusal is a rejected promise, as from an async function.
      return new Promise((resolve) => {
        resolve(createInstance(params));
      });
    },
  };

  function createInstance<RxDocType>(params: RxStorageInstanceCreationParams<RxDocType, LevelInstanceCreationOptions>): RxStorageInstanceLevel<RxDocType> {
    ensureRxStorageInstanceParamsAreCorrect(params);
    if (params.schema.attachments) {
      throw new Error(`collection "${params.collectionName}" declares attachments; the PennyPost LevelDB storage keeps files outside the database`);
    }
    if (level.status !== 'open') throw new Error('the LevelDB database is not open');
    const prefix = collectionPrefix(params.databaseName, params.collectionName, params.schema.version);
    let shared = sharedByPrefix.get(prefix);
    if (!shared) sharedByPrefix.set(prefix, (shared = createSharedCollectionState()));
    shared.instances++;
    const state = shared;
    const instance = new RxStorageInstanceLevel<RxDocType>(
      params.databaseName,
      params.collectionName,
      params.schema,
      { level, prefix },
      params.options,
      settings,
      (closed) => {
        openInstances.delete(closed);
        if (--state.instances === 0 && sharedByPrefix.get(prefix) === state) sharedByPrefix.delete(prefix);
      },
      state,
    );
    openInstances.add(instance);
    return instance;
  }
}
