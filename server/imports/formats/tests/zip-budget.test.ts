import { crc32, deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseWechat } from '../wechat';
import { storedZip, unpackXlsxEntries } from '../zip-budget';
import { centralRecord, endRecord, localRecord } from '../../../test-support/zip-records';

interface TestEntry {
  name: string;
  content: Buffer;
  /** The size the headers declare (a bomb may lie about it). */
  declared?: number;
  /** Not listed in the table of contents (a streaming unzipper still finds it). */
  hidden?: boolean;
  /** Listed a second time, pointing at the same bytes (an "overlapping" bomb). */
  twice?: boolean;
}

/** A ZIP of deflated entries, as the tests need it to be crafted. */
function zipOf(entries: TestEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  let listed = 0;
  for (const entry of entries) {
    const data = deflateRawSync(entry.content);
    const facts = { name: entry.name, crc: crc32(entry.content), stored: data.length, declared: entry.declared ?? entry.content.length };
    if (!entry.hidden) {
      for (let copy = 0; copy < (entry.twice ? 2 : 1); copy++) {
        centrals.push(centralRecord(facts, offset));
        listed++;
      }
    }
    const local = localRecord(facts);
    locals.push(local, data);
    offset += local.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  return Buffer.concat([...locals, directory, endRecord(listed, directory.length, offset)]);
}

const workbook = { name: 'xl/workbook.xml', content: Buffer.from('<workbook/>') };

describe('XLSX zip bombs (issue 34, finding 3)', () => {
  it('refuses a small file that unpacks past the budget, whether it lies about its size or not', async () => {
    const lying = zipOf([{ name: 'xl/sharedStrings.xml', content: Buffer.alloc(8 * 1024 * 1024, 0x20), declared: 100 }]);
    expect(lying.length).toBeLessThan(64 * 1024);
    expect(() => unpackXlsxEntries(lying, 4 * 1024 * 1024)).toThrow(/unpacks to more than 4 MB/);
    const honest = zipOf([{ name: 'xl/sharedStrings.xml', content: Buffer.alloc(8 * 1024 * 1024, 0x20) }]);
    expect(() => unpackXlsxEntries(honest, 4 * 1024 * 1024)).toThrow(/unpacks to more than 4 MB/);
    const big = zipOf([{ name: 'xl/sharedStrings.xml', content: Buffer.alloc(110 * 1024 * 1024, 0x20), declared: 100 }]);
    await expect(Promise.resolve().then(() => parseWechat(big, { timeZone: 'Asia/Shanghai' }))).rejects.toThrow(/unpacks to more than 100 MB/);
  });

  it('refuses entries its table of contents does not list, and entries listed twice', () => {
    const hidden = zipOf([workbook, { name: 'xl/hidden.xml', content: Buffer.alloc(1024 * 1024), hidden: true }]);
    expect(() => unpackXlsxEntries(hidden)).toThrow(/holds data its table of contents does not list/);
    const hiddenFirst = zipOf([{ name: 'xl/hidden.xml', content: Buffer.alloc(1024), hidden: true }, workbook]);
    expect(() => unpackXlsxEntries(hiddenFirst)).toThrow(/holds data its table of contents does not list/);
    const twice = zipOf([{ ...workbook, twice: true }]);
    expect(() => unpackXlsxEntries(twice)).toThrow(/holds data its table of contents does not list/);
  });

  it('lets a normal archive through, and calls a cut or altered one damaged', () => {
    const small = zipOf([
      workbook,
      { name: 'xl/_rels/workbook.xml.rels', content: Buffer.from('<Relationships/>') },
      { name: 'docProps/thumbnail.jpeg', content: Buffer.alloc(10) },
    ]);
    const entries = unpackXlsxEntries(small);
    expect([...entries.keys()]).toEqual(['xl/workbook.xml', 'xl/_rels/workbook.xml.rels']);
    expect(entries.get('xl/workbook.xml')?.toString()).toBe('<workbook/>');
    expect(() => unpackXlsxEntries(small.subarray(0, small.length - 10))).toThrow(/damaged or cut off/);
    const shorter = zipOf([{ ...workbook, declared: 5 }]);
    expect(() => unpackXlsxEntries(shorter)).toThrow(/unpacks to more than/);
    const flipped = Buffer.from(small);
    flipped.writeUInt8(flipped.readUInt8(40) ^ 0xff, 40); // inside the first entry's compressed data
    expect(() => unpackXlsxEntries(flipped)).toThrow(/damaged or cut off/);
  });

  it('builds a stored ZIP the same reader takes back unchanged', () => {
    const entries = new Map([
      ['xl/workbook.xml', Buffer.from('<workbook/>')],
      ['xl/sharedStrings.xml', Buffer.from('<sst>文字</sst>')],
    ]);
    expect(unpackXlsxEntries(storedZip(entries))).toEqual(entries);
  });
});
