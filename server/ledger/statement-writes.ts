import type { AppContext } from '../app-context';
import { commonErrors } from '../lib/errors';
import { newId } from '../lib/ids';
import { importKeyIndex } from './import-keys';
import { assertLedgerInRange } from './limits';
import type { RecordDoc } from './schema';
import type { CategoryService } from './categories';
import type { LedgerViews } from './ledger-views';
import type { UserLedgerView } from './views';
import { categoryKey } from '../lib/fold-text';

/** What the writer needs of the ledger service (not the class itself: the service delegates here). */
interface LedgerWrites {
  readonly views: LedgerViews;
  readonly categories: CategoryService;
  exclusive<T>(userId: string, task: () => Promise<T>): Promise<T>;
}

/**
 * Records written per bulkInsert (one LevelDB batch, one fsync) by a statement import. Each batch
 * is validated and indexed on the server's thread in one go: 5,000 held /healthz for 0.9–1.6 s on
 * a loaded 2-core machine, 1,000 for under 0.5 s (docs/import.md, "Budgets").
 */
const WRITE_BATCH = 1000;

export interface ImportedRecordsResult {
  /** Records written, with their new ids, in the order given. */
  created: RecordDoc[];
  /** Records not written because a record with the same importKey is (now) in the ledger. */
  alreadyImported: RecordDoc[];
}

/**
 * Writes the records of a statement import (server/imports/) for one user, exactly once per
 * importKey: under the user's write lock the importKeys are checked again (a sync or another import
 * may have written some since the preview), the amounts and the balances they leave are checked to
 * stay exact (limits.ts: the whole import is refused, nothing written), categories the import
 * introduces are created, and the records go in 5,000 per fsynced batch. Imports describe what
 * already happened, so the balance rule (2002) does not refuse them, as for accounting.importCsv.
 */
export async function writeImportedRecords(
  app: AppContext,
  service: LedgerWrites,
  userId: string,
  docs: readonly RecordDoc[],
  newCategories: ReadonlyArray<{ type: 'income' | 'expense'; name: string }>,
  field: string,
  /** How each record is named in an error ("line 12"), in the order of `docs`. */
  labels: readonly string[] = [],
  /** Indexes of `docs` to leave out after all, decided under the lock against the ledger as it is then. */
  guard?: (view: UserLedgerView) => Promise<ReadonlySet<number>>,
): Promise<ImportedRecordsResult> {
  return service.exclusive(userId, async () => {
    const view = await service.views.get(userId);
    const leaveOut = guard ? await guard(view) : new Set<number>();
    const keys = await importKeyIndex(app, service).forUser(userId);
    const now = app.clock.now();
    const created: RecordDoc[] = [];
    const alreadyImported: RecordDoc[] = [];
    const seen = new Set<string>();
    // Everything is checked before the first batch is written, so a refused import writes nothing:
    // assets and categories may have been deleted or renamed since the preview.
    const existing = new Set((await service.categories.list(userId)).map(keyOf));
    const known = new Set([...existing, ...newCategories.map(keyOf)]);
    for (const [index, doc] of docs.entries()) {
      if (leaveOut.has(index)) continue;
      if (doc.userId !== userId) throw new Error('an imported record of another user');
      const problem = recordProblem(doc, view, known);
      if (problem) throw commonErrors.conflict(`${labels[index] ?? `Record ${index + 1}`}: ${problem}. Nothing was imported; preview the file again.`).with({ field, index });
      if (doc.importKey && (keys.has(doc.importKey) || seen.has(doc.importKey))) {
        alreadyImported.push(doc);
        continue;
      }
      if (doc.importKey) seen.add(doc.importKey);
      created.push({ ...doc, id: newId(now), createdAt: now, updatedAt: now });
    }
    assertLedgerInRange(view, { records: created }, field);
    if (created.length === 0) return { created, alreadyImported };
    for (const category of newCategories) {
      if (existing.has(keyOf(category))) continue;
      existing.add(keyOf(category));
      await service.categories.create(userId, category);
    }
    const records = app.db.collection<RecordDoc>('records');
    for (let i = 0; i < created.length; i += WRITE_BATCH) {
      const result = await records.bulkInsert(created.slice(i, i + WRITE_BATCH));
      if (result.error.length > 0) throw new Error(`import write failed for ${result.error.length} records`);
    }
    return { created, alreadyImported };
  });
}

/** A category as this writer compares them: type and NFKC lower-case name. */
const keyOf = (c: { type: string; name: string }) => categoryKey(c.type, c.name);

/** Why a record cannot be written as it is (the schema's bounds, live assets, existing categories), or null. */
function recordProblem(doc: RecordDoc, view: UserLedgerView, categories: ReadonlySet<string>): string | null {
  const live = (id: string) => {
    const asset = view.assets.get(id);
    return asset !== undefined && !asset.delFlag;
  };
  if (!Number.isSafeInteger(doc.amount) || doc.amount < 1) return 'the amount must be greater than 0';
  if (!Number.isSafeInteger(doc.date) || doc.date < 0 || doc.date > 8.64e15) return 'the date is out of range';
  if (!live(doc.asset)) return 'its asset was deleted';
  if (doc.type === 'transfer') {
    if (!live(doc.toAsset) || doc.toAsset === doc.asset) return 'its target asset was deleted';
  } else if (!categories.has(categoryKey(doc.type, doc.category))) return `the ${doc.type} category "${doc.category}" no longer exists`;
  if (Array.from(doc.description).length > 1000 || doc.tags.length > 20 || doc.tags.some((t) => Array.from(t).length > 32)) return 'its text is too long';
  return null;
}

/** The importKeys of the user's live records, kept current (import-keys.ts), for a preview's duplicate check. */
export async function importedKeys(app: AppContext, service: LedgerWrites, userId: string): Promise<{ has(key: string): boolean }> {
  return importKeyIndex(app, service).forUser(userId);
}
