import { Type, type Static } from '@sinclair/typebox';
import { Result, Shape } from '../api/result';
import { ASSET_STATUSES, ASSET_TYPES } from './schema';

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
