import { normalizeMangoQuery, prepareQuery, type RxCollection } from 'rxdb';
import type { Subscription } from 'rxjs';
import type { AppDatabase } from '../db/database';
import { exactMinor, inRange } from '../lib/money';
import { checkpointAfter, type Checkpoint } from './entry';
import { SavedViews } from './saved-views';
import type { AssetDoc, RateDoc, RecordDoc } from './schema';
import { UserLedgerView } from './views';

type Loaded = { view: UserLedgerView; ready: Promise<UserLedgerView>; dirty: boolean };

/** How the views are kept across starts (tests shorten the delay; tools turn saving off). */
export interface LedgerViewsOptions {
  /** Save a changed view this long after its first unsaved change (default 30 s). */
  saveDelayMs?: number;
  /** Restore from and save to the derived store (default true). */
  saved?: boolean;
  /** Reports a failed save (the view is rebuilt at the next start; nothing is lost). */
  onSaveError?: (error: unknown) => void;
  /** Reports a saved view that was there but could not be used (damaged: rebuilt from the records). */
  onSavedViewDamaged?: (userId: string, error: Error) => void;
  now?: () => number;
}

/** The views of all users that have used the ledger since start. */
export class LedgerViews {
  private readonly views = new Map<string, Loaded>();
  private readonly subscriptions: Subscription[] = [];
  private readonly saved: SavedViews | null;
  private readonly saveTimers = new Map<string, NodeJS.Timeout>();
  private readonly saving = new Map<string, Promise<void>>();
  private readonly now: () => number;

  constructor(
    private readonly db: AppDatabase,
    private readonly options: LedgerViewsOptions = {},
  ) {
    this.saved = options.saved === false ? null : new SavedViews(db, options.onSavedViewDamaged);
    this.now = options.now ?? Date.now;
  }

  private get records(): RxCollection<RecordDoc> {
    return this.db.collection<RecordDoc>('records');
  }

  /** Subscribes to the change streams; call once before serving. */
  start(): void {
    const route = <T extends { userId: string }>(collection: RxCollection<T>, apply: (view: UserLedgerView, doc: T, deleted: boolean, previous?: T) => void) =>
      collection.eventBulks$.subscribe((bulk) => {
        for (const event of bulk.events) {
          const doc = (event.documentData ?? event.previousDocumentData) as T | undefined;
          if (!doc) continue;
          const loaded = this.views.get(doc.userId);
          if (!loaded) continue;
          if (this.isLoading(loaded)) {
            loaded.dirty = true; // a write landed while loading: reload when done
            continue;
          }
          apply(loaded.view, doc, event.operation === 'DELETE', event.previousDocumentData as T | undefined);
        }
      });
    this.subscriptions.push(
      route(this.records, (view, doc, deleted) => {
        if (deleted) view.removeRecord(doc.id);
        else view.putRecord(doc);
        this.scheduleSave(view);
      }),
      route(this.db.collection<AssetDoc>('assets'), (view, doc, deleted) => (deleted ? view.removeAsset(doc.id) : view.putAsset(doc))),
      route(this.db.collection<RateDoc>('rates'), (view, doc, deleted, previous) => view.putRate(doc, deleted, previous)),
      // Every loaded view has seen every record write so far, its user's or not: its checkpoint
      // moves on, so a restore never reads other users' writes twice.
      this.records.eventBulks$.subscribe((bulk) => {
        let newest: Checkpoint | null = null;
        for (const event of bulk.events) {
          const lwt = (event.documentData as { _meta?: { lwt: number } } | undefined)?._meta?.lwt;
          if (lwt !== undefined && checkpointAfter({ lwt, id: event.documentId }, newest)) newest = { lwt, id: event.documentId };
        }
        if (!newest) return;
        for (const loaded of this.views.values()) if (!this.isLoading(loaded)) loaded.view.saw(newest);
      }),
    );
  }

  private stopped = false;

  /** Unsubscribes; saves (flush) are the caller's to await before the database closes. */
  stop(): void {
    this.stopped = true;
    for (const subscription of this.subscriptions.splice(0)) subscription.unsubscribe();
    for (const timer of this.saveTimers.values()) clearTimeout(timer);
    this.saveTimers.clear();
  }

  /** Saves every loaded view with unsaved changes (at shutdown, before the database closes). */
  async flush(): Promise<void> {
    await Promise.all([...this.saving.values()]);
    for (const loaded of this.views.values()) {
      if (!this.isLoading(loaded) && loaded.view.unsaved > 0) await this.save(loaded.view);
    }
  }

  private scheduleSave(view: UserLedgerView, delayMs = this.options.saveDelayMs ?? 30_000): void {
    if (!this.saved || this.stopped || this.saveTimers.has(view.userId)) return;
    const timer = setTimeout(() => {
      this.saveTimers.delete(view.userId);
      if (this.views.get(view.userId)?.view === view) void this.save(view, true);
    }, delayMs);
    timer.unref();
    this.saveTimers.set(view.userId, timer);
  }

  /** Saves a view; in the background (`inBackground`) it yields to requests and retries later when the view changed meanwhile. */
  private save(view: UserLedgerView, inBackground = false): Promise<void> {
    if (!this.saved) return Promise.resolve();
    const running = this.saving.get(view.userId);
    if (running) return running;
    const saved = this.saved;
    const task = (async () => {
      try {
        if (!(await saved.save(view, this.now(), inBackground))) this.scheduleSave(view);
      } catch (error) {
        this.options.onSaveError?.(error);
      } finally {
        this.saving.delete(view.userId);
      }
    })();
    this.saving.set(view.userId, task);
    return task;
  }

  /** Forgets a user's view and its saved copy (account deleted). */
  async forget(userId: string): Promise<void> {
    clearTimeout(this.saveTimers.get(userId));
    this.saveTimers.delete(userId);
    await this.saving.get(userId);
    this.views.delete(userId);
    await this.saved?.forget(userId);
  }

  private readonly loading = new WeakSet<Loaded>();
  private isLoading(loaded: Loaded): boolean {
    return this.loading.has(loaded);
  }
  /** Read through a call: the change streams set `dirty` while a fill awaits storage, which narrowing cannot see. */
  private wroteWhileLoading(loaded: Loaded): boolean {
    return loaded.dirty;
  }

  /** All live documents of a user in one collection, read straight from storage (no RxDocuments). */
  async scan<T>(name: string, userId: string): Promise<T[]> {
    const collection = this.db.collection(name);
    const schema = collection.schema.jsonSchema;
    const query = prepareQuery(schema, normalizeMangoQuery(schema, { selector: { userId: { $eq: userId }, _deleted: { $eq: false } } }));
    const result = await collection.storageInstance.query(query);
    return result.documents as T[];
  }

  private async fill(loaded: Loaded): Promise<UserLedgerView> {
    this.loading.add(loaded);
    const { view } = loaded;
    try {
      for (;;) {
        loaded.dirty = false;
        const [assets, rates] = await Promise.all([this.scan<AssetDoc>('assets', view.userId), this.scan<RateDoc>('rates', view.userId)]);
        // The saved view and the records changed since it, else every record.
        const caughtUp = this.saved ? await this.saved.restore(view, assets, rates, this.now()) : undefined;
        if (caughtUp === undefined) view.load(await this.scan<RecordDoc>('records', view.userId), assets, rates);
        if (this.wroteWhileLoading(loaded)) continue;
        // A rebuilt view is saved right away (in the background); a restored one once enough changed.
        if (caughtUp === undefined) {
          view.unsaved = Math.max(1, view.unsaved);
          this.scheduleSave(view, 1000);
        } else if (caughtUp > 0) this.scheduleSave(view, caughtUp >= 1000 ? 1000 : undefined);
        return view;
      }
    } finally {
      this.loading.delete(loaded);
    }
  }

  /** The user's view, loaded on first use. */
  get(userId: string): Promise<UserLedgerView> {
    let loaded = this.views.get(userId);
    if (!loaded) {
      const view = new UserLedgerView(userId);
      loaded = { view, ready: undefined as unknown as Promise<UserLedgerView>, dirty: false };
      this.views.set(userId, loaded);
      const entry = loaded;
      entry.ready = this.fill(entry).catch((error: unknown) => {
        this.views.delete(userId);
        throw error;
      });
    }
    return loaded.ready;
  }

  /**
   * Rebuilds a user's view from the database and reports every asset whose cached balance or
   * record count differed from the recomputation (there should never be any), and every asset
   * whose balance is beyond the exact range (±10^15 minor units: only records arriving by sync
   * can put it there). Balances compare exactly (BigInt); each value is a number when it is a
   * safe integer, else a string of the exact integer.
   */
  async recompute(userId: string): Promise<{ mismatches: BalanceMismatch[]; outOfRange: OutOfRangeBalance[] }> {
    const current = await this.get(userId);
    const fresh = new UserLedgerView(userId);
    fresh.load(await this.scan('records', userId), await this.scan('assets', userId), await this.scan('rates', userId));
    const mismatches: BalanceMismatch[] = [];
    const outOfRange: OutOfRangeBalance[] = [];
    const ids = new Set([...current.assets.keys(), ...fresh.assets.keys(), ...current.movement.keys(), ...fresh.movement.keys()]);
    for (const assetId of ids) {
      const cached = current.exactBalanceOf(assetId);
      const recomputed = fresh.exactBalanceOf(assetId);
      if (cached !== recomputed || current.recordCountOf(assetId) !== fresh.recordCountOf(assetId)) {
        mismatches.push({ assetId, cached: jsonMinor(cached), recomputed: jsonMinor(recomputed) });
      }
      const asset = fresh.assets.get(assetId);
      if (asset && !asset.delFlag && !inRange(recomputed)) {
        outOfRange.push({ assetId, currency: asset.currency, balance: jsonMinor(recomputed) });
      }
    }
    if (mismatches.length > 0 || current.entries.length !== fresh.entries.length) {
      const loaded = this.views.get(userId);
      if (!loaded) throw new Error(`recompute: the ledger view of ${userId} is gone`);
      loaded.view.load(await this.scan('records', userId), await this.scan('assets', userId), await this.scan('rates', userId));
      loaded.view.unsaved = Math.max(1, loaded.view.unsaved);
      await this.save(loaded.view);
    }
    return { mismatches, outOfRange };
  }
}

export interface BalanceMismatch {
  assetId: string;
  cached: number | string;
  recomputed: number | string;
}

export interface OutOfRangeBalance {
  assetId: string;
  currency: string;
  /** Exact balance in minor units (a string when beyond the safe integers). */
  balance: number | string;
}

/** Minor units for a JSON answer: a number when it is a safe integer, else the exact digits. */
export function jsonMinor(value: bigint): number | string {
  const v = exactMinor(value);
  return typeof v === 'bigint' ? v.toString() : v;
}
