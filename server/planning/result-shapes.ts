import { Type, type Static } from '@sinclair/typebox';
import { Result, Shape } from '../api/result';
import { RECURRING_FREQS, RECURRING_MODES, TEMPLATE_TYPES, WEEKDAYS } from './schema';

/** Result shapes of the recurring and budget actions (server/api/result.ts); the presenters are typed by them. */

const literals = <T extends string>(values: readonly T[], description?: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    description ? { description } : {},
  );
const Ms = (description = 'ms') => Type.Integer({ description });
const Day = (description: string) => Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description });

// ---------------------------------------------------------------- recurring

export const RecurringTemplateShape = Shape(
  'RecurringTemplate',
  {
    type: literals(TEMPLATE_TYPES),
    amount: Type.Number({ description: "positive, major units of the asset's currency" }),
    currency: Type.String({ description: "the asset's currency (ISO 4217)" }),
    category: Type.String({ description: "income/expense: the category name ('' for a transfer)" }),
    asset: Type.String({ description: "the asset (a transfer's source)" }),
    toAsset: Type.String({ description: "transfer: the target asset ('' otherwise)" }),
    description: Type.String(),
    tags: Type.Array(Type.String()),
  },
  'The record a recurring item writes on each occurrence.',
);

export const ScheduleShape = Shape(
  'RecurrenceRule',
  {
    freq: literals(RECURRING_FREQS),
    interval: Type.Integer({ description: 'every how many days/weeks/months/years' }),
    byMonthDay: Type.Optional(Type.Integer({ description: "monthly/yearly: day of the month, −1 = the last day; absent: the start date's day" })),
    byWeekday: Type.Optional(Type.Array(literals(WEEKDAYS), { description: "weekly: days of the week; absent: the start date's" })),
  },
  'When a recurring item occurs.',
);

const OccurrenceShape = Result({ date: Day('YYYY-MM-DD'), at: Ms() });

export const RecurringShape = Shape(
  'Recurring',
  {
    id: Type.String(),
    name: Type.String(),
    template: RecurringTemplateShape,
    rule: ScheduleShape,
    startDate: Ms('the first possible occurrence (its local time of day is every occurrence’s), ms'),
    endDate: Type.Union([Type.Integer(), Type.Null()], { description: 'the last instant an occurrence may fall on, ms; null: no end' }),
    timeZone: Type.String({ description: 'IANA zone the dates are counted in' }),
    mode: literals(RECURRING_MODES, 'auto writes the record on its date; confirm lists it in recurring.upcoming for one tap'),
    skipped: Type.Array(Type.String(), { description: 'occurrence dates (YYYY-MM-DD) skipped' }),
    doneThrough: Type.String({ description: "the last occurrence date (YYYY-MM-DD) already handled (written, confirmed or skipped); '' = none" }),
    next: Type.Union([OccurrenceShape, Type.Null()], {
      description: '`{date, at}`: the next occurrence not yet handled (date YYYY-MM-DD in the zone, at ms), null when the item has ended',
    }),
    createdAt: Ms(),
    updatedAt: Ms(),
  },
  'A recurring record: a template and when it recurs.',
);
export type RecurringView = Static<typeof RecurringShape>;

export const RecurringList = Result({ list: Type.Array(RecurringShape), total: Type.Integer(), page: Type.Integer(), pageSize: Type.Integer() }, { description: 'oldest first' });

export const UpcomingShape = Shape(
  'UpcomingOccurrence',
  {
    id: Type.String({ description: 'the recurring item' }),
    name: Type.String(),
    date: Day("occurrence date YYYY-MM-DD in the item's zone"),
    at: Ms('the instant the record is dated (and an auto item writes it), ms'),
    timeZone: Type.String({ description: "the item's IANA zone, which `date` is counted in" }),
    mode: literals(RECURRING_MODES),
    type: literals(TEMPLATE_TYPES),
    amount: Type.Number({ description: 'major units of `currency`' }),
    currency: Type.String(),
    category: Type.String(),
    asset: Type.String(),
    overdue: Type.Boolean({ description: 'its time has come and it is neither written nor skipped (a confirm occurrence, or an auto one that could not be written yet)' }),
  },
  'An occurrence not yet written or skipped.',
);

export const UpcomingList = Result({ list: Type.Array(UpcomingShape) }, { description: 'overdue ones first, then by time' });

// ---------------------------------------------------------------- budgets

const budgetFields = {
  id: Type.String(),
  name: Type.String(),
  categories: Type.Array(Type.String(), { description: "ids of the budget's expense categories ([] with allCategories)" }),
  categoryNames: Type.Array(Type.String(), { description: 'the names records carry (a name whose category was renamed or deleted has no id any more)' }),
  allCategories: Type.Boolean({ description: 'counts every expense' }),
  amount: Type.Number({ description: 'the monthly amount, major units of `currency`' }),
  currency: Type.String({ description: 'your base currency when the budget was made' }),
  period: Type.Literal('month'),
  startMonth: Type.String({ description: 'YYYY-MM, the first month it counts' }),
  rollover: Type.Boolean({ description: 'what is left or overspent carries into the next month' }),
  createdAt: Ms(),
  updatedAt: Ms(),
};

export const BudgetShape = Shape('Budget', budgetFields, 'A monthly budget for some expense categories, or for all expenses.');
export type BudgetView = Static<typeof BudgetShape>;

export const BudgetFigureShape = Shape(
  'BudgetFigure',
  {
    ...budgetFields,
    spent: Type.Number({ description: 'expenses in the month, major units' }),
    remaining: Type.Number({ description: 'amount + carried − spent, major units' }),
    carried: Type.Number({ description: 'what rolled over from the months since startMonth (rollover budgets), major units' }),
    progress: Type.Number({ description: 'spent / (amount + carried); 1 when nothing is available and something was spent or owed' }),
    spentToday: Type.Number({ description: 'spent today when the month is the current one, else 0; major units' }),
  },
  'A Budget with its figures of one month.',
);
export type BudgetFigureView = Static<typeof BudgetFigureShape>;

export const BudgetMonth = Result(
  {
    month: Type.String(),
    timeZone: Type.String(),
    list: Type.Array(BudgetFigureShape),
    missingRates: Type.Array(Result({ from: Type.String(), to: Type.String(), records: Type.Integer() })),
  },
  { description: '`month` YYYY-MM and the `timeZone` it is counted in; `missingRates`: currency pairs without a rate, with how many records were left out for it' },
);
