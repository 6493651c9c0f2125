import { toMajor } from '../lib/money';
import type { PlanDoc } from './schema';
import type { BudgetFigure } from '../notify/public';
import type { BudgetFigureView, BudgetView } from './result-shapes';

/** How budgets and their figures are shown by the actions: major units, category ids and names. */

interface CategoryRef {
  id: string;
  name: string;
}

export type { BudgetFigureView, BudgetView } from './result-shapes';

export function budgetView(doc: PlanDoc, categories: readonly CategoryRef[]): BudgetView {
  const idOf = new Map(categories.map((c) => [c.name, c.id]));
  return {
    id: doc.id,
    name: doc.name,
    categories: doc.categories.map((name) => idOf.get(name)).filter((id): id is string => id !== undefined),
    categoryNames: [...doc.categories],
    allCategories: doc.allCategories,
    amount: toMajor(doc.amount, doc.currency),
    currency: doc.currency,
    period: 'month',
    startMonth: doc.startMonth,
    rollover: doc.rollover,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

export function figureView(figure: BudgetFigure, doc: PlanDoc, categories: readonly CategoryRef[], spentToday: number): BudgetFigureView {
  const major = (minor: number) => toMajor(minor, figure.currency);
  return {
    ...budgetView(doc, categories),
    spent: major(figure.spent),
    remaining: major(figure.remaining),
    carried: major(figure.carried),
    progress: figure.progress,
    spentToday: major(spentToday),
  };
}
