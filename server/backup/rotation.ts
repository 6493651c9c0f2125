import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { SNAPSHOT_ID_PATTERN, snapshotsDir, type SnapshotEntry } from './snapshots';

/** Rotation: which snapshots the settings' `backup` numbers keep, and removing the others. */

export interface RotationPolicy {
  keepLast: number;
  keepDaily: number;
  keepWeekly: number;
  keepMonthly: number;
}

const DAY = 86_400_000;
const dayOf = (t: number) => Math.floor(t / DAY);
/** ISO weeks (Monday first); day 0 (1970-01-01) was a Thursday. */
const weekOf = (t: number) => Math.floor((dayOf(t) + 3) / 7);
const monthOf = (t: number) => {
  const d = new Date(t);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
};

/**
 * Which snapshots to keep: every snapshot a person took by hand (`manual`: kept until they delete
 * it, backup.deleteSnapshot), and of the automatic ones the `keepLast` newest, plus the newest of
 * each of the last `keepDaily` days, `keepWeekly` ISO weeks and `keepMonthly` months that have a
 * snapshot (UTC calendar). Everything else goes. Failure notes are kept for the 5 newest.
 */
export function planRotation(list: readonly SnapshotEntry[], policy: RotationPolicy): { keep: string[]; remove: string[] } {
  const ok = list.filter((s) => s.status === 'ok' && s.reason !== 'manual').sort((a, b) => b.createdAt - a.createdAt);
  const keep = new Set<string>(list.filter((s) => s.status === 'ok' && s.reason === 'manual').map((s) => s.id));
  for (const s of ok.slice(0, policy.keepLast)) keep.add(s.id);
  const byBucket = (bucket: (t: number) => number, count: number) => {
    let last: number | undefined;
    let kept = 0;
    for (const s of ok) {
      if (kept >= count) break;
      const b = bucket(s.createdAt);
      if (b === last) continue;
      last = b;
      keep.add(s.id);
      kept++;
    }
  };
  byBucket(dayOf, policy.keepDaily);
  byBucket(weekOf, policy.keepWeekly);
  byBucket(monthOf, policy.keepMonthly);
  const failed = list.filter((s) => s.status === 'failed').sort((a, b) => b.createdAt - a.createdAt);
  for (const f of failed.slice(0, 5)) keep.add(f.id);
  const remove = list.filter((s) => !keep.has(s.id)).map((s) => s.id);
  return { keep: [...keep], remove };
}

export async function removeSnapshot(dataDir: string, entry: Pick<SnapshotEntry, 'id' | 'status'>): Promise<void> {
  const root = snapshotsDir(dataDir);
  if (entry.status === 'failed') {
    await rm(path.join(root, `${entry.id}.failed.json`), { force: true });
    return;
  }
  if (!SNAPSHOT_ID_PATTERN.test(entry.id)) return;
  // Rename first: a crash while deleting never leaves a folder that looks like a snapshot.
  const doomed = path.join(root, `.tmp-removing-${entry.id}`);
  await rename(path.join(root, entry.id), doomed);
  await rm(doomed, { recursive: true, force: true });
}
