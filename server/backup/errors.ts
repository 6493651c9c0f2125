import { errorCatalogue } from '../lib/errors';

/** The errors of backup.* (docs/api.md, docs/data-safety.md). */
export const backupErrors = errorCatalogue(
  {
    backupsUnavailable: { code: 503, status: 503, message: () => 'Backups are unavailable.' },
    snapshotNotFound: { code: 404, status: 404, message: (id: string) => `There is no snapshot ${id}.` },
    cannotSwapDatabase: { code: 503, status: 503, message: () => 'This server cannot swap its database while running.' },
    snapshotDamaged: { code: 409, status: 409, message: (id: string, problem: string) => `Snapshot ${id} cannot be restored: ${problem}. Nothing was changed.` },
    serverStopping: { code: 503, status: 503, message: () => 'The server is stopping; no snapshot was taken.' },
    snapshotFailed: { code: 503, status: 503, message: (problem: string) => `The snapshot failed: ${problem}. Nothing was changed.` },
  },
  'backup',
);
