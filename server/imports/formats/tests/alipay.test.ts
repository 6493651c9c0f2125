import { readFileSync } from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { alipayStatus, parseAlipay, sniffAlipay } from '../alipay';
import { parseLocalDateTime } from '../shared';
import { StatementError, type ParsedStatement } from '../types';

/*
 * The fixtures follow the layouts of real Alipay exports as published by open-source importers
 * (the files are our own, with made-up people and order numbers):
 * - app export (导出信息 … 电子客户回单, 交易时间/交易分类/…/交易订单号/商家订单号/备注): the sample of
 *   deb-sig/double-entry-generator, example/alipay/example-alipay-records.csv, and the header
 *   handling of jiegec/china_bean_importers, china_bean_importers/alipay_mobile/__init__.py;
 * - PC web export (支付宝交易记录明细查询, 交易号/…/资金状态, padded cells, summary after a dashed
 *   line): the excerpt in a public blog post quoted in code search (Beancount import notes), the
 *   trailer lines listed in a public parser (`共201笔记录`, `已收入:2笔`, `导出时间:[…] 用户:…`),
 *   and mayswind/ezbookkeeping, pkg/converters/alipay/alipay_transaction_data_csv_file_importer_test.go;
 * - status values (交易成功, 交易关闭, 退款成功, 等待确认收货, 等待付款, 还款成功, 退税成功, 资金状态
 *   已支出/已收入/待支出/冻结/解冻): mayswind/ezbookkeeping,
 *   pkg/converters/alipay/alipay_transaction_data_row_parser.go, and deb-sig/double-entry-generator,
 *   pkg/provider/alipay/types.go;
 * - a refund's order number `<original>_<refund no>` (e.g. 2021123022001173171401132491_1463408689236434993,
 *   商品说明 退款-…): Auto-Accounting/AutoResource issue #200 (an Alipay refund notification).
 */

const FIXTURES = path.join(import.meta.dirname, 'fixtures', 'alipay');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');
const gbk = (text: string) => iconv.encode(text, 'gbk');
const utf8 = (text: string) => Buffer.from(text, 'utf8');
const SHANGHAI = { timeZone: 'Asia/Shanghai' };
/** A wall-clock time in Asia/Shanghai (UTC+8, no DST) → ms. */
const cst = (y: number, mo: number, d: number, h: number, mi: number, s: number) => Date.UTC(y, mo - 1, d, h - 8, mi, s);

const parse = (bytes: Buffer, options = SHANGHAI) => parseAlipay(bytes, options) as ParsedStatement;

function parseError(bytes: Buffer): StatementError {
  try {
    parse(bytes);
  } catch (error) {
    if (error instanceof StatementError) return error;
    throw error;
  }
  throw new Error('parsed without an error');
}

const APP = fixture('app-export.csv');
const WEB = fixture('web-export.txt');
const summary = (statement: ParsedStatement) => statement.lines.map((l) => [l.line, l.direction, l.status, l.amount]);

describe('the Alipay app export (电子客户回单)', () => {
  it('reads every row under the header found by name, with dates in the requested zone and ids without their tabs', () => {
    const statement = parse(utf8(APP));
    expect(statement.format).toBe('alipay');
    expect(statement.currency).toBe('CNY');
    expect(statement.account).toBe('zhang***@example.com');
    expect(statement.invalid).toEqual([]);
    expect(summary(statement)).toEqual([
      [26, 'expense', 'done', '45.50'],
      [27, 'expense', 'closed', '59.90'],
      [28, 'income', 'refund', '59.90'],
      [29, 'neutral', 'done', '0.35'],
      [30, 'income', 'done', '200.00'],
      [31, 'expense', 'pending', '20.00'],
      [32, 'expense', 'failed', '50.00'],
      [33, 'neutral', 'done', '1000.00'],
      [34, 'expense', 'done', '15.90'],
    ]);
    expect(statement.lines[0]).toEqual({
      line: 26,
      date: cst(2024, 3, 2, 12, 30, 5),
      amount: '45.50',
      currency: 'CNY',
      direction: 'expense',
      status: 'done',
      payee: '肯德基',
      description: '肯德基宅急送订单',
      externalId: '2024030222001100001111111111',
      method: '招商银行信用卡(1234)',
      cardTail: '1234',
      sourceCategory: '餐饮美食',
    });
  });

  it('links a refund to its payment through its order number `<original>_<refund no>`; the refunded payment is closed', () => {
    const statement = parse(utf8(APP));
    const refund = statement.lines.find((l) => l.line === 28);
    expect(refund).toMatchObject({
      status: 'refund',
      direction: 'income',
      description: '退款-抽纸 24包',
      externalId: '2024030522001100002222222222_1463408689236434993',
      originalId: '2024030522001100002222222222',
      sourceCategory: '退款',
    });
    expect(statement.lines.find((l) => l.externalId === refund?.originalId)?.status).toBe('closed');
  });

  it('keeps 备注, drops a description that only repeats the payee, and finds a card tail written 尾号8888', () => {
    const statement = parse(utf8(APP));
    expect(statement.lines.find((l) => l.line === 30)?.description).toBe('转账; 还饭钱');
    expect(statement.lines.find((l) => l.line === 34)).toMatchObject({ payee: '瑞幸咖啡', description: '', method: '尾号8888储蓄卡', cardTail: '8888' });
    expect(statement.lines.find((l) => l.line === 29)).not.toHaveProperty('cardTail');
  });

  it('maps columns by name: the 2021 app layout, with 收/支 first and 交易时间 last, reads the same', () => {
    const order = [5, 2, 3, 4, 7, 6, 8, 1, 9, 10, 0, 11];
    const reordered = APP.split('\n')
      .map((row, index) => (index < 24 || row === '' ? row : `${order.map((column) => row.split(',')[column]).join(',')},`))
      .join('\n');
    expect(reordered).toContain('\n收/支                 ,交易对方');
    expect(parse(utf8(reordered))).toEqual(parse(utf8(APP)));
  });

  it('reads the GBK file the same as the UTF-8 one', () => {
    expect(parse(gbk(APP))).toEqual(parse(utf8(APP)));
  });

  it('reads the wall clock in the requested time zone', () => {
    const utc = parse(utf8(APP), { timeZone: 'UTC' });
    expect(utc.lines.at(0)?.date).toBe(Date.UTC(2024, 2, 2, 12, 30, 5));
    expect(parse(utf8(APP)).lines.at(0)!.date - utc.lines.at(0)!.date).toBe(-8 * 3600_000);
    // Across a DST change (New York, 2024-03-10): each row as parseLocalDateTime reads it.
    const newYork = parse(utf8(APP), { timeZone: 'America/New_York' });
    const written = [...APP.matchAll(/^(2024-03-\d\d \d\d:\d\d:\d\d) ,/gm)].map((m) => m.at(1)!);
    expect(newYork.lines.map((l) => l.date)).toEqual(written.map((text) => parseLocalDateTime(text, 'America/New_York')));
  });

  it('does not count the totals above the header (共9笔记录, 收入：…) as rows', () => {
    const statement = parse(utf8(APP));
    expect(statement.lines).toHaveLength(9);
    expect(Math.min(...statement.lines.map((l) => l.line))).toBe(26);
  });
});

describe('the Alipay PC web export (支付宝交易记录明细查询)', () => {
  it('reads the padded GBK rows and stops at the summary after the dashed line', () => {
    const statement = parse(gbk(WEB));
    expect(statement.account).toBe('zhang***@example.com');
    expect(statement.invalid).toEqual([]);
    expect(summary(statement)).toEqual([
      [6, 'expense', 'done', '493.50'],
      [7, 'neutral', 'done', '2.83'],
      [8, 'expense', 'closed', '29.00'],
      [9, 'income', 'refund', '29.00'],
      [10, 'expense', 'pending', '299.00'],
      [11, 'expense', 'done', '100.00'],
      [12, 'expense', 'failed', '800.00'],
    ]);
    expect(statement.lines[0]).toEqual({
      line: 6,
      date: cst(2019, 12, 31, 13, 26, 29), // 付款时间, not 交易创建时间 (13:26:28)
      amount: '493.50',
      currency: 'CNY',
      direction: 'expense',
      status: 'done',
      payee: '中国铁路网络有限公司',
      description: '火车票',
      externalId: '2019123122001456000011112222',
      sourceCategory: '即时到账交易',
    });
  });

  it('dates a row without 付款时间 by 交易创建时间, notes a 服务费, and links a Taobao refund through the 商家订单号', () => {
    const statement = parse(gbk(WEB));
    expect(statement.lines.find((l) => l.line === 10)?.date).toBe(cst(2019, 12, 30, 21, 0, 0));
    expect(statement.lines.find((l) => l.line === 11)?.description).toBe('转账; 生日快乐; 服务费 0.50');
    expect(statement.lines.find((l) => l.line === 9)).toMatchObject({
      status: 'refund',
      direction: 'income',
      externalId: '2019122922001100000000000009',
      originalId: '2019122822001100000000000001',
    });
  });

  it('does not count the summary lines even when the dashed line before them is missing', () => {
    const statement = parse(gbk(WEB.replace(/\n-{20,}\n共7笔记录/, '\n共7笔记录')));
    expect(statement.lines).toHaveLength(7);
    expect(statement.invalid).toEqual([]);
  });

  it('reads the same file saved as UTF-8', () => {
    expect(parse(utf8(WEB))).toEqual(parse(gbk(WEB)));
  });
});

describe('rows that cannot be read', () => {
  it('reports a bad date, amount or 收/支 by line and cell, and imports the rest', () => {
    const text = APP.replace('2024-03-05 09:00:00 ', '2024-02-30 09:00:00 ')
      .replace(/,0\.35 +,/, ',0.3x5 ,')
      .replace('不计收支                ,1000.00', '转出                  ,1000.00');
    const statement = parse(utf8(text));
    expect(statement.invalid).toEqual([
      { line: 27, kind: 'badDate', reason: 'The 交易时间 cell "2024-02-30 09:00:00" is not a date and time (YYYY-MM-DD HH:mm:ss).' },
      { line: 29, kind: 'badAmount', reason: 'The 金额 cell "0.3x5" is not an amount.' },
      { line: 33, kind: 'badDirection', reason: 'The 收/支 cell "转出" is not 收入, 支出 or 不计收支.' },
    ]);
    expect(statement.lines.map((l) => l.line)).toEqual([26, 28, 30, 31, 32, 34]);
  });

  it('reports an empty amount as a missing field', () => {
    const statement = parse(utf8(APP.replace(/,45\.50 +,/, ',    ,')));
    expect(statement.invalid).toEqual([{ line: 26, kind: 'missingField', reason: 'The 金额 cell is empty.' }]);
  });
});

describe('a file cut off mid-row', () => {
  it('keeps the complete rows of a UTF-8 file cut inside a character and reports the cut row', () => {
    const bytes = utf8(APP);
    const cut = bytes.subarray(0, bytes.indexOf(utf8('瑞幸咖啡                 ,luckin')) + 4); // inside 幸
    const statement = parse(cut);
    expect(statement.lines.map((l) => l.line)).toEqual([26, 27, 28, 29, 30, 31, 32, 33]);
    expect(statement.invalid).toEqual([
      { line: 34, kind: 'badRow', reason: 'The row has 3 of the 12 columns of the header (the file may be cut off here, or the row was edited).' },
    ]);
  });

  it('reports a last row cut inside its last column (no closing delimiter)', () => {
    const statement = parse(gbk(APP.slice(0, -2)));
    expect(statement.lines).toHaveLength(8);
    expect(statement.invalid).toMatchObject([{ line: 34, kind: 'badRow' }]);
  });

  it('accepts a complete last row without a final line break', () => {
    const statement = parse(gbk(APP.slice(0, -1)));
    expect(statement.lines).toHaveLength(9);
    expect(statement.invalid).toEqual([]);
  });

  it('keeps the rows before the cut of a GBK web export that lost its summary', () => {
    const cutAt = WEB.indexOf('20191226110070000000000004') + 30;
    const statement = parse(gbk(WEB.slice(0, cutAt)));
    expect(statement.lines).toHaveLength(6);
    expect(statement.invalid).toMatchObject([{ line: 12, kind: 'badRow' }]);
  });
});

describe('files that are not a readable Alipay export', () => {
  it("refuses a GBK file whose bytes were mangled (read as Latin-1 and saved as UTF-8) as 'encoding'", () => {
    const mangled = utf8(iconv.decode(gbk(WEB), 'latin1'));
    const error = parseError(mangled);
    expect(error.kind).toBe('encoding');
    expect(error.message).toMatch(/garbled/);
  });

  it("refuses a file re-saved as Latin-1 (its Chinese text turned into '?') as 'encoding'", () => {
    expect(parseError(iconv.encode(APP, 'latin1')).kind).toBe('encoding');
  });

  it("refuses GBK bytes that were decoded as UTF-8 and saved again (replacement characters) as 'encoding'", () => {
    expect(parseError(utf8(gbk(APP).toString('utf8'))).kind).toBe('encoding');
  });

  it("refuses another bank's CSV, or a WeChat Pay bill, as 'notThisFormat'", () => {
    const error = parseError(utf8(fixture('other-bank.csv')));
    expect(error.kind).toBe('notThisFormat');
    expect(error.message).toMatch(/not an Alipay bill export/);
    expect(parseError(readFileSync(path.join(import.meta.dirname, 'fixtures', 'wechat', 'wechat-bill.csv'))).kind).toBe('notThisFormat');
  });

  it("names the columns an Alipay export lacks ('missingColumns')", () => {
    const text = [
      '支付宝交易记录明细查询',
      '账号:[a@example.com]',
      '-----交易记录明细列表-----',
      '交易号 ,交易创建时间 ,交易对方 ,商品名称 ,收/支 ,',
      '2019123122001 ,2019-12-31 13:26:28 ,某店 ,某物 ,支出 ,',
      '',
    ].join('\n');
    const error = parseError(gbk(text));
    expect(error.kind).toBe('missingColumns');
    expect(error.message).toBe('This Alipay export lacks the columns 金额, 交易状态: export the bill again without removing columns.');
  });

  it("refuses an empty file, or one of only white space, as 'empty'", () => {
    expect(parseError(Buffer.alloc(0)).kind).toBe('empty');
    expect(parseError(Buffer.from('\ufeff\r\n,,\r\n', 'utf8')).kind).toBe('empty');
  });

  it("refuses a spreadsheet as 'notThisFormat'", () => {
    expect(parseError(Buffer.from('PK\x03\x04rest of a zip', 'latin1')).kind).toBe('notThisFormat');
  });
});

describe('sniffAlipay', () => {
  it('recognises both layouts in GBK and UTF-8', () => {
    for (const text of [APP, WEB]) {
      expect(sniffAlipay(gbk(text))).toBe(true);
      expect(sniffAlipay(utf8(text))).toBe(true);
    }
  });

  it("does not claim a WeChat Pay bill or another bank's CSV", () => {
    expect(sniffAlipay(readFileSync(path.join(import.meta.dirname, 'fixtures', 'wechat', 'wechat-bill.csv')))).toBe(false);
    expect(sniffAlipay(utf8(fixture('other-bank.csv')))).toBe(false);
  });
});

describe('the status table', () => {
  it.each([
    ['交易成功', '', 'done'],
    ['支付成功', '', 'done'],
    ['还款成功', '', 'done'],
    ['已支出', '', 'done'],
    ['已收入', '', 'done'],
    ['资金转移', '', 'done'],
    ['退款成功', '', 'refund'],
    ['退税成功', '', 'refund'],
    ['交易成功', '退款-抽纸', 'refund'],
    ['交易关闭', '', 'closed'],
    ['已关闭', '', 'closed'],
    ['解冻成功', '', 'closed'],
    ['交易失败', '', 'failed'],
    ['支付失败', '', 'failed'],
    ['转账失败', '', 'failed'],
    ['等待付款', '', 'pending'],
    ['等待确认收货', '', 'pending'],
    ['处理中', '', 'pending'],
    ['退款中', '退款-抽纸', 'pending'],
    ['冻结成功', '', 'pending'],
    ['待支出', '', 'pending'],
    ['某种新状态', '', 'pending'],
  ])('%s (商品说明 %j) → %s', (status, goods, expected) => {
    expect(alipayStatus(status, goods)).toBe(expected);
  });
});
