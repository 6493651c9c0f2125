import { normalizeMangoQuery, prepareQuery, type RxCollection } from 'rxdb';
import type { Subscription } from 'rxjs';
import type { AppContext } from '../app-context';
import type { RecordDoc } from './schema';

/** How long a user's import-key index stays in memory after their last import or preview. */
export const IMPORT_INDEX_IDLE_MS = 10 * 60_000;

interface KeyChange {
  id: string;
  /** The record's importKey, '' when it has none or was deleted. */
  key: string;
}

/** One user's imported rows: importKey → number of live records carrying it. */
class UserImportKeys {
  readonly byId = new Map<string, string>();
  readonly counts = new Map<string, number>();
  /** Changes that arrive while the index is being loaded, applied after the load (in order). */
  pending: KeyChange[] | null = [];
  ready!: Promise<UserImportKeys>;
  timer?: NodeJS.Timeout;

  apply({ id, key }: KeyChange): void {
    const old = this.byId.get(id);
    if (old !== undefined) {
      this.byId.delete(id);
      const left = (this.counts.get(old) ?? 1) - 1;
      if (left > 0) this.counts.set(old, left);
      else this.counts.delete(old);
    }
    if (key) {
      this.byId.set(id, key);
      this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    }
  }

  has(key: string): boolean {
    return this.counts.has(key);
  }
}

/**
 * The duplicate check of CSV imports. For a user who imports, the importKeys of their live records
 * are loaded once, by one query on the records' [userId, importKey] index (it reads the imported
 * records only), and then kept current from the records' change stream, exactly like the ledger view:
 * every write — this import's own inserts, deletions, records arriving by sync — updates it in the
 * same tick as the write is acknowledged. So each row of every part of a long file, and of the same
 * file again, is checked in memory in O(1). A user's index is dropped after IMPORT_INDEX_IDLE_MS
 * without an import (and rebuilt by one query on the next).
 */
export class ImportKeyIndex {
  private readonly users = new Map<string, UserImportKeys>();
  private subscription?: Subscription;

  constructor(
    private readonly records: RxCollection<RecordDoc>,
    private readonly idleMs = IMPORT_INDEX_IDLE_MS,
  ) {}

  /** The user's index, loaded on first use; every call keeps it for another idle period. */
  async forUser(userId: string): Promise<UserImportKeys> {
    let user = this.users.get(userId);
    if (!user) {
      this.subscribe();
      const fresh = new UserImportKeys();
      user = fresh;
      this.users.set(userId, fresh);
      fresh.ready = this.load(userId, fresh).catch((error: unknown) => {
        if (this.users.get(userId) === fresh) this.drop(userId);
        throw error;
      });
    }
    const ready = await user.ready;
    if (this.users.get(userId) === ready) {
      clearTimeout(ready.timer);
      ready.timer = setTimeout(() => this.drop(userId), this.idleMs);
      ready.timer.unref();
    }
    return ready;
  }

  /** Users whose index is in memory (for tests and diagnostics). */
  get loadedUsers(): number {
    return this.users.size;
  }

  stop(): void {
    for (const userId of [...this.users.keys()]) this.drop(userId);
  }

  private async load(userId: string, user: UserImportKeys): Promise<UserImportKeys> {
    const schema = this.records.schema.jsonSchema;
    const selector = { userId: { $eq: userId }, importKey: { $gt: '' }, _deleted: { $eq: false } };
    const query = prepareQuery(schema, normalizeMangoQuery(schema, { selector }));
    const { documents } = await this.records.storageInstance.query(query);
    for (const doc of documents) user.apply({ id: doc.id, key: doc.importKey });
    // Replaying the changes seen since the subscription is safe even for those the query already
    // saw: each change sets one record's key, so applying them in order ends in the current state.
    const pending = user.pending ?? [];
    user.pending = null;
    for (const change of pending) user.apply(change);
    return user;
  }

  private subscribe(): void {
    this.subscription ??= this.records.eventBulks$.subscribe((bulk) => {
      for (const event of bulk.events) {
        const doc = (event.documentData ?? event.previousDocumentData) as (RecordDoc & { _deleted?: boolean }) | undefined;
        if (!doc) continue;
        const user = this.users.get(doc.userId);
        if (!user) continue;
        const live = event.operation !== 'DELETE' && !doc._deleted;
        const change = { id: doc.id, key: live ? doc.importKey : '' };
        if (user.pending) user.pending.push(change);
        else user.apply(change);
      }
    });
  }

  private drop(userId: string): void {
    clearTimeout(this.users.get(userId)?.timer);
    this.users.delete(userId);
    if (this.users.size === 0) {
      this.subscription?.unsubscribe();
      this.subscription = undefined;
    }
  }
}

const importIndexes = new WeakMap<object, ImportKeyIndex>();

/** The import-key index of a ledger service (one per running server; the service is only the key). */
export function importKeyIndex(app: AppContext, service: object): ImportKeyIndex {
  let index = importIndexes.get(service);
  if (!index) {
    index = new ImportKeyIndex(app.db.collection<RecordDoc>('records'));
    importIndexes.set(service, index);
  }
  return index;
}
