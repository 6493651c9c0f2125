import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params } from '../api/action';
import { GROUP_BY, isTimeZone, localTimeZone } from '../lib/calendar';
import { ledgerErrors } from './errors';
import { listRecords } from './record-list';
import { ASSET_STATUSES, ASSET_TYPES } from './schema';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, type LedgerService } from './service';
import { assetStats, categoryStats, incomeExpense, trendSeries } from './stats';

declare module '../app-context' {
  interface ServiceMap {
    ledger: LedgerService;
  }
}

const Id = (description = '') => Type.String({ minLength: 1, maxLength: 64, description });
const Ms = (description: string) => Type.Integer({ minimum: 0, maximum: 8.64e15, description });
const Money = (description: string) => Type.Number({ description });
const Page = Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1.' });
const PageSize = Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT, description: `Items per page (max ${PAGE_SIZE_MAX}).` });
const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, e.g. USD, CNY, JPY.' });
const TimeZone = Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone for grouping (default: this computer\'s).' });
const GroupBy = Type.Union(GROUP_BY.map((g) => Type.Literal(g)), { description: 'day, week (ISO, Monday first), month or year.' });
const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 32 }), { maxItems: 20, description: 'Free tags (deduplicated).' });
const Attachments = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 20, description: 'File ids from file.upload.' });

/** The 400 of the exact range (docs/ledger.md, "Exact amounts and their limits"). */
const RANGE_ERROR: [number, string] = [400, 'an amount or the resulting balance of an asset beyond ±10^15 minor units (10,000,000,000,000.00 with 2 decimals), the exact range: `data.limit`, `data.currency`'];

const ledger = (ctx: { app: { services: { ledger: LedgerService } } }) => ctx.app.services.ledger;

function zoneOf(timeZone: string | undefined): string {
  if (timeZone === undefined) return localTimeZone();
  if (!isTimeZone(timeZone)) throw ledgerErrors.unknownTimeZone(timeZone).at('timeZone');
  return timeZone;
}

const ASSET_SHAPE =
  'Asset `{_id, id, name, type, balance, openingBalance, currency, description, status, icon, isDefault, createdAt, updatedAt, delFlag}` with `balance` derived from the records (major units); `inexact: ["balance"]` is added when the balance is beyond the exact range (records arrived by sync; `balance` is then the nearest number).';
const RECORD_SHAPE =
  'Record `{id, type, amount, currency, category, asset, assetName, description, date, tags, attachments, createdAt, updatedAt}`; transfers add `fromAsset, toAsset, toAssetName, fee, toAmount, toCurrency`.';

// ------------------------------------------------------------------ assets

const assetCreate = defineAction({
  summary: 'Create an asset (an account where money lives: cash, a card, a wallet, a loan…).',
  notes:
    `Types: ${ASSET_TYPES.join(', ')}. Only credit_card and loan balances may go below zero. ` +
    '`balance` is the opening balance; the live balance is always derived from it plus the records. ' +
    'The first asset becomes the default; `isDefault: true` moves the default here. `currency` defaults to the base currency.',
  auth: 'user',
  params: Params({
    name: Type.String({ minLength: 1, maxLength: 100 }),
    type: Type.String({ minLength: 1, maxLength: 32, description: `One of ${ASSET_TYPES.join(', ')}.` }),
    balance: Type.Optional(Money('Opening balance, major units (default 0).')),
    currency: Type.Optional(Currency),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    icon: Type.Optional(Type.String({ maxLength: 200 })),
    isDefault: Type.Optional(Type.Boolean()),
  }),
  returns: '`{id}`',
  errors: [
    [2003, 'unknown asset type'],
    [400, 'bad currency, more decimals than the currency has, or a negative opening balance for a type that cannot be negative'],
    RANGE_ERROR,
  ],
  handler: (params, ctx) => ledger(ctx).createAsset(ctx.user.id, params),
});

const assetQuery = defineAction({
  summary: 'List assets with their live balances (deleted assets are hidden).',
  notes: `Sorted: default asset first, then by creation. Statuses: ${ASSET_STATUSES.join(', ')} (archived assets keep their records and count in net worth).`,
  auth: 'user',
  params: Params({
    type: Type.Optional(Type.String({ maxLength: 32 })),
    status: Type.Optional(Type.String({ maxLength: 32 })),
    page: Type.Optional(Page),
    pageSize: Type.Optional(PageSize),
  }),
  returns: `\`{list, total, page, pageSize, baseCurrency}\`; list items: ${ASSET_SHAPE}`,
  errors: [
    [2003, 'unknown type filter'],
    [400, 'unknown status, page or pageSize out of range'],
  ],
  handler: (params, ctx) => ledger(ctx).queryAssets(ctx.user.id, { ...params, page: params.page ?? 1, pageSize: params.pageSize ?? PAGE_SIZE_DEFAULT }),
});

const assetDetail = defineAction({
  summary: 'One asset with its live balance and record count.',
  auth: 'user',
  params: Params({ id: Id() }),
  returns: `${ASSET_SHAPE} plus \`recordCount\``,
  errors: [[2001, 'unknown, deleted or another user\'s asset']],
  handler: (params, ctx) => ledger(ctx).assetDetail(ctx.user.id, params.id),
});

const assetUpdate = defineAction({
  summary: 'Edit an asset: name, description, icon, default, type, status (normal/archived), opening balance, currency (only while it has no records).',
  notes: 'Pass `expectedUpdatedAt` (the `updatedAt` you loaded) to get 409 instead of overwriting a newer change.',
  auth: 'user',
  params: Params({
    id: Id(),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    icon: Type.Optional(Type.String({ maxLength: 200 })),
    isDefault: Type.Optional(Type.Boolean()),
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    status: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    currency: Type.Optional(Currency),
    openingBalance: Type.Optional(Money('Opening balance, major units.')),
    expectedUpdatedAt: Type.Optional(Ms('Optimistic concurrency: the updatedAt you last saw.')),
  }),
  returns: `${ASSET_SHAPE} plus \`recordCount\``,
  errors: [
    [2001, 'unknown, deleted or another user\'s asset'],
    [2003, 'unknown type'],
    [2002, 'the new opening balance or type would put a non-negative asset below zero'],
    [409, 'stale expectedUpdatedAt, or a currency change on an asset with records'],
    RANGE_ERROR,
  ],
  handler: (params, ctx) => ledger(ctx).updateAsset(ctx.user.id, params),
});

const assetDelete = defineAction({
  summary: 'Delete an asset (soft): hidden from lists, its records kept and still shown with its name.',
  auth: 'user',
  params: Params({ id: Id() }),
  returns: '`{deleted: true}`',
  errors: [[2001, 'unknown, already deleted or another user\'s asset']],
  handler: (params, ctx) => ledger(ctx).deleteAsset(ctx.user.id, params.id),
});

const assetCheckBalances = defineAction({
  summary: 'Recompute every balance from the records and compare with the cached balances.',
  notes:
    'Balances are derived from records and kept in a cache fed by the database change stream; this check rebuilds it from scratch and reports any difference (there should be none). ' +
    'Sums are exact (BigInt); a balance beyond ±10^15 minor units (the exact range; only records arriving by sync can get there) is listed in `outOfRange` and makes `ok` false. ' +
    'Minor-unit values beyond the safe integers are given as strings of the exact integer.',
  auth: 'user',
  params: Params({}),
  returns: '`{ok, mismatches: [{assetId, cached, recomputed}], outOfRange?: [{assetId, currency, balance}]}` (minor units; `outOfRange` only when not empty)',
  handler: async (_params, ctx) => {
    const { mismatches, outOfRange } = await ledger(ctx).views.recompute(ctx.user.id);
    return { ok: mismatches.length === 0 && outOfRange.length === 0, mismatches, ...(outOfRange.length > 0 ? { outOfRange } : {}) };
  },
});

// ------------------------------------------------------------------ records

const accountingCreate = defineAction({
  summary: 'Record an income, an expense or a transfer between two assets.',
  notes:
    'income/expense: `amount, asset, category, description, date, tags`; transfer: `amount, fromAsset, toAsset, fee, description, date` ' +
    '(and `toAmount`, the amount received, when the two assets use different currencies; without it the latest exchange rate is used). ' +
    'Amounts are major units of the asset\'s currency with at most its decimals. `date` defaults to now, `category` to "Other". ' +
    'An expense or transfer that would take a cash, debit_card, ewallet, savings, investment or other asset below zero is refused (2002).',
  auth: 'user',
  params: Params({
    type: Type.String({ minLength: 1, maxLength: 32, description: 'income, expense or transfer.' }),
    amount: Money('Positive, major units of the (source) asset.'),
    asset: Type.Optional(Id('income/expense: the asset.')),
    fromAsset: Type.Optional(Id('transfer: source asset.')),
    toAsset: Type.Optional(Id('transfer: target asset.')),
    fee: Type.Optional(Money('transfer: fee taken from the source, ≥ 0.')),
    toAmount: Type.Optional(Money('transfer across currencies: amount received, in the target currency.')),
    category: Type.Optional(Type.String({ maxLength: 64 })),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    date: Type.Optional(Ms('When it happened (ms).')),
    tags: Type.Optional(Tags),
    attachments: Type.Optional(Attachments),
  }),
  returns: RECORD_SHAPE,
  errors: [
    [3002, 'unknown record type'],
    [3003, 'amount is zero or negative'],
    [400, 'more decimals than the currency has, unknown category, same source and target, negative fee, missing toAmount across currencies without a rate'],
    [2001, 'unknown, deleted or another user\'s asset'],
    [2002, 'the asset cannot go below zero'],
    [5001, 'an attachment is not one of your files'],
    RANGE_ERROR,
  ],
  handler: (params, ctx) => ledger(ctx).createRecord(ctx.user.id, params),
});

const accountingQuery = defineAction({
  summary: 'List records newest first, filtered, with the totals of the whole filtered set.',
  notes: '`startDate` inclusive, `endDate` exclusive. `asset` matches the record\'s asset or a transfer\'s target. `text` searches descriptions (case-insensitive). Totals are in the base currency; records in a currency without a rate are listed in `totals.missingRates` and left out of the sums.',
  auth: 'user',
  params: Params({
    type: Type.Optional(Type.String({ maxLength: 32 })),
    startDate: Type.Optional(Ms('From (inclusive).')),
    endDate: Type.Optional(Ms('To (exclusive).')),
    category: Type.Optional(Type.String({ maxLength: 64 })),
    asset: Type.Optional(Id()),
    tag: Type.Optional(Type.String({ maxLength: 32 })),
    text: Type.Optional(Type.String({ maxLength: 200 })),
    page: Type.Optional(Page),
    pageSize: Type.Optional(PageSize),
  }),
  returns: `\`{list, total, page, pageSize, totals: {currency, income, expense, net, transfers, missingRates, inexact}}\`; list items: ${RECORD_SHAPE}`,
  errors: [
    [3002, 'unknown type filter'],
    [400, 'page or pageSize out of range, endDate not after startDate'],
  ],
  handler: async (params, ctx) => {
    const service = ledger(ctx);
    if (params.type !== undefined && !['income', 'expense', 'transfer'].includes(params.type)) {
      throw ledgerErrors.unknownRecordTypeFilter(params.type).at('type');
    }
    if (params.startDate !== undefined && params.endDate !== undefined && params.endDate <= params.startDate) {
      throw ledgerErrors.endBeforeStart().at('endDate');
    }
    const page = params.page ?? 1;
    const pageSize = params.pageSize ?? PAGE_SIZE_DEFAULT;
    const view = await service.views.get(ctx.user.id);
    const { currency } = await service.baseCurrency(ctx.user.id, view);
    const result = listRecords(view, currency, { ...params, type: params.type as 'income' | 'expense' | 'transfer' | undefined }, page, pageSize);
    const docs = await service.recordsByIds(result.ids);
    return { list: docs.map((d) => service.recordView(view, d)), total: result.total, page, pageSize, totals: result.totals };
  },
});

const accountingGet = defineAction({
  summary: 'One record with details of its attachments.',
  auth: 'user',
  params: Params({ id: Id() }),
  returns: `${RECORD_SHAPE} plus \`attachmentDetails: [{fileId, fileName, fileType, fileSize, url, missing}]\``,
  errors: [[3001, 'unknown or another user\'s record']],
  handler: (params, ctx) => ledger(ctx).getRecord(ctx.user.id, params.id),
});

const accountingUpdate = defineAction({
  summary: 'Edit a record: amount, description, category, date, tags, asset (or fromAsset/toAsset/fee/toAmount for transfers), attachments.',
  notes: 'The type of a record cannot change (delete it and record it again). Pass `expectedUpdatedAt` to get 409 instead of overwriting a newer change. The balance rule applies to the edited record as to a new one.',
  auth: 'user',
  params: Params({
    id: Id(),
    amount: Type.Optional(Money('Positive, major units.')),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    category: Type.Optional(Type.String({ maxLength: 64 })),
    date: Type.Optional(Ms('When it happened.')),
    tags: Type.Optional(Tags),
    asset: Type.Optional(Id()),
    fromAsset: Type.Optional(Id()),
    toAsset: Type.Optional(Id()),
    fee: Type.Optional(Money('transfer fee, ≥ 0.')),
    toAmount: Type.Optional(Money('transfer across currencies: amount received.')),
    attachments: Type.Optional(Attachments),
    expectedUpdatedAt: Type.Optional(Ms('Optimistic concurrency: the updatedAt you last saw.')),
  }),
  returns: RECORD_SHAPE,
  errors: [
    [3001, 'unknown or another user\'s record'],
    [3003, 'amount is zero or negative'],
    [400, 'invalid field for the record type, unknown category, too many decimals'],
    [2001, 'unknown or deleted asset'],
    [2002, 'the change would take an asset below zero'],
    [409, 'stale expectedUpdatedAt'],
    RANGE_ERROR,
  ],
  handler: (params, ctx) => ledger(ctx).updateRecord(ctx.user.id, params),
});

const accountingDelete = defineAction({
  summary: 'Delete a record; balances follow at once. Attached files are kept.',
  auth: 'user',
  params: Params({ id: Id() }),
  returns: '`{deleted: true}`',
  errors: [
    [3001, 'unknown or another user\'s record'],
    [2002, 'deleting this income would leave an asset that cannot be negative below zero'],
    RANGE_ERROR,
  ],
  handler: (params, ctx) => ledger(ctx).deleteRecord(ctx.user.id, params.id),
});

// ------------------------------------------------------------------ categories

const CATEGORY_SHAPE = '`{id, type, name, icon, position}`';

const categoryList = defineAction({
  summary: 'The user\'s income and expense categories (a default set on first use).',
  auth: 'user',
  params: Params({ type: Type.Optional(Type.Union([Type.Literal('income'), Type.Literal('expense')])) }),
  returns: `\`{list: [${CATEGORY_SHAPE}]}\``,
  handler: async (params, ctx) => ({ list: await ledger(ctx).categories.list(ctx.user.id, params.type) }),
});

const categoryCreate = defineAction({
  summary: 'Add a category.',
  auth: 'user',
  params: Params({
    type: Type.Union([Type.Literal('income'), Type.Literal('expense')]),
    name: Type.String({ minLength: 1, maxLength: 64, pattern: '\\S' }),
    icon: Type.Optional(Type.String({ maxLength: 200 })),
  }),
  returns: CATEGORY_SHAPE,
  errors: [[409, 'a category of that type with that name (any case) exists']],
  handler: (params, ctx) => ledger(ctx).categories.create(ctx.user.id, params),
});

const categoryUpdate = defineAction({
  summary: 'Rename a category or change its icon; its records follow the new name.',
  auth: 'user',
  params: Params({ id: Id(), name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '\\S' })), icon: Type.Optional(Type.String({ maxLength: 200 })) }),
  returns: CATEGORY_SHAPE,
  errors: [
    [404, 'unknown or another user\'s category'],
    [409, 'the new name is taken'],
  ],
  handler: (params, ctx) => ledger(ctx).categories.update(ctx.user.id, params),
});

const categoryDelete = defineAction({
  summary: 'Delete a category; its records move to `moveTo`.',
  auth: 'user',
  params: Params({ id: Id(), moveTo: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) }),
  returns: '`{deleted: true, movedRecords}`',
  errors: [
    [404, 'unknown or another user\'s category'],
    [409, 'records use it and no moveTo was given'],
    [400, 'moveTo is unknown or the same category'],
  ],
  handler: (params, ctx) => ledger(ctx).categories.delete(ctx.user.id, params),
});

// ------------------------------------------------------------------ currency

const RATE_SHAPE = '`{id, from, to, rate, date}` — 1 `from` = `rate` `to` from `date` on';

const currencyGet = defineAction({
  summary: 'The base currency used for totals and statistics.',
  notes: 'Until you set one, it is the currency of your first asset (USD with no assets).',
  auth: 'user',
  params: Params({}),
  returns: '`{baseCurrency, explicit}` — explicit is false while it is derived from the first asset',
  handler: async (_params, ctx) => {
    const { currency, explicit } = await ledger(ctx).baseCurrency(ctx.user.id);
    return { baseCurrency: currency, explicit };
  },
});

const currencySetBase = defineAction({
  summary: 'Set the base currency.',
  auth: 'user',
  params: Params({ currency: Currency }),
  returns: '`{baseCurrency}`',
  errors: [[400, 'unknown currency']],
  handler: (params, ctx) => ledger(ctx).setBaseCurrency(ctx.user.id, params.currency),
});

const currencySetRate = defineAction({
  summary: 'Set an exchange rate effective from a date (replaces a rate of the same pair and date).',
  notes: 'Conversions use the latest rate on or before the record\'s date (before the first rate: the earliest one); a pair works both ways. Rates are exact decimals; pass them as strings ("7.1234") or numbers.',
  auth: 'user',
  params: Params({
    from: Currency,
    to: Currency,
    rate: Type.Union([Type.String({ maxLength: 40 }), Type.Number()], { description: 'Positive decimal, up to 12 decimals.' }),
    date: Type.Optional(Ms('Effective from (default now).')),
  }),
  returns: RATE_SHAPE,
  errors: [[400, 'unknown currency, same currency twice, or a rate that is not a positive decimal']],
  handler: (params, ctx) => ledger(ctx).rates.set(ctx.user.id, params),
});

const currencyListRates = defineAction({
  summary: 'Exchange rates, newest first, optionally for one currency.',
  auth: 'user',
  params: Params({ currency: Type.Optional(Currency) }),
  returns: `\`{list: [${RATE_SHAPE}]}\``,
  handler: async (params, ctx) => ({ list: await ledger(ctx).rates.list(ctx.user.id, params.currency) }),
});

const currencyDeleteRate = defineAction({
  summary: 'Delete an exchange rate.',
  auth: 'user',
  params: Params({ id: Id() }),
  returns: '`{deleted: true}`',
  errors: [[404, 'unknown or another user\'s rate']],
  handler: (params, ctx) => ledger(ctx).rates.delete(ctx.user.id, params.id),
});

// ------------------------------------------------------------------ statistics

const Range = {
  startDate: Ms('From (inclusive).'),
  endDate: Ms('To (exclusive).'),
};

const statsIncomeExpense = defineAction({
  summary: 'Income and expense totals of a period, with trends against the previous period of equal length, and an optional series.',
  notes: `\`average\` is the mean per record. \`trend\` compares the total with the previous period of the same length: up or down when it changed by more than ${5}%, else stable. Transfers are not income or expense. Amounts in the base currency.`,
  auth: 'user',
  params: Params({ ...Range, groupBy: Type.Optional(GroupBy), timeZone: Type.Optional(TimeZone) }),
  returns: '`{income: {total, count, average, trend, previousTotal}, expense: {…}, netIncome, period: {startDate, endDate}, currency, missingRates, series?: [{label, startDate, endDate, income, expense, net}], inexact}`',
  errors: [[400, 'endDate not after startDate, unknown groupBy or time zone, too many periods']],
  handler: async (params, ctx) => {
    const service = ledger(ctx);
    const view = await service.views.get(ctx.user.id);
    const { currency } = await service.baseCurrency(ctx.user.id, view);
    return incomeExpense(view, currency, { ...params, timeZone: zoneOf(params.timeZone) });
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
  returns: '`{type, currency, total, categories: [{category, amount, count, share}], other: {categories, amount, count, share} | null, period, missingRates, inexact}`',
  errors: [[400, 'endDate not after startDate, limit out of 1–50']],
  handler: async (params, ctx) => {
    const service = ledger(ctx);
    const view = await service.views.get(ctx.user.id);
    const { currency } = await service.baseCurrency(ctx.user.id, view);
    return categoryStats(view, currency, { type: params.type ?? 'expense', startDate: params.startDate, endDate: params.endDate, limit: params.limit ?? 8 });
  },
});

const statsAssets = defineAction({
  summary: 'Net worth now: assets vs liabilities, by type and by currency, in the base currency.',
  notes: 'Negative balances (credit cards, loans) are liabilities. Deleted assets are left out; archived ones count.',
  auth: 'user',
  params: Params({}),
  returns: '`{currency, netWorth, assets, liabilities, byType: [{type, balance, count}], byCurrency: [{currency, balance, converted, count}], missingRates, inexact}`',
  handler: async (_params, ctx) => {
    const service = ledger(ctx);
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
    timeZone: Type.Optional(TimeZone),
  }),
  returns: '`{type, currency, points: [{label, startDate, endDate, value}], missingRates, inexact}`',
  errors: [[400, 'endDate not after startDate, unknown type, groupBy or time zone']],
  handler: async (params, ctx) => {
    const service = ledger(ctx);
    const view = await service.views.get(ctx.user.id);
    const { currency } = await service.baseCurrency(ctx.user.id, view);
    return trendSeries(view, currency, { type: params.type, startDate: params.startDate, endDate: params.endDate, groupBy: params.groupBy ?? 'month', timeZone: zoneOf(params.timeZone) });
  },
});

export const ledgerActions = defineActions({
  'asset.create': assetCreate,
  'asset.query': assetQuery,
  'asset.detail': assetDetail,
  'asset.update': assetUpdate,
  'asset.delete': assetDelete,
  'asset.checkBalances': assetCheckBalances,
  'accounting.create': accountingCreate,
  'accounting.query': accountingQuery,
  'accounting.get': accountingGet,
  'accounting.update': accountingUpdate,
  'accounting.delete': accountingDelete,
  'category.list': categoryList,
  'category.create': categoryCreate,
  'category.update': categoryUpdate,
  'category.delete': categoryDelete,
  'currency.get': currencyGet,
  'currency.setBase': currencySetBase,
  'currency.setRate': currencySetRate,
  'currency.listRates': currencyListRates,
  'currency.deleteRate': currencyDeleteRate,
  'stats.getIncomeExpense': statsIncomeExpense,
  'stats.getCategoryStats': statsCategory,
  'stats.getAssetStats': statsAssets,
  'stats.getTrend': statsTrend,
});
