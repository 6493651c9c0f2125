import { Type, type Static } from '@sinclair/typebox';
import { Result, Shape } from '../api/result';

/** Result shapes of the backup actions (server/api/result.ts); the presenters are typed by them. */

/** Why a snapshot was taken. */
export const SNAPSHOT_REASONS = ['daily', 'manual', 'import', 'restore', 'upgrade'] as const;
export type SnapshotReason = (typeof SNAPSHOT_REASONS)[number];

const Reason = Type.Union(
  SNAPSHOT_REASONS.map((r) => Type.Literal(r)),
  { description: 'why it was taken: daily (automatic), manual (on request), before an import, a restore or an upgrade' },
);

export const SnapshotShape = Shape(
  'Snapshot',
  {
    id: Type.String(),
    createdAt: Type.Integer({ description: 'ms' }),
    reason: Reason,
    status: Type.Union([Type.Literal('ok'), Type.Literal('failed')]),
    bytes: Type.Integer({ description: 'its size, linked file bytes included (0 when failed)' }),
    records: Type.Integer({ description: 'ledger records in it (0 when failed)' }),
    files: Type.Integer({ description: 'stored files linked into it (0 when failed)' }),
    error: Type.Optional(Type.String({ description: 'what went wrong, only when failed' })),
  },
  'A snapshot of the data dir, or one that failed.',
);
export type SnapshotEntry = Static<typeof SnapshotShape>;

export const SnapshotList = Result({ list: Type.Array(SnapshotShape) }, { description: 'newest first' });

export const SnapshotTaken = Result(
  {
    id: Type.String(),
    createdAt: Type.Integer(),
    reason: Type.Literal('manual'),
    bytes: Type.Integer(),
    records: Type.Integer(),
    keys: Type.Integer(),
    files: Type.Integer(),
    tookMs: Type.Integer(),
  },
  {
    description:
      '`createdAt` ms; `bytes`: its size, linked file bytes included; `records`: ledger records in it; `keys`: database keys copied; `files`: stored files linked; `tookMs`: how long writing and verifying took, ms',
  },
);

export const SnapshotRestored = Result(
  { restored: Type.String(), snapshotBefore: Type.String(), records: Type.Integer() },
  { description: '`restored`: the id of the snapshot put back; `snapshotBefore`: the snapshot of the state just before the restore; `records`: ledger records now' },
);

export const SnapshotDeleted = Result({ deleted: Type.String() }, { description: '`deleted`: the id' });
