import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../lib/logger';

/**
 * The data dir holds password hashes, session tokens, app keys and every ledger: only the account
 * that runs PennyPost may read it. At every start this makes the data dir and every folder in it
 * 0700 and every file 0600, whatever modes they had (a folder made by hand or by an older version,
 * a restored backup, LevelDB's own files, which it creates with the process umask, 0644 usually).
 * It also sets the process umask to 077, so what PennyPost creates afterwards is private too.
 * Symbolic links inside are left alone (never followed); the data dir itself may be one.
 * On Windows modes mean little (ACLs decide) and nothing is changed.
 *
 * Returns the paths that were tightened; when there are any, logs them once.
 */
export function enforceDataDirPrivacy(dataDir: string, log?: Pick<Logger, 'warn'>): string[] {
  if (process.platform === 'win32') return [];
  // Files created from now on (LevelDB's logs and tables, settings, uploads) are private from the
  // start: LevelDB creates its files with the umask's defaults (0644). Process-wide on purpose.
  try {
    process.umask(0o077);
  } catch {
    // worker threads cannot change the umask; the walk below still tightens what exists
  }
  const root = path.resolve(dataDir);
  if (!existsSync(root)) mkdirSync(root, { recursive: true, mode: 0o700 });
  const tightened: string[] = [];
  const tighten = (target: string, isDir: boolean, mode: number) => {
    const want = isDir ? 0o700 : 0o600;
    // Exactly 0700 / 0600: group and others lose every bit; the owner keeps (or gets back) read and write.
    if ((mode & 0o777) !== want) {
      chmodSync(target, want);
      tightened.push(target);
    }
  };
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) continue;
      let stat;
      try {
        stat = lstatSync(full);
      } catch {
        continue; // removed meanwhile
      }
      if (stat.isDirectory()) {
        tighten(full, true, stat.mode);
        walk(full);
      } else if (stat.isFile()) {
        tighten(full, false, stat.mode);
      }
    }
  };
  tighten(root, true, statSync(root).mode);
  walk(root);
  if (tightened.length > 0) {
    const shown = tightened.slice(0, 20).map((p) => path.relative(root, p) || '.');
    log?.warn('data dir: made private (folders 0700, files 0600); others could read these before', {
      dataDir: root,
      count: tightened.length,
      paths: tightened.length > shown.length ? [...shown, `… and ${tightened.length - shown.length} more`] : shown,
    });
  }
  return tightened;
}
