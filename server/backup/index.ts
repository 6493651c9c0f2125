import { defineDomain } from '../domain';
import { backupActions } from './actions';
import { backupErrors } from './errors';
import { BackupService } from './service';

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
    },
    async stop(app) {
      await app.services.backup?.stop();
    },
  });
}
