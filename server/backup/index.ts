import { defineDomain } from '../domain';
import { backupActions } from './actions';
import { backupErrors } from './errors';
import { BackupService } from './service';
import { provideSnapshots } from '../api/write-policies';

/** Automatic snapshots of the data dir and restore: backup.* actions (docs/data-safety.md). */
export function backupDomain() {
  return defineDomain({
    name: 'backup',
    uses: ['users', 'notify'],
    actions: backupActions,
    errors: backupErrors,
    async start(app) {
      // Kept across the domain restart of a restore: its queue must outlive it.
      app.services.backup ??= new BackupService(app);
      await app.services.backup.start();
      // The snapshots actions declare with `writes: { snapshotFirst }` (server/api/write-policies.ts).
      provideSnapshots(app, app.services.backup);
    },
    async stop(app) {
      await app.services.backup?.stop();
    },
  });
}
