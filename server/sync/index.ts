import type { RxCollection } from 'rxdb';
import { optionalService, type AppContext } from '../app-context';
import { defineDomain } from '../domain';
import { syncActions } from './actions';
import { ConflictLog } from './conflict-log';
import { syncErrors } from './errors';
import type { SyncedDoc } from '../arrival-checks';
import { PhonePairing } from './phones';
import { SyncService } from './service';
import { syncedCollections } from './synced-collections';

const stamped = new WeakSet<RxCollection>();

/**
 * A delete made here records when it was made: `updatedAt` becomes the time of the delete, so the
 * conflict merge can tell a later delete from an earlier one (server/db/conflict-merge.ts). Writes
 * by the replication do not run hooks; only deletes made by PennyPost itself are stamped.
 */
function stampDeletes(app: AppContext): void {
  for (const name of syncedCollections(app)) {
    const collection = app.db.rx.collections[name] as RxCollection<SyncedDoc> | undefined;
    if (!collection || stamped.has(collection)) continue;
    if (!('updatedAt' in collection.schema.jsonSchema.properties)) continue;
    stamped.add(collection);
    collection.preRemove((data: SyncedDoc) => {
      const previous = typeof data.updatedAt === 'number' ? data.updatedAt : 0;
      data.updatedAt = Math.max(app.clock.now(), previous + 1);
    }, false);
  }
}

/** CouchDB sync of each user's ledger (docs/sync.md). Starts last: it replicates the others' collections. */
export function syncDomain() {
  return defineDomain({
    name: 'sync',
    needs: ['users'],
    errors: syncErrors,
    actions: syncActions,
    async start(app) {
      stampDeletes(app);
      app.services.syncConflicts = new ConflictLog(app);
      const sync = new SyncService(app);
      app.services.sync = sync;
      app.services.syncPhones = new PhonePairing(app, sync);
      await sync.resumeAll();
    },
    async forgetUser(app, userId) {
      // Before the documents go: their deletions must not replicate to the person's CouchDB.
      await optionalService(app, 'sync')?.remove(userId);
      await optionalService(app, 'syncConflicts')?.forget(userId);
    },
    async stop(app) {
      await optionalService(app, 'sync')?.stopAll();
    },
  });
}
