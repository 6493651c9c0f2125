import { normalizeMangoQuery, prepareQuery, type RxCollection } from 'rxdb';
import type { Subscription } from 'rxjs';
import type { AppDatabase } from '../db/database';
import { exactMinor, inRange, MinorSum } from '../lib/money';
import { RateBook, type Rate } from './rate-book';
import type { AssetDoc, RateDoc, RecordDoc, RecordType } from './schema';

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

function toEntry(doc: RecordDoc, intern: (text: string) => number): Entry {
  return {
    id: doc.id,
    type: doc.type,
    amount: doc.amount,
    asset: doc.asset,
    toAsset: doc.toAsset,
    toAmount: doc.toAmount,
    fee: doc.fee,
    category: doc.category,
    date: doc.date,
    tags: doc.tags,
    searchText: doc.searchText,
    textId: intern([doc.searchText, doc.category.normalize('NFKC').toLowerCase(), ...doc.tags.map((tag) => tag.normalize('NFKC').toLowerCase())].join('\u0001')),
    createdAt: doc.createdAt,
  };
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
  readonly byId = new Map<string, Entry>();
  /** The distinct search texts of the records (Entry.textId); grows until the next load. */
  readonly texts: string[] = [];
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
    this.changed();
    this.texts.length = 0;
    this.textIds.clear();
    this.entries = records.map((doc) => toEntry(doc, this.intern)).sort(compareEntries);
    this.byId.clear();
    this.movement.clear();
    this.counts.clear();
    for (const entry of this.entries) {
      this.byId.set(entry.id, entry);
      this.applyEffects(entry, 1);
    }
    this.assets.clear();
    for (const asset of assets) this.assets.set(asset.id, asset);
    this.rateList = rates.map(({ from, to, rate, date }) => ({ from, to, rate, date }));
    this.rates = new RateBook(this.rateList);
  }

  removeRecord(id: string): void {
    this.changed();
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
    const entry = toEntry(doc, this.intern);
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

/** The views of all users that have used the ledger since start. */
export class LedgerViews {
  private readonly views = new Map<string, Loaded>();
  private readonly subscriptions: Subscription[] = [];

  constructor(private readonly db: AppDatabase) {}

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
      route(this.records, (view, doc, deleted) => (deleted ? view.removeRecord(doc.id) : view.putRecord(doc))),
      route(this.db.collection<AssetDoc>('assets'), (view, doc, deleted) => (deleted ? view.removeAsset(doc.id) : view.putAsset(doc))),
      route(this.db.collection<RateDoc>('rates'), (view, doc, deleted, previous) => view.putRate(doc, deleted, previous)),
    );
  }

  stop(): void {
    for (const subscription of this.subscriptions.splice(0)) subscription.unsubscribe();
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
    try {
      for (;;) {
        loaded.dirty = false;
        const [records, assets, rates] = await Promise.all([
          this.scan<RecordDoc>('records', loaded.view.userId),
          this.scan<AssetDoc>('assets', loaded.view.userId),
          this.scan<RateDoc>('rates', loaded.view.userId),
        ]);
        loaded.view.load(records, assets, rates);
        if (!this.wroteWhileLoading(loaded)) return loaded.view;
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
