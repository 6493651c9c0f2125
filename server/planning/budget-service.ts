import type { AppContext } from '../app-context';
import type { BudgetFigure } from './types';

/** Budgets: their documents in `plans` (kind 'budget') and their monthly figures. */
export class BudgetService {
  constructor(readonly app: AppContext) {}

  figures(_userId: string, _month: string, _timeZone: string): Promise<BudgetFigure[]> {
    return Promise.resolve([]);
  }
}
