import { ApiError, ErrorCode } from '../api/errors';
import { periodsBetween, type GroupBy } from '../lib/calendar';
import { toMajor } from '../lib/money';
import type { AssetType } from './schema';
import { lowerBoundByDate, type Entry, type UserLedgerView } from './views';

/** A change of less than this share against the previous period is "stable". */
export const TREND_THRESHOLD = 0.05;
export type Trend = 'up' | 'down' | 'stable';

export interface MissingRate {
  from: string;
  to: string;
  records: number;
}

/**
 * Converts amounts of many records to the base currency, remembering which currency pairs had
 * no rate: those records are left out of the totals and reported, never counted at 1:1.
 */
export class Converter {
  private readonly missing = new Map<string, MissingRate>();

  constructor(
    private readonly view: UserLedgerView,
    readonly base: string,
  ) {}

  currencyOf(assetId: string): string {
    return this.view.assets.get(assetId)?.currency ?? this.base;
  }

  /** Minor units of the base currency, or undefined (and noted) when no rate exists. */
  convert(amount: number, currency: string, date: number): number | undefined {
    if (currency === this.base) return amount;
    const converted = this.view.rates.convert(amount, currency, this.base, date);
    if (converted === undefined) {
      const key = `${currency}>${this.base}`;
      const entry = this.missing.get(key) ?? { from: currency, to: this.base, records: 0 };
      entry.records++;
      this.missing.set(key, entry);
    }
    return converted;
  }

  missingRates(): MissingRate[] {
    return [...this.missing.values()];
  }
}

export function checkRange(startDate: number, endDate: number): void {
  if (endDate <= startDate) throw new ApiError(ErrorCode.Validation, 'params.endDate must be after params.startDate', { field: 'params.endDate' });
}

/** Entries with startDate ≤ date < endDate. */
export function entriesIn(view: UserLedgerView, startDate: number, endDate: number): Entry[] {
  const from = lowerBoundByDate(view.entries, startDate);
  const to = lowerBoundByDate(view.entries, endDate);
  return view.entries.slice(from, to);
}

function trendOf(current: number, previous: number): Trend {
  if (previous === 0) return current > 0 ? 'up' : 'stable';
  const change = (current - previous) / Math.abs(previous);
  if (change > TREND_THRESHOLD) return 'up';
  if (change < -TREND_THRESHOLD) return 'down';
  return 'stable';
}

interface Sums {
  income: number;
  incomeCount: number;
  expense: number;
  expenseCount: number;
}

function sumIncomeExpense(entries: Entry[], converter: Converter): Sums {
  const sums: Sums = { income: 0, incomeCount: 0, expense: 0, expenseCount: 0 };
  for (const entry of entries) {
    if (entry.type === 'transfer') continue;
    const value = converter.convert(entry.amount, converter.currencyOf(entry.asset), entry.date);
    if (value === undefined) continue;
    if (entry.type === 'income') {
      sums.income += value;
      sums.incomeCount++;
    } else {
      sums.expense += value;
      sums.expenseCount++;
    }
  }
  return sums;
}

export interface SeriesPoint {
  label: string;
  startDate: number;
  endDate: number;
  income: number;
  expense: number;
  net: number;
}

/** stats.getIncomeExpense: the seed's shape plus the base currency, the series and missing rates. */
export function incomeExpense(view: UserLedgerView, base: string, input: { startDate: number; endDate: number; groupBy?: GroupBy; timeZone: string }) {
  checkRange(input.startDate, input.endDate);
  const converter = new Converter(view, base);
  const entries = entriesIn(view, input.startDate, input.endDate);
  const current = sumIncomeExpense(entries, converter);
  const length = input.endDate - input.startDate;
  const previous = sumIncomeExpense(entriesIn(view, input.startDate - length, input.startDate), new Converter(view, base));
  const major = (minor: number) => toMajor(minor, base);
  const average = (total: number, count: number) => (count === 0 ? 0 : major(Math.round(total / count)));
  const result: Record<string, unknown> = {
    income: {
      total: major(current.income),
      count: current.incomeCount,
      average: average(current.income, current.incomeCount),
      trend: trendOf(current.income, previous.income),
      previousTotal: major(previous.income),
    },
    expense: {
      total: major(current.expense),
      count: current.expenseCount,
      average: average(current.expense, current.expenseCount),
      trend: trendOf(current.expense, previous.expense),
      previousTotal: major(previous.expense),
    },
    netIncome: major(current.income - current.expense),
    period: { startDate: input.startDate, endDate: input.endDate },
    currency: base,
    missingRates: converter.missingRates(),
  };
  if (input.groupBy) result.series = series(entries, new Converter(view, base), input.startDate, input.endDate, input.groupBy, input.timeZone);
  return result;
}

function series(entries: Entry[], converter: Converter, startDate: number, endDate: number, groupBy: GroupBy, timeZone: string): SeriesPoint[] {
  let periods;
  try {
    periods = periodsBetween(startDate, endDate, groupBy, timeZone, 3700);
  } catch {
    throw new ApiError(ErrorCode.Validation, `Too many ${groupBy}s in this range; pick a coarser groupBy.`, { field: 'params.groupBy' });
  }
  const points: SeriesPoint[] = periods.map((p) => ({
    label: p.label,
    startDate: Math.max(p.start, startDate),
    endDate: Math.min(p.end, endDate),
    income: 0,
    expense: 0,
    net: 0,
  }));
  let index = 0;
  for (const entry of entries) {
    if (entry.type === 'transfer') continue;
    while (index < periods.length - 1 && entry.date >= periods[index].end) index++;
    const value = converter.convert(entry.amount, converter.currencyOf(entry.asset), entry.date);
    if (value === undefined) continue;
    if (entry.type === 'income') points[index].income += value;
    else points[index].expense += value;
  }
  const base = converter.base;
  return points.map((p) => ({ ...p, net: toMajor(p.income - p.expense, base), income: toMajor(p.income, base), expense: toMajor(p.expense, base) }));
}

/** stats.getCategoryStats: top categories by amount, the rest folded into "other". */
export function categoryStats(view: UserLedgerView, base: string, input: { type: 'income' | 'expense'; startDate: number; endDate: number; limit: number }) {
  checkRange(input.startDate, input.endDate);
  const converter = new Converter(view, base);
  const byCategory = new Map<string, { amount: number; count: number }>();
  let total = 0;
  for (const entry of entriesIn(view, input.startDate, input.endDate)) {
    if (entry.type !== input.type) continue;
    const value = converter.convert(entry.amount, converter.currencyOf(entry.asset), entry.date);
    if (value === undefined) continue;
    const slot = byCategory.get(entry.category) ?? { amount: 0, count: 0 };
    slot.amount += value;
    slot.count++;
    byCategory.set(entry.category, slot);
    total += value;
  }
  const sorted = [...byCategory.entries()].sort((a, b) => b[1].amount - a[1].amount || (a[0] < b[0] ? -1 : 1));
  const share = (amount: number) => (total === 0 ? 0 : Math.round((amount / total) * 10_000) / 10_000);
  const top = sorted.slice(0, input.limit).map(([category, s]) => ({ category, amount: toMajor(s.amount, base), count: s.count, share: share(s.amount) }));
  const rest = sorted.slice(input.limit);
  const otherAmount = rest.reduce((sum, [, s]) => sum + s.amount, 0);
  return {
    type: input.type,
    currency: base,
    total: toMajor(total, base),
    categories: top,
    other: rest.length > 0 ? { categories: rest.length, amount: toMajor(otherAmount, base), count: rest.reduce((n, [, s]) => n + s.count, 0), share: share(otherAmount) } : null,
    period: { startDate: input.startDate, endDate: input.endDate },
    missingRates: converter.missingRates(),
  };
}

/** stats.getAssetStats: net worth, assets vs liabilities, by type and by currency, in the base currency. */
export function assetStats(view: UserLedgerView, base: string, now: number) {
  const converter = new Converter(view, base);
  let assets = 0;
  let liabilities = 0;
  const byType = new Map<AssetType, { balance: number; count: number }>();
  const byCurrency = new Map<string, { balance: number; converted: number; count: number; convertible: boolean }>();
  for (const asset of view.assets.values()) {
    if (asset.delFlag) continue;
    const balance = view.balanceOf(asset.id);
    const currencySlot = byCurrency.get(asset.currency) ?? { balance: 0, converted: 0, count: 0, convertible: true };
    currencySlot.balance += balance;
    currencySlot.count++;
    byCurrency.set(asset.currency, currencySlot);
    const converted = converter.convert(balance, asset.currency, now);
    if (converted === undefined) {
      currencySlot.convertible = false;
      continue;
    }
    currencySlot.converted += converted;
    if (converted < 0) liabilities += -converted;
    else assets += converted;
    const typeSlot = byType.get(asset.type) ?? { balance: 0, count: 0 };
    typeSlot.balance += converted;
    typeSlot.count++;
    byType.set(asset.type, typeSlot);
  }
  return {
    currency: base,
    netWorth: toMajor(assets - liabilities, base),
    assets: toMajor(assets, base),
    liabilities: toMajor(liabilities, base),
    byType: [...byType.entries()].map(([type, s]) => ({ type, balance: toMajor(s.balance, base), count: s.count })),
    byCurrency: [...byCurrency.entries()].map(([currency, s]) => ({
      currency,
      balance: toMajor(s.balance, currency),
      converted: s.convertible ? toMajor(s.converted, base) : null,
      count: s.count,
    })),
    missingRates: converter.missingRates(),
  };
}

export type TrendKind = 'income' | 'expense' | 'net' | 'balance';

/** stats.getTrend: a series for charts. `balance` is net worth at the end of each period. */
export function trendSeries(
  view: UserLedgerView,
  base: string,
  input: { type: TrendKind; startDate: number; endDate: number; groupBy: GroupBy; timeZone: string },
) {
  checkRange(input.startDate, input.endDate);
  const converter = new Converter(view, base);
  if (input.type !== 'balance') {
    const points = series(entriesIn(view, input.startDate, input.endDate), converter, input.startDate, input.endDate, input.groupBy, input.timeZone);
    return {
      type: input.type,
      currency: base,
      points: points.map((p) => ({ label: p.label, startDate: p.startDate, endDate: p.endDate, value: p[input.type as 'income' | 'expense' | 'net'] })),
      missingRates: converter.missingRates(),
    };
  }
  let periods;
  try {
    periods = periodsBetween(input.startDate, input.endDate, input.groupBy, input.timeZone, 3700);
  } catch {
    throw new ApiError(ErrorCode.Validation, `Too many ${input.groupBy}s in this range; pick a coarser groupBy.`, { field: 'params.groupBy' });
  }
  const live = [...view.assets.values()].filter((a) => !a.delFlag);
  const movement = new Map<string, number>();
  let index = 0;
  const points = periods.map((p) => {
    const end = Math.min(p.end, input.endDate);
    for (; index < view.entries.length && view.entries[index].date < end; index++) {
      const entry = view.entries[index];
      const add = (asset: string, delta: number) => movement.set(asset, (movement.get(asset) ?? 0) + delta);
      if (entry.type === 'income') add(entry.asset, entry.amount);
      else if (entry.type === 'expense') add(entry.asset, -entry.amount);
      else {
        add(entry.asset, -(entry.amount + entry.fee));
        add(entry.toAsset, entry.toAmount > 0 ? entry.toAmount : entry.amount);
      }
    }
    let total = 0;
    for (const asset of live) {
      const balance = asset.openingBalance + (movement.get(asset.id) ?? 0);
      const converted = converter.convert(balance, asset.currency, end);
      if (converted !== undefined) total += converted;
    }
    return { label: p.label, startDate: Math.max(p.start, input.startDate), endDate: end, value: toMajor(total, base) };
  });
  return { type: input.type, currency: base, points, missingRates: converter.missingRates() };
}
