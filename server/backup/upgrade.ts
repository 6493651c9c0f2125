import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../lib/logger';
import { newSnapshotId, writeSnapshot, type SnapshotManifest } from './snapshots';
import type { SourceLevel } from './level-copy';

/**
 * The snapshot before an upgrade. A new PennyPost version may change how the data is kept (a schema
 * migration rewrites documents when the collections open), so when a data dir is opened by another
 * version than the one that last ran on it, a snapshot is taken first: after LevelDB opened, before
 * RxDB's collections (and their migrations) touch anything. `version.json` in the data dir records
 * the version that last started successfully; a data dir without it that already holds data was
 * last run by a version older than this mechanism, which counts as an upgrade too.
 */
export const VERSION_FILE = 'version.json';

export function lastRunVersion(dataDir: string): string | null {
  try {
    const version = (JSON.parse(readFileSync(path.join(dataDir, VERSION_FILE), 'utf8')) as { version?: unknown }).version;
    return typeof version === 'string' ? version : null;
  } catch {
    return null;
  }
}

/** Records the version that started on this data dir (written whole, then renamed). */
export function recordRunVersion(dataDir: string, version: string): void {
  const file = path.join(dataDir, VERSION_FILE);
  writeFileSync(`${file}.tmp`, JSON.stringify({ version }) + '\n', { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

async function holdsData(level: SourceLevel): Promise<boolean> {
  const iterator = level.iterator({ keyEncoding: 'buffer', valueEncoding: 'buffer' });
  try {
    return (await iterator.nextv(1)).length > 0;
  } finally {
    await iterator.close();
  }
}

/**
 * Takes the snapshot when `version` differs from the last one run on `dataDir` and the database
 * holds data. Returns it, or null when none was needed. A failure stops the start: upgrading data
 * without the copy that could undo it is not done.
 */
export async function snapshotBeforeUpgrade(options: { dataDir: string; level: SourceLevel; version: string; now: number; log: Logger }): Promise<SnapshotManifest | null> {
  const previous = lastRunVersion(options.dataDir);
  if (previous === options.version || !(await holdsData(options.level))) return null;
  const manifest = await writeSnapshot({ dataDir: options.dataDir, source: options.level, now: options.now, reason: 'upgrade', id: newSnapshotId(options.now) });
  options.log.info('backup: snapshot before an upgrade', { from: previous ?? 'an earlier version', to: options.version, id: manifest.id, records: manifest.records });
  return manifest;
}
