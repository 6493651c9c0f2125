import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params } from '../api/action';
import { Id, OneOf, TimeZone } from '../api/params';
import { commonErrors } from '../lib/errors';
import { importErrors } from './errors';
import { DATE_ORDERS, STATEMENT_FORMATS } from './formats/types';
import { MAX_HELD_UPLOAD_BYTES, MAX_STATEMENT_BYTES } from './pipeline/import-service';
import { CommitAnswer, CsvDescriptionAnswer, FinishAnswer, Forgotten, InterruptedList, PreviewAnswer, StatementKind, UploadAnswer } from './result-shapes';

/** base64 text of at most ~750 KB of file: fits the 1 MiB /api body with the rest of the params. */
const Content = (description: string) => Type.String({ minLength: 1, maxLength: 1_000_000, description });
const UploadId = Type.String({ minLength: 10, maxLength: 40, description: 'From import.upload: a file sent in parts.' });

const ColumnIndex = (description: string) => Type.Optional(Type.Integer({ minimum: 0, maximum: 500, description }));
export const MappingParam = Type.Object(
  {
    date: Type.Integer({ minimum: 0, maximum: 500, description: 'Column of the date (0 = first).' }),
    amount: ColumnIndex('Column of a signed amount (negative = money out)…'),
    inflow: ColumnIndex('…or the column of money in…'),
    outflow: ColumnIndex('…and of money out.'),
    payee: ColumnIndex('Column of the other party.'),
    description: ColumnIndex('Column of the memo / description.'),
    externalId: ColumnIndex("Column of the bank's transaction id (makes re-imports exact)."),
    currency: ColumnIndex('Column of the currency code.'),
    category: ColumnIndex("Column of the bank's category (a category of yours with the same name is used)."),
    dateFormat: Type.Optional(OneOf(['YYYY-MM-DD', 'DD/MM/YYYY', 'MM/DD/YYYY', 'DD.MM.YYYY'] as const)),
    decimal: Type.Optional(OneOf(['.', ','] as const)),
    positiveIsExpense: Type.Optional(Type.Boolean({ description: 'A positive amount is money going out (some card statements).' })),
    skipRows: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'Lines before the header row (default: found by the header names).' })),
    header: Type.Optional(Type.Boolean({ description: 'false: the file has no header row, its first row is a transaction (default: found).' })),
    delimiter: Type.Optional(OneOf([',', ';', '\t'] as const)),
    encoding: Type.Optional(OneOf(['utf8', 'gbk', 'latin1'] as const)),
  },
  { additionalProperties: false, description: 'Generic CSV only: which column holds what (saved for files with the same header row).' },
);

function bytesOf(content: string): Buffer {
  const compact = content.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact)) throw importErrors.notBase64().at('content');
  return Buffer.from(compact, 'base64');
}

const upload = defineAction({
  summary: 'Send a statement file in parts (for files over ~700 KB): each call adds one part; then import.preview {uploadId}.',
  notes: `Parts are base64, up to 1,000,000 characters each; a file may have up to ${MAX_STATEMENT_BYTES / 1024 / 1024} MiB. An upload is kept 30 minutes. All accounts' uploads together may hold ${MAX_HELD_UPLOAD_BYTES / 1024 / 1024} MiB: past that a part answers 503 (send it again later; the parts already sent are kept).`,
  auth: 'user',
  params: Params({ content: Content('The next part of the file, base64.'), uploadId: Type.Optional(UploadId) }),
  result: UploadAnswer,
  errors: [
    [importErrors.rows.statementTooLarge, 'the parts add up to more than the limit'],
    [importErrors.rows.uploadExpired, 'uploadId is unknown or expired'],
    [importErrors.rows.busy, "all accounts' uploads together hold as much as the server sets aside for them: try again later"],
  ],
  handler: (params, ctx) => ctx.app.services.imports.upload(ctx.user.id, bytesOf(params.content), params.uploadId),
});

const describeCsv = defineAction({
  summary: "A generic CSV's columns, its first rows, a guess at the mapping, and the mapping saved for files like it.",
  auth: 'user',
  params: Params({
    content: Type.Optional(Content('The file, base64 (or uploadId).')),
    uploadId: Type.Optional(UploadId),
    skipRows: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'Lines before the header row (default: found).' })),
    delimiter: Type.Optional(OneOf([',', ';', '\t'] as const)),
    header: Type.Optional(Type.Boolean({ description: 'false: the file has no header row (default: found).' })),
  }),
  result: CsvDescriptionAnswer,
  errors: [
    [importErrors.rows.unreadableStatement, 'not a CSV file'],
    [importErrors.rows.busy, 'too many files are being read right now: try again later'],
  ],
  handler: async (params, ctx) => {
    const service = ctx.app.services.imports;
    const bytes = params.uploadId ? service.peekUpload(ctx.user.id, params.uploadId) : params.content ? bytesOf(params.content) : undefined;
    if (!bytes) throw importErrors.needsContent().at('content');
    return service.mappings.describe(ctx.user.id, bytes, { skipRows: params.skipRows, delimiter: params.delimiter, header: params.header });
  },
});

const describe = defineAction({
  summary: 'Which format a statement file is, and the asset it belongs to: what the import wizard sets for a file chosen.',
  notes:
    'The format is told by the file’s header and structure (the column names of an Alipay or WeChat Pay bill, an OFX header, a QIF `!Type` line, a CAMT document), never by words in its rows: a bank’s CSV that names 支付宝 as a payee is a CSV. ' +
    '`asset`: for a payment app’s bill, your asset named like the app (支付宝 / Alipay, 微信 / WeChat); for a bank statement, the one asset named like the account it names or holding its last 4 digits. The file is read in a worker thread.',
  auth: 'user',
  params: Params({ content: Type.Optional(Content('The file, base64 (or uploadId).')), uploadId: Type.Optional(UploadId) }),
  result: StatementKind,
  errors: [[importErrors.rows.busy, 'too many files are being read right now: try again later']],
  handler: async (params, ctx) => {
    const service = ctx.app.services.imports;
    const bytes = params.uploadId ? service.peekUpload(ctx.user.id, params.uploadId) : params.content ? bytesOf(params.content) : undefined;
    if (!bytes) throw importErrors.needsContent().at('content');
    return service.describe(ctx.user.id, bytes);
  },
});

const preview = defineAction({
  summary: 'Preview importing a statement: what will be created, what is a duplicate (or likely one), what is skipped and why, what is invalid and why.',
  notes:
    'Formats: `alipay` (支付宝 bill CSV, GBK or UTF-8), `wechat` (微信支付 bill, CSV or XLSX), `ofx` (OFX/QFX 1.x and 2.x), `qif`, `camt` (CAMT.053/.052/.054 XML), `csv` (any bank CSV with a column `mapping`, saved per source). ' +
    'Each line gets its asset (the one whose name has the card number the line names, else `assetId`), the rules (`rules` says which rule set what), a category (the rule\'s, a category of yours named like the source\'s, else "Other"; refunds: "Refund"), and an idempotency key (the source\'s transaction id), so importing a file twice creates nothing new. ' +
    'A line that looks like a record already in the ledger (same asset, type and amount within 3 days, from another source or typed by hand) is a likely duplicate and is not imported unless included. ' +
    'Status rules (refunds, closed, failed and pending payments, money between your own accounts): docs/import.md. Nothing is written until import.commit. ' +
    'The file is read in a worker thread with a time budget (a file that takes too long is refused, `data.kind` "tooSlow"); a line whose description is over 1,000 characters is invalid before any rule runs, and the rules of one import have a time budget too.',
  auth: 'user',
  params: Params({
    format: OneOf(STATEMENT_FORMATS),
    content: Type.Optional(Content('The file, base64 (files over ~700 KB: import.upload, then uploadId).')),
    uploadId: Type.Optional(UploadId),
    assetId: Id('The asset the statement is of (lines naming another card of yours go to that asset).', 40),
    timeZone: Type.Optional(TimeZone("IANA zone of the file's dates (default: this computer's).")),
    mapping: Type.Optional(MappingParam),
    dateOrder: Type.Optional(
      OneOf(DATE_ORDERS, { description: "QIF: the order of the dates' parts (month/day/year, day/month/year, year/month/day), when the preview said it is ambiguous." }),
    ),
  }),
  result: PreviewAnswer,
  errors: [
    [importErrors.rows.unreadableStatement, 'the file is not of this format, is cut off, or is in an unreadable encoding (data.kind says which)'],
    [importErrors.rows.mappingNeeded, 'a generic CSV without a mapping, and none saved for its columns'],
    [importErrors.rows.wrongAsset, 'the asset keeps another currency than the whole file (data: currency, assetCurrency, suggestedAsset)'],
    [importErrors.rows.rulesTooSlow, 'your rules took longer than their budget on this file'],
    [importErrors.rows.busy, 'too many files are being read right now: try again later'],
    [commonErrors.rows.invalid, 'invalid params'],
  ],
  handler: async (params, ctx) => {
    const service = ctx.app.services.imports;
    const bytes = params.uploadId ? service.peekUpload(ctx.user.id, params.uploadId) : params.content ? bytesOf(params.content) : undefined;
    if (!bytes) throw importErrors.needsContent().at('content');
    const answer = await service.preview(ctx.user.id, {
      format: params.format,
      bytes,
      assetId: params.assetId,
      timeZone: params.timeZone,
      mapping: params.mapping,
      dateOrder: params.dateOrder,
    });
    // The preview holds what it needs; the upload goes (a preview that failed keeps it for another try).
    if (params.uploadId) service.dropUpload(ctx.user.id, params.uploadId);
    return answer;
  },
});

const commit = defineAction({
  summary: 'Import what a preview showed, with your changes per line.',
  notes:
    'Writes the lines to create; `overrides` changes single lines: `include: true` imports a likely duplicate or a skipped line (money between your own accounts needs `toAsset`: it becomes a transfer), `include: false` leaves a line out, and category, tags, description, asset change what is written. ' +
    'Lines imported before are never written again (also when another import wrote them since the preview). A snapshot is taken first. The token is used up.',
  auth: 'user',
  params: Params({
    token: Type.String({ minLength: 10, maxLength: 40, description: 'From import.preview.' }),
    overrides: Type.Optional(
      Type.Array(
        Type.Object(
          {
            line: Type.Integer({ minimum: 1, maximum: 100_000_000 }),
            include: Type.Optional(Type.Boolean()),
            category: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 32 }), { maxItems: 20 })),
            description: Type.Optional(Type.String({ maxLength: 1000 })),
            asset: Type.Optional(Id('', 40)),
            toAsset: Type.Optional(Id('', 40)),
          },
          { additionalProperties: false },
        ),
        { maxItems: 20_000 },
      ),
    ),
  }),
  result: CommitAnswer,
  errors: [
    [importErrors.rows.previewExpired, 'the token is unknown, expired or used'],
    [importErrors.rows.unknownLine, 'an override names a line the preview does not have'],
    [importErrors.rows.overrideNotAllowed, 'an override cannot apply to its line'],
  ],
  writes: { snapshotFirst: 'import' },
  handler: (params, ctx) => ctx.app.services.imports.commit(ctx.user.id, params.token, params.overrides ?? []),
});

const InterruptedId = Type.String({ minLength: 8, maxLength: 40, description: 'From import.interrupted.' });

const interrupted = defineAction({
  summary: 'Imports a crash cut off while they were being written, and how much of each is in the ledger.',
  notes:
    'An import writes its records 1,000 per batch. If the server stops in the middle (a crash, a power cut), the import is listed here after the restart: ' +
    '`import.finish` writes the rest (records already written are recognised, nothing is doubled), `import.forgetInterrupted` leaves it as it is.',
  auth: 'user',
  params: Params({}),
  result: InterruptedList,
  errors: [],
  handler: async (_params, ctx) => ({ imports: await ctx.app.services.imports.interrupted(ctx.user.id) }),
});

const finish = defineAction({
  summary: 'Finish an interrupted import: write the records it had not written yet.',
  auth: 'user',
  params: Params({ id: InterruptedId }),
  result: FinishAnswer,
  errors: [
    [importErrors.rows.interruptedNotFound, 'no interrupted import of yours has this id'],
    [commonErrors.rows.conflict, 'a record can no longer be written as it was (its asset or category was deleted since): nothing is written'],
  ],
  writes: { snapshotFirst: 'import' },
  handler: (params, ctx) => ctx.app.services.imports.finishInterrupted(ctx.user.id, params.id),
});

const forgetInterrupted = defineAction({
  summary: 'Forget an interrupted import: what it wrote stays, the rest is not written.',
  auth: 'user',
  params: Params({ id: InterruptedId }),
  result: Forgotten,
  errors: [[importErrors.rows.interruptedNotFound, 'no interrupted import of yours has this id']],
  handler: (params, ctx) => ctx.app.services.imports.forgetInterrupted(ctx.user.id, params.id),
});

export const importActions = defineActions({
  'import.upload': upload,
  'import.describe': describe,
  'import.describeCsv': describeCsv,
  'import.preview': preview,
  'import.commit': commit,
  'import.interrupted': interrupted,
  'import.finish': finish,
  'import.forgetInterrupted': forgetInterrupted,
});
