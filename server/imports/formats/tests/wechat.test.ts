import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import writeXlsxFile from 'write-excel-file/node';
import { parseWechat, sniffWechat, wechatStatus } from '../wechat';
import { StatementError, type ParsedStatement } from '../types';

/*
 * The fixture follows the layout of real WeChat Pay exports as published by open-source importers
 * (the file is our own, with made-up people and order numbers):
 * - the header block, the `----微信支付账单明细列表----` line, the columns and cells (`¥28.16`,
 *   ids ending in a tab, `"/"`, `招商银行()`, `"服务费¥0.10"`, the unquoted `点击底部"多多视频"`):
 *   deb-sig/double-entry-generator, example/wechat/example-wechat-records.csv;
 * - status values (支付成功, 已存入零钱, 已转账, 对方已收钱, 朋友已收钱, 已收钱, 充值完成, 提现已到账,
 *   已全额退款, 已退款(￥x), 对方已退还, 提现失败，已退回零钱) and refund rows typed `…-退款`:
 *   jiegec/china_bean_importers, china_bean_importers/wechat/__init__.py, and
 *   mayswind/ezbookkeeping, pkg/converters/wechat/wechat_pay_transaction_data_csv_file_importer_test.go;
 * - XLSX exports with the same layout in the first sheet: deb-sig/double-entry-generator,
 *   example/wechat/example-wechat-records.xlsx (and its template-xlsx.yaml).
 */

const FIXTURE = readFileSync(path.join(import.meta.dirname, 'fixtures', 'wechat', 'wechat-bill.csv'), 'utf8');
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const withBom = (text: string) => Buffer.concat([BOM, Buffer.from(text, 'utf8')]);
const SHANGHAI = { timeZone: 'Asia/Shanghai' };
const cst = (y: number, mo: number, d: number, h: number, mi: number, s: number) => Date.UTC(y, mo - 1, d, h - 8, mi, s);
const parse = (bytes: Buffer) => parseWechat(bytes, SHANGHAI) as Promise<ParsedStatement>;

async function parseError(bytes: Buffer): Promise<StatementError> {
  try {
    await parseWechat(bytes, SHANGHAI);
  } catch (error) {
    if (error instanceof StatementError) return error;
    throw error;
  }
  throw new Error('parsed without an error');
}

/** The fixture's rows as a spreadsheet: read with csv-parse (not our reader), cells typed as a recent XLSX export may type them. */
function fixtureRows(typed: boolean): (string | number | Date | null)[][] {
  const records: string[][] = parseCsv(FIXTURE, { relax_quotes: true, relax_column_count: true });
  const headerAt = records.findIndex((row) => row[0] === '交易时间');
  return records.map((row, index) => {
    if (index < headerAt) return [row.at(0) === '' ? null : (row.at(0) ?? null)]; // the header block: one text cell a row
    if (index === headerAt || !typed) return row;
    const [time = '', type = '', payee = '', goods = '', direction = '', amount = '', ...rest] = row;
    const [y = NaN, mo = NaN, d = NaN, h = NaN, mi = NaN, s = NaN] = /^(\d+)-(\d+)-(\d+) (\d+):(\d+):(\d+)$/.exec(time)!.slice(1).map(Number);
    return [new Date(Date.UTC(y, mo - 1, d, h, mi, s)), type, payee, goods, direction, Number(amount.replace(/[¥,]/g, '')), ...rest.map((cell) => cell.trim())];
  });
}

const xlsx = async (rows: (string | number | Date | null)[][]) => writeXlsxFile(rows, { dateFormat: 'yyyy-mm-dd hh:mm:ss' }).toBuffer();
const summary = (statement: ParsedStatement) => statement.lines.map((l) => [l.line, l.direction, l.status, l.amount]);

const EXPECTED = [
  [18, 'expense', 'done', '28.16'],
  [19, 'income', 'done', '0.35'],
  [20, 'expense', 'closed', '35.00'],
  [21, 'income', 'refund', '35.00'],
  [22, 'expense', 'done', '1120.00'],
  [23, 'income', 'refund', '20.00'],
  [24, 'expense', 'done', '2500.00'],
  [25, 'expense', 'closed', '88.00'],
  [26, 'neutral', 'done', '100.10'],
  [27, 'neutral', 'done', '548.58'],
  [28, 'expense', 'failed', '9.90'],
  [29, 'expense', 'pending', '30.00'],
  [30, 'income', 'done', '23.00'],
];

describe('the WeChat Pay CSV export', () => {
  it('reads the rows under the header found by name (UTF-8 with a BOM), ids without their tabs, the header block not counted', async () => {
    const statement = await parse(withBom(FIXTURE));
    expect(statement.format).toBe('wechat');
    expect(statement.currency).toBe('CNY');
    expect(statement.account).toBe('小明');
    expect(statement.invalid).toEqual([]);
    expect(summary(statement)).toEqual(EXPECTED);
    expect(statement.lines[0]).toEqual({
      line: 18,
      date: cst(2024, 5, 2, 12, 45, 27),
      amount: '28.16',
      currency: 'CNY',
      direction: 'expense',
      status: 'done',
      payee: '云膳过桥米线(传奇广场店)',
      description: '总共消费:28.16',
      externalId: '4200002201202405021234567890',
      method: '招商银行信用卡(1234)',
      cardTail: '1234',
      sourceCategory: '商户消费',
    });
  });

  it('links a full refund through the 商户单号 and a partial one through its payment marked 已退款(￥20.00)', async () => {
    const { lines } = await parse(withBom(FIXTURE));
    const byLine = (line: number) => lines.find((l) => l.line === line);
    expect(byLine(20)).toMatchObject({ status: 'closed', externalId: '4200002201202405041111111111' });
    expect(byLine(21)).toMatchObject({
      status: 'refund',
      direction: 'income',
      externalId: '50300605352024050422222222222',
      originalId: '4200002201202405041111111111',
      sourceCategory: '美团平台商户-退款',
    });
    expect(byLine(22)).toMatchObject({ status: 'done', amount: '1120.00' });
    expect(byLine(23)).toMatchObject({ status: 'refund', originalId: '4200002201202405063333333333', cardTail: '5678' });
    expect(lines.filter((l) => l.status !== 'refund').every((l) => l.originalId === undefined)).toBe(true);
  });

  it('reads neutral rows (零钱提现, 信用卡还款), placeholders and stray quotes as written', async () => {
    const { lines } = await parse(withBom(FIXTURE));
    const byLine = (line: number) => lines.find((l) => l.line === line);
    expect(byLine(19)).toMatchObject({ description: '', payee: '同性好友' });
    expect(byLine(19)).not.toHaveProperty('method');
    expect(byLine(26)).toMatchObject({
      direction: 'neutral',
      payee: '招商银行()',
      description: '服务费¥0.10',
      method: '招商银行(1234)',
      cardTail: '1234',
      sourceCategory: '零钱提现',
    });
    expect(byLine(27)).toMatchObject({ direction: 'neutral', description: '', sourceCategory: '信用卡还款' });
    expect(byLine(28)?.description).toBe('打开拼多多，点击底部"多多视频"');
  });

  it('reads the file without a BOM, and re-saved as GBK, the same', async () => {
    const expected = await parse(withBom(FIXTURE));
    expect(await parse(Buffer.from(FIXTURE, 'utf8'))).toEqual(expected);
    // GBK has no '¥' (U+00A5): Excel writes '?' for it, in amounts ('?548.58') and in text.
    const gbkCopy = await parse(iconv.encode(FIXTURE, 'gbk'));
    expect(gbkCopy.lines.find((l) => l.line === 26)?.description).toBe('服务费?0.10');
    expect({ ...gbkCopy, lines: gbkCopy.lines.map((l) => (l.line === 26 ? { ...l, description: '服务费¥0.10' } : l)) }).toEqual(expected);
  });

  it('reports a bad date and a bad amount by line and cell, and imports the rest', async () => {
    const text = FIXTURE.replace('2024-05-03 10:10:11', '2024/13/03 10:10').replace('¥2500.00', '¥25OO.00');
    const statement = await parse(withBom(text));
    expect(statement.invalid).toEqual([
      { line: 19, kind: 'badDate', reason: 'The 交易时间 cell "2024/13/03 10:10" is not a date and time (YYYY-MM-DD HH:mm:ss).' },
      { line: 24, kind: 'badAmount', reason: 'The 金额(元) cell "¥25OO.00" is not an amount.' },
    ]);
    expect(statement.lines).toHaveLength(11);
  });

  it('keeps the complete rows of a file cut off mid-row and reports the cut row', async () => {
    const cut = FIXTURE.slice(0, FIXTURE.indexOf('收款方备注:二维码收款'));
    const statement = await parse(withBom(cut));
    expect(summary(statement)).toEqual(EXPECTED.slice(0, -1));
    expect(statement.invalid).toEqual([
      { line: 30, kind: 'badRow', reason: 'The row has 4 of the 11 columns of the header (the file may be cut off here, or the row was edited).' },
    ]);
  });

  it('reports a row cut inside a quoted cell', async () => {
    const cut = FIXTURE.slice(0, FIXTURE.indexOf('"服务费¥0.10"') + 4);
    const statement = await parse(withBom(cut));
    expect(statement.lines.map((l) => l.line)).toEqual([18, 19, 20, 21, 22, 23, 24, 25]);
    expect(statement.invalid).toMatchObject([{ line: 26, kind: 'badRow' }]);
  });
});

describe('the WeChat Pay XLSX export', () => {
  it('reads typed cells (a date cell, a number amount) the same as the CSV', async () => {
    const statement = await parse(await xlsx(fixtureRows(true)));
    expect(statement).toEqual(await parse(withBom(FIXTURE)));
  });

  it('reads text cells (`2024-05-02 12:45:27`, `¥28.16`) the same as the CSV', async () => {
    const statement = await parse(await xlsx(fixtureRows(false)));
    expect(statement).toEqual(await parse(withBom(FIXTURE)));
  });

  it('reports a row whose date cell is not a date', async () => {
    const rows = fixtureRows(true);
    const row = rows.at(18)!;
    row[0] = '昨天';
    const statement = await parse(await xlsx(rows));
    expect(statement.invalid).toEqual([{ line: 19, kind: 'badDate', reason: 'The 交易时间 cell "昨天" is not a date and time (YYYY-MM-DD HH:mm:ss).' }]);
    expect(statement.lines).toHaveLength(12);
  });

  it("refuses a cut-off workbook as 'truncated'", async () => {
    const bytes = await xlsx(fixtureRows(true));
    expect((await parseError(bytes.subarray(0, Math.floor(bytes.length / 2)))).kind).toBe('truncated');
  });

  it("refuses another spreadsheet as 'notThisFormat'", async () => {
    const error = await parseError(
      await xlsx([
        ['Date', 'Amount', 'Payee'],
        ['2024-05-01', 12.5, 'ACME'],
      ]),
    );
    expect(error.kind).toBe('notThisFormat');
  });
});

describe('files that are not a readable WeChat Pay export', () => {
  it("refuses mangled bytes (a GBK copy read as Latin-1 and saved as UTF-8) as 'encoding'", async () => {
    const error = await parseError(Buffer.from(iconv.decode(iconv.encode(FIXTURE, 'gbk'), 'latin1'), 'utf8'));
    expect(error.kind).toBe('encoding');
  });

  it("refuses a copy re-saved as Latin-1 (its Chinese text turned into '?') as 'encoding'", async () => {
    expect((await parseError(iconv.encode(FIXTURE, 'latin1'))).kind).toBe('encoding');
  });

  it("refuses an Alipay bill or another bank's CSV as 'notThisFormat'", async () => {
    const alipay = readFileSync(path.join(import.meta.dirname, 'fixtures', 'alipay', 'app-export.csv'));
    const error = await parseError(alipay);
    expect(error.kind).toBe('notThisFormat');
    expect(error.message).toMatch(/not a WeChat Pay bill export/);
    expect((await parseError(readFileSync(path.join(import.meta.dirname, 'fixtures', 'alipay', 'other-bank.csv')))).kind).toBe('notThisFormat');
  });

  it("names the columns a WeChat Pay export lacks ('missingColumns')", async () => {
    const text = FIXTURE.replace(',当前状态,', ',状态,').replace(',金额(元),', ',钱,');
    const error = await parseError(withBom(text));
    expect(error.kind).toBe('missingColumns');
    expect(error.message).toBe('This WeChat Pay export lacks the columns 金额(元), 当前状态: export the bill again without removing columns.');
  });

  it("refuses an empty file as 'empty'", async () => {
    expect((await parseError(Buffer.alloc(0))).kind).toBe('empty');
    expect((await parseError(Buffer.concat([BOM, Buffer.from('\n,,,,\n')]))).kind).toBe('empty');
  });
});

describe('sniffWechat', () => {
  it('recognises the CSV (with or without a BOM, or GBK) and the XLSX export', async () => {
    expect(sniffWechat(withBom(FIXTURE))).toBe(true);
    expect(sniffWechat(Buffer.from(FIXTURE))).toBe(true);
    expect(sniffWechat(iconv.encode(FIXTURE, 'gbk'))).toBe(true);
    expect(sniffWechat(await xlsx(fixtureRows(true)))).toBe(true);
  });

  it("does not claim an Alipay bill, another bank's CSV or another spreadsheet", async () => {
    expect(sniffWechat(readFileSync(path.join(import.meta.dirname, 'fixtures', 'alipay', 'app-export.csv')))).toBe(false);
    expect(sniffWechat(readFileSync(path.join(import.meta.dirname, 'fixtures', 'alipay', 'other-bank.csv')))).toBe(false);
    expect(
      sniffWechat(
        await xlsx([
          ['Date', 'Amount'],
          ['2024-05-01', 12.5],
        ]),
      ),
    ).toBe(false);
  });
});

describe('the status table', () => {
  it.each([
    ['支付成功', false, 'done'],
    ['已转账', false, 'done'],
    ['已收钱', false, 'done'],
    ['已存入零钱', false, 'done'],
    ['朋友已收钱', false, 'done'],
    ['对方已收钱', false, 'done'],
    ['充值完成', false, 'done'],
    ['提现已到账', false, 'done'],
    ['已全额退款', false, 'closed'],
    ['已退款(￥5.00)', false, 'done'],
    ['已退款（￥5.00）', false, 'done'],
    ['已部分退款', false, 'done'],
    ['对方已退还', false, 'closed'],
    ['已退还', false, 'closed'],
    ['支付失败', false, 'failed'],
    ['提现失败，已退回零钱', false, 'failed'],
    ['等待确认收货', false, 'pending'],
    ['待支付', false, 'pending'],
    ['某种新状态', false, 'pending'],
    ['已全额退款', true, 'refund'],
    ['已退款', true, 'refund'],
    ['退款成功', true, 'refund'],
    ['退款中', true, 'pending'],
  ] as const)('%s (refund row: %s) → %s', (status, refundRow, expected) => {
    expect(wechatStatus(status, refundRow)).toBe(expected);
  });
});

describe('a WeChat Pay export whose header ends with a second 备注 (issue 35)', () => {
  // wechat/wechat-double-note.csv: our own rows in the layout of such exports: rows of 11 cells
  // (no second 备注) beside rows of 12, a red packet and a transfer given back in full with their
  // `…-退款` rows (no 交易对方, no 商户单号; their 交易单号 is the payment's 商户单号), and a last row
  // cut off without a line break.
  const DOUBLE = readFileSync(path.join(import.meta.dirname, 'fixtures', 'wechat', 'wechat-double-note.csv'), 'utf8');

  it('reads the complete rows that leave out the second 备注, and not the cut-off last row', async () => {
    const statement = await parse(withBom(DOUBLE));
    expect(statement.lines.map((l) => [l.line, l.direction, l.status, l.amount])).toEqual([
      [7, 'expense', 'done', '6.50'],
      [8, 'expense', 'closed', '66.00'],
      [9, 'income', 'refund', '66.00'],
      [10, 'expense', 'closed', '120.00'],
      [11, 'income', 'refund', '120.00'],
      [12, 'expense', 'done', '4.00'],
      [13, 'income', 'done', '50.00'],
    ]);
    expect(statement.lines.find((l) => l.line === 12)?.description).toBe('饮料; 已优惠¥1.00');
    expect(statement.invalid).toEqual([
      { line: 14, kind: 'badRow', reason: 'The row has 8 of the 12 columns of the header (the file may be cut off here, or the row was edited).' },
    ]);
  });

  it("links a red packet's and a transfer's refund row to its payment: the refund's 交易单号 is the payment's 商户单号", async () => {
    const { lines } = await parse(withBom(DOUBLE));
    const byLine = (line: number) => lines.find((l) => l.line === line);
    expect(byLine(9)).toMatchObject({ status: 'refund', externalId: '1000039801202406035550001111', originalId: '100003980124060300054321000111' });
    expect(byLine(11)).toMatchObject({ status: 'refund', externalId: '1000050001202406055550002222', originalId: '100005000124060500054321000222' });
  });
});
