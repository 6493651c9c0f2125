import { existsSync } from 'node:fs';
import { ClassicLevel } from 'classic-level';
import { SettingsStore } from '../config/settings';
import { levelDirOf } from '../db/database';
import { rotationPolicy } from '../backup/service';
import { listSnapshots } from '../backup/snapshots';
import { planRotation, removeSnapshot } from '../backup/rotation';

/** The data dir is held by a running server (exit code 2). */
export class InUse extends Error {}

/**
 * Opens the live LevelDB of a stopped data dir for reading and for the snapshot copy. Never
 * creates one: a data dir without a database is an error, not an empty ledger.
 */
export async function openLiveLevel(dataDir: string): Promise<ClassicLevel<Buffer, Buffer>> {
  const location = levelDirOf(dataDir);
  if (!existsSync(location)) throw new Error(`${dataDir} has no database (no db/ folder).`);
  const level = new ClassicLevel<Buffer, Buffer>(location, { keyEncoding: 'buffer', valueEncoding: 'buffer', createIfMissing: false });
  try {
    await level.open();
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    if (cause?.code === 'LEVEL_LOCKED') throw new InUse(`The data directory ${dataDir} is in use by a running PennyPost. Stop it first (or use Settings → Backups in the app).`);
    throw new Error(`the database in ${location} does not open: ${(cause as Error | undefined)?.message ?? (error as Error).message}`, { cause: error });
  }
  return level;
}

/** Applies the rotation of the data dir's settings; returns the removed ids. */
export async function rotate(dataDir: string, protect: string[]): Promise<string[]> {
  const list = listSnapshots(dataDir);
  const { remove } = planRotation(list, rotationPolicy(new SettingsStore(dataDir).get()));
  const removed: string[] = [];
  for (const entry of list) {
    if (!remove.includes(entry.id) || protect.includes(entry.id)) continue;
    await removeSnapshot(dataDir, entry);
    removed.push(entry.id);
  }
  return removed;
}

export function describe(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}
