import { errorCatalogue } from '../lib/errors';

/**
 * The errors of budgets and recurring items (docs/api.md names them `planning.<row>`). Codes are
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
    // — recurring records —
    recurringBadInterval: { code: 400, status: 400, message: () => 'rule.interval must be a whole number from 1 to 1000.' },
    recurringBadMonthDay: { code: 400, status: 400, message: () => 'rule.byMonthDay must be 1–31, or −1 for the last day of the month.' },
    recurringWeekdaysNotWeekly: { code: 400, status: 400, message: () => 'rule.byWeekday only goes with freq "weekly".' },
    recurringMonthDayNotMonthly: { code: 400, status: 400, message: () => 'rule.byMonthDay only goes with freq "monthly" or "yearly".' },
    recurringEndBeforeStart: { code: 400, status: 400, message: () => 'endDate must be after startDate.' },
    recurringUnknownTimeZone: { code: 400, status: 400, message: (zone: string) => `Unknown time zone "${zone}".` },
    recurringNeedsToAsset: { code: 400, status: 400, message: () => 'A transfer needs template.toAsset, another asset than template.asset.' },
    recurringBadAmount: { code: 400, status: 400, message: () => 'template.amount must be greater than 0.' },
    recurringNotAnOccurrence: { code: 400, status: 400, message: (date: string) => `The rule does not occur on ${date}.` },
    recurringAlreadyHandled: { code: 409, status: 409, message: (date: string) => `The occurrence of ${date} is already recorded or skipped.` },
    recurringTooManyPast: {
      code: 400,
      status: 400,
      message: (limit: number) => `This would write more than ${limit} past records at once. Choose a later start date (in milliseconds), or let the rule start from today.`,
    },
    recurringTooManySkips: { code: 409, status: 409, message: (limit: number) => `At most ${limit} skipped dates are kept per rule.` },
  },
  'planning',
);
