import type { Static, TObject } from '@sinclair/typebox';
import type { MigrationStrategies, RxConflictHandler, RxJsonSchema } from 'rxdb';

/**
 * A collection that a domain folder of `server/` declares. Every domain exports its
 * definitions; `server/domains.ts` lists the domains, and the database checks the schema budget
 * (at most 12 RxDB collections, see server/db/README.md) once for all of them.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the default stands for "some document type" (lists of collections of different types): RxDB's schema and conflict types are invariant in it, so no other type fits
export interface CollectionDefinition<DocType = any> {
  /** RxDB collection name: lower-case letters, digits and underscores. */
  name: string;
  schema: RxJsonSchema<DocType>;
  /** Migration strategies for schema versions > 0, keyed by the version they produce. */
  migrationStrategies?: MigrationStrategies;
  /**
   * How replication resolves a conflict. Default: the per-field merge for a collection marked
   * `sync` with an `updatedAt` field (server/db/conflict-merge.ts), else RxDB's (the server's
   * version wins).
   */
  conflictHandler?: RxConflictHandler<DocType>;
  /** Each user's documents of this collection replicate to their CouchDB (the sync domain replicates exactly these). */
  sync?: boolean;
}

/** What `defineCollection` needs: the document as one TypeBox object, and the RxDB extras. */
export interface CollectionSpec<T extends TObject> {
  name: string;
  /** Shown in RxDB's schema; part of the schema hash (keep it, or its absence, when rewriting a schema). */
  title?: string;
  version: number;
  primaryKey: string;
  /** The document: its TypeBox schema is the RxDB JSON schema, its `Static` the document type. */
  document: T;
  indexes?: readonly (string | readonly string[])[];
  migrationStrategies?: CollectionDefinition['migrationStrategies'];
  conflictHandler?: RxConflictHandler<Static<T>>;
  sync?: boolean;
}

/**
 * A collection whose schema is written once, as TypeBox: the document type is `Static<typeof
 * document>` and the RxDB JSON schema is built from it. The property order of `document` is the
 * order of `required`, which is part of the schema hash (server/schema-hashes.test.ts).
 */
export function defineCollection<T extends TObject>(spec: CollectionSpec<T>): CollectionDefinition<Static<T>> {
  const document = JSON.parse(JSON.stringify(spec.document)) as { properties: Record<string, unknown>; required?: string[] };
  const schema = {
    ...(spec.title === undefined ? {} : { title: spec.title }),
    version: spec.version,
    primaryKey: spec.primaryKey,
    type: 'object',
    properties: document.properties,
    required: document.required ?? [],
    ...(spec.indexes ? { indexes: spec.indexes } : {}),
  } as unknown as RxJsonSchema<Static<T>>;
  return {
    name: spec.name,
    schema,
    ...(spec.migrationStrategies ? { migrationStrategies: spec.migrationStrategies } : {}),
    ...(spec.conflictHandler ? { conflictHandler: spec.conflictHandler } : {}),
    ...(spec.sync ? { sync: true } : {}),
  };
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
    throw new Error(`${defs.length} collections declared; the schema budget is ${MAX_APP_COLLECTIONS} (see server/db/README.md)`);
  }
}
