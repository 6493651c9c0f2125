import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cp, link, copyFile, lstat, mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ClassicLevel } from 'classic-level';

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
export const SNAPSHOT_REASONS = ['daily', 'manual', 'import', 'restore', 'upgrade'] as const;
export type SnapshotReason = (typeof SNAPSHOT_REASONS)[number];

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

export interface SnapshotEntry {
  id: string;
  createdAt: number;
  reason: SnapshotReason;
  status: 'ok' | 'failed';
  bytes: number;
  records: number;
  files: number;
  error?: string;
}

export interface FailureRecord {
  id: string;
  createdAt: number;
  reason: SnapshotReason;
  error: string;
}

type RawLevel = ClassicLevel<Buffer, Buffer>;
/** The live database as the storage opens it (buffer keys, utf8 values); only its iterator is used. */
export interface SourceLevel {
  iterator(options: { keyEncoding: 'buffer'; valueEncoding: 'buffer' }): { nextv(size: number): Promise<Array<[Buffer, Buffer]>>; close(): Promise<void> };
}

export class SnapshotAborted extends Error {
  constructor() {
    super('the snapshot was stopped (server shutting down)');
    this.name = 'SnapshotAborted';
  }
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

// ------------------------------------------------------------------ digest and counts

const SEP = 0x01;

/** Counts what one key/value pair contributes (documents per collection) and feeds the digest. */
class Tally {
  private readonly hash = createHash('sha256');
  keys = 0;
  readonly collections: Record<string, number> = {};

  add(key: Buffer, value: Buffer): void {
    this.keys++;
    const len = Buffer.allocUnsafe(8);
    len.writeUInt32BE(key.length, 0);
    len.writeUInt32BE(value.length, 4);
    this.hash.update(len);
    this.hash.update(key);
    this.hash.update(value);
    // RxDB keys: UTF-16BE "r␁<db>␁<collection>␁<version>␁d␁<id>" (server/db/README.md).
    if (key.length > 2 && key[0] === 0 && key[1] === 0x72) {
      const parts = Buffer.from(key).swap16().toString('utf16le').split(String.fromCharCode(SEP));
      if (parts[4] === 'd') {
        const collection = parts[2]!;
        let deleted = false;
        try {
          deleted = (JSON.parse(value.toString('utf8')) as { _deleted?: boolean })._deleted === true;
        } catch {
          deleted = false;
        }
        if (!deleted) this.collections[collection] = (this.collections[collection] ?? 0) + 1;
        else this.collections[collection] ??= 0;
      }
    }
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

async function openRaw(location: string, createIfMissing: boolean): Promise<RawLevel> {
  const level = new ClassicLevel<Buffer, Buffer>(location, {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
    createIfMissing,
    errorIfExists: createIfMissing,
    writeBufferSize: 16 * 1024 * 1024,
  } as Record<string, unknown>);
  await level.open();
  return level;
}

/**
 * Copies every key and value of `source` through ONE iterator (LevelDB reads it from an implicit
 * snapshot taken when the iterator is created, so the copy is one point in time even while writes
 * continue) into a new LevelDB at `target`.
 */
export async function copyLevel(
  source: SourceLevel,
  target: string,
  signal?: AbortSignal,
  onPinned?: () => void,
): Promise<{ keys: number; digest: string; collections: Record<string, number> }> {
  const tally = new Tally();
  const out = await openRaw(target, true);
  const iterator = source.iterator({ keyEncoding: 'buffer', valueEncoding: 'buffer' });
  // The iterator's implicit snapshot is taken now: later writes are not in the copy.
  onPinned?.();
  try {
    for (;;) {
      if (signal?.aborted) throw new SnapshotAborted();
      const entries = await iterator.nextv(1000);
      if (entries.length === 0) break;
      const batch = out.batch();
      for (const [key, value] of entries) {
        tally.add(key, value);
        batch.put(key, value);
      }
      await batch.write({ sync: false } as Record<string, unknown>);
    }
  } finally {
    await iterator.close().catch(() => undefined);
    await out.close();
  }
  return { keys: tally.keys, digest: tally.digest(), collections: tally.collections };
}

/** Reopens a LevelDB copy and reads every key and value back: its count and digest. */
export async function readBack(location: string): Promise<{ keys: number; digest: string; collections: Record<string, number> }> {
  const tally = new Tally();
  const level = await openRaw(location, false);
  try {
    const iterator = level.iterator({ keyEncoding: 'buffer', valueEncoding: 'buffer' });
    try {
      for (;;) {
        const entries = await iterator.nextv(1000);
        if (entries.length === 0) break;
        for (const [key, value] of entries) tally.add(key, value);
      }
    } finally {
      await iterator.close();
    }
  } finally {
    await level.close();
  }
  return { keys: tally.keys, digest: tally.digest(), collections: tally.collections };
}

// ------------------------------------------------------------------ files on disk

function fsyncPath(target: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(target, 'r');
    fsyncSync(fd);
  } catch {
    // Some file systems cannot fsync a directory; the renames are still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** fsyncs every file under `dir` and the folders themselves. */
function fsyncTree(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) fsyncTree(full);
    else if (entry.isFile()) fsyncPath(full);
  }
  fsyncPath(dir);
}

async function treeBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await treeBytes(full);
    else if (entry.isFile()) total += (await stat(full)).size;
  }
  return total;
}

const FILE_NAME = /^[0-9A-Za-z]{1,40}$/;

/** Hard-links (or copies) every file of `from` that `to` does not have yet. Returns how many were added. */
async function linkFiles(from: string, to: string): Promise<number> {
  if (!existsSync(from)) return 0;
  await mkdir(to, { recursive: true, mode: 0o700 });
  const have = new Set(await readdir(to));
  let added = 0;
  for (const name of await readdir(from)) {
    if (!FILE_NAME.test(name) || have.has(name)) continue;
    const source = path.join(from, name);
    try {
      if (!(await lstat(source)).isFile()) continue;
    } catch {
      continue; // deleted meanwhile
    }
    try {
      await link(source, path.join(to, name));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue;
      if (code === 'EEXIST') continue;
      // Another file system, or links not allowed: a copy.
      await copyFile(source, path.join(to, name));
    }
    added++;
  }
  return added;
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
    const manifest = JSON.parse(readFileSync(path.join(snapshotsDir(dataDir), id, 'snapshot.json'), 'utf8')) as SnapshotManifest;
    if (manifest.format !== SNAPSHOT_FORMAT || manifest.id !== id || !existsSync(path.join(snapshotsDir(dataDir), id, 'db'))) return null;
    return manifest;
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

// ------------------------------------------------------------------ rotation

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
 * Which snapshots to keep: the `keepLast` newest, plus the newest of each of the last
 * `keepDaily` days, `keepWeekly` ISO weeks and `keepMonthly` months that have a snapshot (UTC
 * calendar). Everything else goes. Failure notes are kept for the 5 newest.
 */
export function planRotation(list: readonly SnapshotEntry[], policy: RotationPolicy): { keep: string[]; remove: string[] } {
  const ok = list.filter((s) => s.status === 'ok').sort((a, b) => b.createdAt - a.createdAt);
  const keep = new Set<string>(ok.slice(0, policy.keepLast).map((s) => s.id));
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

// ------------------------------------------------------------------ restoring

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
    throw new Error(`snapshot ${manifest.id} is damaged: it holds ${check.keys} keys (${manifest.keys} when written)${check.digest !== manifest.digest ? ' and its digest differs' : ''}`);
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
