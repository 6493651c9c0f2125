import { closeSync, existsSync, fsyncSync, openSync, readdirSync } from 'node:fs';
import { copyFile, link, lstat, mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';

/** Files of snapshots on disk: fsync, sizes, and file bytes hard-linked (or copied) between folders. */

export function fsyncPath(target: string): void {
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
export function fsyncTree(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) fsyncTree(full);
    else if (entry.isFile()) fsyncPath(full);
  }
  fsyncPath(dir);
}

export async function treeBytes(dir: string): Promise<number> {
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
export async function linkFiles(from: string, to: string): Promise<number> {
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
