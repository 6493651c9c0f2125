import { crc32, deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseWechat } from '../wechat';
import { storedZip, unpackXlsxEntries } from '../zip-budget';

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
    const name = Buffer.from(entry.name);
    const declared = entry.declared ?? entry.content.length;
    const crc = crc32(entry.content);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(declared, 22);
    local.writeUInt16LE(name.length, 26);
    if (!entry.hidden) {
      for (let copy = 0; copy < (entry.twice ? 2 : 1); copy++) {
        const central = Buffer.alloc(46);
        central.writeUInt32LE(0x02014b50, 0);
        central.writeUInt16LE(20, 6);
        central.writeUInt16LE(8, 10);
        central.writeUInt32LE(crc, 16);
        central.writeUInt32LE(data.length, 20);
        central.writeUInt32LE(declared, 24);
        central.writeUInt16LE(name.length, 28);
        central.writeUInt32LE(offset, 42);
        centrals.push(central, name);
        listed++;
      }
    }
    locals.push(local, name, data);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(listed, 8);
  end.writeUInt16LE(listed, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
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
    flipped[40] ^= 0xff; // inside the first entry's compressed data
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
