import { MajorWriter, MinorSum } from '../lib/money';
import type { RecordType } from './schema';
import { Converter, type MissingRate } from './stats';
import { lowerBoundByDate, type Entry, type UserLedgerView } from './views';

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
  /** Ids of every matching record, newest first. */
  ids: string[];
  totals: RecordListPage['totals'];
}

/**
 * Filters a user's records newest first from the in-memory view (the date range narrows by binary
 * search) and computes the totals of the whole filtered set in the base currency. The result is
 * kept per filter until the ledger changes, so paging through a long list costs a slice per page.
 */
export function listRecords(view: UserLedgerView, base: string, filter: RecordFilter, page: number, pageSize: number): RecordListPage {
  const key = JSON.stringify([base, filter.type, filter.startDate, filter.endDate, filter.category, filter.asset, filter.tag, filter.text]);
  const all = view.memo(`records:${key}`, () => filterRecords(view, base, filter));
  const skip = (page - 1) * pageSize;
  return { ids: all.ids.slice(skip, skip + pageSize), total: all.ids.length, totals: all.totals };
}

function filterRecords(view: UserLedgerView, base: string, filter: RecordFilter): FilteredRecords {
  const entries = view.entries;
  const from = filter.startDate !== undefined ? lowerBoundByDate(entries, filter.startDate) : 0;
  const to = filter.endDate !== undefined ? lowerBoundByDate(entries, filter.endDate) : entries.length;
  const text = filter.text?.normalize('NFKC').toLowerCase();
  const category = filter.category?.normalize('NFKC').toLowerCase();
  const converter = new Converter(view, base);
  const matches = (e: Entry) =>
    (!filter.type || e.type === filter.type) &&
    (!category || e.category.toLowerCase() === category) &&
    (!filter.asset || e.asset === filter.asset || e.toAsset === filter.asset) &&
    (!filter.tag || e.tags.includes(filter.tag)) &&
    (!text || e.searchText.includes(text));
  const ids: string[] = [];
  const income = new MinorSum();
  const expense = new MinorSum();
  let transfers = 0;
  for (let i = to - 1; i >= from; i--) {
    const entry = entries[i];
    if (!matches(entry)) continue;
    ids.push(entry.id);
    if (entry.type === 'transfer') {
      transfers++;
      continue;
    }
    const value = converter.convert(entry.amount, converter.currencyOf(entry.asset), entry.date);
    if (value === undefined) continue;
    if (entry.type === 'income') income.add(value);
    else expense.add(value);
  }
  const out = new MajorWriter(base);
  return {
    ids,
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
