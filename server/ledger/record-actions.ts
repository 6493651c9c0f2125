import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params } from '../api/action';
import { Id, Money, Ms, Page, PageSize, Text, TimeZone } from '../api/params';
import { isTimeZone, localTimeZone } from '../lib/calendar';
import { commonErrors } from '../lib/errors';
import { filesErrors } from '../files/public';
import { ledgerErrors } from './errors';
import { OUT_OF_RANGE_ERROR } from './limits';
import { listRecords } from './record-list';
import { RECORD_TYPES, type RecordType } from './schema';
import { RecordDeleted, RecordDetail, RecordPage, RecordShape } from './record-shapes';
import { RECORD_TEXT } from './text-limits';
import { parseSearch } from './search-query';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from './service';
import { checkRange } from './stats';

const isRecordType = (type: string): type is RecordType => (RECORD_TYPES as readonly string[]).includes(type);

const Tags = Type.Array(Text(RECORD_TEXT.tag, { minLength: 1 }), { maxItems: RECORD_TEXT.tags, description: 'Free tags (deduplicated).' });
const Attachments = Type.Array(Id(), { maxItems: 20, description: 'File ids from file.upload.' });

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
    description: Type.Optional(Text(RECORD_TEXT.description)),
    date: Type.Optional(Ms('When it happened (ms).')),
    tags: Type.Optional(Tags),
    attachments: Type.Optional(Attachments),
  }),
  result: RecordShape,
  errors: [
    [ledgerErrors.rows.invalidRecordType, 'unknown record type'],
    [ledgerErrors.rows.invalidAmount, 'amount is zero or negative'],
    [commonErrors.rows.invalid, 'more decimals than the currency has, unknown category, same source and target, negative fee, missing toAmount across currencies without a rate'],
    [ledgerErrors.rows.assetNotFound, "unknown, deleted or another user's asset"],
    [ledgerErrors.rows.insufficientBalance, 'the asset cannot go below zero'],
    [filesErrors.rows.attachmentNotFound, 'an attachment is not one of your files'],
    [filesErrors.rows.attachmentWithoutBytes, 'an attachment was never uploaded completely'],
    OUT_OF_RANGE_ERROR,
  ],
  handler: (params, ctx) => ctx.app.services.ledger.createRecord(ctx.user.id, params),
});

const accountingQuery = defineAction({
  summary: 'List records newest first, filtered, with the totals of the whole filtered set.',
  notes:
    "`startDate` inclusive, `endDate` exclusive. `asset` matches the record's asset or a transfer's target. `text` searches descriptions (case-insensitive). `q` is the search box (docs/ui.md, \"Search syntax\"): words match descriptions, categories, tags and asset names; `tag:x`, `cat:x`, `asset:x`; amounts `35.5`, `>100`, `<=50`, `100..200` in each record's currency; dates `2026-11`, `2026-11-03`, `>=2026-11-01`, `2026-09..2026-11` in `timeZone`; terms AND together and combine with the other filters. Totals are in the base currency; records in a currency without a rate are listed in `totals.missingRates` and left out of the sums.",
  auth: 'user',
  params: Params({
    type: Type.Optional(Type.String({ maxLength: 32 })),
    startDate: Type.Optional(Ms('From (inclusive).')),
    endDate: Type.Optional(Ms('To (exclusive).')),
    category: Type.Optional(Type.String({ maxLength: 64 })),
    asset: Type.Optional(Id()),
    tag: Type.Optional(Type.String({ maxLength: 32 })),
    text: Type.Optional(Type.String({ maxLength: 200 })),
    q: Type.Optional(Type.String({ maxLength: 200, description: 'Search box text (docs/ui.md, "Search syntax").' })),
    timeZone: Type.Optional(TimeZone("IANA time zone the dates of `q` are read in (default: this computer's).")),
    page: Type.Optional(Page()),
    pageSize: Type.Optional(PageSize(PAGE_SIZE_MAX, PAGE_SIZE_DEFAULT)),
  }),
  result: RecordPage,
  errors: [
    [ledgerErrors.rows.unknownRecordTypeFilter, 'unknown type filter'],
    [commonErrors.rows.invalid, 'page or pageSize out of range, endDate not after startDate'],
    [ledgerErrors.rows.badSearch, '`q` cannot be read: an unclosed quote, an operator without a value, an impossible date, an empty range, more than 20 terms'],
    [ledgerErrors.rows.unknownTimeZone, 'unknown timeZone'],
  ],
  handler: async (params, ctx) => {
    const service = ctx.app.services.ledger;
    const type = params.type;
    if (type !== undefined && !isRecordType(type)) throw ledgerErrors.unknownRecordTypeFilter(type).at('type');
    if (params.startDate !== undefined && params.endDate !== undefined) checkRange(params.startDate, params.endDate);
    if (params.timeZone !== undefined && !isTimeZone(params.timeZone)) throw ledgerErrors.unknownTimeZone(params.timeZone).at('timeZone');
    const q = params.q?.trim();
    const search = q ? { q, terms: parseSearch(q), timeZone: params.timeZone ?? localTimeZone() } : undefined;
    const page = params.page ?? 1;
    const pageSize = params.pageSize ?? PAGE_SIZE_DEFAULT;
    const view = await service.views.get(ctx.user.id);
    const { currency } = await service.baseCurrency(ctx.user.id, view);
    const result = listRecords(view, currency, { ...params, type, search }, page, pageSize);
    const docs = await service.recordsByIds(result.ids);
    return { list: docs.map((d) => service.recordView(view, d)), total: result.total, page, pageSize, totals: result.totals };
  },
});

const accountingGet = defineAction({
  summary: 'One record with details of its attachments.',
  auth: 'user',
  params: Params({ id: Id() }),
  result: RecordDetail,
  errors: [[ledgerErrors.rows.recordNotFound, "unknown or another user's record"]],
  handler: (params, ctx) => ctx.app.services.ledger.getRecord(ctx.user.id, params.id),
});

const accountingUpdate = defineAction({
  summary: 'Edit a record: amount, description, category, date, tags, asset (or fromAsset/toAsset/fee/toAmount for transfers), attachments.',
  notes:
    'The type of a record cannot change (delete it and record it again). Pass `expectedUpdatedAt` to get 409 instead of overwriting a newer change. The balance rule applies to the edited record as to a new one.',
  auth: 'user',
  params: Params({
    id: Id(),
    amount: Type.Optional(Money('Positive, major units.')),
    description: Type.Optional(Text(RECORD_TEXT.description)),
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
  result: RecordShape,
  errors: [
    [ledgerErrors.rows.recordNotFound, "unknown or another user's record"],
    [ledgerErrors.rows.invalidAmount, 'amount is zero or negative'],
    [commonErrors.rows.invalid, 'invalid field for the record type, unknown category, too many decimals'],
    [ledgerErrors.rows.assetNotFound, 'unknown or deleted asset'],
    [ledgerErrors.rows.insufficientBalance, 'the change would take an asset below zero'],
    [ledgerErrors.rows.changedElsewhere, 'stale expectedUpdatedAt'],
    OUT_OF_RANGE_ERROR,
  ],
  handler: (params, ctx) => ctx.app.services.ledger.updateRecord(ctx.user.id, params),
});

const accountingDelete = defineAction({
  summary: 'Delete a record; balances follow at once. Attached files are kept.',
  auth: 'user',
  params: Params({ id: Id() }),
  result: RecordDeleted,
  writes: { undoable: true },
  errors: [
    [ledgerErrors.rows.recordNotFound, "unknown or another user's record"],
    [ledgerErrors.rows.insufficientBalance, 'deleting this income would leave an asset that cannot be negative below zero'],
    OUT_OF_RANGE_ERROR,
  ],
  handler: (params, ctx) => ctx.app.services.ledger.deleteRecord(ctx.user.id, params.id),
});

/** accounting.*: income, expense and transfer records. */
export const recordActions = defineActions({
  'accounting.create': accountingCreate,
  'accounting.query': accountingQuery,
  'accounting.get': accountingGet,
  'accounting.update': accountingUpdate,
  'accounting.delete': accountingDelete,
});
