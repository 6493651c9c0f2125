import type { AbstractSublevel } from 'abstract-level';
import type { LevelDb } from './leveldb-storage';
import { healthOf, type LevelHealth } from './leveldb-storage/health';

/** classic-level's `sync` option; sublevels pass their options through to the root database. */
const SYNC = { sync: true } as Record<string, unknown>;
const NO_SYNC = { sync: false } as Record<string, unknown>;

type Sublevel = AbstractSublevel<LevelDb, string | Buffer | Uint8Array, string, unknown>;

/**
 * A small durable key/value store for state that must never be replicated or leave this
 * machine: sessions, login-failure counters, secrets. It shares the LevelDB files (and so the
 * data-dir lock and the crash guarantees) with RxDB but lives in its own key space.
 * Values are JSON; every write is fsynced like the RxDB writes (unless a batch says `durable:
 * false`), and goes through the same disk-fault recovery (leveldb-storage/health.ts): after an
 * I/O error writes answer StorageUnavailableError until the shared LevelDB could be reopened.
 */
export class LocalStore {
  private readonly space: Sublevel;
  private readonly health: LevelHealth;

  constructor(level: LevelDb) {
    this.space = level.sublevel<string, unknown>('local', { keyEncoding: 'utf8', valueEncoding: 'json' });
    this.health = healthOf(level);
    // A sublevel is closed with its parent and does not reopen by itself.
    this.health.onReopen(() => this.space.open());
  }

  get<T>(key: string): Promise<T | undefined> {
    return this.health.read(async () => (await this.space.get(key)) as T | undefined);
  }

  put(key: string, value: unknown): Promise<void> {
    return this.health.write(() => this.space.put(key, value, SYNC));
  }

  del(key: string): Promise<void> {
    return this.health.write(() => this.space.del(key, SYNC));
  }

  /**
   * Atomically applies several puts and deletes. `durable: false` skips the fsync (the write is in
   * the LevelDB log, so it survives a crash of the process but maybe not of the machine): only for
   * writes whose loss the next start repairs, such as dropping a record that is already obsolete.
   */
  batch(ops: Array<{ type: 'put'; key: string; value: unknown } | { type: 'del'; key: string }>, options: { durable?: boolean } = {}): Promise<void> {
    return this.health.write(() => this.space.batch(ops, options.durable === false ? NO_SYNC : SYNC));
  }

  /** Entries whose key starts with `prefix`, in key order. */
  entries<T>(prefix: string): Promise<Array<[string, T]>> {
    return this.health.read(async () => {
      const out: Array<[string, T]> = [];
      for await (const [key, value] of this.space.iterator({ gte: prefix, lt: prefix + '\uffff' })) {
        out.push([key, value as T]);
      }
      return out;
    });
  }

  async close(): Promise<void> {
    // The sublevel closes with its parent; nothing of its own to release.
  }
}
