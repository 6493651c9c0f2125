import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params } from '../api/action';
import { Id, Ms, TimeZone } from '../api/params';
import { isTimeZone } from '../lib/calendar';
import { commonErrors } from '../lib/errors';
import { ledgerErrors } from './errors';
import { CSV_COLUMNS, exportCsv, importCsv } from './import-export';
import { backup, restore, type BackupInput } from './ledger-backup';
import { CsvExport, CsvImport, LedgerBackupShape, LedgerRestored } from './record-shapes';
import type { RecordDoc } from './schema';

const DocList = Type.Array(Type.Object({ id: Id() }, { additionalProperties: true }), { maxItems: 200_000 });

const accountingExportCsv = defineAction({
  summary: 'Export records (all, or a date range) as CSV text.',
  notes: `Columns: ${CSV_COLUMNS.join(', ')}. Dates are ISO 8601 in UTC; amounts are exact decimals with the currency's digits; tags are separated by ";". The same file imports back without creating duplicates.`,
  auth: 'user',
  params: Params({
    startDate: Type.Optional(Ms('From (inclusive).')),
    endDate: Type.Optional(Ms('To (exclusive).')),
    timeZone: Type.Optional(TimeZone("IANA zone the file's date is named in (default: the account's, user.setTimeZone).")),
  }),
  result: CsvExport,
  handler: async (params, ctx) => {
    const service = ctx.app.services.ledger;
    const view = await service.views.get(ctx.user.id);
    const ids = view.entries
      .filter((e) => (params.startDate === undefined || e.date >= params.startDate) && (params.endDate === undefined || e.date < params.endDate))
      .map((e) => e.id);
    const docs: RecordDoc[] = [];
    for (let i = 0; i < ids.length; i += 2000) docs.push(...(await service.recordsByIds(ids.slice(i, i + 2000))));
    const zone = params.timeZone !== undefined && isTimeZone(params.timeZone) ? params.timeZone : await ctx.app.services.users.timeZone(ctx.user.id);
    const stamp = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(ctx.app.clock.now());
    return { filename: `pennypost-records-${stamp}.csv`, csv: exportCsv(view, docs), count: docs.length };
  },
});

const accountingImportCsv = defineAction({
  summary: 'Import records from CSV: a dry-run preview (what would be created, what is a duplicate, what is invalid and why), then the real run.',
  notes:
    'Needs the columns date, type, amount and asset (by name); optional: currency, toAsset, toAmount, fee, category, tags, description, id. ' +
    "Dates: `2026-01-31`, `2026-01-31 14:05` (in `timeZone`, default this computer's), ISO 8601 with a zone, or ms. " +
    'Idempotent: a row imported before (same content, same position among identical rows), or an exported row whose id is in the ledger, is a duplicate and is skipped, so importing the same file twice creates nothing new. ' +
    'Imports describe what already happened, so the balance rule (2002) does not refuse them. ' +
    'Text is never cut: a description over 1000 characters, a tag over 32 or more than 20 tags make the row invalid (listed with the reason). ' +
    'The request body limit is 1 MiB: split bigger files by rows. Previews list at most 100 rows per section; counts are complete.',
  auth: 'user',
  params: Params({
    csv: Type.String({ minLength: 1, maxLength: 1_000_000 }),
    dryRun: Type.Boolean({ description: 'true: report only; false: write the new rows.' }),
    timeZone: Type.Optional(TimeZone("IANA time zone of the dates given without one (default: this computer's).")),
    createMissingCategories: Type.Optional(Type.Boolean({ description: 'Create categories that the file names but you do not have (default false: such rows are invalid).' })),
  }),
  result: CsvImport,
  writes: { snapshotFirst: 'import', when: (params) => !params.dryRun },
  errors: [[commonErrors.rows.invalid, 'unreadable CSV, missing required columns, unknown time zone']],
  handler: (params, ctx) => importCsv(ctx.app, ctx.app.services.ledger, ctx.user.id, params),
});

const ledgerBackup = defineAction({
  summary: 'A full JSON backup of your ledger: assets, categories, exchange rates and records (exact minor units).',
  auth: 'user',
  params: Params({}),
  result: LedgerBackupShape,
  handler: (_params, ctx) => backup(ctx.app, ctx.app.services.ledger, ctx.user.id),
});

const ledgerRestore = defineAction({
  summary: 'Restore a backup into an empty ledger (exactly: same assets, balances, categories, rates and records).',
  notes:
    "The account must have no assets and no records (its default categories are replaced). For backups over the 1 MiB request limit, send assets, categories and rates with the first records, then the remaining records in further calls with `append: true`. Restored ids are derived from the backup's, so repeating a call creates nothing twice. Attachments are not part of a ledger backup.",
  auth: 'user',
  params: Params({
    backup: Type.Object(
      {
        format: Type.String({ maxLength: 64 }),
        version: Type.Integer(),
        exportedAt: Type.Optional(Type.Integer()),
        baseCurrency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', hint: 'currencyCode' })),
        assets: Type.Optional(DocList),
        categories: Type.Optional(DocList),
        rates: Type.Optional(DocList),
        records: Type.Optional(DocList),
      },
      { additionalProperties: false },
    ),
    append: Type.Optional(Type.Boolean({ default: false })),
  }),
  result: LedgerRestored,
  errors: [
    [ledgerErrors.rows.restoreNeedsEmptyLedger, 'the ledger is not empty (and append is not set)'],
    [commonErrors.rows.invalid, 'not a PennyPost ledger backup, or a document breaks the schema'],
  ],
  writes: { snapshotFirst: 'restore', when: (params) => !params.append },
  handler: (params, ctx) => {
    return restore(ctx.app, ctx.app.services.ledger, ctx.user.id, { backup: params.backup as unknown as BackupInput, append: params.append ?? false });
  },
});

export const ioActions = defineActions({
  'accounting.exportCsv': accountingExportCsv,
  'accounting.importCsv': accountingImportCsv,
  'ledger.backup': ledgerBackup,
  'ledger.restore': ledgerRestore,
});
