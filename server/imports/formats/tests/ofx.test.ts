import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { ofxDateParser, parseOfx, sniffOfx } from '../ofx';
import type { ParsedStatement } from '../types';
import { fixture, parseNow, statementError } from './helpers';

/**
 * OFX/QFX statements. The fixtures follow public layouts (the transactions are made up):
 * - ofx/bank-sgml-102.ofx: OFX 1.02 SGML on few lines, leaf end tags left out, `[-5:EST]` dates,
 *   CRLF, as in github.com/jseutter/ofxparse tests/fixtures/bank_medium.ofx.
 * - ofx/creditcard.qfx: a QFX credit-card download (CREDITCARDMSGSRSV1/CCSTMTRS, one element a line,
 *   a blank first line, `[0:GMT]` dates, Intuit's INTU.BID/INTU.USERID), as in
 *   github.com/jseutter/ofxparse tests/fixtures/chase_cc.qfx.
 * - ofx/bank-v211.ofx: OFX 2.1.1 XML (`<?OFX OFXHEADER="200" …?>`, every element closed), with
 *   DTUSER, PAYEE, CURRENCY and ORIGCURRENCY as the OFX 2.1.1 spec defines them (§11.4.3 STMTTRN,
 *   §5.2 currency), header as ofxtools' documentation shows (github.com/csingley/ofxtools docs).
 * - ofx/cp1252.ofx: OFX 1.6 header `ENCODING:USASCII`/`CHARSET:1252` (spec §2.2) with Windows-1252
 *   bytes (é, –, ×, €) and decimal commas (spec §3.2.9.1 allows ',' as the radix point).
 * - ofx/multi-statement.ofx: two bank statements in one file, tab-indented SGML with VERSION:151,
 *   as the template github.com/Grunnpi/BankPerfectTools resource/ofx.ftl writes it; with a missing
 *   `</STMTTRN>`, an empty `<MEMO>` leaf and a `[+8]` zone.
 */

function parse(bytes: Buffer, timeZone = 'UTC'): ParsedStatement {
  return parseNow(parseOfx, bytes, { timeZone });
}

const SGML_HEADER =
  'OFXHEADER:100\r\nDATA:OFXSGML\r\nVERSION:102\r\nSECURITY:NONE\r\nENCODING:USASCII\r\nCHARSET:1252\r\nCOMPRESSION:NONE\r\nOLDFILEUID:NONE\r\nNEWFILEUID:NONE\r\n\r\n';

function sgml(transactions: string, header = SGML_HEADER): string {
  return `${header}<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>USD<BANKACCTFROM><BANKID>1<ACCTID>9876<ACCTTYPE>CHECKING</BANKACCTFROM><BANKTRANLIST>${transactions}</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\r\n`;
}

describe('parseOfx: OFX 1.x SGML', () => {
  it('reads a bank statement: unclosed leaves, zone brackets, DTUSER over DTPOSTED, a check number, a zero row', () => {
    const parsed = parse(fixture('ofx/bank-sgml-102.ofx'), 'America/Toronto');
    expect(parsed.format).toBe('ofx');
    expect(parsed.account).toBe('12300 000012345678');
    expect(parsed.currency).toBe('CAD');
    expect(parsed.lines.find((l) => l.line === 4)).toMatchObject({ amount: '0.00' });
    expect(parsed.lines.filter((l) => l.line !== 4)).toEqual([
      {
        line: 1,
        date: Date.UTC(2024, 3, 1, 17, 20, 17),
        amount: '6.60',
        currency: 'CAD',
        direction: 'expense',
        status: 'done',
        payee: 'BAGEL HOUSE #112',
        description: 'POS MERCHANDISE',
        externalId: '0000123456782024040100001',
        sourceCategory: 'POS',
      },
      {
        line: 2,
        date: Date.UTC(2024, 3, 2, 4),
        amount: '316.67',
        currency: 'CAD',
        direction: 'expense',
        status: 'done',
        payee: 'Northside Property Mgmt',
        description: 'MISCELLANEOUS PAYMENTS; Check 123',
        externalId: '0000123456782024040200004',
        sourceCategory: 'CHECK',
      },
      {
        line: 3,
        date: Date.UTC(2024, 3, 14, 4),
        amount: '2500.00',
        currency: 'CAD',
        direction: 'income',
        status: 'done',
        payee: 'ACME PAYROLL',
        description: 'SALARY APRIL',
        externalId: '0000123456782024041500007',
        sourceCategory: 'DIRECTDEP',
      },
      {
        line: 5,
        date: Date.UTC(2024, 4, 2, 4),
        amount: '150',
        currency: 'CAD',
        direction: 'income',
        status: 'done',
        payee: "Tom & Jerry's Diner",
        description: 'E-TRANSFER',
        externalId: '0000123456782024050200011',
        sourceCategory: 'XFER',
      },
    ]);
    // A zero row is read as written: the status rules skip it (docs/import.md, "amount 0").
    expect(parsed.invalid).toEqual([]);
  });

  it('reads a QFX credit card statement: the card number, [0:GMT] dates, Intuit elements passed over, a memo repeating the payee dropped', () => {
    const parsed = parse(fixture('ofx/creditcard.qfx'), 'Asia/Tokyo');
    expect(parsed.account).toBe('4111222233334444');
    expect(parsed.currency).toBe('USD');
    expect(parsed.invalid).toEqual([]);
    expect(parsed.lines.map((l) => [l.date, l.amount, l.direction, l.payee, l.description, l.cardTail, l.sourceCategory])).toEqual([
      [Date.UTC(2024, 1, 28, 12), '42.17', 'expense', 'SQ *CORNER COFFEE ROASTERS', '', '4444', 'DEBIT'],
      [Date.UTC(2024, 1, 29, 12), '250.00', 'income', 'Payment Thank You-Mobile', '', '4444', 'CREDIT'],
      [Date.UTC(2024, 2, 1, 12), '19.99', 'expense', 'STREAMFLIX.COM', '', '4444', 'DEBIT'],
    ]);
    expect(parsed.lines.map((l) => l.externalId)).toEqual(['2024022824692164059100123456789', '2024022924692164059100987654321', '2024030124692164059100555555555']);
  });

  it('reads a Windows-1252 file as its CHARSET says, with decimal commas', () => {
    const parsed = parse(fixture('ofx/cp1252.ofx'), 'Europe/Paris');
    expect(parsed.account).toBe('00012345678');
    expect(parsed.lines.map((l) => [l.date, l.amount, l.direction, l.payee, l.description])).toEqual([
      [Date.UTC(2024, 2, 3, 23), '7.00', 'expense', 'Crêperie Saint-Médard', 'Café crème – 2 × 3,50 €'],
      [Date.UTC(2024, 2, 8, 9), '1234.5', 'income', 'VIR SEPA Société Générale', 'Remboursement français'],
    ]);
  });

  it('reads every statement of a file, with an unclosed STMTTRN, an empty MEMO and a bad date', () => {
    const parsed = parse(fixture('ofx/multi-statement.ofx'), 'Asia/Singapore');
    expect(parsed.account).toBe('111-222-333, 111-222-999');
    expect(parsed.currency).toBe('SGD');
    expect(parsed.lines.map((l) => [l.line, l.date, l.amount, l.direction, l.payee, l.externalId, l.method])).toEqual([
      [1, Date.UTC(2024, 0, 5, 1, 30), '8.90', 'expense', 'HAWKER CENTRE STALL 12', 'A-0001', '111-222-333'],
      [2, Date.UTC(2024, 0, 24, 16), '1000.00', 'income', 'INTEREST', 'A-0002', '111-222-333'],
      [4, Date.UTC(2024, 0, 19, 16), '300.00', 'expense', 'TRANSFER TO 111-222-333', 'B-0001', '111-222-999'],
    ]);
    expect(parsed.invalid).toEqual([{ line: 3, kind: 'badDate', reason: expect.stringContaining('"2024-01-26"') }]);
  });

  it('reads leaves closed or not, comments, self-closed and lower-case tags the same way', () => {
    const parsed = parse(
      Buffer.from(
        sgml(
          '<STMTTRN><TRNTYPE>DEBIT</TRNTYPE><!-- a comment <NAME>NOT THIS --><DTPOSTED>20240301<TRNAMT>-1.5<FITID>X1</FITID><name>Shop &lt;1&gt; &#233;&#xE9;</name><MEMO/></STMTTRN>' +
            '<STMTTRN><TRNTYPE>CREDIT<DTPOSTED>20240302<TRNAMT>2<FITID>X2<PAYEE><NAME>Payer Inc<ADDR1>1 Road</PAYEE><MEMO>Thanks</STMTTRN>',
        ),
      ),
    );
    expect(parsed.lines.map((l) => [l.amount, l.direction, l.payee, l.description, l.externalId])).toEqual([
      ['1.5', 'expense', 'Shop <1> éé', '', 'X1'],
      ['2', 'income', 'Payer Inc', 'Thanks', 'X2'],
    ]);
  });

  it('reports a transaction without an amount or a date, and a DTUSER that is no date falls back to DTPOSTED', () => {
    const parsed = parse(
      Buffer.from(
        sgml(
          '<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20240301<FITID>N1<NAME>NO AMOUNT</STMTTRN>' +
            '<STMTTRN><TRNTYPE>DEBIT<TRNAMT>-3.00<FITID>N2<NAME>NO DATE</STMTTRN>' +
            '<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20240303<DTUSER>unknown<TRNAMT>-4.00abc<FITID>N3</STMTTRN>' +
            '<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20240304<DTUSER>20241399<TRNAMT>-5.00<FITID>N4</STMTTRN>',
        ),
      ),
    );
    expect(parsed.invalid.map((i) => [i.line, i.kind])).toEqual([
      [1, 'missingField'],
      [2, 'missingField'],
      [3, 'badAmount'],
    ]);
    expect(parsed.lines.map((l) => [l.line, l.date])).toEqual([[4, Date.UTC(2024, 2, 4)]]);
  });
});

describe('parseOfx: OFX 2.x XML', () => {
  it('reads an XML statement: DTUSER preferred, PAYEE/NAME, entities and CDATA, CURRENCY over CURDEF, ORIGCURRENCY keeping CURDEF', () => {
    const parsed = parse(fixture('ofx/bank-v211.ofx'), 'Europe/Berlin');
    expect(parsed.account).toBe('DE89370400440532013000');
    // EUR and USD lines: no single statement currency.
    expect(parsed.currency).toBeUndefined();
    expect(parsed.invalid).toEqual([]);
    expect(parsed.lines.map((l) => [l.line, l.date, l.amount, l.currency, l.direction, l.payee, l.description])).toEqual([
      [1, Date.UTC(2024, 5, 1, 17, 30), '23.40', 'EUR', 'expense', 'Bäckerei & Café Schmidt', 'Kartenzahlung'],
      [2, Date.UTC(2024, 5, 5, 10), '15.00', 'USD', 'expense', 'GITHUB.COM', 'Subscription <Pro>'],
      [3, Date.UTC(2024, 5, 6, 22), '12.34', 'EUR', 'expense', 'LONDON TRANSPORT', ''],
      [4, Date.UTC(2024, 5, 13, 22), '1850.00', 'EUR', 'income', 'Arbeitgeber GmbH', 'Lohn/Gehalt 06/2024 <netto>'],
    ]);
  });

  it('reads an OFX 2 header over an SGML-style body (leaves not closed), as some banks write it', () => {
    const text = sgml(
      '<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20240902120000[+3:EEST]<TRNAMT>-15.77<FITID>F1<NAME>LIDL<MEMO>PIRKINYS &amp; CO</STMTTRN>',
      '<?xml version="1.0" encoding="UTF-8"?>\n<?OFX OFXHEADER="200" VERSION="220"?>\n',
    );
    const parsed = parse(Buffer.from(text));
    expect(parsed.lines.map((l) => [l.date, l.amount, l.payee, l.description])).toEqual([[Date.UTC(2024, 8, 2, 9), '15.77', 'LIDL', 'PIRKINYS & CO']]);
  });
});

describe('ofxDateParser', () => {
  it.each([
    ['20090401122017.000[-5:EST]', 'UTC', Date.UTC(2009, 3, 1, 17, 20, 17)],
    ['20240105093000[+8]', 'UTC', Date.UTC(2024, 0, 5, 1, 30)],
    ['20240105093000[+8:CST]', 'America/New_York', Date.UTC(2024, 0, 5, 1, 30)],
    ['20200101120000[0:GMT]', 'Asia/Shanghai', Date.UTC(2020, 0, 1, 12)],
    ['20240308100000.250[+1:CET]', 'UTC', Date.UTC(2024, 2, 8, 9, 0, 0, 250)],
    ['20240101', 'Asia/Shanghai', Date.UTC(2023, 11, 31, 16)],
    ['20240101120000', 'America/New_York', Date.UTC(2024, 0, 1, 17)],
    ['20240701120000', 'America/New_York', Date.UTC(2024, 6, 1, 16)],
    ['202401011200', 'UTC', Date.UTC(2024, 0, 1, 12)],
  ])('%s in %s', (text, zone, expected) => {
    expect(ofxDateParser(zone)(text)).toBe(expected);
  });

  it.each(['2024-01-26', '20241301', '20240230', '20240101250000', '2024010', '', '20240101[+99:XX]'])('refuses %j', (text) => {
    expect(ofxDateParser('UTC')(text)).toBeNull();
  });
});

describe('parseOfx: encodings', () => {
  const text = sgml('<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20240301<TRNAMT>-9.99<FITID>E1<NAME>Müller Café €</STMTTRN>');

  it('reads Windows-1252 bytes in a file labelled UTF-8 (a common bank mistake)', () => {
    const labelled = text.replace('ENCODING:USASCII', 'ENCODING:UTF-8').replace('CHARSET:1252', 'CHARSET:NONE');
    expect(parse(iconv.encode(labelled, 'win1252')).lines.at(0)?.payee).toBe('Müller Café €');
  });

  it('reads UTF-8 bytes in a file labelled CHARSET:1252', () => {
    expect(parse(Buffer.from(text, 'utf8')).lines.at(0)?.payee).toBe('Müller Café €');
  });

  it('reads UTF-16 with or without a BOM', () => {
    expect(parse(Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(text, 'utf16le')])).lines.at(0)?.payee).toBe('Müller Café €');
    expect(parse(iconv.encode(text, 'utf16le')).lines.at(0)?.payee).toBe('Müller Café €');
  });

  it('refuses binary data as encoding', () => {
    const zip = Buffer.concat([Buffer.from('PK\x03\x04\x14\x00\x00\x00', 'latin1'), Buffer.from(text)]);
    expect(statementError(() => parse(zip)).kind).toBe('encoding');
  });
});

describe('parseOfx: files it cannot read', () => {
  it('refuses a file cut off in the middle of a transaction as truncated', () => {
    const whole = fixture('ofx/bank-sgml-102.ofx');
    const cut = whole.subarray(0, whole.indexOf('<STMTTRN><TRNTYPE>SRVCHG') + 30);
    const error = statementError(() => parse(cut));
    expect(error.kind).toBe('truncated');
    expect(error.message).toContain('</OFX>');
  });

  it('refuses a file cut off before its closing </OFX> as truncated', () => {
    const whole = fixture('ofx/creditcard.qfx').toString('latin1');
    expect(statementError(() => parse(Buffer.from(whole.slice(0, whole.lastIndexOf('</OFX>')), 'latin1'))).kind).toBe('truncated');
  });

  it('refuses a header without a body as truncated', () => {
    expect(statementError(() => parse(Buffer.from(SGML_HEADER))).kind).toBe('truncated');
  });

  it('refuses a CSV given as OFX as notThisFormat', () => {
    const error = statementError(() => parse(Buffer.from('Date,Description,Amount\n2024-03-01,Coffee,-3.50\n')));
    expect(error.kind).toBe('notThisFormat');
    expect(error.message).toContain('not an OFX');
  });

  it('reads the cash lines of an investment statement (INVBANKTRAN), not its trades (issue 35: a cash-management account is sent that way)', () => {
    const cash = (fitid: string, amount: string, name: string) =>
      `<INVBANKTRAN><STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20240305<TRNAMT>${amount}<FITID>${fitid}<NAME>${name}</STMTTRN><SUBACCTFUND>CASH</INVBANKTRAN>`;
    const trade = `<BUYSTOCK><INVBUY><INVTRAN><FITID>T-1<DTTRADE>20240304</INVTRAN><SECID><UNIQUEID>123<UNIQUEIDTYPE>CUSIP</SECID><UNITS>10<UNITPRICE>5<TOTAL>-50.00<SUBACCTSEC>CASH<SUBACCTFUND>CASH</INVBUY><BUYTYPE>BUY</BUYSTOCK>`;
    const file =
      `${SGML_HEADER}<OFX><INVSTMTMSGSRSV1><INVSTMTTRNRS><INVSTMTRS><DTASOF>20240301<CURDEF>USD<INVACCTFROM><BROKERID>b.com<ACCTID>777</INVACCTFROM>` +
      `<INVTRANLIST><DTSTART>20240301<DTEND>20240331${trade}${cash('C-1', '-33.7200', 'CHECK PAID')}${cash('C-2', '1000.00', 'DEPOSIT')}</INVTRANLIST></INVSTMTRS></INVSTMTTRNRS></INVSTMTMSGSRSV1></OFX>`;
    const parsed = parse(Buffer.from(file));
    expect(parsed.account).toBe('777');
    expect(parsed.lines.map((l) => [l.externalId, l.amount, l.direction, l.payee, l.currency])).toEqual([
      ['C-1', '33.7200', 'expense', 'CHECK PAID', 'USD'],
      ['C-2', '1000.00', 'income', 'DEPOSIT', 'USD'],
    ]);
  });

  it('refuses an investment statement without cash lines as notThisFormat', () => {
    const investment = `${SGML_HEADER}<OFX><INVSTMTMSGSRSV1><INVSTMTTRNRS><INVSTMTRS><DTASOF>20240301<CURDEF>USD<INVACCTFROM><BROKERID>b.com<ACCTID>1</INVACCTFROM></INVSTMTRS></INVSTMTTRNRS></INVSTMTMSGSRSV1></OFX>`;
    const error = statementError(() => parse(Buffer.from(investment)));
    expect(error.kind).toBe('notThisFormat');
    expect(error.message).toContain('investment');
  });

  it('refuses a response without a statement as empty, naming the bank error', () => {
    const failed = `${SGML_HEADER}<OFX><SIGNONMSGSRSV1><SONRS><STATUS><CODE>15500<SEVERITY>ERROR<MESSAGE>Invalid user ID or password</STATUS><DTSERVER>20240301</SONRS></SIGNONMSGSRSV1></OFX>`;
    const error = statementError(() => parse(Buffer.from(failed)));
    expect(error.kind).toBe('empty');
    expect(error.message).toContain('15500 (Invalid user ID or password)');
  });

  it('refuses an empty file as empty', () => {
    expect(statementError(() => parse(Buffer.alloc(0))).kind).toBe('empty');
    expect(statementError(() => parse(Buffer.from('\r\n  \r\n'))).kind).toBe('empty');
  });

  it('reads two downloads joined in one file, and refuses them when the second is cut off', () => {
    const first = sgml('<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20240301<TRNAMT>-1.00<FITID>J1</STMTTRN>');
    const second = sgml('<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20240302<TRNAMT>-2.00<FITID>J2</STMTTRN>');
    expect(parse(Buffer.from(first + second)).lines.map((l) => l.externalId)).toEqual(['J1', 'J2']);
    expect(statementError(() => parse(Buffer.from(first + second.slice(0, second.indexOf('</BANKTRANLIST>'))))).kind).toBe('truncated');
  });

  it('returns no lines for a statement without transactions', () => {
    const parsed = parse(Buffer.from(sgml('')));
    expect(parsed).toEqual({ format: 'ofx', lines: [], invalid: [], currency: 'USD', account: '9876' });
  });
});

describe('sniffOfx', () => {
  it('recognises OFX 1 and 2 and QFX files', () => {
    for (const name of ['bank-sgml-102.ofx', 'creditcard.qfx', 'bank-v211.ofx', 'cp1252.ofx', 'multi-statement.ofx']) expect(sniffOfx(fixture(`ofx/${name}`)), name).toBe(true);
    expect(sniffOfx(Buffer.from('<OFX>\n<SIGNONMSGSRSV1>'))).toBe(true);
  });

  it('does not claim QIF, CAMT, CSV or empty files', () => {
    expect(sniffOfx(fixture('qif/bank-us.qif'))).toBe(false);
    expect(sniffOfx(fixture('camt/camt053-v02.xml'))).toBe(false);
    expect(sniffOfx(Buffer.from('Date,Payee,Amount\n'))).toBe(false);
    expect(sniffOfx(Buffer.alloc(0))).toBe(false);
  });
});
