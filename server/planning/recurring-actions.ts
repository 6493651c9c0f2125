import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params } from '../api/action';
import { Id, Money, OneOf, Page, PageSize, Text, TimeZone } from '../api/params';
import { ledgerErrors, RecordShape } from '../ledger/public';
import { toMajor } from '../lib/money';
import { commonErrors } from '../lib/errors';
import { planningErrors } from './errors';
import { Deleted } from '../api/result';
import { RecurringList, RecurringShape, UpcomingList } from './result-shapes';
import { RECURRING_TIME_MAX, RECURRING_TIME_MIN } from './occurrences';
import { RECURRING_FREQS, RECURRING_MODES, TEMPLATE_TYPES, WEEKDAYS } from './schema';

/** An instant of a recurring item (ms): 1970 to the end of 2200. */
const RecurringTime = (description: string) =>
  Type.Integer({ minimum: RECURRING_TIME_MIN, maximum: RECURRING_TIME_MAX, description: `${description} Ms, 1970 to the end of 2200.` });

const Template = Type.Object(
  {
    type: OneOf(TEMPLATE_TYPES, { description: 'income, expense or transfer.' }),
    amount: Money('Positive, major units of the asset’s currency.'),
    category: Type.Optional(Type.String({ maxLength: 64, description: 'income/expense: a category of yours (default "Other").' })),
    asset: Id('The asset (a transfer’s source).'),
    toAsset: Type.Optional(Id('transfer: the target asset.')),
    description: Type.Optional(Text(1000)),
    tags: Type.Optional(Type.Array(Text(32, { minLength: 1 }), { maxItems: 20 })),
  },
  { additionalProperties: false },
);

const Schedule = Type.Object(
  {
    freq: OneOf(RECURRING_FREQS, { description: 'daily, weekly, monthly or yearly.' }),
    interval: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Every how many days/weeks/months/years (default 1).' })),
    byMonthDay: Type.Optional(
      Type.Integer({ minimum: -1, maximum: 31, description: 'monthly/yearly: day of the month, −1 = the last day; a day the month lacks is its last day.' }),
    ),
    byWeekday: Type.Optional(Type.Array(OneOf(WEEKDAYS), { maxItems: 7, description: 'weekly: days of the week (default the start date’s).' })),
  },
  { additionalProperties: false },
);

const Mode = OneOf(RECURRING_MODES, { description: 'auto writes the record on its date; confirm lists it in recurring.upcoming for one tap (recurring.confirm).' });
const DateParam = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', hint: 'occurrenceDate', description: 'An occurrence date YYYY-MM-DD in the item’s time zone.' });
const TEMPLATE_ERRORS = [
  [ledgerErrors.rows.assetNotFound, "unknown, deleted or another user's asset"],
  [ledgerErrors.rows.unknownCategory, 'unknown category'],
  [planningErrors.rows.recurringNeedsToAsset, 'a transfer without toAsset, or to its own asset'],
  [planningErrors.rows.recurringBadAmount, 'amount is zero or negative'],
  [commonErrors.rows.invalid, 'more decimals than the currency has'],
] as const;
const SCHEDULE_ERRORS = [
  [planningErrors.rows.recurringBadInterval, 'interval out of range'],
  [planningErrors.rows.recurringBadMonthDay, 'byMonthDay is 0 or out of range'],
  [planningErrors.rows.recurringMonthDayNotMonthly, 'byMonthDay with daily or weekly'],
  [planningErrors.rows.recurringWeekdaysNotWeekly, 'byWeekday without weekly'],
  [planningErrors.rows.recurringEndBeforeStart, 'endDate not after startDate'],
  [planningErrors.rows.recurringTooManyPast, 'an auto item would write more than 400 past records at once'],
  [planningErrors.rows.recurringUnknownTimeZone, 'unknown timeZone'],
] as const;
const NOT_FOUND = [planningErrors.rows.recurringNotFound, "unknown or another user's recurring item"] as const;

const recurringCreate = defineAction({
  summary: 'Create a recurring record: a template and when it recurs.',
  notes:
    'Occurrences fall on dates of `timeZone` (default this computer’s) at the local time of day of `startDate` (docs/budgets.md, "Recurring records"). ' +
    '`auto` writes each record on its date exactly once (catching up missed ones, even before now when `startDate` is in the past); `confirm` lists them in recurring.upcoming.',
  auth: 'user',
  params: Params({
    name: Type.Optional(Text(100, { description: 'Default: the description or the category.' })),
    template: Template,
    rule: Schedule,
    startDate: RecurringTime('The first possible occurrence (its local time of day is every occurrence’s).'),
    endDate: Type.Optional(Type.Union([RecurringTime('The last instant an occurrence may fall on.'), Type.Null()])),
    timeZone: Type.Optional(TimeZone('IANA zone the dates are counted in (default: this computer’s).')),
    mode: Mode,
  }),
  result: RecurringShape,
  errors: [...TEMPLATE_ERRORS, ...SCHEDULE_ERRORS],
  handler: (params, ctx) => ctx.app.services.recurring.create(ctx.user.id, params),
});

const recurringQuery = defineAction({
  summary: 'List your recurring items, oldest first.',
  auth: 'user',
  params: Params({ page: Type.Optional(Page()), pageSize: Type.Optional(PageSize(200, 50)) }),
  result: RecurringList,
  handler: (params, ctx) => ctx.app.services.recurring.query(ctx.user.id, params.page ?? 1, params.pageSize ?? 50),
});

const recurringUpdate = defineAction({
  summary: 'Change a recurring item: name, template, schedule (`rule`), dates, zone or mode.',
  notes:
    'A new schedule applies from now on: its occurrences up to now count as done. A new template applies to the records written from now on; records already written stay as they are.',
  auth: 'user',
  params: Params({
    id: Id(),
    name: Type.Optional(Text(100)),
    template: Type.Optional(Template),
    rule: Type.Optional(Schedule),
    startDate: Type.Optional(RecurringTime('The first possible occurrence.')),
    endDate: Type.Optional(Type.Union([RecurringTime('The last instant an occurrence may fall on.'), Type.Null()])),
    timeZone: Type.Optional(TimeZone('IANA zone the dates are counted in.')),
    mode: Type.Optional(Mode),
  }),
  result: RecurringShape,
  errors: [NOT_FOUND, ...TEMPLATE_ERRORS, ...SCHEDULE_ERRORS],
  handler: (params, ctx) => ctx.app.services.recurring.update(ctx.user.id, params),
});

const recurringDelete = defineAction({
  summary: 'Delete a recurring item; the records it wrote stay.',
  auth: 'user',
  params: Params({ id: Id() }),
  result: Deleted,
  errors: [NOT_FOUND],
  handler: (params, ctx) => ctx.app.services.recurring.delete(ctx.user.id, params.id),
});

const recurringSkip = defineAction({
  summary: 'Skip one occurrence: its record is never written.',
  auth: 'user',
  params: Params({ id: Id(), date: DateParam }),
  result: RecurringShape,
  errors: [
    NOT_FOUND,
    [planningErrors.rows.recurringNotAnOccurrence, 'the item does not occur on that date'],
    [planningErrors.rows.recurringAlreadyHandled, 'the occurrence is already written'],
    [planningErrors.rows.recurringTooManySkips, '1000 dates skipped ahead already'],
  ],
  handler: (params, ctx) => ctx.app.services.recurring.skip(ctx.user.id, params.id, params.date),
});

const recurringConfirm = defineAction({
  summary: 'Write the record of one occurrence now (the one tap of a `confirm` item).',
  notes:
    'The record written is answered as accounting.get answers it. It is dated at the occurrence and carries `recurringId` and `occurrence`; it is the same record the scheduler would write, so it is never written twice. The balance rule applies (2002).',
  auth: 'user',
  params: Params({ id: Id(), date: DateParam }),
  result: RecordShape,
  errors: [
    NOT_FOUND,
    [planningErrors.rows.recurringNotAnOccurrence, 'the item does not occur on that date'],
    [planningErrors.rows.recurringAlreadyHandled, 'the occurrence is already written or skipped'],
    [ledgerErrors.rows.assetNotFound, 'the template’s asset was deleted'],
    [ledgerErrors.rows.insufficientBalance, 'the asset cannot go below zero'],
  ],
  handler: (params, ctx) => ctx.app.services.recurring.confirm(ctx.user.id, params.id, params.date),
});

const recurringUpcoming = defineAction({
  summary: 'Occurrences of the next `days` days not yet written or skipped, with overdue `confirm` ones first.',
  auth: 'user',
  params: Params({ days: Type.Integer({ minimum: 1, maximum: 366, description: 'How many days ahead.' }) }),
  result: UpcomingList,
  handler: async (params, ctx) => {
    const list = await ctx.app.services.recurring.upcoming(ctx.user.id, params.days);
    return { list: list.map((o) => ({ ...o, amount: toMajor(o.amount, o.currency), overdue: o.overdue ?? false })) };
  },
});

/** recurring.create / query / update / delete / skip / confirm / upcoming (docs/budgets.md). */
export const recurringActions = defineActions({
  'recurring.create': recurringCreate,
  'recurring.query': recurringQuery,
  'recurring.update': recurringUpdate,
  'recurring.delete': recurringDelete,
  'recurring.skip': recurringSkip,
  'recurring.confirm': recurringConfirm,
  'recurring.upcoming': recurringUpcoming,
});
