import { errorCatalogue } from '../lib/errors';

/**
 * The errors of budgets and recurring rules (docs/api.md names them `planning.<row>`). Codes are
 * their HTTP status (these actions are PennyPost's own, not the seed's).
 */
export const planningErrors = errorCatalogue(
  {
    budgetNotFound: { code: 404, status: 404, message: () => 'No such budget: it does not exist or is not yours.' },
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
    recurringTooManySkips: { code: 409, status: 409, message: (limit: number) => `At most ${limit} skipped dates are kept per rule.` },
  },
  'planning',
);
