import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import writeXlsxFile from 'write-excel-file/node';
import { parseAlipay } from '../alipay';
import { guessFormat } from '../registry';
import { parseWechat } from '../wechat';
import type { StatementFormat } from '../types';
import { fixture, statementError } from './helpers';

/**
 * Issue 35: which format a file is, by its header and structure, never by words in its rows. A
 * Chinese bank's CSV names 支付宝 and 微信支付 as merchants and payees (csv/cn-bank-merchants.csv,
 * our own rows in the layout of such exports, with a preamble), and was read as an Alipay or
 * WeChat Pay bill; the refusal of such a file now points to the generic CSV.
 */

const FIXTURES: Array<[string, StatementFormat]> = [
  ['alipay/app-export.csv', 'alipay'],
  ['alipay/web-export.txt', 'alipay'],
  ['wechat/wechat-bill.csv', 'wechat'],
  ['wechat/wechat-double-note.csv', 'wechat'],
  ['ofx/bank-sgml-102.ofx', 'ofx'],
  ['ofx/creditcard.qfx', 'ofx'],
  ['ofx/bank-v211.ofx', 'ofx'],
  ['qif/bank-us.qif', 'qif'],
  ['qif/comments-2000s.qif', 'qif'],
  ['camt/camt053-v02.xml', 'camt'],
  ['camt/camt052-v02-prefixed.xml', 'camt'],
  ['csv/us-chase-credit.csv', 'csv'],
  ['csv/cn-bank-gbk.csv', 'csv'],
  ['csv/no-header.csv', 'csv'],
  ['csv/placeholder-columns.csv', 'csv'],
  ['csv/cn-bank-merchants.csv', 'csv'],
  ['alipay/other-bank.csv', 'csv'],
];

describe('guessFormat: by the header and the structure', () => {
  it.each(FIXTURES)('%s is %s', (name, format) => {
    expect(guessFormat(fixture(name))).toBe(format);
  });

  it('a bank CSV whose rows name 支付宝 and 微信支付 is a CSV, in UTF-8 and in GBK', () => {
    const text = fixture('csv/cn-bank-merchants.csv').toString('utf8');
    expect(guessFormat(Buffer.from(text))).toBe('csv');
    expect(guessFormat(iconv.encode(text, 'gbk'))).toBe('csv');
  });

  it('an Alipay bill re-saved as GBK, and a WeChat Pay bill as XLSX whose title row was replaced, are still recognised', async () => {
    expect(guessFormat(iconv.encode(fixture('alipay/app-export.csv').toString('utf8'), 'gbk'))).toBe('alipay');
    const rows = fixture('wechat/wechat-bill.csv')
      .toString('utf8')
      .split('\n')
      .slice(16)
      .filter(Boolean)
      .map((line) => line.split(','));
    const xlsx = await writeXlsxFile([['Column1', 'Column2'], ...rows], {}).toBuffer();
    expect(guessFormat(xlsx)).toBe('wechat');
  });
});

describe('a bank CSV sent as a payment app bill', () => {
  it('is refused with a pointer to the generic CSV format', async () => {
    const bytes = fixture('csv/cn-bank-merchants.csv');
    const alipay = statementError(() => parseAlipay(bytes, { timeZone: 'Asia/Shanghai' }));
    expect(alipay.kind).toBe('notThisFormat');
    expect(alipay.message).toContain('"Other CSV" (format csv)');
    let wechat: unknown;
    try {
      await parseWechat(bytes, { timeZone: 'Asia/Shanghai' });
    } catch (error) {
      wechat = error;
    }
    expect(wechat).toMatchObject({ kind: 'notThisFormat', message: expect.stringContaining('"Other CSV" (format csv)') });
  });
});
