import type { AbstractSublevel } from 'abstract-level';
import type { LevelDb } from './leveldb-storage';
import { healthOf, type LevelHealth } from './leveldb-storage/health';

type Sublevel = AbstractSublevel<LevelDb, string | Buffer | Uint8Array, string, Buffer>;

/** Not fsynced: losing the newest write of derived data costs a rebuild, never a record. */
const NO_SYNC = { sync: false } as Record<string, unknown>;

/**
 * Rebuildable data kept beside the documents, in the same LevelDB: summaries derived from the
 * collections (the ledger's saved views, server/ledger/view-snapshot.ts) that make a start fast.
 * It is never the only copy of anything: whatever is missing, stale or unreadable here is rebuilt
 * from the documents. Because it lives in the same files, a snapshot or backup of the data dir
 * holds the derived data of exactly the documents it holds; tools that change documents behind
 * RxDB's back (repair) clear it.
 */
export class DerivedStore {
  private readonly space: Sublevel;
  private readonly health: LevelHealth;

  constructor(level: LevelDb) {
    this.space = level.sublevel<string, Buffer>('derived', { keyEncoding: 'utf8', valueEncoding: 'buffer' });
    this.health = healthOf(level);
    this.health.onReopen(() => this.space.open());
  }

  get(key: string): Promise<Buffer | undefined> {
    return this.health.read(async () => (await this.space.get(key)) ?? undefined);
  }

  getMany(keys: string[]): Promise<Array<Buffer | undefined>> {
    return this.health.read(async () => (await this.space.getMany(keys)).map((value) => value ?? undefined));
  }

  /** Replaces every entry whose key starts with `prefix` by `entries`, atomically (one batch). */
  replace(prefix: string, entries: Array<[string, Buffer]>): Promise<void> {
    return this.health.write(async () => {
      const keep = new Set(entries.map(([key]) => key));
      const stale: string[] = [];
      for await (const key of this.space.keys({ gte: prefix, lt: prefix + '\uffff' })) if (!keep.has(key)) stale.push(key);
      await this.space.batch([...stale.map((key) => ({ type: 'del' as const, key })), ...entries.map(([key, value]) => ({ type: 'put' as const, key, value }))], NO_SYNC);
    });
  }

  /** Deletes every entry whose key starts with `prefix` ('' for all). */
  clear(prefix = ''): Promise<void> {
    return this.health.write(() => this.space.clear({ gte: prefix, lt: prefix + '\uffff' }));
  }
}
