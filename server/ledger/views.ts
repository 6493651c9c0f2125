import { normalizeMangoQuery, prepareQuery, type RxCollection } from 'rxdb';
import type { Subscription } from 'rxjs';
import type { AppDatabase } from '../db/database';
import { exactMinor, inRange, MinorSum } from '../lib/money';
import { RateBook, type Rate } from './rate-book';
import type { AssetDoc, RateDoc, RecordDoc, RecordType } from './schema';
import { SavedViews } from './saved-views';
import type { Checkpoint } from './view-snapshot';

/** The part of a record that balances, statistics and list filters need. */
export interface Entry {
  id: string;
  type: RecordType;
  amount: number;
  asset: string;
  toAsset: string;
  toAmount: number;
  fee: number;
  category: string;
  date: number;
  tags: string[];
  searchText: string;
  /**
   * Index into the view's `texts`: the lower-cased description, category and tags of the record,
   * interned, so a search tests each distinct text once, not each record (record-search.ts).
   */
  textId: number;
  /** When the record was written (bookkeeping streaks count these days). */
  createdAt: number;
}

/** Canonical copies of repeated values: one string per distinct asset, category or description, one (frozen) array per distinct tag list. */
class Interner {
  private readonly strings = new Map<string, string>();
  private readonly tagLists = new Map<string, string[]>();

  string(value: string): string {
    const known = this.strings.get(value);
    if (known !== undefined) return known;
    this.strings.set(value, value);
    return value;
  }

  tags(tags: readonly string[]): string[] {
    if (tags.length === 0 && Object.isFrozen(tags)) return tags as string[];
    const key = tags.length === 0 ? '' : JSON.stringify(tags);
    let list = this.tagLists.get(key);
    if (!list) this.tagLists.set(key, (list = Object.freeze(tags.map((tag) => this.string(tag))) as string[]));
    return list;
  }

  clear(): void {
    this.strings.clear();
    this.tagLists.clear();
  }

  /** Takes strings and tag lists that are canonical already (a saved view's tables). */
  seed(strings: readonly string[], tagLists: ReadonlyArray<string[]>): void {
    for (const value of strings) this.strings.set(value, value);
    for (const list of tagLists) this.tagLists.set(list.length === 0 ? '' : JSON.stringify(list), list);
  }
}

function toEntry(doc: RecordDoc, intern: (text: string) => number, canonical: Interner): Entry {
  return {
    id: doc.id,
    type: doc.type,
    amount: doc.amount,
    asset: canonical.string(doc.asset),
    toAsset: canonical.string(doc.toAsset),
    toAmount: doc.toAmount,
    fee: doc.fee,
    category: canonical.string(doc.category),
    date: doc.date,
    tags: canonical.tags(doc.tags),
    searchText: canonical.string(doc.searchText),
    textId: intern([doc.searchText, doc.category.normalize('NFKC').toLowerCase(), ...doc.tags.map((tag) => tag.normalize('NFKC').toLowerCase())].join('\u0001')),
    createdAt: doc.createdAt,
  };
}

/** (lwt, id) order of RxDB's change checkpoints. */
export function checkpointAfter(a: Checkpoint, b: Checkpoint | null): boolean {
  return b === null || a.lwt > b.lwt || (a.lwt === b.lwt && a.id > b.id);
}

/** The balance effects of one record, per asset, in each asset's minor units. */
export function effectsOf(entry: Pick<Entry, 'type' | 'amount' | 'asset' | 'toAsset' | 'toAmount' | 'fee'>): Array<[string, number]> {
  switch (entry.type) {
    case 'income':
      return [[entry.asset, entry.amount]];
    case 'expense':
      return [[entry.asset, -entry.amount]];
    case 'transfer':
      return [
        [entry.asset, -(entry.amount + entry.fee)],
        [entry.toAsset, entry.toAmount > 0 ? entry.toAmount : entry.amount],
      ];
  }
}

function compareEntries(a: Entry, b: Entry): number {
  return a.date - b.date || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Index of the first entry with date ≥ `date`. */
export function lowerBoundByDate(entries: readonly Entry[], date: number): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries[mid].date < date) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Everything derived from one user's ledger, in memory: records sorted by date (for lists and
 * statistics), balances and record counts per asset, assets, and the rate book. Built from the
 * database on first use and kept current from the collections' change streams, so records that
 * arrive by sync count the moment they are written. `recompute()` rebuilds it from scratch.
 */
export class UserLedgerView {
  /** Bumped by every change of records, assets or rates: derived results cached per version. */
  version = 0;
  /** Results derived from this view (e.g. filtered record lists), valid while `version` holds. */
  readonly derived = new Map<string, { version: number; value: unknown }>();
  private sortedEntries: Entry[] = [];
  /** New entries appended at the end since the last sort (putRecord). */
  private appended = 0;

  /**
   * The user's records sorted by date, then id. putRecord appends and the next read sorts: a bulk
   * write (an import of thousands of rows) costs one sort, not one array shift per record.
   */
  get entries(): Entry[] {
    if (this.appended > 0) {
      this.sortedEntries.sort(compareEntries);
      this.appended = 0;
    }
    return this.sortedEntries;
  }

  set entries(value: Entry[]) {
    this.sortedEntries = value;
    this.appended = 0;
  }
  private idIndex: Map<string, Entry> | null = new Map();
  /** The entries by record id, built on first use (a start that only reads never needs it). */
  get byId(): Map<string, Entry> {
    if (!this.idIndex) {
      const index = new Map<string, Entry>();
      for (const entry of this.sortedEntries) index.set(entry.id, entry);
      this.idIndex = index;
    }
    return this.idIndex;
  }
  /** The distinct search texts of the records (Entry.textId); grows until the next load. */
  readonly texts: string[] = [];
  private readonly canonical = new Interner();
  /**
   * The newest (lwt, id) of the record writes this view has seen: every later write has a greater
   * one. Saved with the view (view-snapshot.ts) so a start reads only what changed since.
   */
  checkpoint: Checkpoint | null = null;
  /** Record changes since the view was built or last saved. */
  unsaved = 0;
  private readonly textIds = new Map<string, number>();
  private readonly intern = (text: string): number => {
    let id = this.textIds.get(text);
    if (id === undefined) {
      id = this.texts.push(text) - 1;
      this.textIds.set(text, id);
    }
    return id;
  };
  /** Sum of the records' effects per asset, exact whatever arrives by sync (MinorSum). */
  readonly movement = new Map<string, MinorSum>();
  readonly counts = new Map<string, number>();
  readonly assets = new Map<string, AssetDoc>();
  rates = new RateBook([]);
  private rateList: Rate[] = [];

  constructor(readonly userId: string) {}

  private applyEffects(entry: Entry, sign: 1 | -1): void {
    for (const [asset, delta] of effectsOf(entry)) {
      let sum = this.movement.get(asset);
      if (!sum) this.movement.set(asset, (sum = new MinorSum()));
      if (sign === 1) sum.add(delta);
      else sum.sub(delta);
      this.counts.set(asset, (this.counts.get(asset) ?? 0) + sign);
    }
  }

  load(records: RecordDoc[], assets: AssetDoc[], rates: RateDoc[]): void {
    this.texts.length = 0;
    this.textIds.clear();
    this.canonical.clear();
    let checkpoint: Checkpoint | null = null;
    for (const doc of records as Array<RecordDoc & { _meta?: { lwt: number } }>) {
      const seen = doc._meta ? { lwt: doc._meta.lwt, id: doc.id } : null;
      if (seen && checkpointAfter(seen, checkpoint)) checkpoint = seen;
    }
    this.adopt(records.map((doc) => toEntry(doc, this.intern, this.canonical)).sort(compareEntries), checkpoint, assets, rates);
  }

  /** Takes saved entries (sorted, view-snapshot.ts) and their search texts as this view's records. */
  restore(saved: { entries: Entry[]; texts: string[]; strings: string[]; tagLists: string[][] }, checkpoint: Checkpoint | null, assets: AssetDoc[], rates: RateDoc[]): void {
    this.texts.length = 0;
    this.textIds.clear();
    this.canonical.clear();
    for (const text of saved.texts) this.intern(text);
    // later writes share the saved strings and tag lists
    this.canonical.seed(saved.strings, saved.tagLists);
    this.adopt(saved.entries, checkpoint, assets, rates);
  }

  private adopt(entries: Entry[], checkpoint: Checkpoint | null, assets: AssetDoc[], rates: RateDoc[]): void {
    this.changed();
    this.entries = entries;
    this.checkpoint = checkpoint;
    this.unsaved = 0;
    this.idIndex = null;
    this.movement.clear();
    this.counts.clear();
    // The same sums as applyEffects, without its per-record allocations.
    const sums = new Map<string, { sum: MinorSum; count: number }>();
    const add = (asset: string, delta: number) => {
      let slot = sums.get(asset);
      if (!slot) sums.set(asset, (slot = { sum: new MinorSum(), count: 0 }));
      slot.sum.add(delta);
      slot.count++;
    };
    for (const e of entries) {
      if (e.type === 'income') add(e.asset, e.amount);
      else if (e.type === 'expense') add(e.asset, -e.amount);
      else {
        add(e.asset, -(e.amount + e.fee));
        add(e.toAsset, e.toAmount > 0 ? e.toAmount : e.amount);
      }
    }
    for (const [asset, slot] of sums) {
      this.movement.set(asset, slot.sum);
      this.counts.set(asset, slot.count);
    }
    this.assets.clear();
    for (const asset of assets) this.assets.set(asset.id, asset);
    this.rateList = rates.map(({ from, to, rate, date }) => ({ from, to, rate, date }));
    this.rates = new RateBook(this.rateList);
  }

  /** A record write this view has taken into account (its change checkpoint). */
  saw(checkpoint: Checkpoint): void {
    if (checkpointAfter(checkpoint, this.checkpoint)) this.checkpoint = checkpoint;
  }

  removeRecord(id: string): void {
    this.changed();
    this.unsaved++;
    const entry = this.byId.get(id);
    if (!entry) return;
    this.byId.delete(id);
    this.applyEffects(entry, -1);
    let index = lowerBoundByDate(this.entries, entry.date);
    while (index < this.entries.length && this.entries[index].id !== id) index++;
    if (index < this.entries.length) this.entries.splice(index, 1);
  }

  putRecord(doc: RecordDoc): void {
    this.removeRecord(doc.id);
    const entry = toEntry(doc, this.intern, this.canonical);
    this.byId.set(entry.id, entry);
    this.applyEffects(entry, 1);
    this.sortedEntries.push(entry);
    this.appended++;
  }

  putAsset(doc: AssetDoc): void {
    this.changed();
    this.assets.set(doc.id, doc);
  }

  removeAsset(id: string): void {
    this.changed();
    this.assets.delete(id);
  }

  putRate(doc: RateDoc, removed: boolean, previous?: RateDoc): void {
    this.changed();
    const same = (r: Rate, d: RateDoc) => r.from === d.from && r.to === d.to && r.date === d.date && r.rate === d.rate;
    if (previous) this.rateList = this.rateList.filter((r) => !same(r, previous));
    this.rateList = this.rateList.filter((r) => !same(r, doc));
    if (!removed) this.rateList.push({ from: doc.from, to: doc.to, rate: doc.rate, date: doc.date });
    this.rates = new RateBook(this.rateList);
  }

  private changed(): void {
    this.version++;
    this.derived.clear();
  }

  /** A value derived from the view, computed once per version (bounded: a few filters per user). */
  memo<T>(key: string, compute: () => T): T {
    const hit = this.derived.get(key);
    if (hit && hit.version === this.version) return hit.value as T;
    const value = compute();
    if (this.derived.size >= 16) this.derived.delete(this.derived.keys().next().value as string);
    this.derived.set(key, { version: this.version, value });
    return value;
  }

  /**
   * Live balance of an asset in its minor units: opening balance + every record's effect. Exact
   * within the safe integers; beyond them (only records arriving by sync can get there) the
   * nearest number — use exactBalanceOf / balanceInRange where that matters.
   */
  balanceOf(assetId: string): number {
    const asset = this.assets.get(assetId);
    const movement = this.movement.get(assetId);
    if (!movement) return asset?.openingBalance ?? 0;
    return new MinorSum()
      .add(asset?.openingBalance ?? 0)
      .add(movement.exact())
      .toNumber();
  }

  /** The exact balance (bigint). */
  exactBalanceOf(assetId: string): bigint {
    const asset = this.assets.get(assetId);
    return BigInt(asset?.openingBalance ?? 0) + (this.movement.get(assetId)?.value ?? 0n);
  }

  /** Exact sum of the records' effects on an asset (bigint). */
  movementOf(assetId: string): bigint {
    return this.movement.get(assetId)?.value ?? 0n;
  }

  /** Whether an asset's balance lies within the exact range (±10^15 minor units). */
  balanceInRange(assetId: string): boolean {
    return inRange(this.exactBalanceOf(assetId));
  }

  recordCountOf(assetId: string): number {
    return this.counts.get(assetId) ?? 0;
  }
}

type Loaded = { view: UserLedgerView; ready: Promise<UserLedgerView>; dirty: boolean };

/** How the views are kept across starts (tests shorten the delay; tools turn saving off). */
export interface LedgerViewsOptions {
  /** Save a changed view this long after its first unsaved change (default 30 s). */
  saveDelayMs?: number;
  /** Restore from and save to the derived store (default true). */
  saved?: boolean;
  /** Reports a failed save (the view is rebuilt at the next start; nothing is lost). */
  onSaveError?: (error: unknown) => void;
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
    this.saved = options.saved === false ? null : new SavedViews(db);
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

  /** Unsubscribes; saves (flush) are the caller's to await before the database closes. */
  private stopped = false;

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
