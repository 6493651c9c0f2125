import { createHash } from 'node:crypto';
import type { AppContext } from '../app-context';
import type { DomainError } from '../lib/errors';
import { isCurrencyCode } from '../lib/money';
import { legacyDefaultKey } from './default-categories';
import { ledgerErrors } from './errors';
import { assertLedgerInRange } from './limits';
import { isValidRate } from './rate-book';
import { newRecord, recordTextProblems } from './record-factory';
import { ASSET_STATUSES, ASSET_TYPES, type AssetDoc, type CategoryDoc, type RateDoc, type RecordDoc } from './schema';
import type { LedgerService } from './service';

/**
 * ledger.backup and ledger.restore: a user's whole ledger as JSON (documents as stored, money in
 * minor units, without user ids), and back into an empty account.
 */

export const BACKUP_FORMAT = 'pennypost-ledger-backup';

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

/**
 * What ledger.restore receives: its params check the envelope and the documents' ids only, so the
 * format and version may be anything (refused below), and an asset may lack `updatedAt` (it gets
 * the time of the restore).
 */
export type BackupInput = Omit<LedgerBackup, 'format' | 'version' | 'assets'> & {
  format: string;
  version: number;
  assets?: Array<Omit<Stripped<AssetDoc>, 'updatedAt'> & { updatedAt?: number }>;
};

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
export async function restore(app: AppContext, service: LedgerService, userId: string, input: { backup: BackupInput; append: boolean }) {
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
      // Through the record factory like every other writer: searchText is made from the description
      // (never taken from the file), tags are cleaned, and text over the limits refuses the backup.
      const made = newRecord({ ...r, asset: map(r.asset), toAsset: r.toAsset ? map(r.toAsset) : '', attachments: [] }, { id: map(r.id), userId, now: r.createdAt });
      const doc: RecordDoc = { ...made, updatedAt: r.updatedAt };
      const textProblems = recordTextProblems(doc);
      if (textProblems.length > 0) throw bad(`record ${r.id}: ${textProblems.join('; ')}`);
      if (!assetIds.has(doc.asset) || (doc.type === 'transfer' && !assetIds.has(doc.toAsset))) throw bad(`record ${r.id} refers to an asset that is not in the backup`);
      records.push(doc);
    }
    // Backups from before default keys: a category named like an English default is that default.
    const categories: CategoryDoc[] = (data.categories ?? []).map((c) => ({ ...c, defaultKey: c.defaultKey ?? legacyDefaultKey(c.type, c.name), id: map(c.id), userId }));
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
    const insertNew = async (name: string, docs: Array<{ id: string }>) => {
      for (let i = 0; i < docs.length; i += 500) {
        const chunk = docs.slice(i, i + 500);
        const result = await db.collection<{ id: string }>(name).bulkInsert(chunk);
        // 409 = already restored by an earlier call (ids are deterministic): fine, anything else is not.
        const real = result.error.filter((e) => e.status !== 409);
        const [first] = real;
        if (first !== undefined)
          throw bad(
            `${real.length} ${name} could not be written (schema: ${JSON.stringify((first as { validationErrors?: unknown }).validationErrors ?? first.status).slice(0, 200)})`,
          );
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
