import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params } from '../api/action';
import { backupErrors } from './errors';
import { SnapshotDeleted, SnapshotList, SnapshotRestored, SnapshotTaken } from './result-shapes';
import { SNAPSHOT_ID_PATTERN } from './snapshots';
import type { ActionContext } from '../api/action';
import type { BackupService } from './service';

declare module '../app-context' {
  interface ServiceMap {
    /** Missing when the backup domain is not loaded (a test server with other domains). */
    backup?: BackupService;
  }
}

function service(ctx: ActionContext): BackupService {
  const backup = ctx.app.services.backup;
  if (!backup) throw backupErrors.backupsUnavailable();
  return backup;
}

const WHO = 'The owner and admins only (members get 1004): it acts on the whole data dir, every account.';

const listSnapshots = defineAction({
  summary: 'The snapshots of this data dir, newest first, and the snapshots that failed.',
  notes: `Snapshots are taken automatically (at start when the newest is 24 h old, daily while running, before every import and restore) and on request; rotation keeps the settings' \`backup\` numbers of the automatic ones, and every snapshot taken on request until it is deleted. ${WHO}`,
  auth: 'admin',
  params: Params({}),
  result: SnapshotList,
  handler: (_params, ctx) => ({ list: service(ctx).list() }),
});

const createSnapshot = defineAction({
  summary: 'Take a snapshot of the whole data dir now (database, file metadata and bytes, settings).',
  notes: `A consistent point in time while writes continue; written to a temporary folder, read back and verified, then published. ${WHO}`,
  auth: 'admin',
  params: Params({}),
  result: SnapshotTaken,
  errors: [
    [backupErrors.rows.snapshotFailed, 'the snapshot failed (it is logged and listed as failed)'],
    [backupErrors.rows.serverStopping, 'the server is stopping'],
  ],
  handler: async (_params, ctx) => {
    const m = await service(ctx).createSnapshot('manual');
    return { id: m.id, createdAt: m.createdAt, reason: 'manual' as const, bytes: m.bytes, records: m.records, keys: m.keys, files: m.files, tookMs: m.tookMs };
  },
});

const restoreSnapshot = defineAction({
  summary: 'Put the whole data dir back as it was in a snapshot (a snapshot of the current state is taken first).',
  notes:
    'Every account, record, file and local state (sessions included) returns to the snapshot: devices that signed in after it must sign in again. ' +
    `The server stays up; other requests answer 503 "restoring" for the few seconds of the swap. settings.json is not changed. ${WHO}`,
  auth: 'admin',
  params: Params({ id: Type.String({ pattern: SNAPSHOT_ID_PATTERN.source, hint: 'snapshotId', maxLength: 40, description: 'id from backup.listSnapshots.' }) }),
  result: SnapshotRestored,
  errors: [
    [backupErrors.rows.snapshotNotFound, 'no snapshot has this id'],
    [backupErrors.rows.snapshotDamaged, 'the snapshot is damaged (its data does not match its manifest); nothing was changed'],
    [backupErrors.rows.snapshotFailed, 'the snapshot before the restore failed; nothing was changed'],
  ],
  handler: (params, ctx) => service(ctx).restoreSnapshot(params.id, { ownRequests: 1 }),
});

const deleteSnapshot = defineAction({
  summary: 'Delete a snapshot. Snapshots taken by hand are kept until deleted; automatic ones also go by rotation.',
  notes: WHO,
  auth: 'admin',
  params: Params({ id: Type.String({ pattern: SNAPSHOT_ID_PATTERN.source, hint: 'snapshotId', maxLength: 40, description: 'id from backup.listSnapshots.' }) }),
  result: SnapshotDeleted,
  errors: [[backupErrors.rows.snapshotNotFound, 'no snapshot has this id']],
  handler: (params, ctx) => service(ctx).deleteSnapshot(params.id),
});

export const backupActions = defineActions({
  'backup.listSnapshots': listSnapshots,
  'backup.createSnapshot': createSnapshot,
  'backup.restoreSnapshot': restoreSnapshot,
  'backup.deleteSnapshot': deleteSnapshot,
});
