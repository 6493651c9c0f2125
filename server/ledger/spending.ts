import { MinorSum } from '../lib/money';
import { Converter, type MissingRate } from './stats';
import { lowerBoundByDate, type UserLedgerView } from './views';

/** The expenses of one period, in minor units of the currency asked for. */
export interface PeriodExpenses {
  /** Per category name (as records store it). */
  byCategory: Map<string, number>;
  total: number;
}

export interface ExpensesByPeriod {
  /** One per period [bounds[i], bounds[i + 1]). */
  periods: PeriodExpenses[];
  /** Records left out because no rate to the currency existed on their date (never counted at 1:1). */
  missingRates: MissingRate[];
}

/**
 * Expenses (only records of type expense: income and transfers are not spending) per category in
 * consecutive periods, each converted to `currency` with the rate of its own date, as the
 * statistics convert. `bounds` ascend; n bounds make n − 1 periods.
 */
export function expensesByPeriod(view: UserLedgerView, currency: string, bounds: readonly number[]): ExpensesByPeriod {
  const converter = new Converter(view, currency);
  const sums = bounds.slice(1).map(() => ({ byCategory: new Map<string, MinorSum>(), total: new MinorSum() }));
  if (sums.length > 0) {
    const entries = view.entries;
    const end = lowerBoundByDate(entries, bounds[bounds.length - 1]);
    let period = 0;
    for (let i = lowerBoundByDate(entries, bounds[0]); i < end; i++) {
      const entry = entries[i];
      if (entry.type !== 'expense') continue;
      while (entry.date >= bounds[period + 1]) period++;
      const value = converter.amountOf(entry);
      if (value === undefined) continue;
      const slot = sums[period];
      let sum = slot.byCategory.get(entry.category);
      if (!sum) slot.byCategory.set(entry.category, (sum = new MinorSum()));
      sum.add(value);
      slot.total.add(value);
    }
  }
  return {
    periods: sums.map((s) => ({ byCategory: new Map([...s.byCategory].map(([name, sum]) => [name, sum.toNumber()])), total: s.total.toNumber() })),
    missingRates: converter.missingRates(),
  };
}
