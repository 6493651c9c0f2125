import { Type, type Static } from '@sinclair/typebox';
import { Result, Shape } from '../api/result';
import { AttachmentShape } from '../files/public';
import { IMPORT_PROBLEM_KINDS } from './import-problems';
import { AssetDocument, CategoryDocument, CATEGORY_TYPES, RateDocument, RECORD_TYPES, RecordDocument } from './schema';

/** Result shapes of the record actions (accounting.*, ledger.backup/restore); the presenters are typed by them. */

const Ms = (description = 'ms') => Type.Integer({ description });

const recordFields = {
  id: Type.String(),
  type: Type.Union(RECORD_TYPES.map((t) => Type.Literal(t))),
  amount: Type.Number({ description: "major units of the (source) asset's currency" }),
  currency: Type.String({ description: "the (source) asset's currency, ISO 4217" }),
  category: Type.String({ description: "category name ('' for transfers)" }),
  asset: Type.String({ description: 'income/expense: the asset; transfer: the source asset' }),
  assetName: Type.String(),
  fromAsset: Type.Optional(Type.String({ description: 'transfers: the source asset (the same as `asset`)' })),
  toAsset: Type.Optional(Type.String({ description: 'transfers: the target asset' })),
  toAssetName: Type.Optional(Type.String({ description: 'transfers' })),
  toAmount: Type.Optional(Type.Number({ description: 'transfers: the amount received, major units of `toCurrency`' })),
  toCurrency: Type.Optional(Type.String({ description: "transfers: the target asset's currency" })),
  fee: Type.Optional(Type.Number({ description: 'transfers: fee taken from the source, major units' })),
  description: Type.String(),
  date: Ms('when it happened (ms)'),
  tags: Type.Array(Type.String()),
  attachments: Type.Array(Type.String(), { description: 'file ids' }),
  createdAt: Ms(),
  updatedAt: Ms(),
  recurringId: Type.Optional(Type.String({ description: 'written by a recurring item: its id' })),
  occurrence: Type.Optional(Type.String({ description: 'written by a recurring item: the occurrence date, YYYY-MM-DD' })),
};

export const RecordShape = Shape('Record', recordFields, 'An income, expense or transfer; transfers add `fromAsset, toAsset, toAssetName, fee, toAmount, toCurrency`.');
export type RecordView = Static<typeof RecordShape>;

export const RecordDetail = Shape('RecordDetail', { ...recordFields, attachmentDetails: Type.Array(AttachmentShape) }, 'A Record with details of its attachments.');

const MissingRate = Shape(
  'MissingRate',
  { from: Type.String(), to: Type.String(), records: Type.Integer({ description: 'records left out of the sums' }) },
  'A currency pair without an exchange rate: its records are left out of the totals, never counted 1:1.',
);

/** Paths of figures beyond the exact range (given as the nearest number). */
export const Inexact = Type.Array(Type.String(), { description: 'paths of the figures beyond the exact range (given as the nearest number)' });

export { MissingRate };

export const RecordTotals = Result(
  {
    currency: Type.String({ description: 'the base currency' }),
    income: Type.Number({ description: 'major units' }),
    expense: Type.Number({ description: 'major units' }),
    net: Type.Number({ description: 'major units' }),
    transfers: Type.Integer({ description: 'how many transfers match' }),
    missingRates: Type.Array(MissingRate),
    inexact: Inexact,
  },
  { description: 'of the whole filtered set, in the base currency' },
);

export const RecordPage = Result(
  { list: Type.Array(RecordShape), total: Type.Integer(), page: Type.Integer(), pageSize: Type.Integer(), totals: RecordTotals },
  { description: 'newest first; totals in the base currency, records in a currency without a rate listed in `totals.missingRates` and left out of the sums' },
);

const undoFields = {
  undoToken: Type.String({ description: "for accounting.undo, usable once for 60 s (kept in the server's memory: a restart forgets it)" }),
  undoUntil: Ms('until when accounting.undo accepts the token (ms)'),
};

export const RecordDeleted = Result({ deleted: Type.Literal(true), ...undoFields }, { description: 'accounting.undo with `undoToken` puts the record back (same id)' });
export const BulkUpdated = Result({ updated: Type.Integer({ description: 'how many records changed' }), ...undoFields });
export const BulkDeleted = Result({ deleted: Type.Integer({ description: 'how many records were deleted' }), ...undoFields });
export const Restored = Result({ restored: Type.Integer({ description: 'how many records were put back' }) });

export const CsvExport = Result({
  filename: Type.String({ description: '`pennypost-records-YYYY-MM-DD.csv`, the date in `timeZone`' }),
  csv: Type.String(),
  count: Type.Integer({ description: 'records in the file' }),
});

const ImportPreviewRow = Shape(
  'ImportRow',
  { line: Type.Integer({ description: 'line of the file' }), ...recordFields },
  'A Record that an import creates (or would), with its line in the file.',
);

export const CsvImport = Result(
  {
    dryRun: Type.Boolean(),
    summary: Result({
      rows: Type.Integer(),
      create: Type.Integer(),
      duplicate: Type.Integer(),
      invalid: Type.Integer(),
      newCategories: Type.Array(Result({ type: Type.Union(CATEGORY_TYPES.map((t) => Type.Literal(t))), name: Type.String() }), {
        description: 'categories the import creates (with `createMissingCategories`)',
      }),
    }),
    create: Type.Array(ImportPreviewRow),
    duplicates: Type.Array(Result({ line: Type.Integer(), reason: Type.String() })),
    invalid: Type.Array(
      Result({
        line: Type.Integer(),
        errors: Type.Array(Type.String(), { description: 'the problems in English' }),
        problems: Type.Array(
          Result({
            kind: Type.Union(IMPORT_PROBLEM_KINDS.map((k) => Type.Literal(k))),
            args: Type.Array(Type.String(), { description: 'the values concerned: cells as written, asset names, currencies' }),
          }),
          { description: 'why the row is refused, for clients that say it in their own words' },
        ),
      }),
    ),
  },
  { description: 'previews list at most 100 rows per section; the counts of `summary` are complete' },
);

/** A stored document without its user id, closed like every answer, named in docs/api.md's Shapes. */
const stored = <T extends typeof AssetDocument | typeof CategoryDocument | typeof RateDocument | typeof RecordDocument>(doc: T, title: string) =>
  Type.Omit(doc, ['userId'], { additionalProperties: false, title, description: 'A document as stored (money in minor units, times in ms; docs/sync.md), without its user id.' });

export const LedgerBackupShape = Result(
  {
    format: Type.Literal('pennypost-ledger-backup'),
    version: Type.Literal(1),
    exportedAt: Ms(),
    baseCurrency: Type.Optional(Type.String({ description: 'only when one was set' })),
    assets: Type.Optional(Type.Array(stored(AssetDocument, 'StoredAsset'))),
    categories: Type.Optional(Type.Array(stored(CategoryDocument, 'StoredCategory'))),
    rates: Type.Optional(Type.Array(stored(RateDocument, 'StoredRate'))),
    records: Type.Optional(Type.Array(stored(RecordDocument, 'StoredRecord'))),
  },
  { description: 'documents as stored (money in minor units, see docs/sync.md), without user ids' },
);

export const LedgerRestored = Result({
  restored: Result({ assets: Type.Integer(), categories: Type.Integer(), rates: Type.Integer(), records: Type.Integer() }, { description: 'documents written by this call' }),
});
