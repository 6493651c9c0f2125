import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseWechat } from '../wechat';
import { assertZipWithinBudget } from '../zip-budget';

/** A ZIP with one deflated entry, its sizes declared as `declared` (a bomb may lie about them). */
function zipOf(name: string, content: Buffer, declared = content.length): Buffer {
  const data = deflateRawSync(content);
  const fileName = Buffer.from(name);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(declared, 22);
  local.writeUInt16LE(fileName.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(declared, 24);
  central.writeUInt16LE(fileName.length, 28);
  central.writeUInt32LE(0, 42);
  const centralAt = local.length + fileName.length + data.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + fileName.length, 12);
  end.writeUInt32LE(centralAt, 16);
  return Buffer.concat([local, fileName, data, central, fileName, end]);
}

describe('XLSX zip bombs', () => {
  it('refuses a small file that unpacks past the budget, even when it declares a small size', async () => {
    const bomb = zipOf('xl/sharedStrings.xml', Buffer.alloc(8 * 1024 * 1024, 0x20), 100);
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(() => assertZipWithinBudget(bomb, 4 * 1024 * 1024)).toThrow(/unpacks to more than 4 MB/);
    const big = zipOf('xl/sharedStrings.xml', Buffer.alloc(110 * 1024 * 1024, 0x20), 100);
    await expect(Promise.resolve().then(() => parseWechat(big, { timeZone: 'Asia/Shanghai' }))).rejects.toThrow(/unpacks to more than 100 MB/);
  });

  it('lets a normal archive through, and calls a cut one damaged', () => {
    const small = zipOf('xl/workbook.xml', Buffer.from('<workbook/>'));
    expect(() => assertZipWithinBudget(small)).not.toThrow();
    expect(() => assertZipWithinBudget(small.subarray(0, small.length - 10))).toThrow(/damaged or cut off/);
  });
});
