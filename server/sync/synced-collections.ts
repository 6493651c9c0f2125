import type { CollectionDefinition } from '../db/collections';
import { mergeByField } from './conflicts';

/**
 * The collections that sync to CouchDB (per user): the ledger and the game, short links and file
 * metadata. Never synced: users (password hashes), push_targets (channels, secrets, app keys),
 * push_messages, and everything in the local store (sessions, settings secrets).
 */
export const SYNCED_COLLECTIONS = ['assets', 'records', 'categories', 'rates', 'goals', 'trades', 'achievements', 'links', 'files'] as const;
export type SyncedCollection = (typeof SYNCED_COLLECTIONS)[number];

export function isSynced(name: string): name is SyncedCollection {
  return (SYNCED_COLLECTIONS as readonly string[]).includes(name);
}

/** Gives every synced collection with an `updatedAt` field the conflict rules (per-field merge, later edit or delete wins; server/sync/conflicts.ts). */
export function withSyncConflictRules(defs: readonly CollectionDefinition[]): CollectionDefinition[] {
  return defs.map((def) => {
    const properties = (def.schema as { properties?: Record<string, unknown> }).properties ?? {};
    if (Boolean(def.sync) !== isSynced(def.name)) throw new Error(`collection ${def.name}: its sync flag and SYNCED_COLLECTIONS disagree`);
    if (!def.sync || def.conflictHandler || !('updatedAt' in properties)) return def;
    return { ...def, conflictHandler: mergeByField };
  });
}
