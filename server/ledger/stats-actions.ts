import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params } from '../api/action';
import { Ms, TimeZone } from '../api/params';
import { commonErrors } from '../lib/errors';
import { GROUP_BY, isTimeZone, localTimeZone } from '../lib/calendar';
import { ledgerErrors } from './errors';
import { AssetStats, CategoryStats, IncomeExpense, TrendSeries } from './stats-shapes';
import { assetStats, categoryStats, incomeExpense, trendSeries } from './stats';
import type { UserLedgerView } from './views';

const GroupBy = Type.Union(
  GROUP_BY.map((g) => Type.Literal(g)),
  { description: 'day, week (ISO, Monday first), month or year.' },
);

const Range = {
  startDate: Ms('From (inclusive).'),
  endDate: Ms('To (exclusive).'),
};

/**
 * A statistic computed once per state of the records it covers: the answer is kept with the view
 * (UserLedgerView.memoSpan) under its base currency and parameters until an asset or rate changes,
 * or a record dated within `span` is written or removed; a dashboard reloaded or polled by several
 * devices does not sum the same records again, and today's expense leaves last year's figures be.
 */
function remembered<T>(view: UserLedgerView, name: string, currency: string, input: object, span: [number, number], compute: () => T): T {
  return view.memoSpan(`stats.${name}|${currency}|${JSON.stringify(input)}`, span[0], span[1], compute);
}

function zoneOf(timeZone: string | undefined): string {
  if (timeZone === undefined) return localTimeZone();
  if (!isTimeZone(timeZone)) throw ledgerErrors.unknownTimeZone(timeZone).at('timeZone');
  return timeZone;
}

const statsIncomeExpense = defineAction({
  summary: 'Income and expense totals of a period, with trends against the previous period of equal length, and an optional series.',
  notes: `\`average\` is the mean per record. \`trend\` compares the total with the previous period of the same length: up or down when it changed by more than 5%, else stable. Transfers are not income or expense. Amounts in the base currency.`,
  auth: 'user',
  params: Params({ ...Range, groupBy: Type.Optional(GroupBy), timeZone: Type.Optional(TimeZone()) }),
  result: IncomeExpense,
  errors: [[commonErrors.rows.invalid, 'endDate not after startDate, unknown groupBy or time zone, too many periods']],
  handler: async (params, ctx) => {
    const service = ctx.app.services.ledger;
    const view = await service.views.get(ctx.user.id);
    const { currency } = await service.baseCurrency(ctx.user.id, view);
    const input = { ...params, timeZone: zoneOf(params.timeZone) };
    // the trend compares with the period of equal length before
    const span: [number, number] = [input.startDate - (input.endDate - input.startDate), input.endDate];
    return remembered(view, 'incomeExpense', currency, input, span, () => incomeExpense(view, currency, input));
  },
});

const statsCategory = defineAction({
  summary: 'Top categories of a period by amount, with count and share; the rest folded into "other".',
  auth: 'user',
  params: Params({
    type: Type.Optional(Type.Union([Type.Literal('income'), Type.Literal('expense')], { default: 'expense' })),
    ...Range,
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 8 })),
  }),
  result: CategoryStats,
  errors: [[commonErrors.rows.invalid, 'endDate not after startDate, limit out of 1–50']],
  handler: async (params, ctx) => {
    const service = ctx.app.services.ledger;
    const view = await service.views.get(ctx.user.id);
    const { currency } = await service.baseCurrency(ctx.user.id, view);
    const input = { type: params.type ?? 'expense', startDate: params.startDate, endDate: params.endDate, limit: params.limit ?? 8 };
    return remembered(view, 'categories', currency, input, [input.startDate, input.endDate], () => categoryStats(view, currency, input));
  },
});

const statsAssets = defineAction({
  summary: 'Net worth now: assets vs liabilities, by type and by currency, in the base currency.',
  notes: 'Negative balances (credit cards, loans) are liabilities. Deleted assets are left out; archived ones count.',
  auth: 'user',
  params: Params({}),
  result: AssetStats,
  handler: async (_params, ctx) => {
    const service = ctx.app.services.ledger;
    const view = await service.views.get(ctx.user.id);
    const { currency } = await service.baseCurrency(ctx.user.id, view);
    return assetStats(view, currency, ctx.app.clock.now());
  },
});

const statsTrend = defineAction({
  summary: 'A time series for charts: income, expense, net, or balance (net worth at the end of each period).',
  auth: 'user',
  params: Params({
    type: Type.Union([Type.Literal('income'), Type.Literal('expense'), Type.Literal('net'), Type.Literal('balance')]),
    ...Range,
    groupBy: Type.Optional(GroupBy),
    timeZone: Type.Optional(TimeZone()),
  }),
  result: TrendSeries,
  errors: [[commonErrors.rows.invalid, 'endDate not after startDate, unknown type, groupBy or time zone']],
  handler: async (params, ctx) => {
    const service = ctx.app.services.ledger;
    const view = await service.views.get(ctx.user.id);
    const { currency } = await service.baseCurrency(ctx.user.id, view);
    const input = { type: params.type, startDate: params.startDate, endDate: params.endDate, groupBy: params.groupBy ?? 'month', timeZone: zoneOf(params.timeZone) };
    // net worth at a date counts every record before it
    const span: [number, number] = [input.type === 'balance' ? -Infinity : input.startDate, input.endDate];
    return remembered(view, 'trend', currency, input, span, () => trendSeries(view, currency, input));
  },
});

/** stats.*: totals, shares, net worth and series in the base currency. */
export const statsActions = defineActions({
  'stats.getIncomeExpense': statsIncomeExpense,
  'stats.getCategoryStats': statsCategory,
  'stats.getAssetStats': statsAssets,
  'stats.getTrend': statsTrend,
});
