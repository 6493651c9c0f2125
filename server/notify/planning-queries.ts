/**
 * What the reminders (the weekly summary) ask of budgets and recurring items. Notify declares it
 * and the planning domain, which starts after notify, provides it as its `planning` service: the
 * arrow runs from planning down to notify, never back. Amounts are minor units.
 */

/** One budget's figures for one month (budget.query's list item, in minor units). */
export interface BudgetFigure {
  id: string;
  name: string;
  /** The month's amount, in `currency`. */
  amount: number;
  /** Spent in the month (expenses in its categories, converted to `currency` with dated rates). */
  spent: number;
  /** amount + carried − spent (negative when overspent). */
  remaining: number;
  /** Rolled over from the month before (0 without rollover; negative after overspending). */
  carried: number;
  /** spent / (amount + carried), 4 decimals; with nothing available, 1 if anything was spent or owed, else 0 (docs/budgets.md). */
  progress: number;
  currency: string;
}

/** One occurrence of a recurring item that has not been handled yet (recurring.upcoming's item). */
export interface UpcomingOccurrence {
  /** The item's id. */
  id: string;
  name: string;
  /** Occurrence date in the item's zone, 'YYYY-MM-DD'. */
  date: string;
  /** The instant the record is dated (and an `auto` item writes it). */
  at: number;
  /** The item's IANA zone, which `date` is counted in. */
  timeZone: string;
  mode: 'auto' | 'confirm';
  type: 'income' | 'expense' | 'transfer';
  amount: number;
  currency: string;
  category: string;
  asset: string;
  /** A `confirm` occurrence whose time has come and that is neither confirmed nor skipped. */
  overdue?: boolean;
}

export interface PlanningQueries {
  /** Budget figures of `month` ('YYYY-MM') counted in `timeZone`. */
  budgetFigures(userId: string, month: string, timeZone: string): Promise<BudgetFigure[]>;
  /** Unhandled occurrences from now to now + days (overdue `confirm` ones first). */
  upcoming(userId: string, days: number): Promise<UpcomingOccurrence[]>;
}
