import { inRange, MinorSum } from '../lib/money';
import { checkpointAfter, type Checkpoint, type Entry } from './entry';
import { RateBook, type Rate } from './rate-book';
import type { AssetDoc, RateDoc, RecordDoc } from './schema';
import { foldText } from '../lib/fold-text';
import { itemAt } from '../lib/item-at';

export type { Entry } from './entry';

/** Canonical copies of repeated values: one string per distinct asset, category or description, one (frozen) array per distinct tag list. */
class Interner {
  private readonly strings = new Map<string, string>();
  private readonly tagLists = new Map<string, string[]>();

  string(value: string): string {
    this.takePending();
    const known = this.strings.get(value);
    if (known !== undefined) return known;
    this.strings.set(value, value);
    return value;
  }

  tags(tags: readonly string[]): string[] {
    if (tags.length === 0 && Object.isFrozen(tags)) return tags as string[];
    this.takePending();
    const key = tags.length === 0 ? '' : JSON.stringify(tags);
    let list = this.tagLists.get(key);
    if (!list) this.tagLists.set(key, (list = Object.freeze(tags.map((tag) => this.string(tag))) as string[]));
    return list;
  }

  clear(): void {
    this.strings.clear();
    this.tagLists.clear();
    this.pending = null;
  }

  /** Takes strings and tag lists that are canonical already (a saved view's tables). */
  /** Strings and tag lists that are canonical already (a saved view's tables), taken in on first use. */
  private pending: { strings: readonly string[]; tagLists: ReadonlyArray<string[]> } | null = null;

  seed(strings: readonly string[], tagLists: ReadonlyArray<string[]>): void {
    this.pending = { strings, tagLists };
  }

  private takePending(): void {
    if (!this.pending) return;
    for (const value of this.pending.strings) this.strings.set(value, value);
    for (const list of this.pending.tagLists) this.tagLists.set(list.length === 0 ? '' : JSON.stringify(list), list);
    this.pending = null;
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
    textId: intern([doc.searchText, foldText(doc.category), ...doc.tags.map((tag) => foldText(tag))].join('\u0001')),
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

/** Up to this many records written since the last read are inserted in place; more are sorted in. */
const SORT_BY_INSERTING = 64;

function compareEntries(a: Entry, b: Entry): number {
  return a.date - b.date || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Index of the first entry with date ≥ `date`. */
export function lowerBoundByDate(entries: readonly Entry[], date: number): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (itemAt(entries, mid).date < date) lo = mid + 1;
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
      const all = this.sortedEntries;
      if (this.appended <= SORT_BY_INSERTING) {
        // A few writes since the last read (the usual case): put each in place by binary search
        // instead of sorting every record again (a sort of 100,000 costs ~30 ms).
        const tail = all.splice(all.length - this.appended, this.appended).sort(compareEntries);
        for (const entry of tail) {
          let lo = lowerBoundByDate(all, entry.date);
          while (lo < all.length && compareEntries(itemAt(all, lo), entry) < 0) lo++;
          all.splice(lo, 0, entry);
        }
      } else all.sort(compareEntries);
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
  /** False after a restore: `textIds` is filled from `texts` on the first write (a start that only reads skips it). */
  private textIdsBuilt = true;
  private readonly intern = (text: string): number => {
    if (!this.textIdsBuilt) {
      this.texts.forEach((known, i) => this.textIds.set(known, i));
      this.textIdsBuilt = true;
    }
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

  /**
   * Income and expense per asset in its own currency, and the number of transfers: the totals of
   * the unfiltered record list without a pass over every record (record-list.ts).
   */
  readonly flows = new Map<string, { income: MinorSum; expense: MinorSum }>();
  transferCount = 0;

  private applyFlow(entry: Entry, sign: 1 | -1): void {
    if (entry.type === 'transfer') {
      this.transferCount += sign;
      return;
    }
    let flow = this.flows.get(entry.asset);
    if (!flow) this.flows.set(entry.asset, (flow = { income: new MinorSum(), expense: new MinorSum() }));
    const sum = entry.type === 'income' ? flow.income : flow.expense;
    if (sign === 1) sum.add(entry.amount);
    else sum.sub(entry.amount);
  }

  /** Adds (sign 1) or takes back (−1) a record's effects on the balances and counts (effectsOf, without allocating). */
  private applyEffects(entry: Entry, sign: 1 | -1): void {
    this.applyFlow(entry, sign);
    if (entry.type === 'income') this.move(entry.asset, sign * entry.amount, sign);
    else if (entry.type === 'expense') this.move(entry.asset, -sign * entry.amount, sign);
    else {
      this.move(entry.asset, -sign * (entry.amount + entry.fee), sign);
      this.move(entry.toAsset, sign * (entry.toAmount > 0 ? entry.toAmount : entry.amount), sign);
    }
  }

  private move(asset: string, delta: number, count: 1 | -1): void {
    let sum = this.movement.get(asset);
    if (!sum) this.movement.set(asset, (sum = new MinorSum()));
    sum.add(delta);
    this.counts.set(asset, (this.counts.get(asset) ?? 0) + count);
  }

  load(records: RecordDoc[], assets: AssetDoc[], rates: RateDoc[]): void {
    this.texts.length = 0;
    this.textIds.clear();
    this.textIdsBuilt = true;
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
    for (const text of saved.texts) this.texts.push(text);
    this.textIdsBuilt = false;
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
    this.flows.clear();
    this.transferCount = 0;
    for (const e of entries) this.applyEffects(e, 1);
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
    this.unsaved++;
    const entry = this.byId.get(id);
    if (!entry) {
      this.version++;
      this.derived.clear();
      return;
    }
    this.recordChanged(entry.date);
    this.byId.delete(id);
    this.applyEffects(entry, -1);
    let index = lowerBoundByDate(this.entries, entry.date);
    while (index < this.entries.length && itemAt(this.entries, index).id !== id) index++;
    if (index < this.entries.length) this.entries.splice(index, 1);
  }

  putRecord(doc: RecordDoc): void {
    this.removeRecord(doc.id);
    const entry = toEntry(doc, this.intern, this.canonical);
    this.recordChanged(entry.date);
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

  /** Statistics kept until a record dated within their span changes (memoSpan). */
  private readonly spanned = new Map<string, { from: number; to: number; value: unknown }>();

  /** Assets, rates or every record changed: nothing derived holds. */
  private changed(): void {
    this.version++;
    this.derived.clear();
    this.spanned.clear();
  }

  /** A record dated `date` was written or removed: lists go, statistics of other dates stay. */
  private recordChanged(date: number): void {
    this.version++;
    this.derived.clear();
    for (const [key, kept] of this.spanned) if (date >= kept.from && date < kept.to) this.spanned.delete(key);
  }

  /**
   * A value that depends only on the records dated in [from, to) (and on assets and rates): kept
   * across writes of records dated elsewhere — a record typed today leaves last year's statistics
   * as they are. At most 16 per user.
   */
  memoSpan<T>(key: string, from: number, to: number, compute: () => T): T {
    const hit = this.spanned.get(key);
    if (hit) return hit.value as T;
    const value = compute();
    if (this.spanned.size >= 16) this.spanned.delete(this.spanned.keys().next().value as string);
    this.spanned.set(key, { from, to, value });
    return value;
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
