import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cp, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { fsyncPath, fsyncTree, linkFiles } from './disk';
import { readBack } from './level-copy';
import { readManifest, snapshotsDir, type SnapshotManifest } from './snapshots';

/**
 * Restoring a snapshot over the live database, in steps that a crash between any two leaves
 * recoverable: prepare a verified copy next to the live folder, swap the folders while the database
 * is closed, then drop the replaced one (finishInterruptedRestore completes an interrupted one).
 */

/** The live database folder and the folders a restore moves through. */
export function restorePaths(dataDir: string) {
  return {
    live: path.join(dataDir, 'db'),
    incoming: path.join(dataDir, 'db.restoring'),
    ready: path.join(dataDir, 'db.restoring.ready'),
    replaced: path.join(dataDir, 'db.replaced'),
    failed: path.join(dataDir, 'db.failed-restore'),
  };
}

/**
 * Step 1 of a restore (the live database may still be open): copies the snapshot's database
 * next to the live one (`db.restoring`), reads it back against the manifest's digest, fsyncs it
 * and marks it ready. Nothing live is touched.
 */
export async function prepareRestore(dataDir: string, manifest: SnapshotManifest): Promise<void> {
  const p = restorePaths(dataDir);
  await rm(p.ready, { force: true });
  await rm(p.incoming, { recursive: true, force: true });
  await cp(path.join(snapshotsDir(dataDir), manifest.id, 'db'), p.incoming, { recursive: true });
  const check = await readBack(p.incoming);
  if (check.keys !== manifest.keys || check.digest !== manifest.digest) {
    await rm(p.incoming, { recursive: true, force: true });
    throw new Error(
      `snapshot ${manifest.id} is damaged: it holds ${check.keys} keys (${manifest.keys} when written)${check.digest !== manifest.digest ? ' and its digest differs' : ''}`,
    );
  }
  fsyncTree(p.incoming);
  writeFileSync(p.ready, manifest.id + '\n', { mode: 0o600 });
  fsyncPath(p.ready);
  fsyncPath(dataDir);
}

/**
 * Step 2 (the live database is closed): `db` → `db.replaced`, `db.restoring` → `db`, then the
 * snapshot's file bytes are linked back. A crash in between is finished by finishInterruptedRestore
 * at the next start.
 */
export async function swapInRestore(dataDir: string, manifest: SnapshotManifest): Promise<void> {
  const p = restorePaths(dataDir);
  await rm(p.replaced, { recursive: true, force: true });
  if (existsSync(p.live)) await rename(p.live, p.replaced);
  await rename(p.incoming, p.live);
  fsyncPath(dataDir);
  await rm(p.ready, { force: true });
  await linkFiles(path.join(snapshotsDir(dataDir), manifest.id, 'files'), path.join(dataDir, 'files'));
}

/** Undoes step 2 when the restored database does not open: the previous database goes back. */
export async function rollbackRestore(dataDir: string): Promise<void> {
  const p = restorePaths(dataDir);
  if (!existsSync(p.replaced)) return;
  await rm(p.failed, { recursive: true, force: true });
  if (existsSync(p.live)) await rename(p.live, p.failed);
  await rename(p.replaced, p.live);
  fsyncPath(dataDir);
}

/** Step 3, once the restored database is open: the replaced one is in the pre-restore snapshot. */
export async function finishRestore(dataDir: string): Promise<void> {
  await rm(restorePaths(dataDir).replaced, { recursive: true, force: true });
}

/**
 * Runs before the database opens (server start, data tools): completes a restore that a crash
 * interrupted after its copy was ready and verified, and removes the parts of one that was not.
 * Returns what it did, for the log (null: nothing to do).
 */
export async function finishInterruptedRestore(dataDir: string): Promise<string | null> {
  const p = restorePaths(dataDir);
  const incoming = existsSync(p.incoming);
  if (existsSync(p.ready)) {
    const id = readFileSync(p.ready, 'utf8').trim();
    if (incoming) {
      const manifest = readManifest(dataDir, id);
      await rm(p.replaced, { recursive: true, force: true });
      if (existsSync(p.live)) await rename(p.live, p.replaced);
      await rename(p.incoming, p.live);
      fsyncPath(dataDir);
      await rm(p.ready, { force: true });
      if (manifest) await linkFiles(path.join(snapshotsDir(dataDir), id, 'files'), path.join(dataDir, 'files'));
      return `finished the restore of snapshot ${id} that was interrupted`;
    }
    // Interrupted after the swap, before the marker was removed: only file links may be missing.
    const manifest = readManifest(dataDir, id);
    if (manifest) await linkFiles(path.join(snapshotsDir(dataDir), id, 'files'), path.join(dataDir, 'files'));
    await rm(p.ready, { force: true });
    return `finished the restore of snapshot ${id} (file links)`;
  }
  if (incoming) {
    await rm(p.incoming, { recursive: true, force: true });
    return 'removed the copy of an interrupted restore (the database was not touched)';
  }
  return null;
}
