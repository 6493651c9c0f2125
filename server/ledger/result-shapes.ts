import { Type, type Static } from '@sinclair/typebox';
import { Result, Shape } from '../api/result';
import { ASSET_STATUSES, ASSET_TYPES, CATEGORY_TYPES } from './schema';

/** Result shapes of the ledger's actions (server/api/result.ts); the presenters are typed by them. */

/** Minor units given exactly: a number, or the integer's digits when it is beyond the safe integers. */
const ExactMinor = Type.Union([Type.Integer(), Type.String({ pattern: '^-?\\d+$' })]);

export const AssetShape = Shape(
  'Asset',
  {
    _id: Type.String({ description: 'the same as `id` (the seed names it `_id`)' }),
    id: Type.String(),
    name: Type.String(),
    type: Type.Union(ASSET_TYPES.map((t) => Type.Literal(t))),
    balance: Type.Number({ description: 'live balance derived from the records, major units' }),
    openingBalance: Type.Number({ description: 'major units' }),
    currency: Type.String({ description: 'ISO 4217 code' }),
    description: Type.String(),
    status: Type.Union(ASSET_STATUSES.map((s) => Type.Literal(s))),
    icon: Type.String(),
    isDefault: Type.Boolean(),
    createdAt: Type.Integer({ description: 'ms' }),
    updatedAt: Type.Integer({ description: 'ms' }),
    delFlag: Type.Boolean(),
    recordCount: Type.Optional(Type.Integer({ description: 'records of the asset (asset.detail and asset.update)' })),
    inexact: Type.Optional(
      Type.Array(Type.Literal('balance'), {
        description: '`["balance"]` when the balance is beyond the exact range (records arrived by sync): `balance` is then the nearest number',
      }),
    ),
  },
  'An account where money lives, with its balance derived from the records.',
);
export type AssetView = Static<typeof AssetShape>;

export const AssetList = Result({
  list: Type.Array(AssetShape),
  total: Type.Integer(),
  page: Type.Integer(),
  pageSize: Type.Integer(),
  baseCurrency: Type.String(),
});

export const BalanceCheck = Result(
  {
    ok: Type.Boolean(),
    mismatches: Type.Array(Result({ assetId: Type.String(), cached: ExactMinor, recomputed: ExactMinor })),
    outOfRange: Type.Optional(Type.Array(Result({ assetId: Type.String(), currency: Type.String(), balance: ExactMinor }))),
  },
  { description: 'minor units; `outOfRange` only when not empty' },
);

export const CreatedId = Result({ id: Type.String() });

export const CategoryShape = Shape(
  'Category',
  {
    id: Type.String(),
    type: Type.Union(CATEGORY_TYPES.map((t) => Type.Literal(t))),
    name: Type.String(),
    icon: Type.String(),
    position: Type.Integer({ description: 'sort position in pickers' }),
  },
  "An income or expense category of the user's.",
);
export type CategoryView = Static<typeof CategoryShape>;

export const CategoryList = Result({ list: Type.Array(CategoryShape) });

export const CategoryDeleted = Result({
  deleted: Type.Literal(true),
  movedRecords: Type.Integer({ description: 'records moved to `moveTo`' }),
});

export const CategoryRenames = Result({
  renamed: Type.Integer({ description: 'how many categories changed (or would, with `preview`)' }),
  kept: Type.Integer({ description: 'defaults that kept their name because another category of their type already has the new one' }),
  changes: Type.Array(Result({ type: Type.Union(CATEGORY_TYPES.map((t) => Type.Literal(t))), from: Type.String(), to: Type.String() })),
});

export const BaseCurrencyAnswer = Result({
  baseCurrency: Type.String({ description: 'ISO 4217 code' }),
  explicit: Type.Boolean({ description: 'false while it is derived from the first asset or the language' }),
});

export const BaseCurrencySet = Result({ baseCurrency: Type.String({ description: 'ISO 4217 code' }) });

const rateFields = {
  from: Type.String({ description: 'ISO 4217 code' }),
  to: Type.String({ description: 'ISO 4217 code' }),
  rate: Type.String({ description: 'exact decimal: 1 `from` = `rate` `to`' }),
  date: Type.Integer({ description: 'effective from (ms)' }),
};

export const RateShape = Shape('Rate', { id: Type.String(), ...rateFields }, 'An exchange rate: 1 `from` = `rate` `to` from `date` on.');
export type RateView = Static<typeof RateShape>;

export const RateList = Result({ list: Type.Array(RateShape) }, { description: 'newest first' });

export const Conversion = Result(
  {
    amount: Type.Union([Type.Number(), Type.Null()], { description: 'major units of `to`; null without a rate' }),
    from: Type.String(),
    to: Type.String(),
    date: Type.Integer({ description: 'ms: the date whose rate applied' }),
    rate: Type.Union([Result(rateFields), Type.Null()], { description: 'the stored rate used (null without a rate, or when `from` is `to`)' }),
    inverse: Type.Boolean({ description: 'the stored rate is the reverse pair (1 `to` = `rate` `from`)' }),
  },
  { description: 'amount in major units of `to` (null without a rate); rate: the stored rate used, 1 `from` = `rate` `to` from `date` on (null without a rate)' },
);
export type ConversionView = Static<typeof Conversion>;
