import { defineDomain } from '../domain';
import { budgetActions } from './budget-actions';
import { BudgetService } from './budget-service';
import { planningErrors } from './errors';
import { recurringActions } from './recurring-actions';
import { RecurringService } from './recurring-service';
import { planningCollections } from './schema';
import type { PlanningQueries } from './types';

declare module '../app-context' {
  interface ServiceMap {
    budgets: BudgetService;
    recurring: RecurringService;
    /** What other domains (reminders) read of budgets and recurring rules. */
    planning: PlanningQueries;
  }
}

/** Budgets and recurring records (docs/budgets.md): one synced collection, `plans`. */
export function planningDomain() {
  let recurring: RecurringService | undefined;
  return defineDomain({
    name: 'planning',
    collections: planningCollections,
    errors: planningErrors,
    actions: { ...budgetActions, ...recurringActions },
    async start(app) {
      const budgets = new BudgetService(app);
      recurring = new RecurringService(app);
      app.services.budgets = budgets;
      app.services.recurring = recurring;
      const rules = recurring;
      app.services.planning = {
        budgetFigures: (userId, month, timeZone) => budgets.figures(userId, month, timeZone),
        upcoming: (userId, days) => rules.upcoming(userId, days),
      };
      await recurring.start();
    },
    async stop() {
      await recurring?.stop();
    },
  });
}
