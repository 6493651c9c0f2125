import { itemAt } from '../lib/item-at';
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
  const [first] = bounds;
  const last = bounds.at(-1);
  if (sums.length > 0 && first !== undefined && last !== undefined) {
    const entries = view.entries;
    const end = lowerBoundByDate(entries, last);
    let period = 0;
    for (let i = lowerBoundByDate(entries, first); i < end; i++) {
      const entry = itemAt(entries, i);
      if (entry.type !== 'expense') continue;
      // The entry is before the last bound (i < end), so the walk stops at period n − 2 at the latest.
      while (entry.date >= itemAt(bounds, period + 1)) period++;
      const value = converter.amountOf(entry);
      if (value === undefined) continue;
      const slot = itemAt(sums, period);
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
