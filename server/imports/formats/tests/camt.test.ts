import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { parseCamt, sniffCamt, tagProblem } from '../camt';
import type { ParsedStatement } from '../types';
import { fixture, parseNow, statementError } from './helpers';

/**
 * ISO 20022 CAMT statements. The fixtures follow the message layouts of the ISO 20022 message
 * definitions (BankToCustomerStatementV02/V08, AccountReportV02, DebitCreditNotificationV08) as the
 * test data of github.com/genkgo/camt shows them (the transactions are made up):
 * - camt/camt053-v02.xml: camt.053.001.02 like test/data/camt053.v2.minimal.xml (`<Sts>BOOK</Sts>`,
 *   `BookgDt/Dt`, `RltdPties/Cdtr/Nm`), with a reversal (`RvslInd`), a pending entry with only a value
 *   date, a batch of three `TxDtls` (`Btch/NbOfTxs` as in the German DK rules), an INFO entry and
 *   an entry of zero.
 * - camt/camt053-v08.xml: camt.053.001.08 like test/data/camt053.v8.xml (`<Sts><Cd>BOOK</Cd></Sts>`,
 *   `BookgDt/DtTm` with an offset, `Acct/Id/Othr/Id`, `Cdtr/Pty/Nm`), two statements of two accounts.
 * - camt/camt052-v02-prefixed.xml: camt.052.001.02 (`BkToCstmrAcctRpt/Rpt`, test/data/camt052.v2.xml)
 *   written with a namespace prefix on every element.
 * - camt/camt054-v08.xml: camt.054.001.08 (`BkToCstmrDbtCdtNtfctn/Ntfctn`, test/data/camt054.v8.xml)
 *   with only `TxDtls/Refs` references and a structured creditor reference.
 * - camt/latin1-v04.xml: camt.053.001.04 declared and encoded as ISO-8859-1.
 */

function parse(bytes: Buffer, timeZone = 'Europe/Berlin'): ParsedStatement {
  return parseNow(parseCamt, bytes, { timeZone });
}

/** A camt.053.001.02 document of the given entries. */
function camt(entries: string, version = '02'): Buffer {
  return Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.${version}"><BkToCstmrStmt><GrpHdr><MsgId>T</MsgId></GrpHdr>` +
      `<Stmt><Id>S</Id><Acct><Id><IBAN>DE02120300000000202051</IBAN></Id><Ccy>EUR</Ccy></Acct>${entries}</Stmt></BkToCstmrStmt></Document>`,
  );
}

describe('parseCamt: statements', () => {
  it('reads a camt.053.001.02 statement: debit and credit, a reversal, pending and INFO entries, a batch, a zero entry', () => {
    const parsed = parse(fixture('camt/camt053-v02.xml'));
    expect(parsed.format).toBe('camt');
    expect(parsed.account).toBe('DE02120300000000202051');
    expect(parsed.currency).toBe('EUR');
    const base = { currency: 'EUR' };
    expect(parsed.lines.filter((l) => l.line !== 7)).toEqual([
      {
        ...base,
        line: 1,
        date: Date.UTC(2024, 2, 3, 23),
        amount: '42.50',
        direction: 'expense',
        status: 'done',
        payee: 'Stadtwerke Musterstadt GmbH',
        description: 'Abschlag Strom März Kundennr. 4711',
        externalId: 'REF-0001',
        sourceCategory: 'PMNT/ICDT/ESCT',
      },
      {
        ...base,
        line: 2,
        date: Date.UTC(2024, 2, 4, 23),
        amount: '1500.00',
        direction: 'income',
        status: 'done',
        payee: 'Müller & Söhne KG',
        description: 'Gehalt 03/2024',
        externalId: 'NREF-0002',
        sourceCategory: 'NTRF+153',
      },
      {
        ...base,
        line: 3,
        date: Date.UTC(2024, 2, 5, 23),
        amount: '42.50',
        direction: 'income',
        status: 'refund',
        payee: 'Stadtwerke Musterstadt GmbH',
        description: 'RETOURE AC04 Konto erloschen',
        externalId: 'INV-2024-117',
        sourceCategory: 'PMNT/ICDT/RRTN',
      },
      {
        ...base,
        line: 4,
        date: Date.UTC(2024, 2, 6, 23),
        amount: '19.99',
        direction: 'expense',
        status: 'pending',
        payee: 'Streaming Service Ltd',
        description: 'KARTENZAHLUNG 06.03. 21:14',
        externalId: '',
      },
      {
        ...base,
        line: 5,
        date: Date.UTC(2024, 2, 6, 23),
        amount: '3000.00',
        direction: 'expense',
        status: 'done',
        payee: 'Anna Schmidt',
        description: 'SAMMLER-UEBERWEISUNG 3 POSTEN',
        externalId: 'REF-0005',
        sourceCategory: 'PMNT/ICDT/ESCT',
      },
      {
        ...base,
        line: 6,
        date: Date.UTC(2024, 2, 8, 23),
        amount: '25.00',
        direction: 'expense',
        status: 'pending',
        payee: '',
        description: 'DAUERAUFTRAG Sportverein',
        externalId: 'REF-0006',
      },
    ]);
    // An entry of zero is read as written: the status rules skip it (docs/import.md, "amount 0").
    expect(parsed.lines.find((l) => l.line === 7)).toMatchObject({ amount: '0.00' });
    expect(parsed.invalid).toEqual([]);
  });

  it('reads a camt.053.001.08 statement: <Sts><Cd>, DtTm with and without a zone, Pty/Nm, Othr/Id, two accounts', () => {
    const parsed = parse(fixture('camt/camt053-v08.xml'), 'Europe/Zurich');
    expect(parsed.account).toBe('CH9300762011623852957, CH5604835012345678009');
    // CHF and EUR lines: no single statement currency.
    expect(parsed.currency).toBeUndefined();
    expect(parsed.invalid).toEqual([]);
    expect(parsed.lines.map((l) => [l.line, l.date, l.amount, l.currency, l.direction, l.status, l.payee, l.description, l.externalId, l.sourceCategory, l.method])).toEqual([
      [1, Date.UTC(2024, 4, 2, 11, 15), '88.85', 'CHF', 'expense', 'done', 'Bergbahnen Beispiel AG', 'Tageskarte', 'CH-20240502-0001', 'PMNT/CCRD/POSD', 'CH9300762011623852957'],
      // Its remittance information is just the payer's name: not repeated as the description.
      [2, Date.UTC(2024, 4, 2, 7, 30), '120.00', 'EUR', 'income', 'done', 'Jean Dupont', '', 'CH-20240502-0002', 'PMNT/RCDT/XBCT', 'CH9300762011623852957'],
      [3, Date.UTC(2024, 4, 2, 22), '15.00', 'CHF', 'expense', 'pending', '', 'Reservation Hotelzahlung', 'PND-1', undefined, 'CH9300762011623852957'],
      [4, Date.UTC(2024, 4, 1, 22), '500.00', 'CHF', 'income', 'done', '', 'Uebertrag vom Privatkonto', 'CH-20240502-0100', undefined, 'CH5604835012345678009'],
    ]);
  });

  it('reads a camt.052 report written with namespace prefixes', () => {
    const parsed = parse(fixture('camt/camt052-v02-prefixed.xml'));
    expect(parsed.account).toBe('NL91ABNA0417164300');
    expect(parsed.lines.map((l) => [l.date, l.amount, l.currency, l.direction, l.payee, l.description, l.externalId])).toEqual([
      [Date.UTC(2024, 3, 10, 10, 5), '64.20', 'EUR', 'expense', 'Supermarkt B.V.', 'Boodschappen', 'NL-RPT-0001'],
    ]);
  });

  it('reads a camt.054 notification: references from TxDtls/Refs, a structured reference as description', () => {
    const parsed = parse(fixture('camt/camt054-v08.xml'));
    expect(parsed.account).toBe('AT611904300234573201');
    expect(parsed.currency).toBe('EUR');
    expect(parsed.lines.map((l) => [l.date, l.amount, l.direction, l.payee, l.description, l.externalId])).toEqual([
      [Date.UTC(2024, 3, 10, 22), '250.00', 'income', 'Hausverwaltung Wien', 'RF18539007547034', 'AT-NTF-77'],
    ]);
  });

  it('takes EndToEndId only when it is not NOTPROVIDED, and TxId after it', () => {
    const entry = (refs: string) =>
      `<Ntry><Amt Ccy="EUR">1.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2024-03-01</Dt></BookgDt><NtryDtls><TxDtls><Refs>${refs}</Refs></TxDtls></NtryDtls></Ntry>`;
    const parsed = parse(
      camt(
        entry('<EndToEndId>NOTPROVIDED</EndToEndId><TxId>TX-9</TxId>') + entry('<EndToEndId>E2E-1</EndToEndId><TxId>TX-1</TxId>') + entry('<EndToEndId>NOTPROVIDED</EndToEndId>'),
      ),
    );
    expect(parsed.lines.map((l) => l.externalId)).toEqual(['TX-9', 'E2E-1', '']);
  });

  it('takes no placeholder for an id: NONREF, NOTPROVIDED, NONE, dashes (issue 35: German banks write NONREF on every entry)', () => {
    const entry = (refs: string) => `<Ntry><Amt Ccy="EUR">1.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2024-03-01</Dt></BookgDt>${refs}</Ntry>`;
    const parsed = parse(
      camt(
        entry('<AcctSvcrRef>NONREF</AcctSvcrRef>') +
          entry('<AcctSvcrRef>nonref</AcctSvcrRef><NtryRef>NOTPROVIDED</NtryRef><NtryDtls><TxDtls><Refs><EndToEndId>E2E-7</EndToEndId></Refs></TxDtls></NtryDtls>') +
          entry('<NtryRef>NONE</NtryRef><NtryDtls><TxDtls><Refs><AcctSvcrRef>---</AcctSvcrRef><EndToEndId>NOT PROVIDED</EndToEndId><TxId>N/A</TxId></Refs></TxDtls></NtryDtls>') +
          entry('<AcctSvcrRef>2024-03-01-00.06.42.329883</AcctSvcrRef>'),
      ),
    );
    expect(parsed.lines.map((l) => l.externalId)).toEqual(['', 'E2E-7', '', '2024-03-01-00.06.42.329883']);
  });

  it('reports entries it cannot read, and reads dates with a zone on a plain date as that date', () => {
    const entry = (body: string) => `<Ntry>${body}<Sts>BOOK</Sts></Ntry>`;
    const parsed = parse(
      camt(
        entry('<Amt Ccy="EUR">5.00</Amt><BookgDt><Dt>2024-03-01</Dt></BookgDt>') +
          entry('<Amt Ccy="EUR">5.00</Amt><CdtDbtInd>DBIT</CdtDbtInd>') +
          entry('<Amt Ccy="EUR">5.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><BookgDt><Dt>01.03.2024</Dt></BookgDt>') +
          entry('<Amt Ccy="EUR">-5.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><BookgDt><Dt>2024-03-01</Dt></BookgDt>') +
          entry('<CdtDbtInd>DBIT</CdtDbtInd><BookgDt><Dt>2024-03-01</Dt></BookgDt>') +
          entry('<Amt>7.5</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2024-03-01+01:00</Dt></BookgDt>'),
      ),
    );
    expect(parsed.invalid.map((i) => [i.line, i.kind])).toEqual([
      [1, 'badDirection'],
      [2, 'missingField'],
      [3, 'badDate'],
      [4, 'badAmount'],
      [5, 'missingField'],
    ]);
    // No Ccy on the amount: the account's currency.
    expect(parsed.lines.map((l) => [l.line, l.date, l.amount, l.currency])).toEqual([[6, Date.UTC(2024, 1, 29, 23), '7.5', 'EUR']]);
  });
});

describe('parseCamt: encodings', () => {
  it('reads ISO-8859-1 as declared', () => {
    const parsed = parse(fixture('camt/latin1-v04.xml'));
    expect(parsed.lines.map((l) => [l.payee, l.description])).toEqual([['Bäckerei Müller', 'Brötchen für Büro']]);
  });

  it('reads Latin-1 bytes declared as UTF-8, and UTF-16 without a BOM', () => {
    const latin = fixture('camt/latin1-v04.xml').toString('latin1').replace('ISO-8859-1', 'UTF-8');
    expect(parse(Buffer.from(latin, 'latin1')).lines.at(0)?.payee).toBe('Bäckerei Müller');
    const utf16 = iconv.encode(fixture('camt/camt054-v08.xml').toString('utf8').replace('UTF-8', 'UTF-16'), 'utf16le');
    expect(parse(utf16).lines.at(0)?.payee).toBe('Hausverwaltung Wien');
  });

  it('refuses binary data as encoding', () => {
    expect(statementError(() => parse(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x3c, 0x44]))).kind).toBe('encoding');
  });
});

describe('parseCamt: files it cannot read', () => {
  it('refuses a file cut off in the middle as truncated, naming what is missing', () => {
    const whole = fixture('camt/camt053-v02.xml');
    const error = statementError(() => parse(whole.subarray(0, Math.floor(whole.length / 2))));
    expect(error.kind).toBe('truncated');
    expect(error.message).toMatch(/cut off/);
    const atTag = whole.subarray(0, whole.indexOf('</Stmt>'));
    expect(statementError(() => parse(atTag)).message).toContain('ends before </Stmt>');
  });

  it('refuses XML with mismatched tags as damaged', () => {
    const broken = fixture('camt/camt053-v02.xml').toString('utf8').replace('<Cdtr><Nm>Stadtwerke Musterstadt GmbH</Nm></Cdtr>', '<Cdtr><Nm>Stadtwerke</Cdtr>');
    const error = statementError(() => parse(Buffer.from(broken)));
    expect(error.kind).toBe('truncated');
    expect(error.message).toContain('</Cdtr> where </Nm> was expected');
  });

  it('refuses unrelated XML as notThisFormat, naming its root', () => {
    const rss = '<?xml version="1.0"?>\n<!-- feed -->\n<rss version="2.0"><channel><title>News</title></channel></rss>';
    const error = statementError(() => parse(Buffer.from(rss)));
    expect(error.kind).toBe('notThisFormat');
    expect(error.message).toContain('<rss>');
    const pain = '<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"><CstmrCdtTrfInitn><GrpHdr/></CstmrCdtTrfInitn></Document>';
    expect(statementError(() => parse(Buffer.from(pain))).kind).toBe('notThisFormat');
  });

  it('refuses a camt document without a statement, report or notification as notThisFormat', () => {
    const other = '<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><AcctRptgReq/></Document>';
    const error = statementError(() => parse(Buffer.from(other)));
    expect(error.kind).toBe('notThisFormat');
    expect(error.message).toContain('<AcctRptgReq>');
  });

  it('refuses a CSV, a DOCTYPE and an empty file', () => {
    expect(statementError(() => parse(Buffer.from('Buchungstag;Betrag\n01.03.2024;-5,00\n'))).kind).toBe('notThisFormat');
    const doctype = '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaa">]><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"/>';
    expect(statementError(() => parse(Buffer.from(doctype))).kind).toBe('notThisFormat');
    expect(statementError(() => parse(Buffer.alloc(0))).kind).toBe('empty');
    expect(statementError(() => parse(Buffer.from(' \n'))).kind).toBe('empty');
  });

  it('returns no lines for a statement without entries', () => {
    expect(parse(camt(''))).toEqual({ format: 'camt', lines: [], invalid: [], currency: 'EUR', account: 'DE02120300000000202051' });
  });
});

describe('tagProblem', () => {
  it.each([
    ['<a><b/><c x="1">t</c></a>', null],
    ['<?xml version="1.0"?><!-- c --><a><![CDATA[<b>]]></a>', null],
    ['<a><b>t</b>', 'the file ends before </a>'],
    ['<a><b>t</b', 'line 1: a tag is cut off'],
    ['<a>\n<b>t</c></a>', 'line 2: </c> where </b> was expected'],
    ['<a/><b/>', 'line 1: <b> after the end of the document'],
    ['<a>1 < 2</a>', 'line 1: a "<" that starts no tag'],
    ['just text', 'no root element'],
  ])('%j → %j', (xml, problem) => {
    expect(tagProblem(xml)).toBe(problem);
  });
});

describe('sniffCamt', () => {
  it('recognises camt.052, .053 and .054 files', () => {
    for (const name of ['camt053-v02.xml', 'camt053-v08.xml', 'camt052-v02-prefixed.xml', 'camt054-v08.xml', 'latin1-v04.xml'])
      expect(sniffCamt(fixture(`camt/${name}`)), name).toBe(true);
  });

  it('does not claim OFX (even OFX 2 XML), QIF, other XML or empty files', () => {
    expect(sniffCamt(fixture('ofx/bank-v211.ofx'))).toBe(false);
    expect(sniffCamt(fixture('qif/bank-us.qif'))).toBe(false);
    expect(sniffCamt(Buffer.from('<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"/>'))).toBe(false);
    expect(sniffCamt(Buffer.alloc(0))).toBe(false);
  });
});
