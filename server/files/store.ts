import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';

/** File ids are newId() output: letters and digits only, so a path can never escape the folder. */
export const FILE_ID_PATTERN = /^[0-9A-Za-z]{1,40}$/;

export class UploadTooLong extends Error {
  constructor(readonly received: number) {
    super('upload longer than allowed');
  }
}

export class UploadAborted extends Error {
  constructor() {
    super('the client stopped sending before the end of the body');
  }
}

export interface ReceivedBytes {
  tmpPath: string;
  size: number;
  sha256: string;
}

/**
 * The bytes of files: `<dataDir>/files/<fileId>`, one file each, no extension. Uploads are
 * written to `<dataDir>/files/.tmp/` first and renamed into place only after every check passed,
 * so a refused or interrupted upload never leaves a file behind.
 */
export class ByteStore {
  readonly root: string;
  readonly tmpDir: string;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, 'files');
    this.tmpDir = path.join(this.root, '.tmp');
  }

  async init(): Promise<void> {
    mkdirSync(this.root, { recursive: true, mode: 0o700 });
    // Leftovers of uploads interrupted by a crash.
    await rm(this.tmpDir, { recursive: true, force: true });
    mkdirSync(this.tmpDir, { recursive: true, mode: 0o700 });
  }

  pathOf(fileId: string): string {
    if (!FILE_ID_PATTERN.test(fileId)) throw new Error('invalid file id');
    return path.join(this.root, fileId);
  }

  /** Size on disk, or null when the bytes are missing. */
  async sizeOf(fileId: string): Promise<number | null> {
    try {
      const info = await stat(this.pathOf(fileId));
      return info.isFile() ? info.size : null;
    } catch {
      return null;
    }
  }

  /**
   * Streams `source` into a temp file, hashing and counting. More than `limit` bytes → UploadTooLong
   * (reading stops, the temp file is removed); the client going away → UploadAborted.
   */
  async receive(fileId: string, source: Readable, limit: number): Promise<ReceivedBytes> {
    const tmpPath = path.join(this.tmpDir, `${this.pathOf(fileId).slice(this.root.length + 1)}.${randomBytes(6).toString('hex')}`);
    const out = createWriteStream(tmpPath, { flags: 'wx', mode: 0o600 });
    const hash = createHash('sha256');
    let size = 0;
    try {
      await new Promise<void>((resolve, reject) => {
        let settled = false;
        const fail = (error: Error) => {
          if (settled) return;
          settled = true;
          source.unpipe(out);
          source.off('data', onData);
          // Wait until the temp file is closed, so that removing it afterwards cannot race its creation.
          if (out.closed) reject(error);
          else {
            out.once('close', () => reject(error));
            out.destroy();
          }
        };
        const onData = (chunk: Buffer) => {
          size += chunk.length;
          if (size > limit) {
            fail(new UploadTooLong(size));
            return;
          }
          hash.update(chunk);
        };
        source.on('data', onData);
        source.once('aborted', () => fail(new UploadAborted()));
        source.once('error', (error) => fail((error as NodeJS.ErrnoException).code === 'ECONNRESET' ? new UploadAborted() : error));
        source.once('close', () => {
          if (!(source as Readable & { complete?: boolean }).complete && !source.readableEnded) fail(new UploadAborted());
        });
        out.once('error', fail);
        out.once('finish', () => {
          if (settled) return;
          settled = true;
          resolve();
        });
        source.pipe(out);
      });
      // Durable before it is renamed into place.
      const handle = await open(tmpPath, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      return { tmpPath, size, sha256: hash.digest('hex') };
    } catch (error) {
      await rm(tmpPath, { force: true });
      throw error;
    }
  }

  async discard(tmpPath: string): Promise<void> {
    await rm(tmpPath, { force: true });
  }

  /** Moves checked bytes into place (atomic rename on the same file system) and syncs the folder. */
  async commit(tmpPath: string, fileId: string): Promise<void> {
    await rename(tmpPath, this.pathOf(fileId));
    try {
      const dir = await open(this.root, 'r');
      try {
        await dir.sync();
      } finally {
        await dir.close();
      }
    } catch {
      // Some file systems cannot fsync a directory; the rename itself is still atomic.
    }
  }

  async remove(fileId: string): Promise<void> {
    await rm(this.pathOf(fileId), { force: true });
  }

  /** Ids that have bytes on disk. */
  async listIds(): Promise<string[]> {
    const names = await readdir(this.root).catch(() => [] as string[]);
    return names.filter((name) => FILE_ID_PATTERN.test(name));
  }
}
