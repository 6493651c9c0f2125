import type { AppContext } from '../app-context';
import type { BudgetFigure } from './types';

/** Budgets: their documents in `plans` (kind 'budget') and their monthly figures. */
export class BudgetService {
  constructor(private readonly app: AppContext) {}

  figures(userId: string, month: string, timeZone: string): Promise<BudgetFigure[]> {
    void this.app;
    void userId;
    void month;
    void timeZone;
    return Promise.resolve([]);
  }
}
