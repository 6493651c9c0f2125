import type { RxCollection, RxDocumentData } from 'rxdb';
import type { AppDatabase } from '../db/database';
import type { AssetDoc, RateDoc, RecordDoc } from './schema';
import type { Checkpoint } from './entry';
import { decodeSnapshot, encodeSnapshot, metaKeyOf, snapshotKeys, snapshotPrefix, usableMeta } from './view-snapshot';
import type { UserLedgerView } from './views';

/** Records read per step while catching up on the changes since a saved view. */
const CATCH_UP_BATCH = 5_000;

/**
 * Saving and restoring users' ledger views (view-snapshot.ts) in the database's derived store.
 * Restoring = the saved columns, then every record written since the saved checkpoint, read
 * from the records' change index (writes that came by sync, an import, or before a crash that
 * happened after the save). Saving is not fsynced and never blocks a write: a lost or damaged
 * snapshot only means the next start rebuilds the view from the records.
 */
export class SavedViews {
  constructor(private readonly db: AppDatabase) {}

  private get records(): RxCollection<RecordDoc> {
    return this.db.collection<RecordDoc>('records');
  }

  private get schemaVersion(): number {
    return this.records.schema.version;
  }

  /**
   * Fills `view` from its snapshot and the records changed since; returns how many changed
   * records were read, or undefined when there is no usable snapshot (the caller rebuilds).
   */
  async restore(view: UserLedgerView, assets: AssetDoc[], rates: RateDoc[], now: number): Promise<number | undefined> {
    const userId = view.userId;
    const storage = this.records.storageInstance;
    if (!storage.getChangedDocumentsSince) return undefined;
    let meta;
    try {
      meta = usableMeta(await this.db.derived.get(metaKeyOf(userId)), this.schemaVersion, now);
      if (!meta?.checkpoint) return undefined;
      const decoded = decodeSnapshot(meta, await this.db.derived.getMany(snapshotKeys(userId, meta)));
      view.restore(decoded, meta.checkpoint, assets, rates);
    } catch {
      return undefined; // unreadable or inconsistent: rebuilt from the records (and saved anew)
    }
    let checkpoint = meta.checkpoint;
    let read = 0;
    for (;;) {
      const changed: { documents: Array<RxDocumentData<RecordDoc>>; checkpoint: Checkpoint } = await storage.getChangedDocumentsSince(CATCH_UP_BATCH, checkpoint);
      for (const doc of changed.documents) {
        if (doc.userId !== userId) continue;
        if (doc._deleted) view.removeRecord(doc.id);
        else view.putRecord(doc);
      }
      read += changed.documents.length;
      checkpoint = changed.checkpoint;
      // every record up to here was looked at, this user's or not
      view.saw(checkpoint);
      if (changed.documents.length < CATCH_UP_BATCH) break;
    }
    // caught-up changes are unsaved until the next save; the records read count for it too
    view.unsaved = read;
    return read;
  }

  /**
   * Saves the view as it is now, written in one unfsynced batch. `yieldBetween` lets requests run
   * between the chunks of a large view; if the view changes meanwhile, nothing is written and the
   * answer is false (save again later). Without it the view is encoded in one go (at shutdown).
   */
  async save(view: UserLedgerView, now: number, yieldBetween = false): Promise<boolean> {
    const unsaved = view.unsaved;
    const version = view.version;
    const entries: Array<[string, Buffer]> = [];
    for (const entry of encodeSnapshot(view.userId, this.schemaVersion, { entries: view.entries, texts: view.texts, checkpoint: view.checkpoint }, now)) {
      entries.push(entry);
      if (yieldBetween) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (view.version !== version) return false;
      }
    }
    await this.db.derived.replace(snapshotPrefix(view.userId), entries);
    view.unsaved = Math.max(0, view.unsaved - unsaved);
    return true;
  }

  /** Drops a user's saved view (account deleted). */
  forget(userId: string): Promise<void> {
    return this.db.derived.clear(snapshotPrefix(userId));
  }
}
