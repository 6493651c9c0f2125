import type { AppContext } from '../app-context';
import type { SyncedCollection } from '../arrival-checks';

/**
 * The collections that sync to CouchDB (per user) are those whose definition is marked `sync`
 * (server/db/collections.ts): the ledger and the game, short links and file metadata. Never
 * synced: users (password hashes), push_targets (channels, secrets, app keys), push_messages, and
 * everything in the local store (sessions, settings secrets).
 *
 * Their names as a type, so that a domain's arrival check (server/arrival-checks.ts) names a collection
 * that exists: synced-collections.test.ts checks that it is exactly the marked definitions.
 */
export type { SyncedCollection } from '../arrival-checks';

/** The collections marked `sync` that this PennyPost opened, in definition order. */
export function syncedCollections(app: AppContext): readonly SyncedCollection[] {
  return app.db.syncedCollections as readonly SyncedCollection[];
}
