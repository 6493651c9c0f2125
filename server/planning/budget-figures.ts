import type { PeriodExpenses } from '../ledger/public';
import type { PlanDoc } from './schema';
import type { BudgetFigure } from '../notify/public';

/**
 * The arithmetic of budgets (docs/budgets.md, "Budgets"), apart from storage and the ledger:
 * what a budget spent in a month, what rolled over into it, and how much of it is used.
 */

/** What a budget spent of one period's expenses: its categories, or every expense. */
export function spentOf(budget: Pick<PlanDoc, 'allCategories' | 'categories'>, period: PeriodExpenses): number {
  if (budget.allCategories) return period.total;
  let spent = 0;
  for (const name of budget.categories) spent += period.byCategory.get(name) ?? 0;
  return spent;
}

/**
 * spent / available, 4 decimals. Nothing available (a rollover debt as large as the amount):
 * 1 when anything was spent or the debt exceeds the amount (the budget is used up), else 0.
 */
export function progressOf(spent: number, available: number): number {
  if (available <= 0) return spent > 0 || available < 0 ? 1 : 0;
  return Math.round((spent / available) * 10_000) / 10_000;
}

/**
 * One budget's figure for the last of `months` (its expenses per month, oldest first, the first
 * being the budget's start month when it rolls over). Without rollover only the last month counts.
 */
export function figureOf(budget: PlanDoc, months: readonly PeriodExpenses[]): BudgetFigure {
  const last = months.at(-1);
  if (last === undefined) throw new Error(`figureOf: no month to figure for the budget ${budget.id}`);
  let carried = 0;
  if (budget.rollover) for (const month of months.slice(0, -1)) carried += budget.amount - spentOf(budget, month);
  const spent = spentOf(budget, last);
  const available = budget.amount + carried;
  return {
    id: budget.id,
    name: budget.name,
    amount: budget.amount,
    spent,
    remaining: available - spent,
    carried,
    progress: progressOf(spent, available),
    currency: budget.currency,
  };
}

/** The alert level a figure reached: 100 at or over what is available, 80 from 80 %, else 0 (exact, in minor units). */
export function alertLevel(figure: Pick<BudgetFigure, 'spent' | 'amount' | 'carried'>): 0 | 80 | 100 {
  const available = figure.amount + figure.carried;
  if (available <= 0) return figure.spent > 0 || available < 0 ? 100 : 0;
  if (figure.spent >= available) return 100;
  if (figure.spent * 5 >= available * 4) return 80;
  return 0;
}
