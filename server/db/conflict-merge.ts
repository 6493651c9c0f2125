import { defaultConflictHandler, type RxConflictHandler, type RxConflictHandlerInput, type WithDeleted } from 'rxdb';
import type { CollectionDefinition } from './collections';

/**
 * The conflict merge of a collection marked `sync` that has an `updatedAt` field (docs/sync.md,
 * "Conflicts"), the same on every device: openDatabase gives it to every such collection that
 * names no conflict handler of its own (conflictHandlerOf). RxDB calls it when a push finds that
 * the server's version (`realMasterState`) is not the one this device last saw
 * (`assumedMasterState`, the common base):
 *
 * - both alive, with a base: a **per-field merge**. A field changed on one side only keeps that
 *   change; a field changed on both sides to different values takes the value of the side with
 *   the later `updatedAt` (a tie: the server's). The result's `updatedAt` is the later of the two.
 * - both alive, no base (after sync.resync or a lost checkpoint): the later `updatedAt` wins the
 *   whole document (a tie: the server's).
 * - one side deleted: the later of the edit and the delete wins. A delete stamps `updatedAt` with
 *   the time of the delete (the sync domain does so), so a delete made after an edit wins over it
 *   and an edit made after a delete brings the document back. A delete without a time (a phone's bare
 *   `remove()`, whose tombstone has no fields) counts as older than any edit it meets.
 * - both deleted: deleted (this device's tombstone).
 *
 * `analyzeConflict` also says what the resolution overwrote that a person wrote (the sync domain's
 * conflict log).
 */

/** Fields that are bookkeeping, not something a person wrote. */
const NOT_CONTENT = new Set(['_rev', '_meta', '_attachments', '_deleted', 'updatedAt']);

/** A document of any synced collection, as plain data. */
export type Doc = Record<string, unknown>;

export interface FieldLoss {
  field: string;
  /** The overwritten value (undefined: the field was absent). */
  lost: unknown;
  /** The value that stays. */
  kept: unknown;
}

export interface ConflictLoss {
  /**
   * `fields`: some fields a person changed were overwritten by the other side's later change;
   * `edit-lost`: an edit lost to a later delete (the document is deleted);
   * `delete-undone`: a delete lost to a later edit (the document is back).
   */
  kind: 'fields' | 'edit-lost' | 'delete-undone';
  /** Whose version lost: this device's, or the server's (written by another device or a phone). */
  lost: 'this-device' | 'other-device';
  fields: FieldLoss[];
  /** The version that lost, as it was (what "keep the other version" writes back). */
  lostVersion: Doc;
  lostUpdatedAt: number | null;
  keptUpdatedAt: number | null;
}

export interface ConflictOutcome {
  doc: Doc;
  losses: ConflictLoss[];
}

function time(doc: Doc): number {
  return typeof doc.updatedAt === 'number' ? doc.updatedAt : 0;
}

export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

function contentKeys(...docs: Array<Doc | undefined>): string[] {
  const keys = new Set<string>();
  for (const doc of docs) if (doc) for (const key of Object.keys(doc)) if (!NOT_CONTENT.has(key)) keys.add(key);
  return [...keys];
}

/** Content fields in which `doc` differs from `other`. */
function differing(doc: Doc, other: Doc): string[] {
  return contentKeys(doc, other).filter((key) => !sameValue(doc[key], other[key]));
}

/** The document without RxDB's bookkeeping (what is kept as a lost version). */
export function contentOf(doc: Doc): Doc {
  const out: Doc = {};
  for (const [key, value] of Object.entries(doc)) if (key !== '_meta' && key !== '_rev' && key !== '_attachments') out[key] = value;
  return out;
}

/** The resolution of a push conflict and what it overwrote (pure; the same on every device). */
export function analyzeConflict(input: RxConflictHandlerInput<Doc>): ConflictOutcome {
  const mine = input.newDocumentState as Doc;
  const theirs = input.realMasterState as Doc;
  const base = input.assumedMasterState as Doc | undefined;
  const side = (doc: Doc): ConflictLoss['lost'] => (doc === mine ? 'this-device' : 'other-device');

  // Both deleted: this device's tombstone goes up (it has the document and the time of the delete).
  if (mine._deleted && theirs._deleted) return { doc: mine, losses: [] };

  if (mine._deleted || theirs._deleted) {
    const winner = time(mine) > time(theirs) ? mine : theirs;
    const loser = winner === mine ? theirs : mine;
    // What the loser wrote: an edit since the base (or, without a base, a version that differs).
    const changedByLoser = base && !base._deleted && !loser._deleted ? differing(loser, base) : differing(loser, winner);
    const lostSomething = loser._deleted ? !base || !base._deleted : changedByLoser.length > 0;
    if (!lostSomething) return { doc: winner, losses: [] };
    const loss: ConflictLoss = {
      kind: loser._deleted ? 'delete-undone' : 'edit-lost',
      lost: side(loser),
      fields: loser._deleted ? [] : changedByLoser.map((field) => ({ field, lost: loser[field], kept: undefined })),
      lostVersion: contentOf(loser),
      lostUpdatedAt: typeof loser.updatedAt === 'number' ? loser.updatedAt : null,
      keptUpdatedAt: typeof winner.updatedAt === 'number' ? winner.updatedAt : null,
    };
    return { doc: winner, losses: [loss] };
  }

  const later = time(mine) > time(theirs) ? mine : theirs;
  const earlier = later === mine ? theirs : mine;
  if (!base || base._deleted) {
    const fields = differing(earlier, later).map((field) => ({ field, lost: earlier[field], kept: later[field] }));
    const losses: ConflictLoss[] =
      fields.length === 0
        ? []
        : [
            {
              kind: 'fields',
              lost: side(earlier),
              fields,
              lostVersion: contentOf(earlier),
              lostUpdatedAt: typeof earlier.updatedAt === 'number' ? earlier.updatedAt : null,
              keptUpdatedAt: typeof later.updatedAt === 'number' ? later.updatedAt : null,
            },
          ];
    return { doc: later, losses };
  }

  let merged: Doc = { ...theirs };
  const absent = new Set<string>();
  const lostFields: FieldLoss[] = [];
  for (const key of contentKeys(mine, theirs, base)) {
    const mineChanged = !sameValue(mine[key], base[key]);
    const theirsChanged = !sameValue(theirs[key], base[key]);
    let value: unknown = theirs[key];
    if (mineChanged && !theirsChanged) value = mine[key];
    else if (mineChanged && theirsChanged && !sameValue(mine[key], theirs[key])) {
      value = later[key];
      lostFields.push({ field: key, lost: earlier[key], kept: later[key] });
    }
    if (value === undefined) absent.add(key);
    else merged[key] = value;
  }
  // Fields that neither side has any more are left out (in place: the other fields keep their order).
  if (absent.size > 0) merged = Object.fromEntries(Object.entries(merged).filter(([key]) => !absent.has(key)));
  if (typeof mine.updatedAt === 'number' || typeof theirs.updatedAt === 'number') merged.updatedAt = Math.max(time(mine), time(theirs));
  merged._deleted = false;
  const losses: ConflictLoss[] =
    lostFields.length === 0
      ? []
      : [
          {
            kind: 'fields',
            lost: side(earlier),
            fields: lostFields,
            lostVersion: contentOf(earlier),
            lostUpdatedAt: typeof earlier.updatedAt === 'number' ? earlier.updatedAt : null,
            keptUpdatedAt: typeof later.updatedAt === 'number' ? later.updatedAt : null,
          },
        ];
  return { doc: merged, losses };
}

/** The conflict handler of every collection marked `sync` that has an `updatedAt` field (conflictHandlerOf). */
export const mergeByField: RxConflictHandler<Doc> = {
  // Two tombstones are the same state whatever fields each kept: no conflict, nothing to push
  // (otherwise this device's fuller tombstone is pushed again and again and refused again).
  // `=== true` on purpose: a tombstone from another device is compared as stored.
  isEqual: (a, b, context) => ((a as Doc)._deleted === true && (b as Doc)._deleted === true) || defaultConflictHandler.isEqual(a, b, context),
  resolve(input) {
    // The merge always sets `_deleted` (both deleted, one side's whole document, or the merge).
    return Promise.resolve(analyzeConflict(input).doc as WithDeleted<Doc>);
  },
};

/**
 * How replication resolves a conflict of this collection: its own handler when it names one; the
 * per-field merge (mergeByField) when it is marked `sync` and has an `updatedAt` field; otherwise
 * none (RxDB's default: the server's version wins).
 */
export function conflictHandlerOf(def: CollectionDefinition): RxConflictHandler<Doc> | undefined {
  if (def.conflictHandler) return def.conflictHandler;
  const properties = (def.schema as { properties?: Record<string, unknown> }).properties ?? {};
  return def.sync && 'updatedAt' in properties ? mergeByField : undefined;
}
