import { defineDomain } from '../domain';
import { budgetActions } from './budget-actions';
import { BudgetAlerts } from './budget-alerts';
import { BudgetService } from './budget-service';
import { planningErrors } from './errors';
import { recurringActions } from './recurring-actions';
import { RecurringService } from './recurring-service';
import { planningCollections } from './schema';
import { registerPlanningArrivalChecks } from './arrival-checks';
import type { PlanningQueries } from '../notify/public';

declare module '../app-context' {
  interface ServiceMap {
    budgets: BudgetService;
    /** Budget alerts (80 % / 100 %) through app.services.notify; `tick()` checks now. */
    budgetAlerts: BudgetAlerts;
    recurring: RecurringService;
    /** What other domains (reminders) read of budgets and recurring items. */
    planning: PlanningQueries;
  }
}

/** Budgets and recurring records (docs/budgets.md): one synced collection, `plans`. */
export function planningDomain() {
  let recurring: RecurringService | undefined;
  let budgets: BudgetService | undefined;
  let alerts: BudgetAlerts | undefined;
  return defineDomain({
    name: 'planning',
    needs: ['users', 'ledger', 'notify'],
    collections: planningCollections,
    errors: planningErrors,
    actions: { ...budgetActions, ...recurringActions },
    async start(app) {
      const service = (budgets = new BudgetService(app));
      recurring = new RecurringService(app);
      app.services.budgets = service;
      app.services.recurring = recurring;
      const rules = recurring;
      app.services.planning = {
        budgetFigures: (userId, month, timeZone) => service.figures(userId, month, timeZone),
        upcoming: (userId, days) => rules.upcoming(userId, days),
      };
      // What budgets and items that arrive by sync must prove (server/arrival-checks.ts).
      registerPlanningArrivalChecks(app);
      service.start();
      alerts = app.services.budgetAlerts = new BudgetAlerts(app);
      alerts.start();
      await recurring.start();
    },
    async stop() {
      await alerts?.stop();
      budgets?.stop();
      await recurring?.stop();
    },
  });
}
