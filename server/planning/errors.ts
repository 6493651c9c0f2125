import { errorCatalogue } from '../lib/errors';

/**
 * The errors of budgets and recurring rules (docs/api.md names them `planning.<row>`). Codes are
 * their HTTP status (these actions are PennyPost's own, not the seed's).
 */
export const planningErrors = errorCatalogue(
  {
    budgetNotFound: { code: 404, status: 404, message: () => 'No such budget: it does not exist or is not yours.' },
    unknownBudgetCategory: {
      code: 400,
      status: 400,
      message: (id: string) => `Unknown expense category id "${id}" (category.list lists the ids of your expense categories).`,
    },
    noBudgetCategories: { code: 400, status: 400, message: () => 'Name at least one expense category, or "all".' },
    budgetAmountNotPositive: { code: 3003, status: 400, message: () => 'amount must be greater than 0.' },
    blankBudgetName: { code: 400, status: 400, message: () => 'params.name must not be blank' },
    invalidMonth: { code: 400, status: 400, message: (value: string) => `"${value}" is not a month: use YYYY-MM between 1970-01 and 2200-12, e.g. 2026-03.` },
    unknownPlanningTimeZone: {
      code: 400,
      status: 400,
      message: (timeZone: string) => `Unknown time zone "${timeZone}" (use an IANA name like "Asia/Shanghai").`,
    },
    recurringNotFound: { code: 404, status: 404, message: () => 'No such recurring record: it does not exist or is not yours.' },
  },
  'planning',
);
