import type { AbstractSublevel } from 'abstract-level';
import type { LevelDb } from './leveldb-storage';

/** classic-level's `sync` option; sublevels pass their options through to the root database. */
const SYNC = { sync: true } as Record<string, unknown>;

type Sublevel = AbstractSublevel<LevelDb, string | Buffer | Uint8Array, string, any>;

/**
 * A small durable key/value store for state that must never be replicated or leave this
 * machine: sessions, login-failure counters, secrets. It shares the LevelDB files (and so the
 * data-dir lock and the crash guarantees) with RxDB but lives in its own key space.
 * Values are JSON; every write is fsynced like the RxDB writes.
 */
export class LocalStore {
  private readonly space: Sublevel;

  constructor(level: LevelDb) {
    this.space = level.sublevel<string, any>('local', { keyEncoding: 'utf8', valueEncoding: 'json' });
  }

  async get<T>(key: string): Promise<T | undefined> {
    return (await this.space.get(key)) as T | undefined;
  }

  async put<T>(key: string, value: T): Promise<void> {
    await this.space.put(key, value, SYNC);
  }

  async del(key: string): Promise<void> {
    await this.space.del(key, SYNC);
  }

  /** Atomically applies several puts and deletes. */
  async batch(ops: Array<{ type: 'put'; key: string; value: unknown } | { type: 'del'; key: string }>): Promise<void> {
    await this.space.batch(ops as any, SYNC);
  }

  /** Entries whose key starts with `prefix`, in key order. */
  async entries<T>(prefix: string): Promise<Array<[string, T]>> {
    const out: Array<[string, T]> = [];
    for await (const [key, value] of this.space.iterator({ gte: prefix, lt: prefix + '\uffff' })) {
      out.push([key, value as T]);
    }
    return out;
  }

  async close(): Promise<void> {
    // The sublevel closes with its parent; nothing of its own to release.
  }
}
