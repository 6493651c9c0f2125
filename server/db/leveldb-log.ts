/**
 * A reader for LevelDB's write-ahead log format (`db/*.log`, and the MANIFEST), used to check
 * a log *before* LevelDB replays it. LevelDB's own replay (with `paranoid_checks` off, which
 * classic-level does not let us change) skips a damaged stretch, logs "(ignoring error) …
 * dropping N bytes" in db/LOG, turns what it could read into a table and deletes the log: the
 * acknowledged records in the skipped stretch are gone for good, silently. Reading the log
 * ourselves first lets PennyPost refuse to open instead, with the log still on disk.
 *
 * The format (leveldb/doc/log_format.md): 32 KiB blocks; each physical record is a 7-byte
 * header — masked CRC32C of type+data (4, little endian), data length (2), type (1: full,
 * 2: first, 3: middle, 4: last fragment) — and the data. A record never spans blocks; fewer than
 * 7 bytes left in a block are zero padding. The rules below mirror leveldb/db/log_reader.cc, so
 * this reports exactly the drops LevelDB would report, and stays silent where it is silent
 * (a record cut off by the end of the file: the write in flight when the process died, which was
 * never acknowledged).
 */

import { itemAt } from '../lib/item-at';

const BLOCK_SIZE = 32 * 1024;
const HEADER_SIZE = 7;
const FULL = 1;
const FIRST = 2;
const MIDDLE = 3;
const LAST = 4;

const CRC32C_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/** CRC-32C (Castagnoli) of `bytes[start, end)`, as LevelDB's crc32c::Value. */
export function crc32c(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = -1;
  // The table has 256 entries (the index is masked to 0..255); a range past the end of `bytes` throws.
  for (let i = start; i < end; i++) crc = itemAt(CRC32C_TABLE, (crc ^ itemAt(bytes, i)) & 0xff) ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/** LevelDB stores CRCs "masked" (rotated and offset) so a CRC of data holding CRCs stays strong. */
export function unmaskCrc(masked: number): number {
  const rot = (masked - 0xa282ead8) >>> 0;
  return ((rot >>> 17) | (rot << 15)) >>> 0;
}

export interface LogDrop {
  /** Byte offset in the file where the dropped stretch starts. */
  offset: number;
  bytes: number;
  reason: string;
}

export interface LogScan {
  /** Complete logical records (write batches) that LevelDB would replay. */
  records: number;
  /** Stretches LevelDB would drop and report as corruption. Any entry means lost data. */
  drops: LogDrop[];
  /** Bytes of an incomplete last record (cut off by the end of the file; never acknowledged). */
  tornTailBytes: number;
}

/** Reads a whole log file's bytes the way LevelDB's log::Reader does, without changing anything. */
export function scanLog(buf: Uint8Array): LogScan {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const drops: LogDrop[] = [];
  let records = 0;
  let tornTailBytes = 0;
  let inFragment = false;
  let fragmentStart = 0;
  let fragmentBytes = 0;
  const drop = (offset: number, bytes: number, reason: string) => drops.push({ offset, bytes, reason });
  // A bad physical record in the middle of a fragmented one also loses the fragments so far.
  const badRecord = () => {
    if (inFragment) drop(fragmentStart, fragmentBytes, 'error in middle of record');
    inFragment = false;
    fragmentBytes = 0;
  };
  for (let blockStart = 0; blockStart < buf.length; blockStart += BLOCK_SIZE) {
    const blockEnd = Math.min(blockStart + BLOCK_SIZE, buf.length);
    // LevelDB reads block by block; a short read (the last, partial block) sets "end of file".
    const eof = blockEnd - blockStart < BLOCK_SIZE;
    let pos = blockStart;
    for (;;) {
      const remaining = blockEnd - pos;
      if (remaining < HEADER_SIZE) {
        // Block trailer (zeros), or a header cut off by the end of the file (not an error).
        if (eof && remaining > 0) tornTailBytes += remaining;
        break;
      }
      // The whole 7-byte header is inside the block (checked above); DataView throws past the end.
      const length = view.getUint16(pos + 4, true);
      const type = view.getUint8(pos + 6);
      if (HEADER_SIZE + length > remaining) {
        if (eof) {
          tornTailBytes += remaining; // the writer died in the middle of this record
        } else {
          drop(pos, remaining, 'bad record length');
          badRecord();
        }
        break;
      }
      if (type === 0 && length === 0) {
        // Zero-filled (preallocated) space: LevelDB skips the rest of the block silently.
        badRecord();
        break;
      }
      const expected = unmaskCrc(view.getUint32(pos, true));
      if (crc32c(buf, pos + 6, pos + HEADER_SIZE + length) !== expected) {
        // LevelDB drops the rest of the block: the length itself may be what is damaged.
        drop(pos, remaining, 'checksum mismatch');
        badRecord();
        break;
      }
      const recordStart = pos;
      pos += HEADER_SIZE + length;
      switch (type) {
        case FULL:
          if (inFragment && fragmentBytes > 0) drop(fragmentStart, fragmentBytes, 'partial record without end');
          inFragment = false;
          fragmentBytes = 0;
          records++;
          break;
        case FIRST:
          if (inFragment && fragmentBytes > 0) drop(fragmentStart, fragmentBytes, 'partial record without end');
          inFragment = true;
          fragmentStart = recordStart;
          fragmentBytes = length;
          break;
        case MIDDLE:
          if (!inFragment) drop(recordStart, length, 'missing start of fragmented record');
          else fragmentBytes += length;
          break;
        case LAST:
          if (!inFragment) drop(recordStart, length, 'missing start of fragmented record');
          else records++;
          inFragment = false;
          fragmentBytes = 0;
          break;
        default:
          drop(recordStart, length + (inFragment ? fragmentBytes : 0), `unknown record type ${type}`);
          inFragment = false;
          fragmentBytes = 0;
      }
    }
  }
  // A batch whose last fragments never reached the disk: LevelDB ignores it silently (never acknowledged).
  if (inFragment) tornTailBytes += fragmentBytes;
  return { records, drops, tornTailBytes };
}
