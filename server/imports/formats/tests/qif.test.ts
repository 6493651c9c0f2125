import { describe, expect, it } from 'vitest';
import { dateOrderOf, parseQif, sniffQif } from '../qif';
import type { ParsedStatement } from '../types';
import { fixture, parseNow, statementError } from './helpers';

/**
 * QIF statements. The fixtures follow the published format (the transactions are made up):
 * - qif/bank-us.qif: Quicken's `!Type:Bank` export with an opening balance, `M/ D'YY` dates,
 *   address lines, a transfer `L[Savings]` and a split (`S`/`E`/`$`), as Intuit's QIF description
 *   lists the fields (reproduced in github.com/reubano/csv2ofx docs/qif-file-format.txt) and the
 *   Wikipedia example in the qif_parser crate (docs.rs/crate/qif_parser, data/wikipedia.qif) shows.
 * - qif/bank-dayfirst.qif: a French bank's export, `DD/MM/YYYY` dates and decimal commas, payee only,
 *   as in the qif_parser crate's data/cic.qif; plus a dotted `DD.MM.YYYY` date and a date that
 *   contradicts the day-first order.
 * - qif/multi-account.qif: a whole-file Quicken export: `!Option:AutoSwitch` account list,
 *   `!Clear:AutoSwitch`, a `!Type:Cat` list, then `!Account` headers before each account's
 *   `!Type:Bank` / `!Type:CCard` / `!Type:Invst` section (csv2ofx docs/qif-file-format.txt,
 *   "Account information"), with ISO dates.
 * - qif/cp1252.qif: a `!Type:Cash` file in Windows-1252 (QIF has no charset header).
 */

const qif = (text: string) => Buffer.from(text, 'utf8');

function parse(bytes: Buffer, timeZone = 'UTC'): ParsedStatement {
  return parseNow(parseQif, bytes, { timeZone });
}

describe('parseQif: bank files', () => {
  it('reads a US bank export: month-first dates, thousands commas, a transfer, a split, the number', () => {
    const parsed = parse(fixture('qif/bank-us.qif'), 'America/Chicago');
    expect(parsed.format).toBe('qif');
    expect(parsed.account).toBeUndefined();
    expect(parsed.currency).toBeUndefined();
    const base = { status: 'done', externalId: '' };
    // The opening balance and the zero line are read as written; the status rules skip them.
    expect(parsed.lines.filter((l) => l.line === 2 || l.line === 47).map((l) => [l.line, l.amount, l.openingBalance])).toEqual([
      [2, '1500.00', true],
      [47, '0.00', undefined],
    ]);
    expect(parsed.lines.filter((l) => l.line !== 2 && l.line !== 47)).toEqual([
      {
        ...base,
        line: 8,
        date: Date.UTC(2024, 0, 5, 6),
        amount: '1250.00',
        direction: 'expense',
        payee: 'Riverside Apartments',
        description: 'January rent; No. 1042',
        sourceCategory: 'Housing:Rent',
      },
      { ...base, line: 18, date: Date.UTC(2024, 0, 12, 6), amount: '67.50', direction: 'expense', payee: 'T-Mobile', description: '', sourceCategory: 'Bills:Cell Phone' },
      { ...base, line: 29, date: Date.UTC(2024, 0, 15, 6), amount: '500.00', direction: 'neutral', payee: 'Transfer to savings', description: '', sourceCategory: '[Savings]' },
      { ...base, line: 34, date: Date.UTC(2024, 0, 31, 6), amount: '3200.00', direction: 'income', payee: 'ACME CORP', description: 'Payroll', sourceCategory: 'Salary' },
      { ...base, line: 42, date: Date.UTC(2024, 1, 3, 6), amount: '18.00', direction: 'expense', payee: 'The Coffee Shop', description: '' },
    ]);
    expect(parsed.invalid).toEqual([]);
  });

  it('reads day-first dates when a first part is over 12, dotted dates, decimal commas', () => {
    const parsed = parse(fixture('qif/bank-dayfirst.qif'), 'Europe/Paris');
    expect(parsed.lines.map((l) => [l.line, l.date, l.amount, l.direction, l.payee, l.description])).toEqual([
      [2, Date.UTC(2024, 4, 18, 22), '500.00', 'income', 'REM CHQ REF1234', ''],
      [6, Date.UTC(2024, 5, 1, 22), '9.59', 'expense', 'CARTE 1234 PAIEMENT CB 0106 ROUBAIX', ''],
      [10, Date.UTC(2024, 5, 8, 22), '1234.56', 'expense', 'PRLV SEPA FOURNISSEUR ENERGIE', 'ECHEANCE 06/2024'],
      [15, Date.UTC(2024, 6, 4, 22), '11.99', 'expense', 'PRLV SEPA ONLINE SAS', ''],
    ]);
    expect(parsed.invalid).toEqual([{ line: 19, kind: 'badDate', reason: expect.stringContaining('"12/13/2024" cannot be read as day/month/year') }]);
  });

  it('decides the date order for the whole file: a later 13/06 makes an earlier 02/06 the 2nd of June', () => {
    const monthFirst = parse(qif('!Type:Bank\nD02/06/2024\nT-1.00\nPA\n^\n'));
    expect(monthFirst.lines.at(0)?.date).toBe(Date.UTC(2024, 1, 6));
    const dayFirst = parse(qif('!Type:Bank\nD02/06/2024\nT-1.00\nPA\n^\nD13/06/2024\nT-2.00\nPB\n^\n'));
    expect(dayFirst.lines.map((l) => l.date)).toEqual([Date.UTC(2024, 5, 2), Date.UTC(2024, 5, 13)]);
  });

  it('reads the date forms of the format, two-digit years included', () => {
    const dates = ['12/31/99', "1/ 5'04", "2/10'2020", '2024-03-01', '3-15-2024', '12/31/69'];
    const parsed = parse(qif(`!Type:Bank\n${dates.map((d) => `D${d}\nT-1\nPX\n^\n`).join('')}`));
    expect(parsed.invalid).toEqual([]);
    expect(parsed.lines.map((l) => new Date(l.date).toISOString().slice(0, 10))).toEqual(['1999-12-31', '2004-01-05', '2020-02-10', '2024-03-01', '2024-03-15', '2069-12-31']);
  });

  it('reads U when T is missing, and reports a record without date or amount, and an impossible date', () => {
    const parsed = parse(qif('!Type:CCard\nD3/1/2024\nU-1,234.56\nPBig Store\n^\nT-5\nPNo date\n^\nD3/2/2024\nPNo amount\n^\nD2/30/2024\nT-5\n^\nD3/3/2024\nTabc\n^\n'));
    expect(parsed.lines.map((l) => [l.line, l.amount, l.direction])).toEqual([[2, '1234.56', 'expense']]);
    expect(parsed.invalid.map((i) => [i.line, i.kind])).toEqual([
      [6, 'missingField'],
      [9, 'missingField'],
      [12, 'badDate'],
      [15, 'badAmount'],
    ]);
  });

  it('ignores split lines (category, memo, amount, percent): T is the total', () => {
    const parsed = parse(qif('!Type:Bank\nD1/2/2024\nPGrocer\nSFood\nEfruit\n$-30.00\n%71.4\nSHousehold\nEsoap\n$-12.00\nT-42.00\n^\n'));
    expect(parsed.lines.map((l) => [l.amount, l.description, l.sourceCategory])).toEqual([['42.00', '', undefined]]);
  });
});

describe('parseQif: what real exports write (issue 35)', () => {
  it("reads Quicken's one-digit years of the 2000s (`8/31' 0`), after comment lines at the top, with a space after the section name", () => {
    // qif/comments-2000s.qif: `#` comment lines, `!Type:Bank ` with a trailing space, CRLF, `6/ 1' 0` dates.
    const parsed = parse(fixture('qif/comments-2000s.qif'));
    expect(parsed.invalid).toEqual([]);
    expect(parsed.lines.map((l) => [l.line, new Date(l.date).toISOString().slice(0, 10), l.amount, l.direction, l.openingBalance])).toEqual([
      [5, '2000-06-01', '2000.00', 'neutral', true],
      [11, '2000-06-15', '42.10', 'expense', undefined],
      [16, '2009-06-30', '0.00', 'income', undefined],
      [20, '2005-07-01', '1200.00', 'income', undefined],
    ]);
    expect(parsed.dateOrder).toBeUndefined();
  });

  it('recognises a file that starts with comment lines as QIF', () => {
    expect(sniffQif(fixture('qif/comments-2000s.qif'))).toBe(true);
  });

  it('reads year-first dates (`21/09/04`) as the dates that lie together, and says the order was ambiguous', () => {
    const parsed = parse(fixture('qif/year-first.qif'));
    expect(parsed.lines.map((l) => new Date(l.date).toISOString().slice(0, 10))).toEqual(['2021-09-04', '2021-09-17', '2021-10-02', '2021-10-09']);
    expect(parsed.dateOrder).toEqual({ used: 'YMD', possible: ['DMY', 'YMD'] });
  });

  it('reads the dates in the order the person chose', () => {
    const parsed = parseNow(parseQif, fixture('qif/year-first.qif'), { timeZone: 'UTC', dateOrder: 'DMY' });
    expect(parsed.lines.map((l) => new Date(l.date).toISOString().slice(0, 10))).toEqual(['2004-09-21', '2017-09-21', '2002-10-21', '2009-10-21']);
    expect(parsed.dateOrder).toEqual({ used: 'DMY', possible: ['DMY', 'YMD'] });
  });

  it('says nothing when one order reads the dates: a first part over 12 is a day, a second over 12 a day', () => {
    expect(dateOrderOf(['13/06/2024', '02/06/2024'])).toEqual({ used: 'DMY', possible: ['DMY'] });
    expect(dateOrderOf(['06/13/2024', '06/02/2024'])).toEqual({ used: 'MDY', possible: ['MDY'] });
    expect(dateOrderOf(["1/ 5'24", "1/ 6'24"])).toEqual({ used: 'MDY', possible: ['MDY', 'DMY'] });
  });
});

describe('parseQif: accounts and sections', () => {
  it('reads every bank and card account of a full export, skipping the account list, categories and investments', () => {
    const parsed = parse(fixture('qif/multi-account.qif'));
    expect(parsed.account).toBe('Everyday Checking, Visa Card');
    expect(parsed.invalid).toEqual([]);
    expect(parsed.lines.map((l) => [l.line, l.date, l.amount, l.direction, l.payee, l.sourceCategory, l.method])).toEqual([
      [27, Date.UTC(2024, 2, 1), '45.10', 'expense', 'Farmers Market', 'Groceries', 'Everyday Checking'],
      [32, Date.UTC(2024, 2, 2), '200.00', 'neutral', 'Visa payment', '[Visa Card]', 'Everyday Checking'],
      [42, Date.UTC(2024, 2, 2), '200.00', 'neutral', 'Payment - thank you', '[Everyday Checking]', 'Visa Card'],
      [47, Date.UTC(2024, 2, 4), '89.99', 'expense', 'HARDWARE STORE', 'Home:Repairs', 'Visa Card'],
    ]);
  });

  it('takes no account from the AutoSwitch account list', () => {
    const parsed = parse(qif('!Option:AutoSwitch\n!Account\nNChecking\nTBank\n^\nNBrokerage\nTInvst\n^\n!Clear:AutoSwitch\n!Type:Bank\nD1/2/2024\nT10\nPInterest\n^\n'));
    expect(parsed.account).toBeUndefined();
    expect(parsed.lines.map((l) => l.amount)).toEqual(['10']);
  });

  it('names the account of a single-account file without a method on the lines', () => {
    const parsed = parse(qif('!Account\nNSavings\nTBank\n^\n!Type:Bank\nD1/2/2024\nT10\nPInterest\n^\n'));
    expect(parsed.account).toBe('Savings');
    expect(parsed.lines.at(0)?.method).toBeUndefined();
  });

  it('reads a Windows-1252 file', () => {
    const parsed = parse(fixture('qif/cp1252.qif'));
    expect(parsed.lines.map((l) => [l.amount, l.payee, l.description])).toEqual([['12.40', 'Café de Flore', 'Crème brûlée – à emporter']]);
  });
});

describe('parseQif: files it cannot read', () => {
  it('reports a last record cut off before its ^, importing the complete ones', () => {
    const whole = fixture('qif/bank-us.qif').toString('latin1');
    const cut = whole.slice(0, whole.indexOf('T-18.00') + 9);
    const parsed = parse(Buffer.from(cut, 'latin1'));
    expect(parsed.lines.map((l) => l.line)).toEqual([2, 8, 18, 29, 34]);
    expect(parsed.invalid.at(-1)).toEqual({ line: 42, kind: 'badRow', reason: expect.stringContaining('not ended by "^"') });
  });

  it('refuses a CSV given as QIF as notThisFormat', () => {
    const error = statementError(() => parse(qif('Date,Payee,Amount\n01/02/2024,Shop,-3.00\n')));
    expect(error.kind).toBe('notThisFormat');
    expect(error.message).toContain('!Type:');
  });

  it('refuses a file of investment accounts and lists only as notThisFormat', () => {
    const error = statementError(() => parse(qif("!Type:Invst\nD3/5'24\nNBuy\nYACME\nT200.00\n^\n!Type:Cat\nNFood\n^\n")));
    expect(error.kind).toBe('notThisFormat');
    expect(error.message).toContain('investment');
  });

  it('refuses an empty file as empty, and returns no lines for a bank section without records', () => {
    expect(statementError(() => parse(Buffer.alloc(0))).kind).toBe('empty');
    expect(parse(qif('!Type:Bank\r\n'))).toEqual({ format: 'qif', lines: [], invalid: [], account: undefined });
  });
});

describe('sniffQif', () => {
  it('recognises QIF headers', () => {
    for (const name of ['bank-us.qif', 'bank-dayfirst.qif', 'multi-account.qif', 'cp1252.qif']) expect(sniffQif(fixture(`qif/${name}`)), name).toBe(true);
    expect(sniffQif(qif('\ufeff\n!Account\nNChecking\n^'))).toBe(true);
  });

  it('does not claim OFX, CAMT, CSV or empty files', () => {
    expect(sniffQif(fixture('ofx/bank-sgml-102.ofx'))).toBe(false);
    expect(sniffQif(fixture('camt/camt053-v02.xml'))).toBe(false);
    expect(sniffQif(qif('Date,Payee,Amount\n'))).toBe(false);
    expect(sniffQif(Buffer.alloc(0))).toBe(false);
  });
});
