import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { copyFile, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { copyLevel, readBack, SnapshotAborted, type SourceLevel } from './level-copy';
import { fsyncPath, fsyncTree, linkFiles, treeBytes } from './disk';
import type { SnapshotEntry, SnapshotReason } from './result-shapes';

/**
 * Snapshots of a data dir: `<dataDir>/snapshots/<id>/` holds
 *   db/             a LevelDB copy of the whole database (RxDB collections and the local store)
 *   files/          hard links to the file bytes that existed (copies where a link is impossible)
 *   settings.json   a copy of the server settings, when the data dir has one
 *   snapshot.json   the manifest, written last: counts and a digest of every key and value
 * A snapshot is built in `snapshots/.tmp-<id>/`, verified (reopened, every key and value read
 * back and compared with what was copied) and only then renamed into place. Listing ignores
 * folders without a manifest and names starting with a dot, so an interrupted snapshot never
 * looks complete; the next start removes its leftovers. The live data is only read.
 */

export const SNAPSHOT_FORMAT = 'pennypost-snapshot';
export const SNAPSHOTS_DIR = 'snapshots';
/** Snapshot ids: time stamp + random suffix (letters, digits, dashes only: safe in a path). */
export const SNAPSHOT_ID_PATTERN = /^[0-9]{8}-[0-9]{6}-[0-9]{3}-[a-z0-9]{4}$/;
export { SNAPSHOT_REASONS, type SnapshotReason } from './result-shapes';

export interface SnapshotManifest {
  format: typeof SNAPSHOT_FORMAT;
  version: 1;
  id: string;
  createdAt: number;
  reason: SnapshotReason;
  /** LevelDB keys copied (documents, indexes, local state). */
  keys: number;
  /** Documents that are not deleted, per RxDB collection. */
  collections: Record<string, number>;
  /** Ledger records (documents of the `records` collection that are not deleted). */
  records: number;
  /** sha256 over every key and value in order. */
  digest: string;
  /** File bytes linked into files/. */
  files: number;
  settings: boolean;
  /** Size of everything in the snapshot folder (linked file bytes included), bytes. */
  bytes: number;
  /** How long writing and verifying took, ms. */
  tookMs: number;
}

/** One entry of backup.listSnapshots. */
export type { SnapshotEntry } from './result-shapes';

export interface FailureRecord {
  id: string;
  createdAt: number;
  reason: SnapshotReason;
  error: string;
}

export function snapshotsDir(dataDir: string): string {
  return path.join(dataDir, SNAPSHOTS_DIR);
}

export function newSnapshotId(now: number): string {
  const d = new Date(now);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const stamp = `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}-${p(d.getUTCMilliseconds(), 3)}`;
  const suffix = [...randomBytes(4)].map((b) => (b % 36).toString(36)).join('');
  return `${stamp}-${suffix}`;
}

// ------------------------------------------------------------------ writing a snapshot

export interface WriteSnapshotOptions {
  dataDir: string;
  /** The open live database. */
  source: SourceLevel;
  now: number;
  reason: SnapshotReason;
  signal?: AbortSignal;
  /** A given id (default: from `now`). */
  id?: string;
  /** Called once the snapshot's point in time is fixed (the database iterator exists): writes after it are not in the snapshot. */
  onPinned?: () => void;
}

/** Writes, verifies and publishes one snapshot. Leaves nothing behind when it fails. */
export async function writeSnapshot(options: WriteSnapshotOptions): Promise<SnapshotManifest> {
  const started = Date.now();
  const root = snapshotsDir(options.dataDir);
  await mkdir(root, { recursive: true, mode: 0o700 });
  const id = options.id ?? newSnapshotId(options.now);
  const tmp = path.join(root, `.tmp-${id}`);
  const final = path.join(root, id);
  if (existsSync(final)) throw new Error(`snapshot ${id} already exists`);
  await mkdir(tmp, { mode: 0o700 });
  try {
    const liveFiles = path.join(options.dataDir, 'files');
    // Files first, the database, then files again: bytes removed after the database copy are in
    // the first pass, bytes added before it are in the second one.
    await linkFiles(liveFiles, path.join(tmp, 'files'));
    const copied = await copyLevel(options.source, path.join(tmp, 'db'), options.signal, options.onPinned);
    await linkFiles(liveFiles, path.join(tmp, 'files'));
    if (options.signal?.aborted) throw new SnapshotAborted();
    const settingsFile = path.join(options.dataDir, 'settings.json');
    const settings = existsSync(settingsFile);
    if (settings) await copyFile(settingsFile, path.join(tmp, 'settings.json'));
    const check = await readBack(path.join(tmp, 'db'));
    if (check.keys !== copied.keys || check.digest !== copied.digest) {
      throw new Error(`verification failed: copied ${copied.keys} keys, read back ${check.keys}${check.digest !== copied.digest ? ' with a different digest' : ''}`);
    }
    const files = existsSync(path.join(tmp, 'files')) ? (await readdir(path.join(tmp, 'files'))).length : 0;
    const manifest: SnapshotManifest = {
      format: SNAPSHOT_FORMAT,
      version: 1,
      id,
      createdAt: options.now,
      reason: options.reason,
      keys: copied.keys,
      collections: copied.collections,
      records: copied.collections['records'] ?? 0,
      digest: copied.digest,
      files,
      settings,
      bytes: 0,
      tookMs: 0,
    };
    manifest.bytes = (await treeBytes(tmp)) + 600;
    manifest.tookMs = Date.now() - started;
    await writeFile(path.join(tmp, 'snapshot.json'), JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600 });
    fsyncTree(tmp);
    await rename(tmp, final);
    fsyncPath(root);
    return manifest;
  } catch (error) {
    await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
}

/** Keeps a record of a failed snapshot (shown by listSnapshots); only the last few are kept. */
export function recordFailure(dataDir: string, failure: FailureRecord): void {
  const root = snapshotsDir(dataDir);
  try {
    if (!existsSync(root)) return;
    writeFileSync(path.join(root, `${failure.id}.failed.json`), JSON.stringify(failure) + '\n', { mode: 0o600 });
  } catch {
    // The log has it anyway.
  }
}

// ------------------------------------------------------------------ reading snapshots

export function readManifest(dataDir: string, id: string): SnapshotManifest | null {
  if (!SNAPSHOT_ID_PATTERN.test(id)) return null;
  try {
    // A file on disk: another program or version may have written anything there.
    const manifest = JSON.parse(readFileSync(path.join(snapshotsDir(dataDir), id, 'snapshot.json'), 'utf8')) as Omit<SnapshotManifest, 'format'> & { format: unknown };
    if (manifest.format !== SNAPSHOT_FORMAT || manifest.id !== id || !existsSync(path.join(snapshotsDir(dataDir), id, 'db'))) return null;
    return manifest as SnapshotManifest;
  } catch {
    return null;
  }
}

/** Complete snapshots and recorded failures, newest first. */
export function listSnapshots(dataDir: string): SnapshotEntry[] {
  const root = snapshotsDir(dataDir);
  if (!existsSync(root)) return [];
  const out: SnapshotEntry[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) {
      const m = readManifest(dataDir, entry.name);
      if (m) out.push({ id: m.id, createdAt: m.createdAt, reason: m.reason, status: 'ok', bytes: m.bytes, records: m.records, files: m.files });
    } else if (entry.isFile() && entry.name.endsWith('.failed.json')) {
      try {
        const f = JSON.parse(readFileSync(path.join(root, entry.name), 'utf8')) as FailureRecord;
        out.push({ id: f.id, createdAt: f.createdAt, reason: f.reason, status: 'failed', bytes: 0, records: 0, files: 0, error: f.error });
      } catch {
        // unreadable failure note: skip
      }
    }
  }
  return out.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
}

/** Removes what an interrupted snapshot left (`.tmp-*` folders). */
export async function removeLeftovers(dataDir: string): Promise<string[]> {
  const root = snapshotsDir(dataDir);
  if (!existsSync(root)) return [];
  const removed: string[] = [];
  for (const name of await readdir(root)) {
    if (name.startsWith('.tmp-')) {
      await rm(path.join(root, name), { recursive: true, force: true });
      removed.push(name);
    }
  }
  return removed;
}
