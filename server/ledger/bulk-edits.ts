import type { RxCollection } from 'rxdb';
import type { AppContext } from '../app-context';
import { newId } from '../lib/ids';
import { ledgerErrors } from './errors';
import type { RecordView } from './presenters';
import { checkBalances, liveAsset } from './record-checks';
import type { RecordDoc } from './schema';
import type { CategoryService } from './categories';
import type { LedgerViews } from './ledger-views';
import type { UserLedgerView } from './views';
import { UndoLog, type UndoStep } from './undo';
import { nameKey } from '../lib/fold-text';

/** Most records one bulk change may name (the UI selects at most this many). */
export const BULK_MAX = 1000;
const MAX_TAGS = 20;

export interface UndoAnswer {
  undoToken: string;
  /** Until when (ms) `accounting.undo` accepts the token. */
  undoUntil: number;
}

export interface BulkUpdateInput {
  ids: string[];
  category?: string;
  addTags?: string[];
  removeTags?: string[];
}

/** What bulk changes use of the ledger service (service.ts). */
export interface LedgerParts {
  views: LedgerViews;
  categories: Pick<CategoryService, 'resolve'>;
  exclusive<T>(userId: string, task: () => Promise<T>): Promise<T>;
  recordView(view: UserLedgerView, doc: RecordDoc): RecordView;
}

/**
 * Changes of many records at once (re-categorise, re-tag, delete), duplicating a record, and undo
 * (docs/ledger.md, "Bulk changes and undo"). Every change of many records is checked whole before
 * anything is written: one unknown or foreign id, one transfer given a category, one record
 * pushed past 20 tags or one asset taken below zero refuses all of it. Balances stay derived
 * from the records (the views follow the writes).
 */
export class BulkEdits {
  readonly undo: UndoLog;

  constructor(
    private readonly app: AppContext,
    private readonly ledger: LedgerParts,
  ) {
    this.undo = new UndoLog(() => app.clock.now());
  }

  private get records(): RxCollection<RecordDoc> {
    return this.app.db.collection<RecordDoc>('records');
  }

  /** Live records by id (deleted ones are left out). */
  private async live(ids: string[]): Promise<Map<string, RecordDoc>> {
    const found = await this.records.storageInstance.findDocumentsById(ids, false);
    return new Map(found.map((d) => [d.id, d as unknown as RecordDoc]));
  }

  /** The user's live records of these ids (deduplicated, in order), or 3001 naming the ids that are not theirs. */
  private async own(userId: string, ids: string[]): Promise<RecordDoc[]> {
    const unique = [...new Set(ids)];
    const live = await this.live(unique);
    const missing = unique.filter((id) => live.get(id)?.userId !== userId);
    if (missing.length > 0) throw ledgerErrors.recordNotFound().with({ ids: missing }).at('ids');
    return unique.map((id) => this.strip(live.get(id) as RecordDoc));
  }

  /** The document's own fields (no storage metadata). */
  private strip(doc: RecordDoc): RecordDoc {
    const { _deleted: _d, _rev: _r, _meta: _m, _attachments: _a, ...data } = doc as RecordDoc & { _deleted?: unknown; _rev?: unknown; _meta?: unknown; _attachments?: unknown };
    return { ...data, tags: [...data.tags], attachments: [...data.attachments] };
  }

  async update(userId: string, input: BulkUpdateInput): Promise<{ updated: number } & UndoAnswer> {
    const add = [...new Map((input.addTags ?? []).map((t) => [nameKey(t), t.normalize('NFKC').trim()])).values()].filter(Boolean);
    const remove = new Set((input.removeTags ?? []).map(nameKey).filter(Boolean));
    if (input.category === undefined && add.length === 0 && remove.size === 0) throw ledgerErrors.bulkNothingToDo();
    return this.ledger.exclusive(userId, async () => {
      const current = await this.own(userId, input.ids);
      const category: Partial<Record<'income' | 'expense', string>> = {};
      if (input.category !== undefined) {
        const transfers = current.filter((d) => d.type === 'transfer').length;
        if (transfers > 0) throw ledgerErrors.bulkTransferCategory(transfers).at('category');
        for (const type of ['income', 'expense'] as const) {
          if (current.some((d) => d.type === type)) category[type] = await this.ledger.categories.resolve(userId, type, input.category);
        }
      }
      const now = this.app.clock.now();
      const steps: UndoStep[] = [];
      for (const doc of current) {
        const tags = doc.tags.filter((t) => !remove.has(nameKey(t)));
        for (const tag of add) if (!tags.some((t) => nameKey(t) === nameKey(tag))) tags.push(tag);
        if (tags.length > MAX_TAGS) throw ledgerErrors.bulkTooManyTags().with({ id: doc.id }).at('addTags');
        const nextCategory = doc.type === 'transfer' ? doc.category : (category[doc.type] ?? doc.category);
        if (nextCategory === doc.category && tags.length === doc.tags.length && tags.every((t, i) => t === doc.tags[i])) continue;
        steps.push({ before: doc, after: { ...doc, category: nextCategory, tags, updatedAt: Math.max(now, doc.updatedAt + 1) } });
      }
      if (steps.length > 0) await this.write(steps.map((s) => s.after as RecordDoc));
      return { updated: steps.length, ...this.undo.remember(userId, steps) };
    });
  }

  async delete(userId: string, ids: string[]): Promise<{ deleted: number } & UndoAnswer> {
    return this.ledger.exclusive(userId, async () => {
      const current = await this.own(userId, ids);
      const view = await this.ledger.views.get(userId);
      checkBalances(view, current, []);
      const result = await this.records.bulkRemove(current.map((d) => d.id));
      if (result.error.length > 0) throw new Error(`bulk delete: ${result.error.length} of ${current.length} records could not be deleted`);
      return {
        deleted: current.length,
        ...this.undo.remember(
          userId,
          current.map((doc) => ({ before: doc, after: null })),
        ),
      };
    });
  }

  /**
   * Puts back what a token's change replaced: deleted records come back with their ids, edited
   * fields go back (with a new `updatedAt`, so sync carries the undo as a newer change). Refused
   * (409, nothing changed) when any of the records was changed, deleted or re-created since.
   */
  async restore(userId: string, token: string): Promise<{ restored: number }> {
    return this.ledger.exclusive(userId, async () => {
      const steps = this.undo.peek(userId, token);
      if (!steps) throw ledgerErrors.undoUnavailable();
      const live = await this.live(steps.map((s) => s.before.id));
      const now = this.app.clock.now();
      const replaced: RecordDoc[] = [];
      const restored: RecordDoc[] = [];
      for (const step of steps) {
        const current = live.get(step.before.id);
        const unchanged = step.after === null ? current === undefined : current?.updatedAt === step.after.updatedAt;
        if (!unchanged) throw ledgerErrors.undoConflict().with({ id: step.before.id });
        if (current) replaced.push(current);
        const latest = Math.max(step.before.updatedAt, step.after?.updatedAt ?? 0);
        restored.push({ ...step.before, updatedAt: Math.max(now, latest + 1) });
      }
      const view = await this.ledger.views.get(userId);
      checkBalances(view, replaced, restored);
      await this.write(restored);
      this.undo.forget(userId, token);
      return { restored: restored.length };
    });
  }

  /** A copy of one of the user's records as a new record, dated `date` (default now); attachments are not copied. */
  async duplicate(userId: string, id: string, date?: number): Promise<RecordView> {
    return this.ledger.exclusive(userId, async () => {
      const [source] = await this.own(userId, [id]).catch(() => {
        throw ledgerErrors.recordNotFound();
      });
      if (source === undefined) throw ledgerErrors.recordNotFound();
      const view = await this.ledger.views.get(userId);
      liveAsset(view, source.asset, source.type === 'transfer' ? 'fromAsset' : 'asset');
      if (source.type === 'transfer') liveAsset(view, source.toAsset, 'toAsset');
      const now = this.app.clock.now();
      const doc: RecordDoc = { ...source, id: newId(now), date: date ?? now, attachments: [], importKey: '', createdAt: now, updatedAt: now };
      checkBalances(view, [], [doc]);
      await this.records.insert(doc);
      return this.ledger.recordView(view, doc);
    });
  }

  /**
   * Writes whole documents over live ones or over the tombstones of deleted ones (RxDB keeps a
   * deleted document's id as a tombstone; writing the id again revives it, and sync carries it).
   */
  private async write(docs: RecordDoc[]): Promise<void> {
    const result = await this.records.bulkUpsert(docs);
    if (result.error.length > 0) throw new Error(`bulk write: ${result.error.length} of ${docs.length} records could not be written`);
  }
}
