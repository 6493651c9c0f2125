import { DomainError } from '../lib/errors';
import { backupErrors } from './errors';
import { optionalService, type AppContext } from '../app-context';
import type { Settings } from '../config/settings';
import { describeError } from '../lib/logger';
import {
  listSnapshots,
  newSnapshotId,
  readManifest,
  recordFailure,
  removeLeftovers,
  snapshotsDir,
  writeSnapshot,
  type SnapshotEntry,
  type SnapshotManifest,
  type SnapshotReason,
} from './snapshots';
import { SnapshotAborted } from './level-copy';
import { planRotation, removeSnapshot } from './rotation';
import { finishRestore, prepareRestore, rollbackRestore, swapInRestore } from './restore';

const DAY = 24 * 60 * 60 * 1000;
/** How often the running server checks whether the daily snapshot is due. */
const CHECK_EVERY_MS = 60 * 60 * 1000;
/** An import in several requests (the UI sends big files in parts) shares one snapshot taken before its first part. */
const BEFORE_CHANGE_REUSE_MS = 2 * 60 * 1000;

export function rotationPolicy(settings: Settings) {
  const b = settings.backup;
  return { keepLast: b.keepLast, keepDaily: b.keepDaily, keepWeekly: b.keepWeekly, keepMonthly: b.keepMonthly };
}

/**
 * Automatic snapshots and restore (docs/data-safety.md, "Snapshots and restore"). One instance
 * per server; it survives the domain restart of a restore (the domain reuses it), so its queue
 * keeps snapshots and restores strictly one at a time.
 */
export class BackupService {
  private tail: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private current: { abort: AbortController; done: Promise<unknown> } | null = null;
  private lastBefore: { reason: SnapshotReason; at: number; id: string; pending?: boolean } | null = null;
  private stopped = false;

  constructor(private readonly app: AppContext) {}

  /** `stopped` read anew after an await (stop() may have run meanwhile). */
  private hasStopped(): boolean {
    return this.stopped;
  }

  get dir(): string {
    return snapshotsDir(this.app.dataDir);
  }

  async start(): Promise<void> {
    this.stopped = false;
    const removed = await removeLeftovers(this.app.dataDir);
    if (removed.length > 0) this.app.log.warn('backup: removed an interrupted snapshot', { folders: removed });
    await finishRestore(this.app.dataDir);
    if (this.app.settings.get().backup.automatic) {
      this.timer = setInterval(() => void this.tick(), CHECK_EVERY_MS);
      this.timer.unref();
      // In the background: starting the server never waits for a snapshot.
      setImmediate(() => void this.tick());
    }
  }

  /** Stops the timer and any snapshot being written (its temp folder is removed). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const running = this.current;
    if (running) {
      running.abort.abort();
      await running.done.catch(() => undefined);
    }
  }

  list(): SnapshotEntry[] {
    return listSnapshots(this.app.dataDir);
  }

  /** Takes the daily snapshot when the newest complete one is 24 h old or more (and there is data to keep). */
  async tick(): Promise<SnapshotManifest | null> {
    if (this.stopped || !this.app.settings.get().backup.automatic) return null;
    try {
      const newest = this.list().find((s) => s.status === 'ok');
      if (newest && this.app.clock.now() - newest.createdAt < DAY) return null;
      const users = optionalService(this.app, 'users'); // the users domain may not be loaded
      if (!users || (await users.count()) === 0 || this.hasStopped()) return null;
      return await this.createSnapshot('daily');
    } catch (error) {
      // A failed snapshot is logged and recorded by createSnapshot; anything else (shutdown) here.
      if (!(error instanceof DomainError)) this.app.log.warn('backup: the daily check failed', describeError(error));
      return null;
    }
  }

  /** A snapshot now (then rotation). Failures are logged, recorded for listSnapshots, and thrown. */
  createSnapshot(reason: SnapshotReason): Promise<SnapshotManifest> {
    return this.exclusive(() => this.snapshotNow(reason, []));
  }

  /**
   * Call before an operation that rewrites data (an import, a JSON restore): takes a snapshot, or
   * reuses the one taken for the same reason in the last two minutes (one import sent in parts).
   *
   * It resolves as soon as the snapshot's point in time is fixed (LevelDB's iterator snapshot, after
   * the first pass over the files): what the caller writes next is not in it, while copying and
   * verifying go on in the background — an import of a large ledger does not wait for a copy of
   * the whole database. A snapshot that fails before that point refuses the caller (503); one that
   * fails later is logged and listed as failed like any other.
   */
  async snapshotBefore(reason: 'import' | 'restore'): Promise<{ id: string }> {
    const last = this.lastBefore;
    if (last && last.reason === reason && this.app.clock.now() - last.at < BEFORE_CHANGE_REUSE_MS && (last.pending || readManifest(this.app.dataDir, last.id)))
      return { id: last.id };
    let pinned!: (id: string) => void;
    const pinnedId = new Promise<string>((resolve) => (pinned = resolve));
    const done = this.exclusive(async () => {
      const manifest = await this.snapshotNow(reason, [], (id) => {
        this.lastBefore = { reason, at: this.app.clock.now(), id, pending: true };
        pinned(id);
      });
      this.lastBefore = { reason, at: manifest.createdAt, id: manifest.id };
      return manifest;
    });
    done.catch(() => {
      // Logged and recorded by snapshotNow; a pending reuse must not point at it any more.
      if (this.lastBefore?.pending) this.lastBefore = null;
    });
    const finished = done.then((m) => m.id);
    finished.catch(() => undefined); // a failure after the race is handled above, never unhandled
    const id = await Promise.race([pinnedId, finished]);
    return { id };
  }

  /**
   * Puts the whole database (and the file bytes it refers to) back as it was in snapshot `id`,
   * after a snapshot of the current state. The server stays up; requests meanwhile get 503.
   */
  restoreSnapshot(id: string, options: { ownRequests: number }): Promise<{ restored: string; snapshotBefore: string; records: number }> {
    return this.exclusive(async () => {
      const manifest = readManifest(this.app.dataDir, id);
      if (!manifest) throw backupErrors.snapshotNotFound(id).with({ id });
      const replaceDatabase = this.app.replaceDatabase;
      if (!replaceDatabase) throw backupErrors.cannotSwapDatabase();
      const before = await this.snapshotNow('restore', [id]);
      try {
        await prepareRestore(this.app.dataDir, manifest);
      } catch (error) {
        this.app.log.error('backup: restore refused', { id, ...describeError(error) });
        throw backupErrors.snapshotDamaged(id, (error as Error).message).with({ id });
      }
      await replaceDatabase(() => swapInRestore(this.app.dataDir, manifest), { ownRequests: options.ownRequests, rollback: () => rollbackRestore(this.app.dataDir) });
      await finishRestore(this.app.dataDir);
      this.lastBefore = null;
      this.app.log.info('backup: restored a snapshot', { id, snapshotBefore: before.id, records: manifest.records });
      return { restored: id, snapshotBefore: before.id, records: manifest.records };
    });
  }

  // ------------------------------------------------------------------ internals

  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => undefined);
    return result;
  }

  private async snapshotNow(reason: SnapshotReason, protect: string[], onPinned?: (id: string) => void): Promise<SnapshotManifest> {
    if (this.stopped) throw backupErrors.serverStopping();
    const now = this.app.clock.now();
    const id = newSnapshotId(now);
    const abort = new AbortController();
    const work = writeSnapshot({
      dataDir: this.app.dataDir,
      source: this.app.db.health.level,
      now,
      reason,
      id,
      signal: abort.signal,
      onPinned: onPinned && (() => onPinned(id)),
    });
    this.current = { abort, done: work };
    let manifest: SnapshotManifest;
    try {
      manifest = await work;
    } catch (error) {
      if (error instanceof SnapshotAborted) {
        this.app.log.info('backup: snapshot stopped by shutdown', { id, reason });
        throw backupErrors.serverStopping();
      }
      this.app.log.error('backup: snapshot failed', { id, reason, ...describeError(error) });
      recordFailure(this.app.dataDir, { id, createdAt: now, reason, error: (error as Partial<Error>).message ?? String(error) });
      // The person's reminders (server/notify/) tell of a failed automatic snapshot.
      if (reason === 'daily') void optionalService(this.app, 'notify')?.backupFailed({ id, at: now });
      throw backupErrors.snapshotFailed((error as Error).message).with({ id });
    } finally {
      this.current = null;
    }
    this.app.log.info('backup: snapshot written', { id, reason, keys: manifest.keys, records: manifest.records, bytes: manifest.bytes, ms: manifest.tookMs });
    await this.rotate([...protect, manifest.id]);
    return manifest;
  }

  /** Deletes a snapshot (one taken by hand is kept until this); 404 for an unknown id. */
  deleteSnapshot(id: string): Promise<{ deleted: string }> {
    return this.exclusive(async () => {
      const entry = this.list().find((s) => s.id === id && s.status === 'ok');
      if (!entry) throw backupErrors.snapshotNotFound(id);
      await removeSnapshot(this.app.dataDir, entry);
      this.app.log.info('backup: snapshot deleted', { id });
      return { deleted: id };
    });
  }

  /** Deletes the snapshots the rotation policy does not keep (never those in `protect`). */
  async rotate(protect: string[] = []): Promise<string[]> {
    const list = this.list();
    const { remove } = planRotation(list, rotationPolicy(this.app.settings.get()));
    const removed: string[] = [];
    for (const entry of list) {
      if (!remove.includes(entry.id) || protect.includes(entry.id)) continue;
      try {
        await removeSnapshot(this.app.dataDir, entry);
        removed.push(entry.id);
      } catch (error) {
        this.app.log.warn('backup: could not remove an old snapshot', { id: entry.id, ...describeError(error) });
      }
    }
    if (removed.length > 0) this.app.log.info('backup: rotation removed snapshots', { ids: removed });
    return removed;
  }
}
