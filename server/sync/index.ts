import type { Domain } from '../domain';
import { syncActions } from './actions';
import { SyncService } from './service';

/** CouchDB sync of each user's ledger (docs/sync.md). Starts last: it replicates the others' collections. */
export function syncDomain(): Domain {
  return {
    name: 'sync',
    actions: syncActions,
    async start(app) {
      const sync = new SyncService(app);
      app.services.sync = sync;
      await sync.resumeAll();
    },
    async forgetUser(app, userId) {
      // Before the documents go: their deletions must not replicate to the person's CouchDB.
      await app.services.sync?.remove(userId);
    },
    async stop(app) {
      await app.services.sync?.stopAll();
    },
  };
}
