import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params } from '../api/action';
import { Deleted } from '../api/result';
import { AssetList, AssetShape, BalanceCheck, CreatedId } from './result-shapes';
import { Currency, Id, Money, Ms, Page, PageSize, Text } from '../api/params';
import { commonErrors } from '../lib/errors';
import { ledgerErrors } from './errors';
import { OUT_OF_RANGE_ERROR } from './limits';
import { ASSET_STATUSES, ASSET_TYPES } from './schema';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from './service';
import { ASSET_TEXT } from './text-limits';

const assetCreate = defineAction({
  summary: 'Create an asset (an account where money lives: cash, a card, a wallet, a loan…).',
  notes:
    `Types: ${ASSET_TYPES.join(', ')}. Only credit_card and loan balances may go below zero. ` +
    '`balance` is the opening balance; the live balance is always derived from it plus the records. ' +
    'The first asset becomes the default; `isDefault: true` moves the default here. `currency` defaults to the base currency.',
  auth: 'user',
  params: Params({
    name: Text(ASSET_TEXT.name, { minLength: 1 }),
    type: Type.String({ minLength: 1, maxLength: 32, description: `One of ${ASSET_TYPES.join(', ')}.` }),
    balance: Type.Optional(Money('Opening balance, major units (default 0).')),
    currency: Type.Optional(Currency()),
    description: Type.Optional(Text(ASSET_TEXT.description)),
    icon: Type.Optional(Type.String({ maxLength: 200 })),
    isDefault: Type.Optional(Type.Boolean()),
  }),
  result: CreatedId,
  errors: [
    [ledgerErrors.rows.invalidAssetType, 'unknown asset type'],
    [commonErrors.rows.invalid, 'bad currency, more decimals than the currency has, or a negative opening balance for a type that cannot be negative'],
    OUT_OF_RANGE_ERROR,
  ],
  handler: (params, ctx) => ctx.app.services.ledger.createAsset(ctx.user.id, params),
});

const assetQuery = defineAction({
  summary: 'List assets with their live balances (deleted assets are hidden).',
  notes: `Sorted: default asset first, then by creation. Statuses: ${ASSET_STATUSES.join(', ')} (archived assets keep their records and count in net worth).`,
  auth: 'user',
  params: Params({
    type: Type.Optional(Type.String({ maxLength: 32 })),
    status: Type.Optional(Type.String({ maxLength: 32 })),
    page: Type.Optional(Page()),
    pageSize: Type.Optional(PageSize(PAGE_SIZE_MAX, PAGE_SIZE_DEFAULT)),
  }),
  result: AssetList,
  errors: [
    [ledgerErrors.rows.invalidAssetType, 'unknown type filter'],
    [commonErrors.rows.invalid, 'unknown status, page or pageSize out of range'],
  ],
  handler: (params, ctx) => ctx.app.services.ledger.queryAssets(ctx.user.id, { ...params, page: params.page ?? 1, pageSize: params.pageSize ?? PAGE_SIZE_DEFAULT }),
});

const assetDetail = defineAction({
  summary: 'One asset with its live balance and record count.',
  auth: 'user',
  params: Params({ id: Id() }),
  result: AssetShape,
  errors: [[ledgerErrors.rows.assetNotFound, "unknown, deleted or another user's asset"]],
  handler: (params, ctx) => ctx.app.services.ledger.assetDetail(ctx.user.id, params.id),
});

const assetUpdate = defineAction({
  summary: 'Edit an asset: name, description, icon, default, type, status (normal/archived), opening balance, currency (only while it has no records).',
  notes: 'Pass `expectedUpdatedAt` (the `updatedAt` you loaded) to get 409 instead of overwriting a newer change.',
  auth: 'user',
  params: Params({
    id: Id(),
    name: Type.Optional(Text(ASSET_TEXT.name, { minLength: 1 })),
    description: Type.Optional(Text(ASSET_TEXT.description)),
    icon: Type.Optional(Type.String({ maxLength: 200 })),
    isDefault: Type.Optional(Type.Boolean()),
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    status: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    currency: Type.Optional(Currency()),
    openingBalance: Type.Optional(Money('Opening balance, major units.')),
    expectedUpdatedAt: Type.Optional(Ms('Optimistic concurrency: the updatedAt you last saw.')),
  }),
  result: AssetShape,
  errors: [
    [ledgerErrors.rows.assetNotFound, "unknown, deleted or another user's asset"],
    [ledgerErrors.rows.invalidAssetType, 'unknown type'],
    [ledgerErrors.rows.assetBelowZero, 'the new opening balance or type would put a non-negative asset below zero'],
    [ledgerErrors.rows.changedElsewhere, 'stale expectedUpdatedAt'],
    [ledgerErrors.rows.currencyLocked, 'a currency change on an asset with records'],
    OUT_OF_RANGE_ERROR,
  ],
  handler: (params, ctx) => ctx.app.services.ledger.updateAsset(ctx.user.id, params),
});

const assetDelete = defineAction({
  summary: 'Delete an asset (soft): hidden from lists, its records kept and still shown with its name.',
  auth: 'user',
  params: Params({ id: Id() }),
  result: Deleted,
  errors: [[ledgerErrors.rows.assetNotFound, "unknown, already deleted or another user's asset"]],
  handler: (params, ctx) => ctx.app.services.ledger.deleteAsset(ctx.user.id, params.id),
});

const assetCheckBalances = defineAction({
  summary: 'Recompute every balance from the records and compare with the cached balances.',
  notes:
    'Balances are derived from records and kept in a cache fed by the database change stream; this check rebuilds it from scratch and reports any difference (there should be none). ' +
    'Sums are exact (BigInt); a balance beyond ±10^15 minor units (the exact range; only records arriving by sync can get there) is listed in `outOfRange` and makes `ok` false. ' +
    'Minor-unit values beyond the safe integers are given as strings of the exact integer.',
  auth: 'user',
  params: Params({}),
  result: BalanceCheck,
  handler: async (_params, ctx) => {
    const { mismatches, outOfRange } = await ctx.app.services.ledger.views.recompute(ctx.user.id);
    return { ok: mismatches.length === 0 && outOfRange.length === 0, mismatches, ...(outOfRange.length > 0 ? { outOfRange } : {}) };
  },
});

/** asset.*: the accounts where money lives, with balances derived from the records. */
export const assetActions = defineActions({
  'asset.create': assetCreate,
  'asset.query': assetQuery,
  'asset.detail': assetDetail,
  'asset.update': assetUpdate,
  'asset.delete': assetDelete,
  'asset.checkBalances': assetCheckBalances,
});
