import { randomUUID } from 'node:crypto';
import type { RxCollection, RxConflictHandlerInput } from 'rxdb';
import type { AppContext } from '../app-context';
import { DomainError } from '../lib/errors';
import { KeyedMutex } from '../lib/keyed-mutex';
import { syncErrors } from './errors';
import { analyzeConflict, sameValue, type ConflictLoss, type Doc, type FieldLoss } from '../db/conflict-merge';
import type { SyncedDoc } from '../arrival-checks';
import type { SyncedCollection } from './synced-collections';
import type { ConflictView } from './result-shapes';

/**
 * The conflict log (docs/sync.md, "Conflicts"): every conflict resolution that overwrote something
 * a person wrote — a field value, an edit (lost to a later delete) or a delete (undone by a later
 * edit) — is recorded for the account, on the PennyPost that resolved it. Kept in the local store
 * (`sync-conflicts:<userId>`), never synced, the latest MAX_CONFLICTS only.
 */

const KEY_PREFIX = 'sync-conflicts:';
export const MAX_CONFLICTS = 200;
/** The same loss recorded again within this window (RxDB may resolve a conflict twice) is one entry. */
const REPEAT_WINDOW_MS = 60_000;
const VALUE_SHOWN = 80;

export type ConflictStatus = 'open' | 'kept-other' | 'dismissed';

export interface ConflictEntry {
  id: string;
  collection: SyncedCollection;
  documentId: string;
  at: number;
  kind: ConflictLoss['kind'];
  lost: ConflictLoss['lost'];
  fields: FieldLoss[];
  summary: string;
  lostUpdatedAt: number | null;
  keptUpdatedAt: number | null;
  status: ConflictStatus;
  /** The version that lost (not listed; what sync.keepOtherVersion writes back). */
  lostVersion: Doc;
}

/** An entry as the actions answer it: everything but the lost version. */
export type { ConflictView } from './result-shapes';

function shown(value: unknown): string {
  if (value === undefined) return '(empty)';
  const text = typeof value === 'string' ? `"${value}"` : JSON.stringify(value);
  return text.length > VALUE_SHOWN ? `${text.slice(0, VALUE_SHOWN - 1)}…` : text;
}

/** One line a person can read: what was overwritten, and by what. */
export function summarize(collection: string, documentId: string, loss: ConflictLoss): string {
  const whose = loss.lost === 'this-device' ? 'this PennyPost' : 'another device';
  const what = `${collection} ${documentId}`;
  if (loss.kind === 'delete-undone') return `${what}: the delete made on ${whose} was undone by a later edit.`;
  if (loss.kind === 'edit-lost') {
    const fields = loss.fields.map((f) => `${f.field} ${shown(f.lost)}`).join(', ');
    return `${what}: the edit made on ${whose}${fields ? ` (${fields})` : ''} lost to a later delete.`;
  }
  const fields = loss.fields.map((f) => `${f.field} ${shown(f.lost)} → ${shown(f.kept)}`).join(', ');
  return `${what}: a later edit overwrote ${whose}'s ${fields}.`;
}

function view(entry: ConflictEntry): ConflictView {
  const { lostVersion: _lostVersion, ...rest } = entry;
  return rest;
}

export class ConflictLog {
  private readonly lock = new KeyedMutex();

  constructor(private readonly app: AppContext) {}

  private async load(userId: string): Promise<ConflictEntry[]> {
    return (await this.app.db.local.get<ConflictEntry[]>(KEY_PREFIX + userId)) ?? [];
  }

  /** Records what a resolved push conflict of `collection` overwrote (nothing when nothing was). */
  async record(userId: string, collection: SyncedCollection, primaryPath: string, input: RxConflictHandlerInput<SyncedDoc>): Promise<void> {
    const { losses } = analyzeConflict(input);
    if (losses.length === 0) return;
    const documentId = String(input.newDocumentState[primaryPath] ?? input.realMasterState[primaryPath]);
    await this.lock.run(userId, async () => {
      const entries = await this.load(userId);
      const now = this.app.clock.now();
      for (const loss of losses) {
        const repeated = entries.some(
          (e) =>
            e.collection === collection &&
            e.documentId === documentId &&
            e.kind === loss.kind &&
            now - e.at < REPEAT_WINDOW_MS &&
            sameValue(e.fields, loss.fields) &&
            e.lostUpdatedAt === loss.lostUpdatedAt,
        );
        if (repeated) continue;
        entries.unshift({
          id: randomUUID().replace(/-/g, '').slice(0, 24),
          collection,
          documentId,
          at: now,
          kind: loss.kind,
          lost: loss.lost,
          fields: loss.fields,
          summary: summarize(collection, documentId, loss),
          lostUpdatedAt: loss.lostUpdatedAt,
          keptUpdatedAt: loss.keptUpdatedAt,
          status: 'open',
          lostVersion: loss.lostVersion,
        });
      }
      await this.app.db.local.put(KEY_PREFIX + userId, entries.slice(0, MAX_CONFLICTS));
    });
  }

  /** The account is gone: its log goes too. */
  async forget(userId: string): Promise<void> {
    await this.lock.run(userId, () => this.app.db.local.del(KEY_PREFIX + userId));
  }

  async list(userId: string, page: number, pageSize: number) {
    const entries = await this.load(userId);
    return {
      list: entries.slice((page - 1) * pageSize, page * pageSize).map(view),
      total: entries.length,
      open: entries.filter((e) => e.status === 'open').length,
      page,
      pageSize,
    };
  }

  private async change(userId: string, conflictId: string, apply: (entry: ConflictEntry) => void | Promise<void>): Promise<ConflictView> {
    return this.lock.run(userId, async () => {
      const entries = await this.load(userId);
      const entry = entries.find((e) => e.id === conflictId);
      if (!entry) throw syncErrors.conflictNotFound();
      if (entry.status !== 'open') throw syncErrors.conflictClosed(entry.status);
      await apply(entry);
      await this.app.db.local.put(KEY_PREFIX + userId, entries);
      return view(entry);
    });
  }

  async dismiss(userId: string, conflictId: string): Promise<ConflictView> {
    return this.change(userId, conflictId, (entry) => {
      entry.status = 'dismissed';
    });
  }

  /**
   * Writes the overwritten version back as a new edit of this account (a later `updatedAt`, so it
   * wins on every device when it syncs): the lost field values, the lost edit (the document comes
   * back), or the lost delete (the document is deleted again).
   */
  async keepOtherVersion(userId: string, conflictId: string): Promise<ConflictView> {
    return this.change(userId, conflictId, async (entry) => {
      const collection = this.app.db.rx.collections[entry.collection] as RxCollection<SyncedDoc> | undefined;
      if (!collection) throw syncErrors.collectionUnavailable(entry.collection);
      const current = await collection.findOne(entry.documentId).exec();
      if (current && current.toJSON().userId !== userId) throw syncErrors.conflictNotFound();
      const later = (doc: SyncedDoc | undefined) => Math.max(this.app.clock.now(), (typeof doc?.updatedAt === 'number' ? doc.updatedAt : 0) + 1);
      try {
        if (entry.kind === 'delete-undone') {
          if (current) await current.remove();
        } else if (entry.kind === 'fields') {
          if (!current) throw syncErrors.documentDeletedSince();
          await current.incrementalModify((doc) => {
            let next: SyncedDoc = doc;
            for (const { field, lost } of entry.fields) {
              if (lost === undefined) {
                const { [field]: _dropped, ...rest } = next;
                next = rest;
              } else next = { ...next, [field]: lost };
            }
            return { ...next, updatedAt: later(next) };
          });
        } else {
          const restored: SyncedDoc = { ...entry.lostVersion, userId };
          delete restored._deleted;
          if (current) {
            await current.incrementalModify((doc) => ({ ...doc, ...restored, updatedAt: later(doc) }));
          } else {
            await collection.upsert({ ...restored, updatedAt: later(restored) });
          }
        }
      } catch (error) {
        if (error instanceof DomainError) throw error;
        const [firstLine = ''] = (error as Error).message.split('\n');
        throw syncErrors.otherVersionNotWritten(firstLine.slice(0, 200));
      }
      entry.status = 'kept-other';
    });
  }
}
