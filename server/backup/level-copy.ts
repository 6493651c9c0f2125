import { createHash } from 'node:crypto';
import { ClassicLevel } from 'classic-level';

/**
 * Copying a LevelDB key by key through one iterator (one point in time while writes go on), and
 * reading a copy back: the count of keys, a digest over every key and value, and the documents per
 * RxDB collection. Snapshots (snapshots.ts) and restores (restore.ts) check each other with them.
 */

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
      const [, , collection, , kind] = Buffer.from(key).swap16().toString('utf16le').split(String.fromCharCode(SEP));
      if (kind === 'd' && collection !== undefined) {
        let deleted: boolean;
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
  });
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
