import type { RxConflictHandler, RxJsonSchema } from 'rxdb';

/**
 * A collection that a domain folder of `server/` declares. Every domain exports its
 * definitions and `server/db/app-collections.ts` lists them all in one place, so the
 * schema budget (at most 12 RxDB collections, see server/db/README.md) is checked once.
 */
export interface CollectionDefinition<DocType = any> {
  /** RxDB collection name: lower-case letters, digits and underscores. */
  name: string;
  schema: RxJsonSchema<DocType>;
  /** Migration strategies for schema versions > 0, keyed by the version they produce. */
  migrationStrategies?: Record<number, (oldDoc: any) => any>;
  /** How replication resolves a conflict (default: RxDB's, the server's version wins). */
  conflictHandler?: RxConflictHandler<DocType>;
}

/** The open-source RxDB build refuses a 14th open collection; we keep a margin of one. */
export const MAX_APP_COLLECTIONS = 12;

export function assertCollectionBudget(defs: readonly CollectionDefinition[]): void {
  const names = new Set<string>();
  for (const def of defs) {
    if (names.has(def.name)) throw new Error(`collection "${def.name}" is declared twice`);
    names.add(def.name);
  }
  if (defs.length > MAX_APP_COLLECTIONS) {
    throw new Error(
      `${defs.length} collections declared; the schema budget is ${MAX_APP_COLLECTIONS} (see server/db/README.md)`,
    );
  }
}
