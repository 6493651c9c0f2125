/**
 * Ends the server with the program that started it. npm (`npm start`, `npm run serve`) and the
 * desktop launcher start PennyPost as their child; when that parent dies without passing a signal
 * on (SIGKILL, a crash, a closed terminal), this process is adopted by another (init or a
 * subreaper) and its parent id changes. Then `onOrphaned` runs once: the same clean shutdown as
 * SIGTERM, so the port and the data dir are released and nothing is left running.
 */
export interface ParentWatch {
  stop(): void;
}

export interface ParentWatchOptions {
  /** How often to look (ms). */
  intervalMs?: number;
  /** The current parent process id (tests pass their own). */
  parentPid?: () => number;
}

export function watchParent(onOrphaned: () => void, options: ParentWatchOptions = {}): ParentWatch {
  const parentPid = options.parentPid ?? (() => process.ppid);
  const original = parentPid();
  const timer = setInterval(() => {
    if (parentPid() === original) return;
    clearInterval(timer);
    onOrphaned();
  }, options.intervalMs ?? 500);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/**
 * Whether to watch: when started by npm (it sets npm_lifecycle_event) or by a launcher that asks
 * for it. A server started directly from a shell, by systemd or with nohup is left alone.
 */
export function shouldWatchParent(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.PENNYPOST_EXIT_WITH_PARENT === '0') return false;
  return Boolean(env.npm_lifecycle_event) || env.PENNYPOST_EXIT_WITH_PARENT === '1';
}
