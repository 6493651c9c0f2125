/**
 * Real disk faults for tests (root with CAP_SYS_ADMIN only): a small tmpfs that can be filled
 * (ENOSPC), and an ext4 image on a loop device that can be forced read-only (EROFS) while files
 * are open for writing. Linux refuses `mount -o remount,ro` while any file is open for writing
 * (LevelDB always has its log open), so "becomes read-only" is produced the way it happens to
 * real disks: ext4 aborts (`-o remount,abort`, as after an I/O error with errors=remount-ro), and
 * the file system comes back with a fresh mount after e2fsck.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function run(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
}

function mounted(dir: string): boolean {
  return run('cat', ['/proc/mounts'])
    .split('\n')
    .some((line) => line.split(' ')[1] === dir);
}

/** Null when this process may mount file systems, else why not (to put in the skip message). */
export function mountUnavailable(): string | null {
  if (process.platform !== 'linux') return `disk-fault tests need Linux (this is ${process.platform})`;
  if (typeof process.getuid === 'function' && process.getuid() !== 0) return 'disk-fault tests need root with CAP_SYS_ADMIN (mount)';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pennypost-mountcheck-'));
  try {
    run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
    run('umount', [dir]);
    return null;
  } catch (error) {
    return `mount is not permitted here (${
      String((error as Partial<Error>).message)
        .split('\n')
        .at(0) ?? ''
    }); disk-fault tests need root with CAP_SYS_ADMIN`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Null when ext4 images on loop devices can be made and mounted, else why not. */
export function loopUnavailable(): string | null {
  const mountProblem = mountUnavailable();
  if (mountProblem) return mountProblem;
  try {
    run('which', ['losetup']);
    run('which', ['mkfs.ext4']);
    run('which', ['e2fsck']);
  } catch {
    return 'read-only tests need losetup, mkfs.ext4 and e2fsck';
  }
  return null;
}

export function unmount(dir: string): void {
  for (let i = 0; i < 20 && mounted(dir); i++) {
    try {
      run('umount', [dir]);
    } catch {
      if (i >= 10) run('umount', ['-l', dir]);
      else execFileSync('sleep', ['0.2']);
    }
  }
}

/** A tmpfs of `sizeMb` at a new directory; `fill()` leaves it with 0 bytes free. */
export function tmpfsDisk(sizeMb: number) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pennypost-tmpfs-'));
  run('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0700`, 'tmpfs', dir]);
  const filler = path.join(dir, 'filler.bin');
  return {
    dir,
    /** Writes a filler file until the disk is full. */
    fill(): void {
      const fd = openSync(filler, 'a');
      try {
        for (const size of [1024 * 1024, 64 * 1024, 4096, 512, 1]) {
          const chunk = Buffer.alloc(size, 0x2e);
          try {
            for (;;) writeSync(fd, chunk);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    /** Space returns. */
    free(): void {
      rmSync(filler, { force: true });
    },
    dispose(): void {
      unmount(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** An ext4 file system on a loop device mounted at a new directory. */
export function ext4Disk(sizeMb: number) {
  const base = mkdtempSync(path.join(os.tmpdir(), 'pennypost-ext4-'));
  const dir = path.join(base, 'mnt');
  mkdirSync(dir);
  let image = path.join(base, 'disk-0.img');
  run('truncate', ['-s', `${sizeMb}M`, image]);
  run('mkfs.ext4', ['-q', '-F', image]);
  const loops: string[] = [];
  const attachAndMount = () => {
    const loop = run('losetup', ['-f', '--show', image]).trim();
    loops.push(loop);
    run('mount', ['-o', 'errors=remount-ro', loop, dir]);
  };
  const detachAll = () => {
    for (const loop of loops.splice(0)) {
      try {
        run('losetup', ['-d', loop]);
      } catch {
        // still in use by a lazily unmounted file system: the kernel frees it later
      }
    }
  };
  try {
    attachAndMount();
  } catch (error) {
    detachAll();
    rmSync(base, { recursive: true, force: true });
    throw error;
  }
  return {
    dir,
    /** The file system turns read-only under the open files (ext4 abort): writes fail with EROFS. */
    breakReadOnly(): void {
      run('mount', ['-o', 'remount,abort', dir]);
    },
    /**
     * The disk is back: the aborted file system is detached lazily (the server still holds its
     * files until it reopens them), and a checked copy of its image is mounted read-write at the
     * same path. A copy, because the kernel would hand the same aborted superblock back for the
     * same block device while any of its files is open.
     */
    repair(): void {
      run('umount', ['-l', dir]);
      const next = path.join(base, `disk-${loops.length}.img`);
      run('cp', ['--sparse=always', image, next]);
      image = next;
      try {
        run('e2fsck', ['-fy', image]);
      } catch {
        // exit code 1: errors were corrected (a replayed journal)
      }
      attachAndMount();
    },
    dispose(): void {
      unmount(dir);
      detachAll();
      rmSync(base, { recursive: true, force: true });
    },
  };
}
