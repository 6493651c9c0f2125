import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import writeXlsxFile from 'write-excel-file/node';
import { parseAlipay } from '../alipay';
import { parseCamt } from '../camt';
import { describeCsv, parseMappedCsv } from '../csv-mapped';
import { parseOfx } from '../ofx';
import { parseQif } from '../qif';
import { StatementError, type ParseOptions, type StatementParser } from '../types';
import { parseWechat } from '../wechat';

/**
 * Issue 34, finding 2 and "Also": every parser takes time linear in its input, hostile input
 * included. Each case builds input of size n and 8n of one shape that a quadratic step would
 * choke on (tags nested deeper and deeper, markup that never ends, a run of quotes inside an
 * amount, one payee with thousands of refunds…), and checks that 8 times the input takes well
 * under 64 times as long: linear is about 8, quadratic about 64, and the bound (24) leaves room
 * for a loaded 2-core machine. Each size is timed three times and the fastest counts, so a pause
 * of the machine cannot fail the test; an outcome that is an error must be a StatementError (a
 * clear refusal), never a crash.
 */

const OPTIONS: ParseOptions = { timeZone: 'Asia/Shanghai' };
const RATIO_LIMIT = 24;
/** Times under this are taken as this (the timer's grain, and the fixed costs of a run). */
const FLOOR_MS = 10;

// A full garbage collection before each timed run, so that one run does not pay for another's garbage.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** The least CPU time of `rounds` runs (CPU time, not wall time: what other processes on the machine do does not count). */
async function timeOf(parser: StatementParser, bytes: Buffer, options: ParseOptions, rounds: number): Promise<number> {
  let best = Infinity;
  for (let round = 0; round < rounds; round++) {
    collectGarbage();
    const started = process.cpuUsage();
    try {
      await parser(bytes, options);
    } catch (error) {
      if (!(error instanceof StatementError)) throw error;
    }
    const used = process.cpuUsage(started);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

type Make = (n: number) => Buffer | Promise<Buffer>;

/**
 * Parses make(n) and make(8n) (n is chosen per case so that 8n stays under a few MB, where the
 * garbage collector's own growth does not blur the picture); the ratio of their times must stay
 * far from quadratic's 64.
 */
async function expectLinear(make: Make, n: number, parser: StatementParser, options: ParseOptions = OPTIONS) {
  const small = await make(n);
  const large = await make(8 * n);
  await timeOf(parser, small, options, 1); // warm up (JIT, caches)
  const smallMs = await timeOf(parser, small, options, 5);
  const largeMs = await timeOf(parser, large, options, 2);
  const ratio = largeMs / Math.max(smallMs, FLOOR_MS);
  if (process.env.SHOW_RATIOS)
    console.log(`${expect.getState().currentTestName ?? ''}: ${small.length} B ${smallMs.toFixed(1)} ms, ${large.length} B ${largeMs.toFixed(1)} ms, ×${ratio.toFixed(1)}`);
  expect(ratio, `${small.length} bytes took ${smallMs.toFixed(1)} ms, ${large.length} bytes ${largeMs.toFixed(1)} ms`).toBeLessThan(RATIO_LIMIT);
}

const repeat = (unit: string, n: number) => unit.repeat(Math.max(1, Math.floor(n / unit.length)));

// OFX

const OFX_HEADER = 'OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\nCHARSET:1252\n\n';
const ofxStatement = (transactions: string) =>
  `${OFX_HEADER}<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>USD<BANKACCTFROM><ACCTID>123</BANKACCTFROM><BANKTRANLIST>${transactions}</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>`;

describe('OFX reads in linear time', () => {
  it('tags nested deeper and deeper, each of its own name (the 512 KB file that held the server 47 s)', async () => {
    const nested = (n: number) => {
      const count = Math.floor(n / 8);
      let body = '';
      for (let i = 0; i < count; i++) body += `<T${i.toString(36)}>`;
      return Buffer.from(`${OFX_HEADER}<OFX>${body}</OFX>`);
    };
    await expectLinear(nested, 32_000, parseOfx);
  });

  it('empty elements that swallow the rest, given back level by level', async () => {
    const swallowing = (n: number) => {
      const count = Math.floor(n / 12);
      let body = '';
      for (let i = 0; i < count; i++) body += `<MEMO${i.toString(36)}>\n`;
      return Buffer.from(ofxStatement(`<STMTTRN>${body}<TRNAMT>-1.00<DTPOSTED>20240101<FITID>1</STMTTRN>`));
    };
    await expectLinear(swallowing, 32_000, parseOfx);
  });

  it('many ordinary transactions', async () => {
    const many = (n: number) => Buffer.from(ofxStatement(repeat('<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20240105<TRNAMT>-12.50<FITID>X<NAME>SHOP<MEMO>COFFEE</STMTTRN>\n', n)));
    await expectLinear(many, 64_000, parseOfx);
  });

  it('unclosed tags and comments', async () => {
    await expectLinear((n) => Buffer.from(`${OFX_HEADER}<OFX>${repeat('<A <!-- x ', n)}`), 32_000, parseOfx);
  });
});

// CAMT

const CAMT_OPEN = '<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>';
const camtEntry =
  '<Ntry><Amt Ccy="EUR">12.50</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2024-01-05</Dt></BookgDt><AcctSvcrRef>R1</AcctSvcrRef>' +
  '<NtryDtls><TxDtls><RltdPties><Cdtr><Nm>Shop</Nm></Cdtr></RltdPties><RmtInf><Ustrd>Coffee</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>';
const camtStatement = (entries: string) =>
  `${CAMT_OPEN}<Stmt><Id>1</Id><Acct><Id><IBAN>DE02120300000000202051</IBAN></Id><Ccy>EUR</Ccy></Acct>${entries}</Stmt></BkToCstmrStmt></Document>`;

describe('CAMT reads in linear time', () => {
  it('start tags that never end (the MARKUP expression retried at every "<")', async () => {
    await expectLinear((n) => Buffer.from(CAMT_OPEN + repeat('<a b="1" ', n)), 32_000, parseCamt);
  });

  it('comments, CDATA and processing instructions that never end', async () => {
    await expectLinear((n) => Buffer.from(CAMT_OPEN + repeat('<!-- x <![CDATA[ y <? z ', n)), 32_000, parseCamt);
  });

  it('elements nested deeper and deeper', async () => {
    const deep = (n: number) => {
      const count = Math.floor(n / 8);
      return Buffer.from(camtStatement(`<Ntry>${'<a>'.repeat(count)}${'</a>'.repeat(count)}</Ntry>`));
    };
    await expectLinear(deep, 32_000, parseCamt);
  });

  it('many ordinary entries', async () => {
    await expectLinear((n) => Buffer.from(camtStatement(repeat(camtEntry, n))), 64_000, parseCamt);
  });

  it('many attributes and long text', async () => {
    await expectLinear((n) => Buffer.from(camtStatement(`<Ntry ${repeat('a="b" ', n / 2)}>${repeat('x', n / 2)}</Ntry>`)), 32_000, parseCamt);
  });
});

// QIF

describe('QIF reads in linear time', () => {
  it('thousands of accounts, each with a transaction', async () => {
    const accounts = (n: number) => {
      let text = '';
      for (let i = 0; text.length < n; i++) text += `!Account\nNAccount ${i}\nTBank\n^\n!Type:Bank\nD01/02/2024\nT-1.00\nPShop\n^\n`;
      return Buffer.from(text);
    };
    await expectLinear(accounts, 256_000, parseQif);
  });

  it('an amount with a run of spaces and quotes inside', async () => {
    await expectLinear((n) => Buffer.from(`!Type:Bank\nD01/02/2024\nT1${repeat(` '"`, n)}2\n^\n`), 32_000, parseQif);
  });

  it('many ordinary records', async () => {
    await expectLinear((n) => Buffer.from(`!Type:Bank\n${repeat('D01/02/2024\nT-12.50\nPShop\nMCoffee\nLFood\n^\n', n)}`), 64_000, parseQif);
  });
});

// Alipay

const ALIPAY_HEADER =
  '支付宝交易记录明细查询\n账号:[zhang@example.com]\n交易号,商家订单号,交易创建时间,付款时间,最近修改时间,交易来源地,类型,交易对方,商品名称,金额（元）,收/支,交易状态,服务费（元）,成功退款（元）,备注,资金状态\n';
const alipayRow = (i: number, amount = '12.50', status = '交易成功', id = `2024010522001${i}`) =>
  `${id},T${i},2024-01-05 10:00:00,2024-01-05 10:00:01,2024-01-05 10:00:01,其他,即时到账交易,商店,咖啡,${amount},支出,${status},0,0,,已支出\n`;

describe('Alipay bills read in linear time', () => {
  it('an amount cell with a run of quotes and spaces inside', async () => {
    await expectLinear((n) => Buffer.from(ALIPAY_HEADER + alipayRow(1, `1${repeat(`' "`, n)}2`)), 32_000, parseAlipay);
  });

  it('many refunds of one order', async () => {
    const refunds = (n: number) => {
      let text = ALIPAY_HEADER + alipayRow(0);
      for (let i = 1; text.length < n; i++) text += alipayRow(i, '1.00', '退款成功', `R${i}`).replace(`,T${i},`, ',T0,');
      return Buffer.from(text);
    };
    await expectLinear(refunds, 32_000, parseAlipay);
  });

  it('many ordinary rows, and a quoted cell that never ends', async () => {
    let i = 0;
    await expectLinear((n) => Buffer.from(ALIPAY_HEADER + repeat(alipayRow(i++), n)), 64_000, parseAlipay);
    await expectLinear((n) => Buffer.from(`${ALIPAY_HEADER}"${repeat('x,\n', n)}`), 32_000, parseAlipay);
  });
});

// WeChat Pay

const WECHAT_HEADER =
  '微信支付账单明细\n微信昵称：[小明]\n----------------------微信支付账单明细列表--------------------\n交易时间,交易类型,交易对方,商品,收/支,金额(元),支付方式,当前状态,交易单号,商户单号,备注\n';
const wechatRow = (cells: Array<string | number>) => `${cells.join(',')}\n`;

/** One payee, half of the rows payments marked refunded, half refunds naming no order: every refund looks at every payment. */
function wechatRefundRows(count: number): Array<Array<string | number>> {
  const rows: Array<Array<string | number>> = [];
  for (let i = 0; i < count; i++) {
    const day = `2024-01-${String(1 + (i % 28)).padStart(2, '0')} 10:00:00`;
    if (i % 2 === 0) rows.push([day, '商户消费', '美团', '订单', '支出', '¥9.00', '零钱', '已退款(￥1.00)', `P${i}`, '', '/']);
    else rows.push([day, '美团-退款', '美团', '/', '收入', '¥2.00', '零钱', '已退款', `R${i}`, '', '/']);
  }
  return rows;
}

describe('WeChat Pay bills read in linear time', () => {
  it('one payee with thousands of refunded payments and refunds (CSV)', async () => {
    await expectLinear(
      (n) =>
        Buffer.from(
          WECHAT_HEADER +
            wechatRefundRows(Math.floor(n / 80))
              .map(wechatRow)
              .join(''),
        ),
      128_000,
      parseWechat,
    );
  });

  it('an amount cell with a run of quotes and spaces inside (CSV)', async () => {
    const row = (n: number) => wechatRow(['2024-01-05 10:00:00', '商户消费', '商店', '咖啡', '支出', `¥1${repeat(`' "`, n)}2`, '零钱', '支付成功', 'X1', '', '/']);
    await expectLinear((n) => Buffer.from(WECHAT_HEADER + row(n)), 32_000, parseWechat);
  });

  it('the same as an XLSX spreadsheet', async () => {
    const header = WECHAT_HEADER.trim()
      .split('\n')
      .map((line) => line.split(','));
    const sheet = async (n: number) => writeXlsxFile([...header, ...wechatRefundRows(Math.floor(n / 80)).map((row) => row.map(String))]).toBuffer();
    await expectLinear(sheet, 16_000, parseWechat);
  });
});

// Mapped CSV

const MAPPED: ParseOptions = { timeZone: 'UTC', mapping: { date: 0, amount: 1, payee: 2, description: 3 } };

describe('mapped CSV reads in linear time', () => {
  it('an amount cell of ",1a" again and again (the decimal-comma check)', async () => {
    await expectLinear((n) => Buffer.from(`Date,Amount,Payee,Memo\n2024-01-05,${repeat(',1a', n)}5,Shop,Coffee\n`), 32_000, parseMappedCsv, MAPPED);
  });

  it('an amount cell with a run of quotes and spaces inside', async () => {
    await expectLinear((n) => Buffer.from(`Date,Amount,Payee,Memo\n2024-01-05,"1${repeat(`' `, n)}2",Shop,Coffee\n`), 32_000, parseMappedCsv, MAPPED);
  });

  it('many ordinary rows, a quoted cell that never ends, and the wizard reading the columns', async () => {
    await expectLinear((n) => Buffer.from(`Date,Amount,Payee,Memo\n${repeat('2024-01-05,-12.50,Shop,Coffee\n', n)}`), 64_000, parseMappedCsv, MAPPED);
    await expectLinear((n) => Buffer.from(`Date,Amount,Payee,Memo\n"${repeat('x,\n', n)}`), 32_000, parseMappedCsv, MAPPED);
    const describe = (bytes: Buffer) => ({ format: 'csv' as const, lines: [], invalid: [], ...describeCsv(bytes) });
    await expectLinear((n) => Buffer.from(`${repeat('Date   :', n)},Amount\n2024-01-05,1\n`), 16_000, describe);
  });
});
