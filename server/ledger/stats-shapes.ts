import { Type, type Static } from '@sinclair/typebox';
import { Result, Shape } from '../api/result';
import { ASSET_TYPES } from './schema';
import { Inexact, MissingRate } from './record-shapes';

/** Result shapes of stats.*: figures in major units of the base currency, dates in ms. */

const Major = (description = 'major units of the base currency') => Type.Number({ description });

const Period = Result(
  { startDate: Type.Integer({ description: 'ms, inclusive' }), endDate: Type.Integer({ description: 'ms, exclusive' }) },
  { description: 'the period asked for' },
);

const Trend = Type.Union([Type.Literal('up'), Type.Literal('down'), Type.Literal('stable')], {
  description: 'against the previous period of the same length: up or down when it changed by more than 5%, else stable',
});

const FlowTotals = Shape(
  'FlowTotals',
  {
    total: Major(),
    count: Type.Integer({ description: 'records' }),
    average: Major('mean per record, major units'),
    trend: Trend,
    previousTotal: Major('the total of the previous period of the same length, major units'),
  },
  'The income (or expense) of a period.',
);

const SeriesPoint = Shape(
  'SeriesPoint',
  {
    label: Type.String({ description: 'the period: 2026-11, 2026-W45, 2026-11-03, 2026' }),
    startDate: Type.Integer({ description: 'ms, inclusive (clipped to the period asked for)' }),
    endDate: Type.Integer({ description: 'ms, exclusive (clipped to the period asked for)' }),
    income: Major(),
    expense: Major(),
    net: Major(),
  },
  'One period of a series.',
);

export const IncomeExpense = Result(
  {
    income: FlowTotals,
    expense: FlowTotals,
    netIncome: Major(),
    period: Period,
    currency: Type.String({ description: 'the base currency' }),
    missingRates: Type.Array(MissingRate),
    series: Type.Optional(Type.Array(SeriesPoint, { description: 'only with `groupBy`' })),
    inexact: Inexact,
  },
  { description: 'amounts in major units of the base currency; transfers are not income or expense' },
);
export type IncomeExpenseView = Static<typeof IncomeExpense>;

const CategoryAmount = Result({
  category: Type.String(),
  amount: Major(),
  count: Type.Integer({ description: 'records' }),
  share: Type.Number({ description: 'of the total, 0–1 with 4 decimals' }),
});

export const CategoryStats = Result({
  type: Type.Union([Type.Literal('income'), Type.Literal('expense')]),
  currency: Type.String({ description: 'the base currency' }),
  total: Major(),
  categories: Type.Array(CategoryAmount, { description: 'the top `limit` categories by amount' }),
  other: Type.Union(
    [
      Result({
        categories: Type.Integer({ description: 'how many categories are folded in' }),
        amount: Major(),
        count: Type.Integer({ description: 'records' }),
        share: Type.Number({ description: 'of the total, 0–1 with 4 decimals' }),
      }),
      Type.Null(),
    ],
    { description: 'the categories past `limit`, folded; null when there are none' },
  ),
  period: Period,
  missingRates: Type.Array(MissingRate),
  inexact: Inexact,
});

export const AssetStats = Result(
  {
    currency: Type.String({ description: 'the base currency' }),
    netWorth: Major(),
    assets: Major('the positive balances, major units'),
    liabilities: Major('the negative balances as a positive figure, major units'),
    byType: Type.Array(Result({ type: Type.Union(ASSET_TYPES.map((t) => Type.Literal(t))), balance: Major(), count: Type.Integer({ description: 'assets' }) }), {
      description: 'assets whose currency has a rate',
    }),
    byCurrency: Type.Array(
      Result({
        currency: Type.String(),
        balance: Type.Number({ description: 'major units of `currency`' }),
        converted: Type.Union([Major(), Type.Null()], { description: 'in the base currency; null without a rate' }),
        count: Type.Integer({ description: 'assets' }),
      }),
    ),
    missingRates: Type.Array(MissingRate),
    inexact: Inexact,
  },
  { description: 'net worth now, in the base currency; deleted assets are left out, archived ones count' },
);

export const TrendSeries = Result({
  type: Type.Union([Type.Literal('income'), Type.Literal('expense'), Type.Literal('net'), Type.Literal('balance')]),
  currency: Type.String({ description: 'the base currency' }),
  points: Type.Array(
    Result({
      label: Type.String({ description: 'the period: 2026-11, 2026-W45, 2026-11-03, 2026' }),
      startDate: Type.Integer({ description: 'ms, inclusive' }),
      endDate: Type.Integer({ description: 'ms, exclusive' }),
      value: Major('major units of the base currency; for `balance`, net worth at `endDate`'),
    }),
  ),
  missingRates: Type.Array(MissingRate),
  inexact: Inexact,
});
