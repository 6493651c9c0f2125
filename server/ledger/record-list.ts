import { MajorWriter, MinorSum } from '../lib/money';
import { compileSearch } from './record-search';
import type { RecordType } from './schema';
import type { SearchTerm } from './search-query';
import { Converter, type MissingRate } from './stats';
import { lowerBoundByDate, type Entry, type UserLedgerView } from './views';
import { foldText } from '../lib/fold-text';
import { itemAt } from '../lib/item-at';

export interface RecordFilter {
  type?: RecordType;
  startDate?: number;
  endDate?: number;
  category?: string;
  /** Matches the record's asset or, for transfers, its target. */
  asset?: string;
  tag?: string;
  /** Case-insensitive substring of the description. */
  text?: string;
  /** A parsed search (`q`, search-query.ts) and the time zone its dates are read in. */
  search?: { q: string; terms: SearchTerm[]; timeZone: string };
}

export interface RecordListPage {
  ids: string[];
  total: number;
  totals: { currency: string; income: number; expense: number; net: number; transfers: number; missingRates: MissingRate[]; inexact: string[] };
}

/**
 * Filters a user's records newest first from the in-memory view (the date range narrows by binary
 * search), computes the totals of the whole filtered set in the base currency, and returns the
 * ids of one page; the caller fetches those documents.
 */
interface FilteredRecords {
  /** How many records match. */
  count: number;
  /**
   * Positions in `view.entries` of the matching records, newest first; null when every record
   * of the date range matches (positions `to - 1` down to `from`). Valid while the view's version
   * holds, as the whole result is (UserLedgerView.memo).
   */
  positions: Uint32Array | null;
  /** The newest matching position + 1 when `positions` is null. */
  to: number;
  totals: RecordListPage['totals'];
}

/**
 * Filters a user's records newest first from the in-memory view (the date range narrows by binary
 * search) and computes the totals of the whole filtered set in the base currency. The result is
 * kept per filter until the ledger changes, so paging through a long list costs a slice per page.
 */
export function listRecords(view: UserLedgerView, base: string, filter: RecordFilter, page: number, pageSize: number): RecordListPage {
  const key = JSON.stringify([
    base,
    filter.type,
    filter.startDate,
    filter.endDate,
    filter.category,
    filter.asset,
    filter.tag,
    filter.text,
    filter.search?.q,
    filter.search?.timeZone,
  ]);
  const all = view.memo(`records:${key}`, () => filterRecords(view, base, filter));
  const skip = (page - 1) * pageSize;
  const entries = view.entries;
  const ids: string[] = [];
  const end = Math.min(all.count, skip + pageSize);
  // The first `count` positions are filled; without positions the matches are entries [to − count, to).
  for (let k = skip; k < end; k++) ids.push(itemAt(entries, all.positions ? itemAt(all.positions, k) : all.to - 1 - k).id);
  return { ids, total: all.count, totals: all.totals };
}

function filterRecords(view: UserLedgerView, base: string, filter: RecordFilter): FilteredRecords {
  const entries = view.entries;
  const search = filter.search && filter.search.terms.length > 0 ? compileSearch(view, filter.search.terms, filter.search.timeZone) : undefined;
  const start = Math.max(filter.startDate ?? -Infinity, search?.from ?? -Infinity);
  const end = Math.min(filter.endDate ?? Infinity, search?.to ?? Infinity);
  const from = start > -Infinity ? lowerBoundByDate(entries, start) : 0;
  const to = end < Infinity ? lowerBoundByDate(entries, end) : entries.length;
  const text = filter.text === undefined ? undefined : foldText(filter.text);
  const category = filter.category === undefined ? undefined : foldText(filter.category);
  const converter = new Converter(view, base);
  // one comparison per distinct category name, not one lower-casing per record
  const categoryMatch = new Map<string, boolean>();
  const sameCategory = (name: string) => {
    let hit = categoryMatch.get(name);
    if (hit === undefined) categoryMatch.set(name, (hit = name.toLowerCase() === category));
    return hit;
  };
  const everything = !filter.type && !category && !filter.asset && !filter.tag && !text && !search;
  const matches = (e: Entry) =>
    (!filter.type || e.type === filter.type) &&
    (!category || sameCategory(e.category)) &&
    (!filter.asset || e.asset === filter.asset || e.toAsset === filter.asset) &&
    (!filter.tag || e.tags.includes(filter.tag)) &&
    (!text || e.searchText.includes(text)) &&
    (!search || search.test(e));
  if (everything && from === 0 && to === entries.length) {
    const totals = wholeLedgerTotals(view, base);
    if (totals) return { count: entries.length, positions: null, to, totals };
  }
  const positions = everything ? null : new Uint32Array(Math.max(0, to - from));
  let count = 0;
  const income = new MinorSum();
  const expense = new MinorSum();
  let transfers = 0;
  for (let i = to - 1; i >= from; i--) {
    const entry = itemAt(entries, i);
    if (positions) {
      if (!matches(entry)) continue;
      positions[count] = i;
    }
    count++;
    if (entry.type === 'transfer') {
      transfers++;
      continue;
    }
    const value = converter.amountOf(entry);
    if (value === undefined) continue;
    if (entry.type === 'income') income.add(value);
    else expense.add(value);
  }
  const out = new MajorWriter(base);
  return {
    count,
    positions: positions && positions.length > 2 * count ? positions.slice(0, count) : positions,
    to,
    totals: {
      currency: base,
      income: out.major('totals.income', income.exact()),
      expense: out.major('totals.expense', expense.exact()),
      net: out.major('totals.net', income.value - expense.value),
      transfers,
      missingRates: converter.missingRates(),
      inexact: out.inexact,
    },
  };
}

/**
 * The totals of every record from the view's running sums per asset (UserLedgerView.flows), when
 * every asset with records is kept in the base currency; undefined otherwise (amounts in other
 * currencies convert at each record's date, which takes a pass over the records).
 */
function wholeLedgerTotals(view: UserLedgerView, base: string): RecordListPage['totals'] | undefined {
  const income = new MinorSum();
  const expense = new MinorSum();
  for (const [assetId, flow] of view.flows) {
    const asset = view.assets.get(assetId);
    // a record of an asset that is gone counts in the base currency, as Converter.currencyOf does
    if (asset && asset.currency !== base) return undefined;
    income.add(flow.income.value);
    expense.add(flow.expense.value);
  }
  const out = new MajorWriter(base);
  return {
    currency: base,
    income: out.major('totals.income', income.exact()),
    expense: out.major('totals.expense', expense.exact()),
    net: out.major('totals.net', income.value - expense.value),
    transfers: view.transferCount,
    missingRates: [],
    inexact: out.inexact,
  };
}
