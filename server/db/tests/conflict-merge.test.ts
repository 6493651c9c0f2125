import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import type { RxConflictHandler } from 'rxdb';
import { describe, expect, it } from 'vitest';
import { defineCollection } from '../collections';
import { analyzeConflict, conflictHandlerOf, mergeByField } from '../conflict-merge';
import { openDatabase } from '../database';
import { IdField, Ms } from '../schema-fields';

/** The conflict merge as pure functions (docs/sync.md, "Conflicts"); server/sync/conflicts.test.ts runs them through the CouchDB peer of the test suite. */

const base = { id: 'r1', userId: 'u', description: 'lunch', amount: 1000, tags: ['a'], updatedAt: 100, _deleted: false };
const resolve = (mine: object, theirs: object, assumed: object | undefined = base) =>
  analyzeConflict({ newDocumentState: mine, realMasterState: theirs, assumedMasterState: assumed } as never);

describe('conflict merge', () => {
  it('merges changes of different fields and loses nothing', () => {
    const out = resolve({ ...base, description: 'dinner', updatedAt: 200 }, { ...base, amount: 2500, updatedAt: 300 });
    expect(out.doc).toMatchObject({ description: 'dinner', amount: 2500, tags: ['a'], updatedAt: 300, _deleted: false });
    expect(out.losses).toEqual([]);
  });

  it('the later edit wins a field changed on both sides; the earlier value is reported; a tie keeps the server value', () => {
    const out = resolve({ ...base, description: 'mine, later', updatedAt: 300 }, { ...base, description: 'theirs', tags: ['b'], updatedAt: 200 });
    expect(out.doc).toMatchObject({ description: 'mine, later', tags: ['b'], updatedAt: 300 });
    expect(out.losses).toEqual([expect.objectContaining({ kind: 'fields', lost: 'other-device', fields: [{ field: 'description', lost: 'theirs', kept: 'mine, later' }] })]);
    const tie = resolve({ ...base, description: 'mine', updatedAt: 200 }, { ...base, description: 'theirs', updatedAt: 200 });
    expect(tie.doc.description).toBe('theirs');
    expect(tie.losses[0]).toMatchObject({ lost: 'this-device', fields: [{ field: 'description', lost: 'mine', kept: 'theirs' }] });
  });

  it('edit against delete: the later one wins, whichever side is pushing', () => {
    const deletedAt150 = { ...base, _deleted: true, updatedAt: 150 };
    const editAt200 = { ...base, description: 'edited', updatedAt: 200 };
    const editAt120 = { ...base, description: 'edited', updatedAt: 120 };
    expect(resolve(editAt200, deletedAt150).doc).toMatchObject({ description: 'edited', _deleted: false });
    expect(resolve(editAt200, deletedAt150).losses[0]).toMatchObject({ kind: 'delete-undone', lost: 'other-device' });
    expect(resolve(deletedAt150, editAt200).doc._deleted).toBe(false);
    expect(resolve(editAt120, deletedAt150).doc._deleted).toBe(true);
    expect(resolve(editAt120, deletedAt150).losses[0]).toMatchObject({ kind: 'edit-lost', lost: 'this-device', fields: [{ field: 'description', lost: 'edited' }] });
    expect(resolve(deletedAt150, editAt120).doc._deleted).toBe(true);
    // a bare tombstone (time unknown, filled with updatedAt 0) is older than any edit
    expect(resolve(editAt120, { ...base, _deleted: true, updatedAt: 0 }).doc._deleted).toBe(false);
  });

  it('without a base, the later version wins the whole document', () => {
    const out = analyzeConflict({
      newDocumentState: { ...base, description: 'mine', amount: 1, updatedAt: 100 },
      realMasterState: { ...base, description: 'theirs', updatedAt: 200 },
    });
    expect(out.doc).toMatchObject({ description: 'theirs', amount: 1000 });
    expect(out.losses[0]?.fields.map((f) => f.field).sort()).toEqual(['amount', 'description']);
  });
});

describe('which collections get the conflict merge', () => {
  const doc = (withUpdatedAt: boolean) => Type.Object({ id: IdField(), userId: IdField(), ...(withUpdatedAt ? { updatedAt: Ms() } : {}) });
  const collection = (name: string, extra: { sync?: boolean; updatedAt?: boolean; conflictHandler?: RxConflictHandler<any> }) =>
    defineCollection({ name, title: name, version: 0, primaryKey: 'id', document: doc(extra.updatedAt ?? true), sync: extra.sync, conflictHandler: extra.conflictHandler });
  const own: RxConflictHandler<any> = { isEqual: () => true, resolve: (input) => input.realMasterState };
  const defs = [
    collection('synced', { sync: true }),
    collection('synced_untimed', { sync: true, updatedAt: false }),
    collection('local_only', {}),
    collection('synced_own', { sync: true, conflictHandler: own }),
  ];

  it('a collection marked sync with updatedAt gets the per-field merge; its own handler wins; others get none', () => {
    expect(defs.map((def) => conflictHandlerOf(def))).toEqual([mergeByField, undefined, undefined, own]);
  });

  it('openDatabase gives the collections their handler and names the synced ones', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pp-conflict-merge-'));
    try {
      const db = await openDatabase({ dataDir, collections: defs });
      try {
        expect(db.syncedCollections).toEqual(['synced', 'synced_untimed', 'synced_own']);
        expect(db.collection('synced').conflictHandler).toBe(mergeByField);
        expect(db.collection('synced_own').conflictHandler).toBe(own);
        expect(db.collection('synced_untimed').conflictHandler).not.toBe(mergeByField);
        expect(db.collection('local_only').conflictHandler).not.toBe(mergeByField);
      } finally {
        await db.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
