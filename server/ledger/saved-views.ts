import type { RxCollection, RxDocumentData } from 'rxdb';
import type { AppDatabase } from '../db/database';
import type { AssetDoc, RateDoc, RecordDoc } from './schema';
import type { Checkpoint } from './entry';
import { decodeSnapshot, encodeSnapshot, metaKeyOf, snapshotKeys, snapshotPrefix, usableMeta } from './view-snapshot';
import { UserLedgerView } from './views';

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
  constructor(
    private readonly db: AppDatabase,
    /** Told when a saved view could not be used although one was there (damaged bytes, a digest that does not match). */
    private readonly onDamaged: (userId: string, error: Error) => void = () => undefined,
  ) {}

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
    } catch (error) {
      // unreadable, inconsistent or not the bytes that were saved: rebuilt from the records (and saved anew)
      this.onDamaged(userId, error instanceof Error ? error : new Error(String(error)));
      return undefined;
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

  /**
   * What `pennypost check` reports about a user's saved view: nothing when there is none or it
   * gives exactly the view `rebuilt` from the records; otherwise why it cannot be used or how it
   * differs (at most 5 differences). Reads only.
   */
  async inspect(rebuilt: UserLedgerView, assets: AssetDoc[], rates: RateDoc[], now: number): Promise<string[]> {
    const userId = rebuilt.userId;
    const raw = await this.db.derived.get(metaKeyOf(userId));
    if (!raw) return [];
    const damage: { error?: Error } = {};
    const saved = new SavedViews(this.db, (_user, error) => (damage.error = error));
    const view = new UserLedgerView(userId);
    const caughtUp = await saved.restore(view, assets, rates, now);
    if (caughtUp === undefined)
      return damage.error ? [`the saved ledger view of user ${userId} cannot be used: ${damage.error.message} (the next start rebuilds it from the records)`] : [];
    const problems: string[] = [];
    const byId = new Map(rebuilt.entries.map((entry) => [entry.id, entry]));
    if (view.entries.length !== rebuilt.entries.length) problems.push(`holds ${view.entries.length} records where the records give ${rebuilt.entries.length}`);
    for (const entry of view.entries) {
      if (problems.length >= 5) break;
      const truth = byId.get(entry.id);
      if (!truth) problems.push(`holds record ${entry.id}, which is not in the records`);
      else {
        const fields = (['type', 'amount', 'asset', 'toAsset', 'toAmount', 'fee', 'category', 'date', 'searchText', 'createdAt'] as const).filter((f) => entry[f] !== truth[f]);
        if (entry.tags.join('\u0000') !== truth.tags.join('\u0000')) fields.push('tags' as never);
        if (fields.length > 0) problems.push(`record ${entry.id} differs in ${fields.join(', ')}`);
      }
    }
    for (const asset of assets) {
      if (problems.length >= 5) break;
      if (view.balanceOf(asset.id) !== rebuilt.balanceOf(asset.id))
        problems.push(`asset ${asset.name} (${asset.id}): balance ${view.balanceOf(asset.id)} where the records give ${rebuilt.balanceOf(asset.id)}`);
    }
    return problems.map((problem) => `the saved ledger view of user ${userId} ${problem} (the next start would show it: run \`pennypost repair\`, which drops saved views)`);
  }

  /** Drops a user's saved view (account deleted). */
  forget(userId: string): Promise<void> {
    return this.db.derived.clear(snapshotPrefix(userId));
  }
}
