import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { guessDateFormat, parseCsvDate } from '../csv-dates';
import { guessFor, guessMapping } from '../csv-guess';
import { describeCsv, parseMappedCsv } from '../csv-mapped';
import { fixture as fixtureBytes, parseNow, statementError } from './helpers';
import type { CsvMapping, ParsedStatement } from '../types';

/**
 * The generic CSV format with a column mapping. The bank fixtures follow public sample layouts
 * (header names, delimiters, number and date styles; the rows are made up):
 * - us-chase-credit.csv: Chase credit-card export `Transaction Date,Post Date,Description,Category,Type,Amount,Memo`,
 *   as in github.com/evanGunning/banki src/types/CCTransaction.ts and github.com/apiispanen/biohacker chase_pull.py.
 * - uk-nationwide-statement.csv: Nationwide statement export (3 preamble lines, a blank line, quoted cells,
 *   `13 Jun 2025` dates, £ amounts in "Paid out"/"Paid in"), as in github.com/WillOnGit/nationwide-transaction-parser
 *   fixtures/test-statement.csv. Written with CRLF line ends.
 * - de-sparkasse-1252.csv: Sparkasse export `Buchungstag;Valuta;Auftraggeber/Empfänger;…;Betrag;Währung;Saldo`
 *   (';', DD.MM.YYYY, '1.234,56'), as in github.com/nicolettas-muggelbude/RechnungsPilot vorlagen/bank-csv/TEMPLATE.md;
 *   encoded in Windows-1252 (with a '€' at 0x80), CRLF.
 * - cn-bank-gbk.csv: a Chinese bank's 交易明细 in GBK with a preamble, cells padded with spaces and a tab, '-' in
 *   the unused amount column, 人民币 as currency and a 合计 footer, in the style of ICBC's debit-card export in
 *   github.com/deb-sig/double-entry-generator example/icbc/debit-v2/example-icbc-debit-v2-records.csv, with the
 *   columns 交易日期/摘要/收入金额/支出金额/余额/币种/对方户名/对方账号/流水号.
 */

const fixture = (name: string) => fixtureBytes(`csv/${name}`);
const csv = (text: string) => Buffer.from(text, 'utf8');

function parse(bytes: Buffer, mapping: CsvMapping | undefined, timeZone = 'UTC'): ParsedStatement {
  return parseNow(parseMappedCsv, bytes, { timeZone, mapping });
}

const CHASE: CsvMapping = { date: 0, payee: 2, category: 3, amount: 5, description: 6, dateFormat: 'MM/DD/YYYY' };
const NATIONWIDE: CsvMapping = { date: 0, category: 1, payee: 2, outflow: 3, inflow: 4, dateFormat: 'DD/MM/YYYY', skipRows: 4 };
const SPARKASSE: CsvMapping = { date: 0, payee: 2, description: 4, amount: 5, currency: 6, dateFormat: 'DD.MM.YYYY', decimal: ',' };
const CN_BANK: CsvMapping = { date: 0, description: 1, inflow: 2, outflow: 3, currency: 5, payee: 6, externalId: 8, skipRows: 3 };

describe('parseMappedCsv: bank exports', () => {
  it('reads a US credit-card export: signed amounts, MM/DD/YYYY in the given zone, a memo over two lines', () => {
    const parsed = parse(fixture('us-chase-credit.csv'), CHASE, 'America/New_York');
    expect(parsed.format).toBe('csv');
    expect(parsed.invalid).toEqual([]);
    expect(parsed.currency).toBeUndefined();
    expect(parsed.lines.map((l) => [l.line, l.amount, l.direction])).toEqual([
      [2, '6.50', 'expense'],
      [3, '42.17', 'expense'],
      [4, '1500.00', 'income'],
      [5, '128.04', 'expense'],
      [7, '19.99', 'income'],
      [8, '1015.49', 'expense'],
    ]);
    expect(parsed.lines[0]).toEqual({
      line: 2,
      date: Date.UTC(2024, 0, 28, 5),
      amount: '6.50',
      direction: 'expense',
      status: 'done',
      payee: 'TST* BLUE BOTTLE COFFEE',
      description: '',
      externalId: '',
      sourceCategory: 'Food & Drink',
    });
    expect(parsed.lines.at(1)?.payee).toBe('AMAZON MKTPL*2K4TL, SEATTLE');
    expect(parsed.lines.at(2)?.sourceCategory).toBeUndefined();
    expect(parsed.lines.at(3)?.description).toBe('Split with Sam\n(half is theirs)');
  });

  it('reads a UK statement with a preamble, Paid out / Paid in columns, £ amounts and "02 Jun 2025" dates (CRLF)', () => {
    const parsed = parse(fixture('uk-nationwide-statement.csv'), NATIONWIDE, 'Europe/London');
    expect(parsed.invalid).toEqual([]);
    expect(parsed.lines.map((l) => [l.line, l.date, l.amount, l.direction, l.payee, l.sourceCategory])).toEqual([
      [6, Date.UTC(2025, 5, 1, 23), '23.40', 'expense', 'TESCO STORES 3217', 'Visa purchase'],
      [7, Date.UTC(2025, 5, 2, 23), '38.00', 'expense', 'THAMES WATER', 'Direct debit'],
      [8, Date.UTC(2025, 5, 4, 23), '250.00', 'income', 'J SMITH', 'Transfer from'],
      [9, Date.UTC(2025, 5, 29, 23), '0.87', 'income', 'INTEREST', 'Bank credit'],
      [10, Date.UTC(2025, 5, 30, 23), '1100.00', 'expense', 'LANDLORD LTD', 'Payment to'],
    ]);
  });

  it('reads a German Windows-1252 export: detected encoding and ";", decimal ",", DD.MM.YYYY, one currency', () => {
    const parsed = parse(fixture('de-sparkasse-1252.csv'), SPARKASSE, 'Europe/Berlin');
    expect(parsed.invalid).toEqual([]);
    expect(parsed.currency).toBe('EUR');
    expect(parsed.lines.map((l) => [l.line, l.date, l.amount, l.direction, l.payee, l.description])).toEqual([
      [2, Date.UTC(2025, 10, 30, 23), '2500.00', 'income', 'Arbeitgeber GmbH', 'Gehalt Dezember 2025'],
      [3, Date.UTC(2025, 11, 2, 23), '850.00', 'expense', 'Hausverwaltung Müller', 'Miete Wohnung Dezember'],
      [4, Date.UTC(2025, 11, 4, 23), '4.35', 'expense', 'Bäckerei Schäfer', 'Einkauf; Brötchen'],
      [5, Date.UTC(2025, 11, 9, 23), '125.50', 'expense', 'Versicherung AG', 'Kfz-Versicherung 50 €'],
      [6, Date.UTC(2025, 11, 14, 23), '1234.56', 'expense', 'Straßenbahn Köln', 'Jahreskarte'],
    ]);
    expect(parsed.lines.every((l) => l.currency === 'EUR')).toBe(true);
  });

  it('follows an encoding hint: latin1 reads the German file the same, gbk garbles it, utf8 refuses it', () => {
    const bytes = fixture('de-sparkasse-1252.csv');
    expect(parse(bytes, { ...SPARKASSE, encoding: 'latin1' })).toEqual(parse(bytes, SPARKASSE));
    expect(parse(bytes, { ...SPARKASSE, encoding: 'gbk' }).lines.at(1)?.payee).not.toBe('Hausverwaltung Müller');
    expect(statementError(() => parse(bytes, { ...SPARKASSE, encoding: 'utf8' })).kind).toBe('encoding');
  });

  it('reads a Chinese GBK bank export: money in / out with "-" placeholders, padded cells, 人民币, a zero row, footer as invalid', () => {
    const parsed = parse(fixture('cn-bank-gbk.csv'), CN_BANK, 'Asia/Shanghai');
    expect(parsed.currency).toBe('CNY');
    expect(parsed.lines.map((l) => [l.line, l.date, l.amount, l.direction, l.payee, l.description, l.externalId])).toEqual([
      [6, Date.UTC(2024, 1, 29, 16), '8500.00', 'income', '某某科技有限公司', '工资', '2024030100012'],
      [7, Date.UTC(2024, 2, 2, 16), '35.50', 'expense', '财付通-美团外卖', '消费', '2024030300345'],
      [8, Date.UTC(2024, 2, 4, 16), '1000.00', 'expense', '李四', '转账', '2024030500078'],
      [9, Date.UTC(2024, 2, 9, 16), '12.00', 'income', '财付通-京东商城', '退款', '2024031000011'],
      // Zero: read as written; the status rules skip it (docs/import.md, "amount 0").
      [10, expect.any(Number), '0.00', expect.any(String), expect.any(String), expect.any(String), expect.any(String)],
    ]);
    expect(parsed.invalid).toEqual([{ line: 12, kind: 'badDate', reason: "'人民币合计' in '交易日期' is not a date in the YYYY-MM-DD format." }]);
  });
});

describe('parseMappedCsv: amounts and directions', () => {
  const rows = (...lines: string[]) => csv(['Date,Payee,Amount,In,Out', ...lines].join('\n'));

  it('a signed amount: negative is an expense, unless positiveIsExpense turns it around', () => {
    const bytes = rows('2024-01-05,Shop,-12.50,,', '2024-01-06,Refund,3.00,,');
    expect(parse(bytes, { date: 0, payee: 1, amount: 2 }).lines.map((l) => l.direction)).toEqual(['expense', 'income']);
    expect(parse(bytes, { date: 0, payee: 1, amount: 2, positiveIsExpense: true }).lines.map((l) => l.direction)).toEqual(['income', 'expense']);
  });

  it('money in / out: the filled column decides, a zero in the other column counts as empty, a minus sign does not flip it', () => {
    const parsed = parse(rows('2024-01-05,A,,0.00,12.00', '2024-01-06,B,,40,', '2024-01-07,C,,,-7.25', '2024-01-08,D,,(5.00),0'), { date: 0, payee: 1, inflow: 3, outflow: 4 });
    expect(parsed.invalid).toEqual([]);
    expect(parsed.lines.map((l) => [l.payee, l.amount, l.direction])).toEqual([
      ['A', '12.00', 'expense'],
      ['B', '40', 'income'],
      ['C', '7.25', 'expense'],
      ['D', '5.00', 'income'],
    ]);
  });

  it('money in / out: both filled or both empty are invalid rows; zero is read as zero (the pipeline skips it)', () => {
    const parsed = parse(rows('2024-01-05,A,,10.00,12.00', '2024-01-06,B,,,', '2024-01-07,C,,0,0.00', '2024-01-08,D,,,+0.00'), { date: 0, payee: 1, inflow: 3, outflow: 4 });
    expect(parsed.lines.map((l) => [l.line, l.payee, l.amount])).toEqual([
      [4, 'C', '0'],
      [5, 'D', '0.00'],
    ]);
    expect(parsed.invalid).toEqual([
      { line: 2, kind: 'badAmount', reason: "Both money in ('10.00' in 'In') and money out ('12.00' in 'Out') are filled: a row must have one of them." },
      { line: 3, kind: 'missingField', reason: 'Both money in and money out are empty.' },
    ]);
  });

  it('an empty or non-numeric signed amount is an invalid row naming the cell; a zero (`+0.00`) is read as zero', () => {
    const parsed = parse(rows('2024-01-05,A,+0.00,,', '2024-01-06,B,,,', '2024-01-07,C,twelve,,', '2024-01-08,D,9.99,,'), { date: 0, payee: 1, amount: 2 });
    expect(parsed.lines.map((l) => [l.payee, l.amount])).toEqual([
      ['A', '0.00'],
      ['D', '9.99'],
    ]);
    expect(parsed.invalid).toEqual([
      { line: 3, kind: 'missingField', reason: "The amount cell ('Amount') is empty." },
      { line: 4, kind: 'badAmount', reason: "'twelve' in 'Amount' is not an amount." },
    ]);
  });

  it('decimal ",": "1.234,56" is 1234.56; an amount in the other style is refused instead of misread', () => {
    const bytes = csv('Datum;Betrag\n05.01.2024;-1.234,56\n06.01.2024;12.50\n07.01.2024;1.500');
    const comma = parse(bytes, { date: 0, amount: 1, dateFormat: 'DD.MM.YYYY', decimal: ',' });
    expect(comma.lines.map((l) => l.amount)).toEqual(['1234.56', '1500']);
    expect(comma.invalid).toEqual([{ line: 3, kind: 'badAmount', reason: expect.stringContaining("set the decimal separator to '.'") }]);
    const point = parse(csv('Date,Amount\n2024-01-05,"12,50"\n2024-01-06,"1,250"'), { date: 0, amount: 1 });
    expect(point.lines.map((l) => l.amount)).toEqual(['1250']);
    expect(point.invalid).toEqual([{ line: 2, kind: 'badAmount', reason: expect.stringContaining("set the decimal separator to ','") }]);
  });

  it('currency cells: ISO codes in any case, 人民币 and € by name; an unknown currency is an invalid row; mixed currencies give no statement currency', () => {
    const parsed = parse(csv('Date,Amount,Currency\n2024-01-05,-1,eur\n2024-01-06,-2,人民币\n2024-01-07,-3,Dollars\n2024-01-08,-4,€\n2024-01-09,-5,'), {
      date: 0,
      amount: 1,
      currency: 2,
    });
    expect(parsed.lines.map((l) => l.currency)).toEqual(['EUR', 'CNY', 'EUR', undefined]);
    expect(parsed.invalid).toEqual([{ line: 4, kind: 'badRow', reason: "The currency 'Dollars' in 'Currency' is not a currency code such as EUR or USD." }]);
    expect(parsed.currency).toBeUndefined();
  });

  it('a description equal to the payee is left empty', () => {
    const parsed = parse(csv('Date,Amount,Name,Text\n2024-01-05,-1,Bakery,Bakery\n2024-01-06,-1,Bakery,Bread'), { date: 0, amount: 1, payee: 2, description: 3 });
    expect(parsed.lines.map((l) => [l.payee, l.description])).toEqual([
      ['Bakery', ''],
      ['Bakery', 'Bread'],
    ]);
  });
});

describe('parseMappedCsv: dates', () => {
  const read = (cells: string[], dateFormat: CsvMapping['dateFormat'], timeZone = 'UTC') =>
    parse(csv(['Date,Amount', ...cells.map((c) => `${c},-1`)].join('\n')), { date: 0, amount: 1, dateFormat }, timeZone);

  it('YYYY-MM-DD (the default) also with "/", a time, T and a UTC offset, YYYYMMDD and 年月日', () => {
    const parsed = read(
      ['2024-03-05', '2024/3/5 14:30', '2024-03-05T14:30:15', '2024-03-05T14:30:00Z', '2024-03-05 14:30:00+02:00', '20240305', '2024年3月5日'],
      undefined,
      'Asia/Shanghai',
    );
    expect(parsed.invalid).toEqual([]);
    expect(parsed.lines.map((l) => l.date)).toEqual([
      Date.UTC(2024, 2, 4, 16),
      Date.UTC(2024, 2, 5, 6, 30),
      Date.UTC(2024, 2, 5, 6, 30, 15),
      Date.UTC(2024, 2, 5, 14, 30),
      Date.UTC(2024, 2, 5, 12, 30),
      Date.UTC(2024, 2, 4, 16),
      Date.UTC(2024, 2, 4, 16),
    ]);
  });

  it('DD/MM/YYYY, MM/DD/YYYY and DD.MM.YYYY read the same cell differently; two-digit years and am/pm times', () => {
    expect(read(['05/03/2024', '05-03-24', '5 Mar 2024'], 'DD/MM/YYYY').lines.map((l) => l.date)).toEqual([Date.UTC(2024, 2, 5), Date.UTC(2024, 2, 5), Date.UTC(2024, 2, 5)]);
    const monthFirst = read(['05/03/2024', '05/03/2024 2:05 PM', '"Mar 5, 2024"'], 'MM/DD/YYYY');
    expect(monthFirst.invalid).toEqual([]);
    expect(monthFirst.lines.map((l) => l.date)).toEqual([Date.UTC(2024, 4, 3), Date.UTC(2024, 4, 3, 14, 5), Date.UTC(2024, 2, 5)]);
    expect(read(['05.03.2024', '05.03.24 12:00'], 'DD.MM.YYYY', 'Europe/Berlin').lines.map((l) => l.date)).toEqual([Date.UTC(2024, 2, 4, 23), Date.UTC(2024, 2, 5, 11)]);
  });

  it('an impossible, empty or differently formatted date is an invalid row naming the cell', () => {
    const parsed = read(['30/02/2024', '', '2024-02-03', '13/13/2024', '12/31/2024'], 'DD/MM/YYYY');
    expect(parsed.lines).toEqual([]);
    expect(parsed.invalid).toEqual([
      { line: 2, kind: 'badDate', reason: "'30/02/2024' in 'Date' is not a date in the DD/MM/YYYY format." },
      { line: 3, kind: 'missingField', reason: "The date cell ('Date') is empty." },
      { line: 4, kind: 'badDate', reason: "'2024-02-03' in 'Date' is not a date in the DD/MM/YYYY format." },
      { line: 5, kind: 'badDate', reason: "'13/13/2024' in 'Date' is not a date in the DD/MM/YYYY format." },
      { line: 6, kind: 'badDate', reason: "'12/31/2024' in 'Date' is not a date in the DD/MM/YYYY format." },
    ]);
  });

  it('parseCsvDate refuses a time after a date it cannot read and 13 o’clock with pm', () => {
    expect(parseCsvDate('2024-01-05 noon', 'YYYY-MM-DD', 'UTC')).toBeNull();
    expect(parseCsvDate('01/05/2024 13:00 PM', 'MM/DD/YYYY', 'UTC')).toBeNull();
    expect(parseCsvDate('01/05/2024 12:00 AM', 'MM/DD/YYYY', 'UTC')).toBe(Date.UTC(2024, 0, 5));
  });
});

describe('parseMappedCsv: rows, lines and delimiters', () => {
  it('line numbers count skipped lines, the header, blank lines, blank rows and quoted line breaks (CRLF too)', () => {
    const text = 'Export of account 1\r\nPeriod: January\r\nDate,Amount,Memo\r\n2024-01-05,-1,"one\r\ntwo\r\nthree"\r\n\r\n,,\r\n   \r\n2024-01-06,-2,x\r\n2024-01-07,-3,"y"';
    const parsed = parse(csv(text), { date: 0, amount: 1, description: 2, skipRows: 2 });
    expect(parsed.lines.map((l) => [l.line, l.description])).toEqual([
      [4, 'one\ntwo\nthree'],
      [10, 'x'],
      [11, 'y'],
    ]);
  });

  it('a row too short for the date or amount is invalid with the reason; missing optional cells read as empty', () => {
    const parsed = parse(csv('Date,Payee,Amount,Memo\n2024-01-05,Shop\n2024-01-06,Shop,-3\n2024-01-07'), { date: 0, payee: 1, amount: 2, description: 3 });
    expect(parsed.lines.map((l) => [l.line, l.amount, l.description])).toEqual([[3, '3', '']]);
    expect(parsed.invalid).toEqual([
      { line: 2, kind: 'badRow', reason: "The row has 2 cells, but the amount is in 'Amount' (cell 3): the row is cut short or has another layout." },
      { line: 4, kind: 'badRow', reason: "The row has 1 cell, but the amount is in 'Amount' (cell 3): the row is cut short or has another layout." },
    ]);
  });

  it('detects ";" when the header has more commas inside quotes than semicolons outside', () => {
    const bytes = csv('"Tag, Datum";"Name, Vorname, Titel";"Betrag, EUR";Info\n05.01.2024;"Muster, Max";-12,50;x');
    expect(describeCsv(bytes).delimiter).toBe(';');
    expect(parse(bytes, { date: 0, payee: 1, amount: 2, dateFormat: 'DD.MM.YYYY', decimal: ',' }).lines[0]).toMatchObject({ payee: 'Muster, Max', amount: '12.50' });
  });

  it('detects tabs, and breaks a tie between "," and ";" by the rows that follow', () => {
    expect(describeCsv(csv('Date\tAmount\tPayee\n2024-01-05\t-1,50\tA')).delimiter).toBe('\t');
    expect(describeCsv(csv('Datum;Betrag, EUR\n05.01.2024;-12\n06.01.2024;30')).delimiter).toBe(';');
    expect(describeCsv(csv('Date,Amount;Net\n2024-01-05,-12\n2024-01-06,30')).delimiter).toBe(',');
  });

  it('a delimiter in the mapping wins over detection', () => {
    const bytes = csv('Date;Amount,Payee\n2024-01-05;-1');
    expect(parse(bytes, { date: 0, amount: 1, delimiter: ';' }).lines.at(0)?.amount).toBe('1');
    expect(statementError(() => parse(bytes, { date: 0, amount: 1, delimiter: '\t' })).kind).toBe('badMapping');
  });

  it('reads UTF-8 with a BOM and UTF-16LE with a BOM', () => {
    const text = 'Date,Payee,Amount\n2024-01-05,Café Ümlaut,-1\n';
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), csv(text)]);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    for (const bytes of [bom, utf16]) expect(parse(bytes, { date: 0, payee: 1, amount: 2 }).lines.at(0)?.payee).toBe('Café Ümlaut');
    expect(describeCsv(bom).headers[0]).toBe('Date');
  });
});

describe('parseMappedCsv: formula-looking cells are text', () => {
  const text = [
    'Date,Payee,Amount,Memo',
    '2024-01-05,"=HYPERLINK(""http://example.com"",""click"")",-1,+1 555 0100',
    '2024-01-06,@SUM(A1:A9),-2,-Refund',
    `2024-01-07,'=1+2,'-12.50,'@home`,
    `2024-01-08,"'+44 20 7946 0000",3,'plain`,
  ].join('\n');

  it('keeps =, +, - and @ cells as written, never evaluated or dropped', () => {
    const parsed = parse(csv(text), { date: 0, payee: 1, amount: 2, description: 3 });
    expect(parsed.invalid).toEqual([]);
    expect(parsed.lines[0]).toMatchObject({ payee: '=HYPERLINK("http://example.com","click")', description: '+1 555 0100' });
    expect(parsed.lines[1]).toMatchObject({ payee: '@SUM(A1:A9)', description: '-Refund' });
  });

  it("reads a neutralised '=… back as =… (and '-12.50 as an expense of 12.50), but keeps other apostrophes", () => {
    const parsed = parse(csv(text), { date: 0, payee: 1, amount: 2, description: 3 });
    expect(parsed.lines[2]).toMatchObject({ payee: '=1+2', amount: '12.50', direction: 'expense', description: '@home' });
    expect(parsed.lines[3]).toMatchObject({ payee: '+44 20 7946 0000', description: "'plain" });
    expect(describeCsv(csv(text)).sample[2]).toEqual(['2024-01-07', '=1+2', '-12.50', '@home']);
  });
});

describe('parseMappedCsv: refused files and mappings', () => {
  it('a file cut inside a quoted cell is "truncated", naming where', () => {
    const error = statementError(() => parse(fixture('truncated.csv'), CHASE));
    expect(error.kind).toBe('truncated');
    expect(error.message).toContain('after line 2');
    expect(statementError(() => describeCsv(fixture('truncated.csv'))).kind).toBe('truncated');
  });

  it('a mapping beyond the header is "badMapping", naming the columns, the header and the delimiter', () => {
    const error = statementError(() => parse(fixture('us-chase-credit.csv'), { ...CHASE, amount: 9, description: 7 }));
    expect(error.kind).toBe('badMapping');
    expect(error.message).toBe(
      "The mapping expects the amount in column index 9 and the description in column index 7, but the header row has only 7 columns (Transaction Date | Post Date | Description | Category | Type | Amount | Memo) when split at ','. Check the delimiter and the rows to skip, or map the columns again.",
    );
    // The German file split at ',' is one column wide.
    expect(statementError(() => parse(fixture('de-sparkasse-1252.csv'), { ...SPARKASSE, delimiter: ',', skipRows: 0 })).message).toContain('only 1 column');
  });

  it.each<[string, unknown, RegExp]>([
    ['no mapping', undefined, /needs a column mapping/],
    ['no date column', { amount: 1 }, /no date column/],
    ['no amount column', { date: 0, payee: 1 }, /no amount column/],
    ['both kinds of amount column', { date: 0, amount: 1, inflow: 2 }, /both a signed amount column and money-in/],
    ['a column used twice', { date: 0, inflow: 1, outflow: 1 }, /money-in and the money-out cannot be the same column/],
    ['a fractional column index', { date: 0.5, amount: 1 }, /date column must be a column index.*0\.5/],
    ['a negative column index', { date: 0, amount: -1 }, /amount column must be a column index/],
    ['a column index as text', { date: '0', amount: 1 }, /date column must be a column index/],
    ['an unknown date format', { date: 0, amount: 1, dateFormat: 'YYYY.DD.MM' }, /date format "YYYY.DD.MM" is not one of/],
    ['an unknown decimal separator', { date: 0, amount: 1, decimal: ' ' }, /decimal separator/],
    ['an unknown encoding', { date: 0, amount: 1, encoding: 'utf16' }, /encoding "utf16"/],
    ['a negative skipRows', { date: 0, amount: 1, skipRows: -1 }, /rows to skip/],
  ])('refuses %s as "badMapping"', (_name, mapping, message) => {
    const error = statementError(() => parse(fixture('us-chase-credit.csv'), mapping as CsvMapping));
    expect(error.kind).toBe('badMapping');
    expect(error.message).toMatch(message);
  });

  it('wrong encoding: GBK read as UTF-8, and UTF-16 without a byte order mark, are "encoding"', () => {
    expect(statementError(() => parse(fixture('cn-bank-gbk.csv'), { ...CN_BANK, encoding: 'utf8' })).kind).toBe('encoding');
    const error = statementError(() => parse(fixture('utf16le-no-bom.csv'), CHASE));
    expect(error.kind).toBe('encoding');
    expect(error.message).toContain('UTF-16');
    expect(statementError(() => describeCsv(fixture('utf16le-no-bom.csv'))).kind).toBe('encoding');
  });

  it('an empty file, a blank one, one with only a header, or nothing after the rows to skip is "empty"', () => {
    for (const [bytes, mapping] of [
      [fixture('empty.csv'), CHASE],
      [csv(' \r\n\r\n'), CHASE],
      [fixture('header-only.csv'), CHASE],
      [fixture('us-chase-credit.csv'), { ...CHASE, skipRows: 50 }],
    ] as const) {
      expect(statementError(() => parse(bytes, mapping)).kind).toBe('empty');
    }
    expect(statementError(() => parse(fixture('header-only.csv'), CHASE)).message).toBe('The file has a header row but no transactions.');
    expect(statementError(() => describeCsv(fixture('empty.csv'))).kind).toBe('empty');
  });
});

describe('describeCsv', () => {
  it('gives the header, delimiter, the first 5 data rows and a signature of each fixture', () => {
    const chase = describeCsv(fixture('us-chase-credit.csv'));
    expect(chase.headers).toEqual(['Transaction Date', 'Post Date', 'Description', 'Category', 'Type', 'Amount', 'Memo']);
    expect(chase.delimiter).toBe(',');
    expect(chase.sample).toHaveLength(5);
    expect(chase.sample[3]).toEqual(['01/22/2024', '01/23/2024', 'WHOLEFDS MKT 10234', 'Groceries', 'Sale', '-128.04', 'Split with Sam\n(half is theirs)']);
    expect(chase.signature).toMatch(/^[A-Za-z0-9_-]{24}$/);

    const german = describeCsv(fixture('de-sparkasse-1252.csv'));
    expect(german.delimiter).toBe(';');
    expect(german.headers[2]).toBe('Auftraggeber/Empfänger');
    const chinese = describeCsv(fixture('cn-bank-gbk.csv'), { skipRows: 3 });
    expect(chinese.headers).toEqual(['交易日期', '摘要', '收入金额', '支出金额', '余额', '币种', '对方户名', '对方账号', '流水号']);
    expect(chinese.sample.at(0)?.slice(0, 4)).toEqual(['20240301', '工资', '8,500.00', '-']);
    expect(describeCsv(fixture('uk-nationwide-statement.csv'), { skipRows: 4 }).sample).toHaveLength(5);
  });

  it('leaves blank rows out of the sample and reads the header after the rows to skip', () => {
    const described = describeCsv(csv('Report\n\nDate,Amount\n\n2024-01-01,1\n,,\n2024-01-02,2\n'), { skipRows: 1 });
    expect(described.headers).toEqual(['Date', 'Amount']);
    expect(described.sample).toEqual([
      ['2024-01-01', '1'],
      ['2024-01-02', '2'],
    ]);
  });

  it('the signature depends on the header only: not on rows, case, spacing, delimiter or trailing blank columns', () => {
    const a = describeCsv(csv('Date,Payee,Amount\n2024-01-01,A,1')).signature;
    expect(describeCsv(csv('DATE ;  payee;Amount;\n05.01.2024;B;2;')).signature).toBe(a);
    expect(describeCsv(csv('Date,Payee,Amount,Memo\n2024-01-01,A,1,')).signature).not.toBe(a);
    expect(describeCsv(csv('Date,Amount,Payee\n2024-01-01,1,A')).signature).not.toBe(a);
    expect(describeCsv(fixture('us-chase-credit.csv')).signature).toBe(describeCsv(fixture('header-only.csv')).signature);
  });
});

describe('guessMapping and guessDateFormat', () => {
  it('maps the fixtures’ headers', () => {
    expect(guessMapping(describeCsv(fixture('us-chase-credit.csv')).headers)).toEqual({ date: 0, payee: 2, category: 3, amount: 5, description: 6 });
    expect(guessMapping(describeCsv(fixture('uk-nationwide-statement.csv'), { skipRows: 4 }).headers)).toEqual({ date: 0, category: 1, description: 2, outflow: 3, inflow: 4 });
    expect(guessMapping(describeCsv(fixture('de-sparkasse-1252.csv')).headers)).toEqual({ date: 0, payee: 2, description: 4, amount: 5, currency: 6 });
    expect(guessMapping(describeCsv(fixture('cn-bank-gbk.csv'), { skipRows: 3 }).headers)).toEqual({
      date: 0,
      description: 1,
      inflow: 2,
      outflow: 3,
      currency: 5,
      payee: 6,
      externalId: 8,
    });
  });

  it.each<[string, string[], Partial<CsvMapping>]>([
    [
      'English with a payee and a reference number',
      ['Booking date', 'Payee', 'Description', 'Amount (GBP)', 'Reference number'],
      { date: 0, payee: 1, description: 2, amount: 3, externalId: 4 },
    ],
    ['English debit / credit', ['Date', 'Description', 'Withdrawal', 'Deposit', 'Balance'], { date: 0, description: 1, outflow: 2, inflow: 3 }],
    [
      'German Soll / Haben',
      ['Buchungsdatum', 'Wertstellung', 'Beguenstigter', 'Verwendungszweck', 'Soll', 'Haben', 'Waehrung'],
      { date: 0, payee: 2, description: 3, outflow: 4, inflow: 5, currency: 6 },
    ],
    ['French', ['Date opération', 'Libellé', 'Débit', 'Crédit', 'Devise'], { date: 0, description: 1, outflow: 2, inflow: 3, currency: 4 }],
    ['Spanish', ['Fecha', 'Concepto', 'Importe', 'Divisa', 'Categoría'], { date: 0, description: 1, amount: 2, currency: 3, category: 4 }],
    // Issue 36: the Description is what the line was for; a Reference is no payee and no memo.
    ['English without a payee column', ['Date', 'Description', 'Amount', 'Reference'], { date: 0, description: 1, amount: 2 }],
    ['English with a memo beside the description (Chase)', ['Date', 'Description', 'Amount', 'Memo'], { date: 0, payee: 1, amount: 2, description: 3 }],
    [
      'a billing amount and currency (HSBC)',
      ['Date', 'Description', 'Billing amount', 'Billing currency', 'Balance', 'Balance currency'],
      { date: 0, description: 1, amount: 2, currency: 3 },
    ],
    ['Dutch', ['Datum', 'Naam / Omschrijving', 'Bedrag (EUR)', 'Mededelingen', 'Munt'], { date: 0, payee: 1, amount: 2, description: 3, currency: 4 }],
    [
      'Chinese (Alipay-like)',
      ['交易时间', '交易分类', '交易对方', '商品说明', '金额', '备注', '交易单号'],
      { date: 0, category: 1, payee: 2, amount: 4, description: 5, externalId: 6 },
    ],
    ['ICBC-style money in / out', ['交易日期', '摘要', '交易金额(收入)', '交易金额(支出)', '对方户名'], { date: 0, description: 1, inflow: 2, outflow: 3, payee: 4 }],
    ['unknown headers', ['Foo', 'Bar'], {}],
  ])('%s', (_name, headers, expected) => {
    expect(guessMapping(headers)).toEqual(expected);
  });

  it('a signed amount column wins over money-in / money-out columns, and a column is used once', () => {
    expect(guessMapping(['Date', 'Amount', 'Credit', 'Debit', 'Date'])).toEqual({ date: 0, amount: 1 });
  });

  it('guessDateFormat: by what the cells allow; undefined when day-first and month-first both fit or nothing fits', () => {
    expect(guessDateFormat(['2024-01-05', '2024/01/06 10:00'])).toBe('YYYY-MM-DD');
    expect(guessDateFormat(['20240301\t', '20240303'])).toBe('YYYY-MM-DD');
    expect(guessDateFormat(['05/01/2024', '13/01/2024'])).toBe('DD/MM/YYYY');
    expect(guessDateFormat(['05/01/2024', '01/13/2024'])).toBe('MM/DD/YYYY');
    expect(guessDateFormat(['05.01.2024', '06.01.2024'])).toBe('DD.MM.YYYY');
    expect(guessDateFormat(['02 Jun 2025'])).toBe('DD/MM/YYYY');
    expect(guessDateFormat(['05/01/2024', '06/01/2024'])).toBeUndefined();
    expect(guessDateFormat(['yesterday', ''])).toBeUndefined();
    expect(guessDateFormat(['13/01/2024', '13/01/2024', '01/13/2024', 'Total'])).toBe('DD/MM/YYYY');
  });

  it('guesses the date format of every bank fixture from its sample', () => {
    const guess = (name: string, skipRows = 0) => guessDateFormat(describeCsv(fixture(name), { skipRows }).sample.map((row) => row.at(0) ?? ''));
    expect(guess('us-chase-credit.csv')).toBe('MM/DD/YYYY');
    expect(guess('uk-nationwide-statement.csv', 4)).toBe('DD/MM/YYYY');
    expect(guess('de-sparkasse-1252.csv')).toBe('DD.MM.YYYY');
    expect(guess('cn-bank-gbk.csv', 3)).toBe('YYYY-MM-DD');
  });
});

describe('encoding detection', () => {
  it('tells Windows-1252 from GBK by how the non-ASCII bytes pair up', () => {
    const german = iconv.encode('Datum;Empfänger;Betrag\n05.01.2024;Bäckerei Müßig;-3,50\n', 'windows-1252');
    const chinese = iconv.encode('日期,对方,金额\n2024-01-05,美团外卖,-3.50\n', 'gbk');
    expect(parse(german, { date: 0, payee: 1, amount: 2, dateFormat: 'DD.MM.YYYY', decimal: ',' }).lines.at(0)?.payee).toBe('Bäckerei Müßig');
    expect(parse(chinese, { date: 0, payee: 1, amount: 2 }).lines.at(0)?.payee).toBe('美团外卖');
  });
});

describe('where the table starts (issue 35: real bank CSVs)', () => {
  // csv/bank-preamble.csv: our own UK-style export with an account line, a period line, a blank
  // line and an opening balance above the header row (the cells of those lines hold commas too).
  // csv/no-header.csv: a Canadian-style export with no header row (date, description, debit, credit, balance).
  // csv/placeholder-columns.csv: a Chinese bank's columns where the 交易金额 pair holds only '-'.

  it('skips the lines above the header row by itself: describeCsv finds it, and a mapping without skipRows reads from it', () => {
    const described = describeCsv(fixture('bank-preamble.csv'));
    expect(described).toMatchObject({ skipRows: 4, header: true, headers: ['Date', 'Details', 'Money out', 'Money in', 'Balance'] });
    expect(described.sample[0]).toEqual(['03/01/2025', 'CORNER SHOP', '12.40', '', '1,192.15']);
    const parsed = parse(fixture('bank-preamble.csv'), { date: 0, description: 1, outflow: 2, inflow: 3, dateFormat: 'DD/MM/YYYY' });
    expect(parsed.invalid).toEqual([]);
    expect(parsed.lines.map((l) => [l.line, l.amount, l.direction, l.description])).toEqual([
      [6, '12.40', 'expense', 'CORNER SHOP'],
      [7, '2500.00', 'income', 'SALARY ACME LTD'],
      [8, '45.00', 'expense', 'RAIL TICKET'],
    ]);
  });

  it('the guess of a file with a preamble: the columns by name, the date format by the cells, the lines to skip', () => {
    expect(guessFor(describeCsv(fixture('bank-preamble.csv')))).toEqual({ date: 0, description: 1, outflow: 2, inflow: 3, dateFormat: 'DD/MM/YYYY', skipRows: 4 });
  });

  it('notices a file without a header row: its first row is a transaction, not lost', () => {
    const described = describeCsv(fixture('no-header.csv'));
    expect(described).toMatchObject({ skipRows: 0, header: false, headers: ['', '', '', '', ''] });
    expect(described.sample).toHaveLength(4);
    expect(guessFor(described)).toEqual({ date: 0, description: 1, outflow: 2, inflow: 3, dateFormat: 'MM/DD/YYYY', skipRows: 0, header: false });
    const mapping: CsvMapping = { date: 0, description: 1, outflow: 2, inflow: 3, dateFormat: 'MM/DD/YYYY' };
    const parsed = parse(fixture('no-header.csv'), mapping);
    expect(parsed.invalid).toEqual([]);
    expect(parsed.lines.map((l) => [l.line, l.amount, l.direction])).toEqual([
      [1, '54.20', 'expense'],
      [2, '1800.00', 'income'],
      [3, '4.75', 'expense'],
      [4, '88.10', 'expense'],
    ]);
    // The person's "no header" choice, and its opposite, are followed.
    expect(parse(fixture('no-header.csv'), { ...mapping, header: false }).lines).toHaveLength(4);
    expect(parse(fixture('no-header.csv'), { ...mapping, header: true }).lines).toHaveLength(3);
    expect(parse(fixture('us-chase-credit.csv'), { ...CHASE, header: false }).invalid[0]).toMatchObject({ line: 1, kind: 'badDate' });
  });

  it('gives a file without a header row the same signature next month, and not that of a file with one', () => {
    const next = csv('02/02/2025,BOOK SHOP,12.00,,900.00\n02/03/2025,REFUND,,3.00,903.00\n');
    expect(describeCsv(next).signature).toBe(describeCsv(fixture('no-header.csv')).signature);
    expect(describeCsv(csv('Date,Description,Out,In,Balance\n02/02/2025,BOOK SHOP,12.00,,900.00\n')).signature).not.toBe(describeCsv(next).signature);
  });

  it('does not guess a column of "-" placeholders as the amount or the currency', () => {
    const described = describeCsv(fixture('placeholder-columns.csv'));
    expect(guessFor(described)).toEqual({ date: 0, description: 1, inflow: 5, outflow: 6, currency: 7, payee: 9, dateFormat: 'YYYY-MM-DD', skipRows: 0 });
    // Without rows to look at, the names decide as before.
    expect(guessMapping(described.headers)).toMatchObject({ inflow: 2, outflow: 3, currency: 4 });
  });
});
