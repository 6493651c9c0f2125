import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params } from '../api/action';
import { Id, Money, OneOf, Text, TimeZone } from '../api/params';
import { commonErrors } from '../lib/errors';
import { planningErrors } from './errors';
import { Deleted } from '../api/result';
import { BudgetMonth, BudgetShape } from './result-shapes';

const BudgetId = Id('Id of one of your budgets.', 40);
const Name = Text(100, { minLength: 1, description: 'Budget name, e.g. "Groceries".' });
const Categories = Type.Union([Type.Literal('all'), Type.Array(Id('Expense category id (category.list).', 40), { minItems: 1, maxItems: 200 })], {
  description: 'Ids of your expense categories, or "all" for every expense.',
});
const Month = (description: string) => Text(7, { minLength: 7, description });
const Amount = Money('The monthly amount, > 0, in major units of your base currency.');

const CATEGORY_ERRORS = [
  [planningErrors.rows.unknownBudgetCategory, 'a category id is not one of your expense categories'],
  [planningErrors.rows.noBudgetCategories, 'categories is an empty list'],
] as const;

const createBudget = defineAction({
  summary: 'Create a monthly budget for some expense categories, or for all expenses.',
  notes:
    'The budget counts in your base currency as it is now (records in other currencies are converted with the rate of their date). ' +
    'With `rollover`, what is left (or overspent) each month since `startMonth` carries into the next. Rules: docs/budgets.md.',
  auth: 'user',
  params: Params({
    name: Name,
    categories: Categories,
    amount: Amount,
    period: Type.Optional(OneOf(['month'] as const, { description: 'Only month.', default: 'month' })),
    startMonth: Month('First month the budget counts, YYYY-MM.'),
    rollover: Type.Optional(Type.Boolean({ default: false, description: 'Carry what is left or overspent into the next month.' })),
  }),
  result: BudgetShape,
  errors: [
    [commonErrors.rows.invalid, 'invalid params, more decimals than the currency has'],
    [planningErrors.rows.blankBudgetName, 'the name is blank'],
    [planningErrors.rows.budgetAmountNotPositive, 'amount is 0 or negative'],
    [planningErrors.rows.invalidMonth, 'startMonth is not YYYY-MM'],
    ...CATEGORY_ERRORS,
  ],
  handler: (p, ctx) => ctx.app.services.budgets.create(ctx.user.id, p),
});

const queryBudgets = defineAction({
  summary: 'Your budgets that count in a month, with what was spent, what is left and what rolled over.',
  notes:
    'Spent = expenses (not income, not transfers) dated in the month in `timeZone`, in the budget’s categories, converted to its currency with the rate of each record’s date; ' +
    'records without a rate are left out and listed in `missingRates`. `carried` is what rolled over from the months since `startMonth` (rollover budgets), ' +
    '`remaining` = amount + carried − spent, `progress` = spent / (amount + carried) (1 when nothing is available and something was spent or owed). ' +
    '`spentToday` is what was spent today when the month is the current one. Budgets whose startMonth is after the month are not listed.',
  auth: 'user',
  params: Params({ month: Month('The month, YYYY-MM.'), timeZone: Type.Optional(TimeZone("IANA time zone the month is counted in (default: this computer's).")) }),
  result: BudgetMonth,
  errors: [
    [planningErrors.rows.invalidMonth, 'month is not YYYY-MM'],
    [planningErrors.rows.unknownPlanningTimeZone, 'unknown time zone'],
  ],
  handler: (p, ctx) => ctx.app.services.budgets.query(ctx.user.id, p.month, p.timeZone),
});

const updateBudget = defineAction({
  summary: 'Change a budget: name, categories, amount, start month, rollover.',
  notes: 'Its currency stays. Figures of every month follow the new settings (history is recomputed, not stored).',
  auth: 'user',
  params: Params({
    id: BudgetId,
    name: Type.Optional(Name),
    categories: Type.Optional(Categories),
    amount: Type.Optional(Amount),
    startMonth: Type.Optional(Month('First month the budget counts, YYYY-MM.')),
    rollover: Type.Optional(Type.Boolean()),
  }),
  result: BudgetShape,
  errors: [
    [planningErrors.rows.budgetNotFound, "no such budget, or it is another user's"],
    [commonErrors.rows.invalid, 'invalid params, more decimals than the currency has'],
    [planningErrors.rows.blankBudgetName, 'the name is blank'],
    [planningErrors.rows.budgetAmountNotPositive, 'amount is 0 or negative'],
    [planningErrors.rows.invalidMonth, 'startMonth is not YYYY-MM'],
    ...CATEGORY_ERRORS,
  ],
  handler: (p, ctx) => ctx.app.services.budgets.update(ctx.user.id, p),
});

const deleteBudget = defineAction({
  summary: 'Delete a budget. Records are not touched.',
  auth: 'user',
  params: Params({ id: BudgetId }),
  result: Deleted,
  errors: [[planningErrors.rows.budgetNotFound, "no such budget, or it is another user's"]],
  handler: (p, ctx) => ctx.app.services.budgets.delete(ctx.user.id, p.id),
});

/** budget.create / query / update / delete (docs/budgets.md). */
export const budgetActions = defineActions({
  'budget.create': createBudget,
  'budget.query': queryBudgets,
  'budget.update': updateBudget,
  'budget.delete': deleteBudget,
});
