import { inflateRawSync } from 'node:zlib';
import { StatementError } from './types';

/** What a statement spreadsheet may unpack to, all entries together: a year of payments is a few MB. */
export const XLSX_UNPACKED_LIMIT = 100 * 1024 * 1024;

/**
 * Refuses a ZIP (an XLSX) that unpacks to more than `limit` bytes — a "zip bomb": a few hundred KB
 * whose sharedStrings.xml inflates to gigabytes would take the server's memory for every account.
 * The sizes a ZIP declares can lie, so every entry is really inflated, with zlib's
 * `maxOutputLength` stopping at what is left of the budget. Called before the spreadsheet library
 * unpacks the file itself.
 */
export function assertZipWithinBudget(bytes: Buffer, limit = XLSX_UNPACKED_LIMIT): void {
  const eocd = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0 || eocd + 22 > bytes.length) throw new StatementError('truncated', 'The spreadsheet is damaged or cut off: its table of contents is missing.');
  const entries = bytes.readUInt16LE(eocd + 10);
  let at = bytes.readUInt32LE(eocd + 16);
  let left = limit;
  const tooLarge = () => new StatementError('tooLarge', `The spreadsheet unpacks to more than ${limit / 1024 / 1024} MB, far more than any bill: it is not a WeChat Pay export.`);
  for (let i = 0; i < entries; i++) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== 0x02014b50) throw new StatementError('truncated', 'The spreadsheet is damaged or cut off.');
    const method = bytes.readUInt16LE(at + 10);
    const compressed = bytes.readUInt32LE(at + 20);
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    const local = bytes.readUInt32LE(at + 42);
    at += 46 + nameLength + extraLength + commentLength;
    if (local + 30 > bytes.length || bytes.readUInt32LE(local) !== 0x04034b50) throw new StatementError('truncated', 'The spreadsheet is damaged or cut off.');
    const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
    const data = bytes.subarray(start, start + compressed);
    let size: number;
    if (method === 0) size = data.length;
    else if (method === 8) {
      try {
        size = inflateRawSync(data, { maxOutputLength: Math.max(1, left) }).length;
      } catch (error) {
        if (error instanceof RangeError) throw tooLarge();
        throw new StatementError('truncated', 'The spreadsheet is damaged or cut off.');
      }
    } else throw new StatementError('notThisFormat', 'The spreadsheet uses a compression Excel does not write.');
    left -= size;
    if (left < 0) throw tooLarge();
  }
}
