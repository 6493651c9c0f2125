import { createHash } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import type { AppContext } from '../app-context';
import { isTimeZone, localTimeZone, zonedMidnight } from '../lib/calendar';
import { newId } from '../lib/ids';
import { formatMajor, toMinor } from '../lib/money';
import { neutraliseCell, restoreCell } from '../lib/spreadsheet-cells';
import { ledgerErrors } from './errors';
import { importKeyIndex } from './import-keys';
import { assertLedgerInRange } from './limits';
import type { AssetDoc, RecordDoc, RecordType } from './schema';
import { newRecord, recordTextProblems } from './record-factory';
import type { LedgerService } from './service';
import type { UserLedgerView } from './views';
import type { ImportProblem } from './import-problems';
import { categoryKey, foldText, nameKey } from '../lib/fold-text';

export { IMPORT_PROBLEM_KINDS } from './import-problems';

/** accounting.exportCsv and accounting.importCsv: records as CSV text, and back (idempotently). */
export const CSV_COLUMNS = ['id', 'date', 'type', 'amount', 'currency', 'asset', 'toAsset', 'toAmount', 'fee', 'category', 'tags', 'description'] as const;
/** Rows shown in an import preview per section (the counts are always complete). */
export const PREVIEW_ROWS = 100;

// ------------------------------------------------------------------ export

export function exportCsv(view: UserLedgerView, docs: RecordDoc[]): string {
  const rows = docs.map((doc) => {
    const asset = view.assets.get(doc.asset);
    const target = view.assets.get(doc.toAsset);
    const currency = asset?.currency ?? 'USD';
    return [
      doc.id,
      new Date(doc.date).toISOString(),
      doc.type,
      formatMajor(doc.amount, currency),
      currency,
      neutraliseCell(asset?.name ?? ''),
      doc.type === 'transfer' ? neutraliseCell(target?.name ?? '') : '',
      doc.type === 'transfer' && doc.toAmount > 0 && target ? formatMajor(doc.toAmount, target.currency) : '',
      doc.type === 'transfer' && doc.fee > 0 ? formatMajor(doc.fee, currency) : '',
      neutraliseCell(doc.category),
      neutraliseCell(doc.tags.join(';')),
      neutraliseCell(doc.description),
    ];
  });
  return stringify([CSV_COLUMNS, ...rows]);
}

// ------------------------------------------------------------------ import

export interface ImportOptions {
  csv: string;
  dryRun: boolean;
  timeZone?: string;
  createMissingCategories?: boolean;
}

interface ParsedRow {
  line: number;
  doc: RecordDoc;
  newCategory?: { type: 'income' | 'expense'; name: string };
}

const HEADER_ALIASES: Record<string, (typeof CSV_COLUMNS)[number]> = {
  id: 'id',
  date: 'date',
  time: 'date',
  type: 'type',
  amount: 'amount',
  currency: 'currency',
  asset: 'asset',
  account: 'asset',
  fromasset: 'asset',
  toasset: 'toAsset',
  toamount: 'toAmount',
  fee: 'fee',
  category: 'category',
  tags: 'tags',
  description: 'description',
  note: 'description',
  memo: 'description',
};

/** Midnight of a day in a time zone, by `zone|YYYY-MM-DD` (computing one asks Intl twice, ~15 µs). */
const midnights = new Map<string, number>();
const MIDNIGHTS_MAX = 50_000;

function cachedMidnight(y: string, mo: string, d: string, timeZone: string): number {
  const key = `${timeZone}|${y}-${mo}-${d}`;
  let midnight = midnights.get(key);
  if (midnight === undefined) {
    midnight = zonedMidnight(Number(y), Number(mo), Number(d), timeZone);
    if (midnights.size >= MIDNIGHTS_MAX) midnights.clear();
    midnights.set(key, midnight);
  }
  return midnight;
}

/** Parses a date cell: ISO 8601 with a zone, `YYYY-MM-DD[ HH:mm[:ss]]` in `timeZone`, or integer ms. */
export function parseDateCell(text: string, timeZone: string): number | null {
  const value = text.trim();
  if (/^\d{10,15}$/.test(value)) return Number(value);
  const local = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(value);
  if (local) {
    const [, y, mo, d, h = '0', mi = '0', s = '0'] = local;
    // The pattern's first three groups are not optional: a match has them.
    if (y === undefined || mo === undefined || d === undefined) throw new Error(`parseDateCell: the date "${value}" matched without its year, month or day`);
    if (Number(mo) < 1 || Number(mo) > 12 || Number(d) < 1 || Number(d) > 31) return null;
    return cachedMidnight(y, mo, d, timeZone) + ((Number(h) * 60 + Number(mi)) * 60 + Number(s)) * 1000;
  }
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(value)) {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? null : ms;
  }
  return null;
}

function parseAmountCell(text: string): number | null {
  const value = text.trim();
  if (!/^\d+(\.\d+)?$/.test(value)) return null;
  return Number(value);
}

/** The content part of a row's idempotency key (`<content>#<occurrence>`, see importCsv). */
function rowContentKey(doc: RecordDoc): string {
  const content = [doc.date, doc.type, doc.amount, doc.asset, doc.toAsset, doc.toAmount, doc.fee, doc.category, doc.description].join('\u0001');
  return createHash('sha256').update(content).digest('base64url').slice(0, 32);
}

/**
 * Records written per bulkInsert (one LevelDB batch, one fsync) by an import: 1,000, like statement
 * imports (statement-writes.ts), so that the views' updates after each batch never hold the
 * server's thread long (docs/security.md, "Budgets").
 */
const IMPORT_BATCH = 1000;
/** Rows checked between two chances for other requests to run. */
const YIELD_EVERY_ROWS = 500;

export async function importCsv(app: AppContext, service: LedgerService, userId: string, options: ImportOptions) {
  const timeZone = options.timeZone ?? localTimeZone();
  if (!isTimeZone(timeZone)) throw ledgerErrors.unknownTimeZone(timeZone).at('timeZone');
  let table: string[][];
  try {
    table = parse(options.csv.replace(/^\uFEFF/, ''), { skip_empty_lines: true, relax_column_count: true, trim: false });
  } catch (error) {
    throw ledgerErrors.csvUnreadable((error as Error).message).at('csv');
  }
  const [headerRow] = table;
  if (headerRow === undefined) throw ledgerErrors.csvEmpty().at('csv');
  const header = headerRow.map(
    (h) =>
      HEADER_ALIASES[
        h
          .trim()
          .toLowerCase()
          .replace(/[\s_-]/g, '')
      ],
  );
  for (const needed of ['date', 'type', 'amount', 'asset'] as const) {
    if (!header.includes(needed)) throw ledgerErrors.csvMissingColumn(needed, CSV_COLUMNS).at('csv');
  }

  const columns = Object.fromEntries(CSV_COLUMNS.map((name) => [name, header.indexOf(name)])) as Record<(typeof CSV_COLUMNS)[number], number>;

  return service.exclusive(userId, async () => {
    const view = await service.views.get(userId);
    const assetsByName = new Map<string, AssetDoc>();
    for (const asset of view.assets.values()) {
      if (asset.delFlag) continue;
      assetsByName.set(nameKey(asset.name), asset);
      assetsByName.set(asset.id, asset);
    }
    const categories = await service.categories.list(userId);
    const categoryName = new Map(categories.map((c) => [categoryKey(c.type, c.name), c.name]));
    // A row without a category gets the account's default "Other" (其他 for a Chinese account).
    const fallbackCategory = { income: await service.categories.fallbackName(userId, 'income'), expense: await service.categories.fallbackName(userId, 'expense') };
    const occurrences = new Map<string, number>();
    const now = app.clock.now();
    const valid: ParsedRow[] = [];
    const invalid: Array<{ line: number; errors: string[]; problems: ImportProblem[] }> = [];
    const duplicates: Array<{ line: number; reason: string }> = [];
    const plannedCategories = new Map<string, { type: 'income' | 'expense'; name: string }>();

    for (const [r, row] of table.entries()) {
      if (r === 0) continue; // the header
      // Other requests run between slices of rows: a file of 20,000 rows is a second of work.
      if (r % YIELD_EVERY_ROWS === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const line = r + 1;
      const cell = (name: (typeof CSV_COLUMNS)[number]) => {
        const index = columns[name];
        if (index < 0) return '';
        // A description is read back exactly as it was written (its spaces too); the other cells are trimmed.
        const raw = row[index] ?? '';
        return restoreCell(name === 'description' ? raw : raw.trim());
      };
      const errors: string[] = [];
      const problems: ImportProblem[] = [];
      const problem = (kind: ImportProblem['kind'], args: string[], text: string) => {
        errors.push(text);
        problems.push({ kind, args });
      };
      const type = cell('type').toLowerCase();
      if (!['income', 'expense', 'transfer'].includes(type)) problem('badType', [cell('type')], `type "${cell('type')}" is not income, expense or transfer`);
      const date = parseDateCell(cell('date'), timeZone);
      if (date === null) problem('badDate', [cell('date')], `date "${cell('date')}" is not a date (use 2026-01-31, 2026-01-31 14:05 or ISO 8601)`);
      const asset = assetsByName.get(foldText(cell('asset')));
      if (!asset) problem('unknownAsset', [cell('asset')], `asset "${cell('asset')}" is not one of your assets`);
      const amountNumber = parseAmountCell(cell('amount'));
      if (amountNumber === null || amountNumber <= 0) problem('badAmount', [cell('amount')], `amount "${cell('amount')}" is not a positive number`);
      const currency = cell('currency');
      if (asset && currency && currency.toUpperCase() !== asset.currency)
        problem('currencyMismatch', [currency, asset.name, asset.currency], `currency ${currency} differs from ${asset.name}'s ${asset.currency}`);
      const toMinorSafe = (value: number, cur: string, label: string) => {
        try {
          return toMinor(value, cur, label);
        } catch (error) {
          problem('amountNotExact', [label], (error as Error).message);
          return 0;
        }
      };
      // The record factory makes the stored shape and says what keeps its text out (record-factory.ts);
      // too long is a problem of the row, as in accounting.create: nothing is cut without a word.
      const doc: RecordDoc = newRecord(
        {
          type: type as RecordType, // an unknown type is an error of the row (above): it is not written
          amount: asset && amountNumber ? toMinorSafe(amountNumber, asset.currency, 'amount') : 0,
          asset: asset?.id ?? '',
          description: cell('description'),
          date: date ?? 0,
          tags: cell('tags') ? cell('tags').split(/[;,]/) : [],
        },
        { id: '', userId, now }, // the id is given to the rows that are written or previewed, below
      );
      errors.push(...recordTextProblems(doc));
      let newCategory: ParsedRow['newCategory'];
      if (type === 'transfer') {
        const target = assetsByName.get(foldText(cell('toAsset')));
        if (!target) problem('unknownToAsset', [cell('toAsset')], `toAsset "${cell('toAsset')}" is not one of your assets`);
        else if (asset && target.id === asset.id) problem('sameAsset', [], 'a transfer needs two different assets');
        else if (asset) {
          doc.toAsset = target.id;
          const fee = cell('fee') ? parseAmountCell(cell('fee')) : 0;
          if (fee === null) problem('badFee', [cell('fee')], `fee "${cell('fee')}" is not a number`);
          else doc.fee = toMinorSafe(fee, asset.currency, 'fee');
          if (target.currency !== asset.currency) {
            const toAmount = cell('toAmount') ? parseAmountCell(cell('toAmount')) : null;
            if (toAmount !== null && toAmount > 0) doc.toAmount = toMinorSafe(toAmount, target.currency, 'toAmount');
            else {
              const converted = view.rates.convert(doc.amount, asset.currency, target.currency, doc.date);
              if (converted === undefined) problem('toAmountNeeded', [asset.currency, target.currency], `toAmount is needed: no ${asset.currency}→${target.currency} rate`);
              else doc.toAmount = converted;
            }
          }
        }
      } else if (type === 'income' || type === 'expense') {
        const wanted = cell('category') || fallbackCategory[type] || 'Other';
        const known = categoryName.get(categoryKey(type, wanted));
        if (known) doc.category = known;
        else if (options.createMissingCategories && wanted.length <= 64) {
          doc.category = wanted;
          newCategory = { type, name: wanted };
          plannedCategories.set(`${type}:${wanted.toLowerCase()}`, newCategory);
        } else problem('unknownCategory', [type, wanted], `${type} category "${wanted}" does not exist (create it, or import with createMissingCategories)`);
      }
      if (errors.length > 0) {
        invalid.push({ line, errors, problems });
        continue;
      }
      // Idempotency key: the row's content, plus how many identical rows came before it in the file.
      const baseKey = rowContentKey(doc);
      const occurrence = occurrences.get(baseKey) ?? 0;
      occurrences.set(baseKey, occurrence + 1);
      doc.importKey = `${baseKey}#${occurrence}`;
      const exportedId = cell('id');
      if (exportedId && view.byId.has(exportedId)) {
        duplicates.push({ line, reason: `record ${exportedId} is already in your ledger` });
        continue;
      }
      valid.push({ line, doc, newCategory });
    }

    // Rows already imported before (same content and position among identical rows).
    const already = await importKeyIndex(app, service).forUser(userId);
    const fresh: ParsedRow[] = [];
    for (const row of valid) {
      if (already.has(row.doc.importKey)) duplicates.push({ line: row.line, reason: 'this row was imported before' });
      else fresh.push(row);
    }

    for (const row of options.dryRun ? fresh.slice(0, PREVIEW_ROWS) : fresh) row.doc.id = newId(now);
    const preview = fresh.slice(0, PREVIEW_ROWS).map((row) => ({ line: row.line, ...service.recordView(view, row.doc) }));
    const summary = {
      rows: table.length - 1,
      create: fresh.length,
      duplicate: duplicates.length,
      invalid: invalid.length,
      newCategories: [...plannedCategories.values()],
    };
    // Every amount, and every balance the import would leave, stays exact (limits.ts): the whole
    // file is refused, with the row and the limit named, before anything is written. A preview says the same.
    assertLedgerInRange(view, { records: fresh.map((row) => row.doc) }, 'csv');
    if (!options.dryRun && fresh.length > 0) {
      for (const category of plannedCategories.values()) {
        const exists = categoryName.has(`${category.type}:${category.name.toLowerCase()}`);
        if (!exists) await service.categories.create(userId, category);
      }
      const records = app.db.collection<RecordDoc>('records');
      // One fsynced LevelDB batch per 1,000 rows (a request holds up to ~20,000).
      for (let i = 0; i < fresh.length; i += IMPORT_BATCH) {
        const result = await records.bulkInsert(fresh.slice(i, i + IMPORT_BATCH).map((row) => row.doc));
        if (result.error.length > 0) throw new Error(`import write failed for ${result.error.length} rows`);
      }
    }
    return {
      dryRun: options.dryRun,
      summary,
      create: preview,
      duplicates: duplicates.slice(0, PREVIEW_ROWS),
      invalid: invalid.slice(0, PREVIEW_ROWS),
    };
  });
}
