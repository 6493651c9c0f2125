import { createHash } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import type { AppContext } from '../app-context';
import { ApiError, ErrorCode } from '../api/errors';
import { isTimeZone, localTimeZone, zonedMidnight } from '../lib/calendar';
import { newId } from '../lib/ids';
import { formatMajor, isCurrencyCode, toMinor } from '../lib/money';
import { isValidRate } from './rates';
import { ASSET_STATUSES, ASSET_TYPES, type AssetDoc, type CategoryDoc, type RateDoc, type RecordDoc, type RecordType } from './schema';
import type { LedgerService } from './service';
import type { UserLedgerView } from './views';

export const CSV_COLUMNS = ['id', 'date', 'type', 'amount', 'currency', 'asset', 'toAsset', 'toAmount', 'fee', 'category', 'tags', 'description'] as const;
/** Rows shown in an import preview per section (the counts are always complete). */
export const PREVIEW_ROWS = 100;
export const BACKUP_FORMAT = 'pennypost-ledger-backup';

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
      asset?.name ?? '',
      doc.type === 'transfer' ? (target?.name ?? '') : '',
      doc.type === 'transfer' && doc.toAmount > 0 && target ? formatMajor(doc.toAmount, target.currency) : '',
      doc.type === 'transfer' && doc.fee > 0 ? formatMajor(doc.fee, currency) : '',
      doc.category,
      doc.tags.join(';'),
      doc.description,
    ];
  });
  return stringify([CSV_COLUMNS as unknown as string[], ...rows]);
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

/** Parses a date cell: ISO 8601 with a zone, `YYYY-MM-DD[ HH:mm[:ss]]` in `timeZone`, or integer ms. */
export function parseDateCell(text: string, timeZone: string): number | null {
  const value = text.trim();
  if (/^\d{10,15}$/.test(value)) return Number(value);
  const local = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(value);
  if (local) {
    const [, y, mo, d, h = '0', mi = '0', s = '0'] = local;
    if (Number(mo) < 1 || Number(mo) > 12 || Number(d) < 1 || Number(d) > 31) return null;
    return zonedMidnight(Number(y), Number(mo), Number(d), timeZone) + ((Number(h) * 60 + Number(mi)) * 60 + Number(s)) * 1000;
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

/** Idempotency key of an imported row: its content, plus how many identical rows came before it. */
function rowKey(doc: RecordDoc, occurrence: number): string {
  const content = [doc.date, doc.type, doc.amount, doc.asset, doc.toAsset, doc.toAmount, doc.fee, doc.category, doc.description].join('\u0001');
  return `${createHash('sha256').update(content).digest('base64url').slice(0, 32)}#${occurrence}`;
}

export async function importCsv(app: AppContext, service: LedgerService, userId: string, options: ImportOptions) {
  const timeZone = options.timeZone ?? localTimeZone();
  if (!isTimeZone(timeZone)) throw new ApiError(ErrorCode.Validation, `Unknown time zone "${timeZone}".`, { field: 'params.timeZone' });
  let table: string[][];
  try {
    table = parse(options.csv.replace(/^\uFEFF/, ''), { skip_empty_lines: true, relax_column_count: true, trim: false }) as string[][];
  } catch (error) {
    throw new ApiError(ErrorCode.Validation, `The CSV cannot be read: ${(error as Error).message}`, { field: 'params.csv' });
  }
  if (table.length === 0) throw new ApiError(ErrorCode.Validation, 'The CSV is empty.', { field: 'params.csv' });
  const header = table[0].map((h) => HEADER_ALIASES[h.trim().toLowerCase().replace(/[\s_-]/g, '')]);
  for (const needed of ['date', 'type', 'amount', 'asset'] as const) {
    if (!header.includes(needed)) {
      throw new ApiError(ErrorCode.Validation, `The CSV needs a "${needed}" column (columns: ${CSV_COLUMNS.join(', ')}).`, { field: 'params.csv' });
    }
  }

  return service.exclusive(userId, async () => {
    const view = await service.views.get(userId);
    const assetsByName = new Map<string, AssetDoc>();
    for (const asset of view.assets.values()) {
      if (asset.delFlag) continue;
      assetsByName.set(asset.name.normalize('NFKC').trim().toLowerCase(), asset);
      assetsByName.set(asset.id, asset);
    }
    const categories = await service.categories.list(userId);
    const categoryName = new Map(categories.map((c) => [`${c.type}:${c.name.normalize('NFKC').toLowerCase()}`, c.name]));
    const occurrences = new Map<string, number>();
    const now = app.clock.now();
    const valid: ParsedRow[] = [];
    const invalid: Array<{ line: number; errors: string[] }> = [];
    const duplicates: Array<{ line: number; reason: string }> = [];
    const plannedCategories = new Map<string, { type: 'income' | 'expense'; name: string }>();

    for (let r = 1; r < table.length; r++) {
      const line = r + 1;
      const cell = (name: (typeof CSV_COLUMNS)[number]) => {
        const index = header.indexOf(name);
        return index >= 0 ? (table[r][index] ?? '').trim() : '';
      };
      const errors: string[] = [];
      const type = cell('type').toLowerCase() as RecordType;
      if (!['income', 'expense', 'transfer'].includes(type)) errors.push(`type "${cell('type')}" is not income, expense or transfer`);
      const date = parseDateCell(cell('date'), timeZone);
      if (date === null) errors.push(`date "${cell('date')}" is not a date (use 2026-01-31, 2026-01-31 14:05 or ISO 8601)`);
      const asset = assetsByName.get(cell('asset').normalize('NFKC').toLowerCase());
      if (!asset) errors.push(`asset "${cell('asset')}" is not one of your assets`);
      const amountNumber = parseAmountCell(cell('amount'));
      if (amountNumber === null || amountNumber <= 0) errors.push(`amount "${cell('amount')}" is not a positive number`);
      const currency = cell('currency');
      if (asset && currency && currency.toUpperCase() !== asset.currency) errors.push(`currency ${currency} differs from ${asset.name}'s ${asset.currency}`);
      const toMinorSafe = (value: number, cur: string, label: string) => {
        try {
          return toMinor(value, cur, label);
        } catch (error) {
          errors.push((error as Error).message);
          return 0;
        }
      };
      const doc: RecordDoc = {
        id: newId(now),
        userId,
        type,
        amount: asset && amountNumber ? toMinorSafe(amountNumber, asset.currency, 'amount') : 0,
        asset: asset?.id ?? '',
        toAsset: '',
        toAmount: 0,
        fee: 0,
        category: '',
        description: cell('description').slice(0, 1000),
        searchText: '',
        date: date ?? 0,
        tags: cell('tags') ? [...new Set(cell('tags').split(/[;,]/).map((t) => t.trim()).filter(Boolean))].slice(0, 20).map((t) => t.slice(0, 32)) : [],
        attachments: [],
        importKey: '',
        createdAt: now,
        updatedAt: now,
      };
      doc.searchText = doc.description.normalize('NFKC').toLowerCase();
      let newCategory: ParsedRow['newCategory'];
      if (type === 'transfer') {
        const target = assetsByName.get(cell('toAsset').normalize('NFKC').toLowerCase());
        if (!target) errors.push(`toAsset "${cell('toAsset')}" is not one of your assets`);
        else if (asset && target.id === asset.id) errors.push('a transfer needs two different assets');
        else if (asset) {
          doc.toAsset = target.id;
          const fee = cell('fee') ? parseAmountCell(cell('fee')) : 0;
          if (fee === null) errors.push(`fee "${cell('fee')}" is not a number`);
          else doc.fee = toMinorSafe(fee, asset.currency, 'fee');
          if (target.currency !== asset.currency) {
            const toAmount = cell('toAmount') ? parseAmountCell(cell('toAmount')) : null;
            if (toAmount !== null && toAmount > 0) doc.toAmount = toMinorSafe(toAmount, target.currency, 'toAmount');
            else {
              const converted = view.rates.convert(doc.amount, asset.currency, target.currency, doc.date);
              if (converted === undefined) errors.push(`toAmount is needed: no ${asset.currency}→${target.currency} rate`);
              else doc.toAmount = converted;
            }
          }
        }
      } else if (type === 'income' || type === 'expense') {
        const wanted = cell('category') || 'Other';
        const known = categoryName.get(`${type}:${wanted.normalize('NFKC').toLowerCase()}`);
        if (known) doc.category = known;
        else if (options.createMissingCategories && wanted.length <= 64) {
          doc.category = wanted;
          newCategory = { type, name: wanted };
          plannedCategories.set(`${type}:${wanted.toLowerCase()}`, newCategory);
        } else errors.push(`${type} category "${wanted}" does not exist (create it, or import with createMissingCategories)`);
      }
      if (errors.length > 0) {
        invalid.push({ line, errors });
        continue;
      }
      const baseKey = rowKey(doc, 0).split('#')[0];
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
    const records = app.db.collection<RecordDoc>('records');
    const fresh: ParsedRow[] = [];
    for (let i = 0; i < valid.length; i += 200) {
      const chunk = valid.slice(i, i + 200);
      const existing = await records.find({ selector: { userId, importKey: { $in: chunk.map((row) => row.doc.importKey) } } }).exec();
      const seen = new Set(existing.map((d) => d.importKey));
      for (const row of chunk) {
        if (seen.has(row.doc.importKey)) duplicates.push({ line: row.line, reason: 'this row was imported before' });
        else fresh.push(row);
      }
    }

    const preview = fresh.slice(0, PREVIEW_ROWS).map((row) => ({ line: row.line, ...service.recordView(view, row.doc) }));
    const summary = {
      rows: table.length - 1,
      create: fresh.length,
      duplicate: duplicates.length,
      invalid: invalid.length,
      newCategories: [...plannedCategories.values()],
    };
    if (!options.dryRun && fresh.length > 0) {
      for (const category of plannedCategories.values()) {
        const exists = categoryName.has(`${category.type}:${category.name.toLowerCase()}`);
        if (!exists) await service.categories.create(userId, category);
      }
      for (let i = 0; i < fresh.length; i += 500) {
        const result = await records.bulkInsert(fresh.slice(i, i + 500).map((row) => row.doc));
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

// ------------------------------------------------------------------ backup / restore

type Stripped<T> = Omit<T, 'userId'>;

export interface LedgerBackup {
  format: typeof BACKUP_FORMAT;
  version: 1;
  exportedAt: number;
  baseCurrency?: string;
  assets?: Array<Stripped<AssetDoc>>;
  categories?: Array<Stripped<CategoryDoc>>;
  rates?: Array<Stripped<RateDoc>>;
  records?: Array<Stripped<RecordDoc>>;
}

function strip<T extends { userId: string }>(doc: T): Stripped<T> {
  const { userId: _u, ...rest } = doc as T & { _rev?: string; _meta?: unknown; _deleted?: boolean; _attachments?: unknown };
  const clean = rest as Record<string, unknown>;
  delete clean._rev;
  delete clean._meta;
  delete clean._deleted;
  delete clean._attachments;
  return clean as Stripped<T>;
}

export async function backup(app: AppContext, service: LedgerService, userId: string): Promise<LedgerBackup> {
  const [assets, categories, rates, records] = await Promise.all([
    service.views.scan<AssetDoc>('assets', userId),
    service.views.scan<CategoryDoc>('categories', userId),
    service.views.scan<RateDoc>('rates', userId),
    service.views.scan<RecordDoc>('records', userId),
  ]);
  const prefs = await app.services.users.getPrefs<{ baseCurrency: string }>(userId, 'ledger');
  return {
    format: BACKUP_FORMAT,
    version: 1,
    exportedAt: app.clock.now(),
    ...(prefs.baseCurrency ? { baseCurrency: prefs.baseCurrency } : {}),
    assets: assets.map(strip),
    categories: categories.map(strip),
    rates: rates.map(strip),
    records: records.sort((a, b) => a.date - b.date || (a.id < b.id ? -1 : 1)).map(strip),
  };
}

/** Ids in a restored ledger: derived from the user and the backup's id, so a repeated restore finds its own documents. */
export function restoredId(userId: string, originalId: string): string {
  return 'r' + createHash('sha256').update(`${userId}:${originalId}`).digest('base64url').slice(0, 24).replace(/[-_]/g, 'x');
}

function bad(message: string): ApiError {
  return new ApiError(ErrorCode.Validation, `Invalid backup: ${message}`, { field: 'params.backup' });
}

/**
 * Restores a backup into an account that has no assets and no records (the default categories
 * are replaced by the backup's). Large backups go in parts: the first call with assets,
 * categories and rates (and any records), then calls with `append: true` and more records.
 */
export async function restore(app: AppContext, service: LedgerService, userId: string, input: { backup: LedgerBackup; append: boolean }) {
  const data = input.backup;
  if (data.format !== BACKUP_FORMAT || data.version !== 1) throw bad(`format must be "${BACKUP_FORMAT}" version 1`);
  return service.exclusive(userId, async () => {
    const view = await service.views.get(userId);
    const db = app.db;
    const now = app.clock.now();
    const map = (id: string) => restoredId(userId, id);
    if (!input.append) {
      if (view.assets.size > 0 || view.entries.length > 0) {
        throw new ApiError(ErrorCode.Conflict, 'Restore needs an empty ledger: this account already has assets or records. Use a new account, or append: true to continue a restore.');
      }
    } else if (view.assets.size === 0) {
      throw new ApiError(ErrorCode.Validation, 'append: true continues a restore, but this account has no restored assets yet.');
    }
    const assets: AssetDoc[] = [];
    for (const a of data.assets ?? []) {
      if (!(ASSET_TYPES as readonly string[]).includes(a.type) || !(ASSET_STATUSES as readonly string[]).includes(a.status) || !isCurrencyCode(a.currency)) {
        throw bad(`asset "${a.name}" has an unknown type, status or currency`);
      }
      assets.push({ ...a, id: map(a.id), userId, updatedAt: a.updatedAt ?? now });
    }
    const assetIds = new Set([...assets.map((a) => a.id), ...view.assets.keys()]);
    const records: RecordDoc[] = [];
    for (const r of data.records ?? []) {
      const doc: RecordDoc = { ...r, id: map(r.id), userId, asset: map(r.asset), toAsset: r.toAsset ? map(r.toAsset) : '', attachments: [] };
      if (!assetIds.has(doc.asset) || (doc.type === 'transfer' && !assetIds.has(doc.toAsset))) throw bad(`record ${r.id} refers to an asset that is not in the backup`);
      records.push(doc);
    }
    const categories: CategoryDoc[] = (data.categories ?? []).map((c) => ({ ...c, id: map(c.id), userId }));
    const rates: RateDoc[] = [];
    for (const rate of data.rates ?? []) {
      if (!isValidRate(rate.rate) || !isCurrencyCode(rate.from) || !isCurrencyCode(rate.to)) throw bad(`rate ${rate.from}→${rate.to} is invalid`);
      rates.push({ ...rate, id: map(rate.id), userId });
    }
    if (!input.append && categories.length > 0) {
      const existing = await db.collection<CategoryDoc>('categories').find({ selector: { userId } }).exec();
      await db.collection<CategoryDoc>('categories').bulkRemove(existing.map((d) => d.id));
    }
    const insertNew = async <T extends { id: string }>(name: string, docs: T[]) => {
      for (let i = 0; i < docs.length; i += 500) {
        const chunk = docs.slice(i, i + 500);
        const result = await db.collection<T>(name).bulkInsert(chunk);
        // 409 = already restored by an earlier call (ids are deterministic): fine, anything else is not.
        const real = result.error.filter((e) => e.status !== 409);
        if (real.length > 0) throw bad(`${real.length} ${name} could not be written (schema: ${JSON.stringify((real[0] as { validationErrors?: unknown }).validationErrors ?? real[0].status).slice(0, 200)})`);
      }
    };
    await insertNew('assets', assets);
    await insertNew('categories', categories);
    await insertNew('rates', rates);
    await insertNew('records', records);
    if (data.baseCurrency && !input.append) await service.setBaseCurrency(userId, data.baseCurrency);
    return { restored: { assets: assets.length, categories: categories.length, rates: rates.length, records: records.length } };
  });
}
