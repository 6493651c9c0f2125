import { createHash } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { normalizeMangoQuery, prepareQuery, type RxCollection } from 'rxdb';
import type { Subscription } from 'rxjs';
import { stringify } from 'csv-stringify/sync';
import type { AppContext } from '../app-context';
import { isTimeZone, localTimeZone, zonedMidnight } from '../lib/calendar';
import type { DomainError } from '../lib/errors';
import { newId } from '../lib/ids';
import { formatMajor, isCurrencyCode, toMinor } from '../lib/money';
import { ledgerErrors } from './errors';
import { isValidRate } from './rate-book';
import { ASSET_STATUSES, ASSET_TYPES, type AssetDoc, type CategoryDoc, type RateDoc, type RecordDoc, type RecordType } from './schema';
import type { LedgerService } from './service';
import type { UserLedgerView } from './views';
import { assertLedgerInRange } from './limits';

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

/** Records written per bulkInsert (one LevelDB batch, one fsync) by an import. */
const IMPORT_BATCH = 5000;

/** How long a user's import-key index stays in memory after their last import or preview. */
export const IMPORT_INDEX_IDLE_MS = 10 * 60_000;

interface KeyChange {
  id: string;
  /** The record's importKey, '' when it has none or was deleted. */
  key: string;
}

/** One user's imported rows: importKey → number of live records carrying it. */
class UserImportKeys {
  readonly byId = new Map<string, string>();
  readonly counts = new Map<string, number>();
  /** Changes that arrive while the index is being loaded, applied after the load (in order). */
  pending: KeyChange[] | null = [];
  ready!: Promise<UserImportKeys>;
  timer?: NodeJS.Timeout;

  apply({ id, key }: KeyChange): void {
    const old = this.byId.get(id);
    if (old !== undefined) {
      this.byId.delete(id);
      const left = (this.counts.get(old) ?? 1) - 1;
      if (left > 0) this.counts.set(old, left);
      else this.counts.delete(old);
    }
    if (key) {
      this.byId.set(id, key);
      this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    }
  }

  has(key: string): boolean {
    return this.counts.has(key);
  }
}

/**
 * The duplicate check of CSV imports. For a user who imports, the importKeys of their live records
 * are loaded once, by one query on the records' [userId, importKey] index (it reads the imported
 * records only), and then kept current from the records' change stream, exactly like the ledger view:
 * every write — this import's own inserts, deletions, records arriving by sync — updates it in the
 * same tick as the write is acknowledged. So each row of every part of a long file, and of the same
 * file again, is checked in memory in O(1). A user's index is dropped after IMPORT_INDEX_IDLE_MS
 * without an import (and rebuilt by one query on the next).
 */
export class ImportKeyIndex {
  private readonly users = new Map<string, UserImportKeys>();
  private subscription?: Subscription;

  constructor(
    private readonly records: RxCollection<RecordDoc>,
    private readonly idleMs = IMPORT_INDEX_IDLE_MS,
  ) {}

  /** The user's index, loaded on first use; every call keeps it for another idle period. */
  async forUser(userId: string): Promise<UserImportKeys> {
    let user = this.users.get(userId);
    if (!user) {
      this.subscribe();
      const fresh = new UserImportKeys();
      user = fresh;
      this.users.set(userId, fresh);
      fresh.ready = this.load(userId, fresh).catch((error) => {
        if (this.users.get(userId) === fresh) this.drop(userId);
        throw error;
      });
    }
    const ready = await user.ready;
    if (this.users.get(userId) === ready) {
      clearTimeout(ready.timer);
      ready.timer = setTimeout(() => this.drop(userId), this.idleMs);
      ready.timer.unref();
    }
    return ready;
  }

  /** Users whose index is in memory (for tests and diagnostics). */
  get loadedUsers(): number {
    return this.users.size;
  }

  stop(): void {
    for (const userId of [...this.users.keys()]) this.drop(userId);
  }

  private async load(userId: string, user: UserImportKeys): Promise<UserImportKeys> {
    const schema = this.records.schema.jsonSchema;
    const selector = { userId: { $eq: userId }, importKey: { $gt: '' }, _deleted: { $eq: false } };
    const query = prepareQuery(schema, normalizeMangoQuery(schema, { selector } as any));
    const { documents } = await this.records.storageInstance.query(query);
    for (const doc of documents) user.apply({ id: doc.id, key: doc.importKey });
    // Replaying the changes seen since the subscription is safe even for those the query already
    // saw: each change sets one record's key, so applying them in order ends in the current state.
    const pending = user.pending ?? [];
    user.pending = null;
    for (const change of pending) user.apply(change);
    return user;
  }

  private subscribe(): void {
    this.subscription ??= this.records.eventBulks$.subscribe((bulk) => {
      for (const event of bulk.events) {
        const doc = (event.documentData ?? event.previousDocumentData) as (RecordDoc & { _deleted?: boolean }) | undefined;
        if (!doc) continue;
        const user = this.users.get(doc.userId);
        if (!user) continue;
        const live = event.operation !== 'DELETE' && !doc._deleted;
        const change = { id: doc.id, key: live ? doc.importKey : '' };
        if (user.pending) user.pending.push(change);
        else user.apply(change);
      }
    });
  }

  private drop(userId: string): void {
    clearTimeout(this.users.get(userId)?.timer);
    this.users.delete(userId);
    if (this.users.size === 0) {
      this.subscription?.unsubscribe();
      this.subscription = undefined;
    }
  }
}

const importIndexes = new WeakMap<LedgerService, ImportKeyIndex>();

/** The import-key index of a ledger service (one per running server). */
export function importKeyIndex(app: AppContext, service: LedgerService): ImportKeyIndex {
  let index = importIndexes.get(service);
  if (!index) {
    index = new ImportKeyIndex(app.db.collection<RecordDoc>('records'));
    importIndexes.set(service, index);
  }
  return index;
}

export async function importCsv(app: AppContext, service: LedgerService, userId: string, options: ImportOptions) {
  const timeZone = options.timeZone ?? localTimeZone();
  if (!isTimeZone(timeZone)) throw ledgerErrors.unknownTimeZone(timeZone).at('timeZone');
  let table: string[][];
  try {
    table = parse(options.csv.replace(/^\uFEFF/, ''), { skip_empty_lines: true, relax_column_count: true, trim: false }) as string[][];
  } catch (error) {
    throw ledgerErrors.csvUnreadable((error as Error).message).at('csv');
  }
  if (table.length === 0) throw ledgerErrors.csvEmpty().at('csv');
  const header = table[0].map((h) => HEADER_ALIASES[h.trim().toLowerCase().replace(/[\s_-]/g, '')]);
  for (const needed of ['date', 'type', 'amount', 'asset'] as const) {
    if (!header.includes(needed)) throw ledgerErrors.csvMissingColumn(needed, CSV_COLUMNS).at('csv');
  }

  const columns = Object.fromEntries(CSV_COLUMNS.map((name) => [name, header.indexOf(name)])) as Record<(typeof CSV_COLUMNS)[number], number>;

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
      const row = table[r];
      const cell = (name: (typeof CSV_COLUMNS)[number]) => {
        const index = columns[name];
        return index >= 0 ? (row[index] ?? '').trim() : '';
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
        id: '', // given to the rows that are written or previewed, below
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
      // One fsynced LevelDB batch per 5,000 rows (a request holds up to ~10,000).
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

function bad(problem: string): DomainError {
  return ledgerErrors.invalidBackup(problem).at('backup');
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
      if (view.assets.size > 0 || view.entries.length > 0) throw ledgerErrors.restoreNeedsEmptyLedger();
    } else if (view.assets.size === 0) {
      throw ledgerErrors.nothingToAppend();
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
    assertLedgerInRange(view, { assets, records }, 'backup');
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
