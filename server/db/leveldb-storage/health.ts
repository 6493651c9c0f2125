import { closeSync, fsyncSync, openSync, readdirSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import path from 'node:path';
import type { ClassicLevel } from 'classic-level';

/**
 * Recovery from disk faults (disk full, file system turned read-only, I/O errors).
 *
 * LevelDB never acknowledges a write it could not log, but after a failed write its handle is
 * not fit for more writes: a failed fsync leaves a sticky "background error" (every later write
 * fails until the database is reopened), and a failed append can leave a partial record in the
 * log, after which records appended to the same log may be dropped when it is replayed. So after
 * any I/O error PennyPost stops writing through that handle, and:
 *
 * - writes fail at once with `StorageUnavailableError` (mapped to a 503 envelope) during a short
 *   cool-down, without touching LevelDB;
 * - the next write after the cool-down checks that the disk takes writes again (a probe file is
 *   written and fsynced in the LevelDB directory, and the free space covers the log that the
 *   reopen will turn into a table); if so it reopens the shared ClassicLevel once (close + open of
 *   the same instance; a single flight for all callers) and then writes;
 * - reads keep working on the open handle the whole time: only a reopen interrupts them, and
 *   they wait for it (operations in flight finish before the close; new ones wait for the open).
 *
 * Nothing acknowledged is lost: the reopen replays the old log up to its last complete record
 * (everything acknowledged), drops a torn tail (never acknowledged), and continues in a new log.
 */

export class StorageUnavailableError extends Error {
  readonly code = 'STORAGE_UNAVAILABLE';
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'StorageUnavailableError';
  }
}

const IO_CODES = new Set(['LEVEL_IO_ERROR', 'ENOSPC', 'EROFS', 'EIO', 'EDQUOT', 'STORAGE_UNAVAILABLE']);
const IO_TEXT = /IO error|No space left|Read-only file system|Input\/output error|Disk quota exceeded/i;

/** True for errors that say the disk (not the request) failed: full, read-only, I/O error. */
export function isIoError(error: unknown): boolean {
  for (let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && IO_CODES.has(e.code)) return true;
    if (typeof e.message === 'string' && IO_TEXT.test(e.message)) return true;
  }
  return false;
}

export interface HealthOptions {
  /** Minimum time between a failure and the next reopen attempt (default 1,000 ms). */
  coolDownMs?: number;
  /** Throws when the disk cannot take writes yet (default: probe file + free space check). */
  probe?: (location: string) => Promise<void>;
  now?: () => number;
  /** Called on failures and recoveries (the database wires the app's logger here). */
  onEvent?: (event: 'failed' | 'recovered' | 'reopen-failed', detail: { error?: string; downMs?: number }) => void;
}

const PROBE_BYTES = 64 * 1024;
/** Room a reopen needs besides the old logs: a new MANIFEST, a new log, LOCK/LOG files. */
const REOPEN_MARGIN = 4 * 1024 * 1024;

/** Throws unless `location` takes a fsynced write and has room for the reopen. */
export async function defaultProbe(location: string): Promise<void> {
  const file = path.join(location, `.pennypost-probe-${process.pid}`);
  const fd = openSync(file, 'w', 0o600);
  try {
    writeSync(fd, Buffer.alloc(PROBE_BYTES, 0x2a));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
    try {
      unlinkSync(file);
    } catch {
      // nothing to clean up
    }
  }
  let logBytes = 0;
  for (const name of readdirSync(location)) {
    if (name.endsWith('.log')) logBytes += statSync(path.join(location, name)).size;
  }
  const fs = await statfs(location);
  const free = fs.bavail * fs.bsize;
  if (free < logBytes + REOPEN_MARGIN) {
    throw Object.assign(new Error(`No space left on device: ${free} bytes free, a reopen needs ${logBytes + REOPEN_MARGIN}`), { code: 'ENOSPC' });
  }
}

/** The LevelDB handle of the storage (leveldb-storage/instance.ts `LevelDb`). */
type Level = ClassicLevel<Buffer>;

export class LevelHealth {
  private failure: { error: unknown; at: number; since: number } | null = null;
  private reopening: Promise<void> | null = null;
  private inflight = 0;
  private idle: (() => void) | null = null;
  private readonly hooks: Array<() => Promise<void>> = [];
  private readonly coolDownMs: number;
  private readonly probe: (location: string) => Promise<void>;
  private readonly now: () => number;
  onEvent: HealthOptions['onEvent'];
  /** Completed reopens (tests and diagnostics). */
  reopens = 0;

  constructor(
    readonly level: Level,
    options: HealthOptions = {},
  ) {
    this.coolDownMs = options.coolDownMs ?? 1000;
    this.probe = options.probe ?? defaultProbe;
    this.now = options.now ?? Date.now;
    this.onEvent = options.onEvent;
  }

  /** True while writes are refused (after an I/O error, until a reopen succeeded). */
  get degraded(): boolean {
    return this.failure !== null;
  }

  /** Runs after every successful reopen, before waiting operations resume (e.g. reopen sublevels). */
  onReopen(hook: () => Promise<void>): void {
    this.hooks.push(hook);
  }

  /** A read: waits while a reopen runs; never triggers one unless the database is closed by a failed reopen. */
  async read<T>(fn: () => Promise<T>): Promise<T> {
    if (this.reopening) await this.reopening;
    if (this.failure && this.level.status === 'closed') await this.heal();
    this.inflight++;
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  /** A write: refused while degraded (healing first once the cool-down is over); an I/O error degrades. */
  async write<T>(fn: () => Promise<T>): Promise<T> {
    if (this.reopening) await this.reopening;
    if (this.failure) await this.heal();
    this.inflight++;
    try {
      return await fn();
    } catch (error) {
      if (isIoError(error)) this.fail(error);
      throw error;
    } finally {
      this.release();
    }
  }

  /** Marks the handle unfit for writes. */
  fail(error: unknown): void {
    const at = this.now();
    if (!this.failure) {
      this.failure = { error, at, since: at };
      this.onEvent?.('failed', { error: (error as Partial<Error> | null | undefined)?.message });
    } else {
      this.failure = { ...this.failure, error, at };
    }
  }

  private release(): void {
    this.inflight--;
    if (this.inflight === 0 && this.idle) {
      const resolve = this.idle;
      this.idle = null;
      resolve();
    }
  }

  private unavailable(): StorageUnavailableError {
    const cause = this.failure?.error;
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a thrown non-Error is shown as String() shows it (this pass changes no message)
    const detail = cause instanceof Error ? cause.message : String(cause ?? 'unknown error');
    return new StorageUnavailableError(`The database cannot write right now (${detail}).`, cause);
  }

  /** Single flight: probe, close, open, hooks. Throws StorageUnavailableError when not (yet) possible. */
  private async heal(): Promise<void> {
    if (!this.failure) return;
    if (this.reopening) {
      await this.reopening;
      if (this.degraded) throw this.unavailable(); // read anew: the reopen may have healed it
      return;
    }
    if (this.now() - this.failure.at < this.coolDownMs) throw this.unavailable();
    // Constant while the failure lasts (fail() and a failed reopen keep it); only this run clears the failure.
    const { since } = this.failure;
    const run = (async () => {
      if (this.inflight > 0) await new Promise<void>((resolve) => (this.idle = resolve));
      try {
        await this.probe(this.level.location);
      } catch (error) {
        this.failure = { error, at: this.now(), since };
        return;
      }
      try {
        if (this.level.status === 'open') await this.level.close();
        await this.level.open();
        for (const hook of this.hooks) await hook();
      } catch (error) {
        this.failure = { error, at: this.now(), since };
        this.onEvent?.('reopen-failed', { error: (error as Partial<Error> | null | undefined)?.message });
        return;
      }
      const downMs = this.now() - since;
      this.failure = null;
      this.reopens++;
      this.onEvent?.('recovered', { downMs });
    })();
    this.reopening = run;
    try {
      await run;
    } finally {
      this.reopening = null;
    }
    if (this.degraded) throw this.unavailable(); // read anew after the run
  }
}

const registry = new WeakMap<Level, LevelHealth>();

/** The one LevelHealth of a ClassicLevel instance (shared by the RxDB storage and the local store). */
export function healthOf(level: Level, options?: HealthOptions): LevelHealth {
  let health = registry.get(level);
  if (!health) registry.set(level, (health = new LevelHealth(level, options)));
  return health;
}
