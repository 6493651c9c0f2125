import { crc32, inflateRawSync } from 'node:zlib';
import { StatementError } from './types';

/** What a statement spreadsheet may unpack to, all entries together: a year of payments is a few MB. */
export const XLSX_UNPACKED_LIMIT = 100 * 1024 * 1024;

const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const END = 0x06054b50;
const DESCRIPTOR = 0x08074b50;

interface Entry {
  name: string;
  method: number;
  flags: number;
  crc: number;
  compressed: number;
  size: number;
  local: number;
}

const damaged = (why: string) => new StatementError('truncated', `The spreadsheet is damaged or cut off (${why}). Download the bill again.`);
const tooLarge = (limit: number) =>
  new StatementError('tooLarge', `The spreadsheet unpacks to more than ${limit / 1024 / 1024} MB, far more than any bill: it is not a WeChat Pay export.`);

/** The entries of the ZIP's table of contents (its central directory), checked against the end record. */
function directory(bytes: Buffer): { entries: Entry[]; centralAt: number } {
  // The end record is the last 22 bytes, or sits before a comment whose length it states.
  let end = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 0xffff); at--) {
    if (bytes.readUInt32LE(at) === END && at + 22 + bytes.readUInt16LE(at + 20) === bytes.length) {
      end = at;
      break;
    }
  }
  if (end < 0) throw damaged('its table of contents is missing');
  const count = bytes.readUInt16LE(end + 10);
  const centralSize = bytes.readUInt32LE(end + 12);
  const centralAt = bytes.readUInt32LE(end + 16);
  if (count === 0xffff || centralAt === 0xffffffff) throw new StatementError('notThisFormat', 'The spreadsheet is a ZIP64 archive, which Excel and WeChat Pay do not write.');
  if (centralAt + centralSize !== end) throw damaged('its table of contents is not where it says');
  const entries: Entry[] = [];
  let at = centralAt;
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || bytes.readUInt32LE(at) !== CENTRAL) throw damaged('its table of contents is cut off');
    const nameLength = bytes.readUInt16LE(at + 28);
    entries.push({
      flags: bytes.readUInt16LE(at + 8),
      method: bytes.readUInt16LE(at + 10),
      crc: bytes.readUInt32LE(at + 16),
      compressed: bytes.readUInt32LE(at + 20),
      size: bytes.readUInt32LE(at + 24),
      local: bytes.readUInt32LE(at + 42),
      name: bytes.toString('utf8', at + 46, at + 46 + nameLength),
    });
    at += 46 + nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
  }
  if (at !== end) throw damaged('its table of contents holds more than it lists');
  return { entries, centralAt };
}

/**
 * The entries of an XLSX file (a ZIP), unpacked here within `limit` bytes all together, for the
 * spreadsheet library to read from a ZIP we build of them (storedZip): a "zip bomb" must not take
 * the server's memory. Nothing the file declares is trusted:
 * - the entries in the file (its local headers, which a streaming unzipper reads) must be exactly
 *   those of its table of contents, back to back from the first byte to the table: a file with an
 *   entry the table does not list (a hidden 1,000 MiB entry) or two listed entries sharing bytes is
 *   refused;
 * - the sizes the table declares add up to at most `limit` (checked before anything is unpacked),
 *   and each entry is inflated with zlib stopping one byte past its declared size, so an entry that
 *   lies about its size is refused as soon as it does; its CRC-32 must match.
 * Only the entries the library reads (`.xml`, `.rels`) are unpacked.
 */
export function unpackXlsxEntries(bytes: Buffer, limit = XLSX_UNPACKED_LIMIT): Map<string, Buffer> {
  const { entries, centralAt } = directory(bytes);
  const wanted = entries.filter((entry) => entry.name.endsWith('.xml') || entry.name.endsWith('.rels'));
  let declared = 0;
  for (const entry of wanted) declared += entry.size;
  if (declared > limit) throw tooLarge(limit);

  // The entries must tile the file up to the table of contents, in order, with nothing between.
  let expected = 0;
  const data = new Map<Entry, Buffer>();
  for (const entry of [...entries].sort((a, b) => a.local - b.local)) {
    if (entry.local !== expected) throw damaged('it holds data its table of contents does not list');
    if (entry.local + 30 > centralAt || bytes.readUInt32LE(entry.local) !== LOCAL) throw damaged('an entry is missing');
    if (entry.flags & 0x0001) throw new StatementError('notThisFormat', 'The spreadsheet is encrypted: export the bill again without a password.');
    const nameLength = bytes.readUInt16LE(entry.local + 26);
    if (bytes.readUInt16LE(entry.local + 8) !== entry.method || bytes.toString('utf8', entry.local + 30, entry.local + 30 + nameLength) !== entry.name) {
      throw damaged('an entry differs from its table of contents');
    }
    const start = entry.local + 30 + nameLength + bytes.readUInt16LE(entry.local + 28);
    let next = start + entry.compressed;
    if (entry.flags & 0x0008) {
      // A data descriptor after the data: CRC and sizes, with or without its signature.
      next += next + 4 <= centralAt && bytes.readUInt32LE(next) === DESCRIPTOR ? 16 : 12;
    } else if (bytes.readUInt32LE(entry.local + 18) !== entry.compressed || bytes.readUInt32LE(entry.local + 22) !== entry.size) {
      throw damaged('an entry differs from its table of contents');
    }
    if (next > centralAt) throw damaged('an entry is cut off');
    data.set(entry, bytes.subarray(start, start + entry.compressed));
    expected = next;
  }
  if (expected !== centralAt) throw damaged('it holds data its table of contents does not list');

  const unpacked = new Map<string, Buffer>();
  for (const entry of wanted) {
    const compressed = data.get(entry) as Buffer;
    let content: Buffer;
    if (entry.method === 0) content = compressed;
    else if (entry.method === 8) {
      try {
        content = inflateRawSync(compressed, { maxOutputLength: entry.size + 1 });
      } catch (error) {
        if (error instanceof RangeError) throw tooLarge(limit);
        throw damaged('an entry cannot be unpacked');
      }
    } else throw new StatementError('notThisFormat', 'The spreadsheet uses a compression Excel does not write.');
    if (content.length > entry.size) throw tooLarge(limit);
    if (content.length !== entry.size || crc32(content) !== entry.crc) throw damaged('an entry does not match its checksum');
    unpacked.set(entry.name, content);
  }
  return unpacked;
}

/** A ZIP of `entries`, stored without compression: what the spreadsheet library reads, every size in it true. */
export function storedZip(entries: ReadonlyMap<string, Buffer>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of entries) {
    const fileName = Buffer.from(name, 'utf8');
    const crc = crc32(content);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(content.length, 18);
    local.writeUInt32LE(content.length, 22);
    local.writeUInt16LE(fileName.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(CENTRAL, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(content.length, 20);
    central.writeUInt32LE(content.length, 24);
    central.writeUInt16LE(fileName.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, fileName, content);
    centrals.push(central, fileName);
    offset += 30 + fileName.length + content.length;
  }
  const centralSize = centrals.reduce((sum, part) => sum + part.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END, 0);
  end.writeUInt16LE(entries.size, 8);
  end.writeUInt16LE(entries.size, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...centrals, end]);
}
