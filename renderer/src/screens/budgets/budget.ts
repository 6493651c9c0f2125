import type { ResultOf } from '../../api/client';

/** One budget with its figures, as budget.query lists it. */
export type BudgetFigure = ResultOf<'budget.query'>['list'][number];
