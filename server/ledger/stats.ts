import { periodsBetween, type GroupBy } from '../lib/calendar';
import { itemAt } from '../lib/item-at';
import { exactMinor, MajorWriter, MinorSum } from '../lib/money';
import { ledgerErrors } from './errors';
import type { AssetType } from './schema';
import type { IncomeExpenseView } from './stats-shapes';
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

  /** Per asset: whether it is kept in the base currency (its amounts need no conversion). */
  private readonly inBase = new Map<string, boolean>();

  constructor(
    private readonly view: UserLedgerView,
    readonly base: string,
  ) {
    for (const asset of view.assets.values()) this.inBase.set(asset.id, asset.currency === base);
  }

  /** A record's amount in the base currency (see convert); no lookup of rates for base-currency assets. */
  amountOf(entry: { amount: number; asset: string; date: number }): number | bigint | undefined {
    if (this.inBase.get(entry.asset) === true) return entry.amount;
    return this.convert(entry.amount, this.currencyOf(entry.asset), entry.date);
  }

  currencyOf(assetId: string): string {
    return this.view.assets.get(assetId)?.currency ?? this.base;
  }

  /**
   * Minor units of the base currency, or undefined (and noted) when no rate exists. Exact: a
   * number while it is a safe integer, else a bigint (sum it with MinorSum).
   */
  convert(amount: number | bigint, currency: string, date: number): number | bigint | undefined {
    if (currency === this.base) return amount;
    const exact = this.view.rates.convertExact(amount, currency, this.base, date);
    const converted = exact === undefined ? undefined : exactMinor(exact);
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
  if (endDate <= startDate) throw ledgerErrors.endBeforeStart().at('endDate');
}

/** Entries with startDate ≤ date < endDate. */
export function entriesIn(view: UserLedgerView, startDate: number, endDate: number): Entry[] {
  const from = lowerBoundByDate(view.entries, startDate);
  const to = lowerBoundByDate(view.entries, endDate);
  return view.entries.slice(from, to);
}

function trendOf(currentSum: MinorSum, previousSum: MinorSum): Trend {
  // A trend is a ratio: the nearest numbers are precise enough (sums themselves stay exact).
  const current = currentSum.toNumber();
  const previous = previousSum.toNumber();
  if (previous === 0) return current > 0 ? 'up' : 'stable';
  const change = (current - previous) / Math.abs(previous);
  if (change > TREND_THRESHOLD) return 'up';
  if (change < -TREND_THRESHOLD) return 'down';
  return 'stable';
}

interface Sums {
  income: MinorSum;
  incomeCount: number;
  expense: MinorSum;
  expenseCount: number;
}

function sumIncomeExpense(entries: Entry[], converter: Converter): Sums {
  const sums: Sums = { income: new MinorSum(), incomeCount: 0, expense: new MinorSum(), expenseCount: 0 };
  for (const entry of entries) {
    if (entry.type === 'transfer') continue;
    const value = converter.amountOf(entry);
    if (value === undefined) continue;
    if (entry.type === 'income') {
      sums.income.add(value);
      sums.incomeCount++;
    } else {
      sums.expense.add(value);
      sums.expenseCount++;
    }
  }
  return sums;
}

/** Rounds num / den (den > 0) to the nearest integer, halves away from zero. */
function divRound(num: bigint, den: bigint): bigint {
  const n = num < 0n ? -num : num;
  const q = (2n * n + den) / (2n * den);
  return num < 0n ? -q : q;
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
export function incomeExpense(view: UserLedgerView, base: string, input: { startDate: number; endDate: number; groupBy?: GroupBy; timeZone: string }): IncomeExpenseView {
  checkRange(input.startDate, input.endDate);
  const converter = new Converter(view, base);
  const entries = entriesIn(view, input.startDate, input.endDate);
  const current = sumIncomeExpense(entries, converter);
  const length = input.endDate - input.startDate;
  const previous = sumIncomeExpense(entriesIn(view, input.startDate - length, input.startDate), new Converter(view, base));
  const out = new MajorWriter(base);
  const average = (path: string, total: MinorSum, count: number) => (count === 0 ? 0 : out.major(path, divRound(total.value, BigInt(count))));
  const result: IncomeExpenseView = {
    income: {
      total: out.major('income.total', current.income.exact()),
      count: current.incomeCount,
      average: average('income.average', current.income, current.incomeCount),
      trend: trendOf(current.income, previous.income),
      previousTotal: out.major('income.previousTotal', previous.income.exact()),
    },
    expense: {
      total: out.major('expense.total', current.expense.exact()),
      count: current.expenseCount,
      average: average('expense.average', current.expense, current.expenseCount),
      trend: trendOf(current.expense, previous.expense),
      previousTotal: out.major('expense.previousTotal', previous.expense.exact()),
    },
    netIncome: out.major('netIncome', current.income.value - current.expense.value),
    period: { startDate: input.startDate, endDate: input.endDate },
    currency: base,
    missingRates: converter.missingRates(),
    inexact: out.inexact,
  };
  if (input.groupBy) result.series = series(entries, new Converter(view, base), input.startDate, input.endDate, input.groupBy, input.timeZone, out, 'series');
  return result;
}

function series(entries: Entry[], converter: Converter, startDate: number, endDate: number, groupBy: GroupBy, timeZone: string, out: MajorWriter, path: string): SeriesPoint[] {
  let periods;
  try {
    periods = periodsBetween(startDate, endDate, groupBy, timeZone, 3700);
  } catch {
    throw ledgerErrors.tooManyPeriods(groupBy).at('groupBy');
  }
  const points = periods.map((p) => ({
    label: p.label,
    startDate: Math.max(p.start, startDate),
    endDate: Math.min(p.end, endDate),
    income: new MinorSum(),
    expense: new MinorSum(),
  }));
  let index = 0;
  for (const entry of entries) {
    if (entry.type === 'transfer') continue;
    while (index < periods.length - 1 && entry.date >= itemAt(periods, index).end) index++;
    const value = converter.amountOf(entry);
    if (value === undefined) continue;
    // One point per period, and the range has at least one period when it has a record.
    const point = itemAt(points, index);
    if (entry.type === 'income') point.income.add(value);
    else point.expense.add(value);
  }
  return points.map((p, i) => ({
    label: p.label,
    startDate: p.startDate,
    endDate: p.endDate,
    income: out.major(`${path}[${i}].income`, p.income.exact()),
    expense: out.major(`${path}[${i}].expense`, p.expense.exact()),
    net: out.major(`${path}[${i}].net`, p.income.value - p.expense.value),
  }));
}

/** stats.getCategoryStats: top categories by amount, the rest folded into "other". */
export function categoryStats(view: UserLedgerView, base: string, input: { type: 'income' | 'expense'; startDate: number; endDate: number; limit: number }) {
  checkRange(input.startDate, input.endDate);
  const converter = new Converter(view, base);
  const byCategory = new Map<string, { amount: MinorSum; count: number }>();
  const total = new MinorSum();
  for (const entry of entriesIn(view, input.startDate, input.endDate)) {
    if (entry.type !== input.type) continue;
    const value = converter.amountOf(entry);
    if (value === undefined) continue;
    let slot = byCategory.get(entry.category);
    if (!slot) byCategory.set(entry.category, (slot = { amount: new MinorSum(), count: 0 }));
    slot.amount.add(value);
    slot.count++;
    total.add(value);
  }
  const exact = [...byCategory.entries()].map(([category, s]) => ({ category, amount: s.amount.value, count: s.count }));
  const sorted = exact.sort((a, b) => (b.amount > a.amount ? 1 : b.amount < a.amount ? -1 : 0) || (a.category < b.category ? -1 : 1));
  const totalExact = total.value;
  // A share is a ratio: 4 decimals of it are exact enough from the nearest numbers.
  const share = (amount: bigint) => (totalExact === 0n ? 0 : Math.round((Number(amount) / Number(totalExact)) * 10_000) / 10_000);
  const out = new MajorWriter(base);
  const top = sorted
    .slice(0, input.limit)
    .map((s, i) => ({ category: s.category, amount: out.major(`categories[${i}].amount`, s.amount), count: s.count, share: share(s.amount) }));
  const rest = sorted.slice(input.limit);
  const otherAmount = rest.reduce((sum, s) => sum + s.amount, 0n);
  const other =
    rest.length > 0 ? { categories: rest.length, amount: out.major('other.amount', otherAmount), count: rest.reduce((n, s) => n + s.count, 0), share: share(otherAmount) } : null;
  return {
    type: input.type,
    currency: base,
    total: out.major('total', totalExact),
    categories: top,
    other,
    period: { startDate: input.startDate, endDate: input.endDate },
    missingRates: converter.missingRates(),
    inexact: out.inexact,
  };
}

/** stats.getAssetStats: net worth, assets vs liabilities, by type and by currency, in the base currency. */
export function assetStats(view: UserLedgerView, base: string, now: number) {
  const converter = new Converter(view, base);
  const assets = new MinorSum();
  const liabilities = new MinorSum();
  const byType = new Map<AssetType, { balance: MinorSum; count: number }>();
  const byCurrency = new Map<string, { balance: MinorSum; converted: MinorSum; count: number; convertible: boolean }>();
  for (const asset of view.assets.values()) {
    if (asset.delFlag) continue;
    const balance = exactMinor(view.exactBalanceOf(asset.id));
    let currencySlot = byCurrency.get(asset.currency);
    if (!currencySlot) byCurrency.set(asset.currency, (currencySlot = { balance: new MinorSum(), converted: new MinorSum(), count: 0, convertible: true }));
    currencySlot.balance.add(balance);
    currencySlot.count++;
    const converted = converter.convert(balance, asset.currency, now);
    if (converted === undefined) {
      currencySlot.convertible = false;
      continue;
    }
    currencySlot.converted.add(converted);
    if (converted < 0) liabilities.sub(converted);
    else assets.add(converted);
    let typeSlot = byType.get(asset.type);
    if (!typeSlot) byType.set(asset.type, (typeSlot = { balance: new MinorSum(), count: 0 }));
    typeSlot.balance.add(converted);
    typeSlot.count++;
  }
  const out = new MajorWriter(base);
  return {
    currency: base,
    netWorth: out.major('netWorth', assets.value - liabilities.value),
    assets: out.major('assets', assets.exact()),
    liabilities: out.major('liabilities', liabilities.exact()),
    byType: [...byType.entries()].map(([type, s], i) => ({ type, balance: out.major(`byType[${i}].balance`, s.balance.exact()), count: s.count })),
    byCurrency: [...byCurrency.entries()].map(([currency, s], i) => ({
      currency,
      balance: out.major(`byCurrency[${i}].balance`, s.balance.exact(), currency),
      converted: s.convertible ? out.major(`byCurrency[${i}].converted`, s.converted.exact()) : null,
      count: s.count,
    })),
    missingRates: converter.missingRates(),
    inexact: out.inexact,
  };
}

export type TrendKind = 'income' | 'expense' | 'net' | 'balance';

/** stats.getTrend: a series for charts. `balance` is net worth at the end of each period. */
export function trendSeries(view: UserLedgerView, base: string, input: { type: TrendKind; startDate: number; endDate: number; groupBy: GroupBy; timeZone: string }) {
  checkRange(input.startDate, input.endDate);
  const converter = new Converter(view, base);
  if (input.type !== 'balance') {
    const kind = input.type;
    const all = new MajorWriter(base);
    const points = series(entriesIn(view, input.startDate, input.endDate), converter, input.startDate, input.endDate, input.groupBy, input.timeZone, all, 'points');
    const suffix = `].${kind}`;
    return {
      type: input.type,
      currency: base,
      points: points.map((p) => ({ label: p.label, startDate: p.startDate, endDate: p.endDate, value: p[kind] })),
      missingRates: converter.missingRates(),
      // Only the kind asked for is in the answer: `points[3].income` → `points[3].value`.
      inexact: all.inexact.filter((path) => path.endsWith(suffix)).map((path) => path.slice(0, -suffix.length) + '].value'),
    };
  }
  let periods;
  try {
    periods = periodsBetween(input.startDate, input.endDate, input.groupBy, input.timeZone, 3700);
  } catch {
    throw ledgerErrors.tooManyPeriods(input.groupBy).at('groupBy');
  }
  const live = [...view.assets.values()].filter((a) => !a.delFlag);
  const movement = new Map<string, MinorSum>();
  const add = (asset: string, delta: number) => {
    let sum = movement.get(asset);
    if (!sum) movement.set(asset, (sum = new MinorSum()));
    sum.add(delta);
  };
  const out = new MajorWriter(base);
  let index = 0;
  const entries = view.entries;
  const points = periods.map((p, i) => {
    const end = Math.min(p.end, input.endDate);
    for (let entry = entries[index]; entry !== undefined && entry.date < end; entry = entries[++index]) {
      if (entry.type === 'income') add(entry.asset, entry.amount);
      else if (entry.type === 'expense') add(entry.asset, -entry.amount);
      else {
        add(entry.asset, -(entry.amount + entry.fee));
        add(entry.toAsset, entry.toAmount > 0 ? entry.toAmount : entry.amount);
      }
    }
    const total = new MinorSum();
    for (const asset of live) {
      const moved = movement.get(asset.id);
      const balance = moved ? new MinorSum().add(asset.openingBalance).add(moved.exact()).exact() : asset.openingBalance;
      const converted = converter.convert(balance, asset.currency, end);
      if (converted !== undefined) total.add(converted);
    }
    return { label: p.label, startDate: Math.max(p.start, input.startDate), endDate: end, value: out.major(`points[${i}].value`, total.exact()) };
  });
  return { type: input.type, currency: base, points, missingRates: converter.missingRates(), inexact: out.inexact };
}
