import { XMLParser } from 'fast-xml-parser';
import { decodeLabelledText, decodeXmlEntities, localDateTime, parseAmount, withoutPayee } from './shared';
import {
  StatementError,
  type InvalidLine,
  type LineStatus,
  type ParseOptions,
  type ParsedStatement,
  type StatementLine,
  type StatementParser,
  type StatementSniffer,
} from './types';

/**
 * ISO 20022 cash management statements: camt.053 (BkToCstmrStmt, the end-of-day statement), and
 * as they share the entry layout, camt.052 (BkToCstmrAcctRpt, intraday report) and camt.054
 * (BkToCstmrDbtCdtNtfctn, debit/credit notification); versions .001.02 to .001.13 (the element
 * names used here did not change, except the party name moving to `Pty/Nm` in .08). Namespace
 * prefixes are ignored; the namespace itself is not checked (banks get it wrong).
 *
 * Per statement (`Stmt`/`Rpt`/`Ntfctn`): `Acct/Id/IBAN` (or `Othr/Id`) is the account, `Acct/Ccy`
 * the currency when an amount has none. Per entry (`Ntry`), one line (`line` = the entry's
 * ordinal in the file):
 * - `Amt` and its `Ccy`; `CdtDbtInd` CRDT → income, DBIT → expense; zero is read (the pipeline
 *   skips it);
 * - status: `Sts` (`BOOK`, or `<Sts><Cd>BOOK</Cd></Sts>` from .08) BOOK → done; PDNG, INFO
 *   (information only, e.g. a forecast) and FUTR → pending, which the pipeline does not book;
 *   a reversal (`RvslInd` true) that is booked → refund;
 * - date: `BookgDt` (`Dt`, or `DtTm`), else `ValDt`. A date-time with a zone is that instant; a
 *   date, or a date-time without a zone, is read in `options.timeZone`;
 * - externalId: `AcctSvcrRef`, else `NtryRef`, else the first `TxDtls/Refs` `AcctSvcrRef`, `EndToEndId`
 *   or `TxId`, leaving out placeholders (`NONREF`, `NOTPROVIDED`…: PLACEHOLDER_REFERENCE); none
 *   left: '' (the pipeline then keys the entry by its content);
 * - payee: the other party of the first `TxDtls`: `RltdPties/Cdtr` for a debit, `Dbtr` for a
 *   credit (`Nm` or `Pty/Nm`), else the ultimate creditor/debtor. A reversal keeps the original
 *   payment's parties (SEPA R-transactions do), so there the sides swap;
 * - description: the `RmtInf/Ustrd` parts joined by a space, else `RmtInf/Strd/CdtrRefInf/Ref`,
 *   else `AddtlTxInf`, else `AddtlNtryInf`; never repeating the payee;
 * - sourceCategory: `BkTxCd/Domn` as 'PMNT/ICDT/ESCT', else `BkTxCd/Prtry/Cd`.
 * A batch entry (several `TxDtls`: a salary run, a collection of direct debits) stays one line of
 * the entry's amount, as booked: its payee is that of the first `TxDtls`, its description the
 * entry's `AddtlNtryInf` when there is one (e.g. 'SAMMLER 3 POSTEN'), else the first's.
 *
 * XML that is not well-formed (a cut-off download, a hand-edited file) is refused as 'truncated';
 * well-formed XML that is not one of these messages as 'notThisFormat'.
 */

type XmlNode = Record<string, unknown>;

const REPEATED = new Set(['Stmt', 'Rpt', 'Ntfctn', 'Ntry', 'NtryDtls', 'TxDtls', 'Ustrd', 'Strd', 'CdtrRefInf']);
const MESSAGES: [string, string][] = [
  ['BkToCstmrStmt', 'Stmt'],
  ['BkToCstmrAcctRpt', 'Rpt'],
  ['BkToCstmrDbtCdtNtfctn', 'Ntfctn'],
];

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  isArray: (name) => REPEATED.has(name),
  tagValueProcessor: (_name, value) => decodeXmlEntities(value),
  attributeValueProcessor: (_name, value) => decodeXmlEntities(value),
});

const MESSAGE_MARK = /urn:iso:std:iso:20022:tech:xsd:camt\.05[234]|<(?:[\w-]+:)?(?:BkToCstmrStmt|BkToCstmrAcctRpt|BkToCstmrDbtCdtNtfctn)[\s>]/;

export const sniffCamt: StatementSniffer = (bytes) => MESSAGE_MARK.test(bytes.subarray(0, 4096).toString('latin1').replace(/\0/g, ''));

function node(value: unknown): XmlNode | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as XmlNode) : undefined;
}

function list(value: unknown): XmlNode[] {
  if (Array.isArray(value)) return (value as unknown[]).map((item) => node(item) ?? { '#text': item });
  const one = node(value);
  return one ? [one] : value === undefined ? [] : [{ '#text': value }];
}

/** The element at `path` below `from` (the first of repeated ones). */
function at(from: unknown, ...path: string[]): unknown {
  let here = from;
  for (const name of path) {
    if (Array.isArray(here)) here = here[0];
    here = node(here)?.[name];
  }
  return Array.isArray(here) ? here[0] : here;
}

/** The text of the element at `path` ('' when absent). */
function text(from: unknown, ...path: string[]): string {
  const value = at(from, ...path);
  if (typeof value === 'string') return value.trim();
  const inner = node(value)?.['#text'];
  return typeof inner === 'string' ? inner.trim() : typeof inner === 'number' ? String(inner) : '';
}

/** The texts of the repeated element at `path` (`RmtInf/Ustrd` lines). */
function texts(from: unknown, parents: string[], name: string): string[] {
  const values = node(at(from, ...parents))?.[name];
  const items: unknown[] = Array.isArray(values) ? values : values === undefined ? [] : [values];
  return items.map((item) => text({ item }, 'item')).filter(Boolean);
}

/** How deep a statement's elements may nest: camt.053 goes about 12 levels down; far more is not a statement (and would slow the XML parser). */
export const MAX_XML_DEPTH = 64;

const isNameStart = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
const isNameChar = (code: number) => isNameStart(code) || (code >= 48 && code <= 57) || code === 46 || code === 58 || code === 45;
const isSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 13;

/** The markup starting at `lt` (a "<"): where it ends, and the tag it is, if any; null when it is not markup. */
function markupAt(xml: string, lt: number): { end: number; name?: string; closing?: boolean; selfClosing?: boolean } | null {
  const special = (open: string, close: string) => {
    const end = xml.indexOf(close, lt + open.length);
    return end === -1 ? null : { end: end + close.length };
  };
  if (xml.startsWith('<!--', lt)) return special('<!--', '-->');
  if (xml.startsWith('<![CDATA[', lt)) return special('<![CDATA[', ']]>');
  if (xml.startsWith('<?', lt)) return special('<?', '?>');
  let j = lt + 1;
  const closing = xml.charCodeAt(j) === 47; // '/'
  if (closing) j++;
  const nameStart = j;
  if (!isNameStart(xml.charCodeAt(j))) return null;
  while (isNameChar(xml.charCodeAt(j))) j++;
  const name = xml.slice(nameStart, j);
  const next = xml.charCodeAt(j);
  if (next === 62) return { end: j + 1, name, closing, selfClosing: false }; // '>'
  if (next === 47) return xml.charCodeAt(j + 1) === 62 ? { end: j + 2, name, closing, selfClosing: true } : null; // '/>'
  if (!isSpace(next)) return null;
  const gt = xml.indexOf('>', j);
  if (gt === -1) return null;
  return { end: gt + 1, name, closing, selfClosing: xml.charCodeAt(gt - 1) === 47 };
}

/**
 * What makes the XML's tags not well-formed, or null: a tag cut off, an end tag that does not
 * match, elements left open at the end of the text (a cut-off download), text after the root,
 * elements nested deeper than MAX_XML_DEPTH. fast-xml-parser itself reads such text without
 * complaint (and its validator is deprecated). One pass over the text: each "<" is looked at once,
 * and a piece of markup that never ends stops the scan (a regular expression retried at every
 * later "<" made unterminated markup quadratic).
 */
export function tagProblem(xml: string): string | null {
  const lineAt = (index: number) => xml.slice(0, index).split('\n').length;
  const open: string[] = [];
  let closedRoot = false;
  for (let lt = xml.indexOf('<'); lt !== -1;) {
    const markup = markupAt(xml, lt);
    if (markup === null) return xml.indexOf('>', lt) === -1 ? `line ${lineAt(lt)}: a tag is cut off` : `line ${lineAt(lt)}: a "<" that starts no tag`;
    const { name } = markup;
    if (name !== undefined) {
      if (markup.closing) {
        const expected = open.pop();
        if (expected !== name) return `line ${lineAt(lt)}: </${name}> where ${expected ? `</${expected}>` : 'no end tag'} was expected`;
        if (open.length === 0) closedRoot = true;
      } else {
        if (closedRoot) return `line ${lineAt(lt)}: <${name}> after the end of the document`;
        if (!markup.selfClosing) open.push(name);
        else if (open.length === 0) closedRoot = true;
        if (open.length > MAX_XML_DEPTH) return `line ${lineAt(lt)}: elements nested more than ${MAX_XML_DEPTH} deep, which no bank statement is`;
      }
    }
    lt = xml.indexOf('<', markup.end);
  }
  const innermost = open.at(-1);
  if (innermost !== undefined) return `the file ends before </${innermost}>`;
  return closedRoot ? null : 'no root element';
}

/** The file → its XML tree, or a StatementError saying why it cannot be read. */
function readDocument(bytes: Buffer): XmlNode {
  const label = /<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/i.exec(bytes.subarray(0, 200).toString('latin1').replace(/\0/g, ''))?.[1];
  const xml = decodeLabelledText(bytes, label).replace(/^\ufeff/, '');
  if (xml.trim() === '') throw new StatementError('empty', 'The file is empty.');
  const head = xml.slice(0, 4096);
  if (!xml.trimStart().startsWith('<')) {
    throw new StatementError(
      'notThisFormat',
      'This is not a CAMT file: CAMT.053 statements are XML, and this file is not. Download the statement from the bank as "camt.053" (ISO 20022 XML).',
    );
  }
  if (/<!DOCTYPE/i.test(head)) {
    throw new StatementError('notThisFormat', 'This XML file declares a DOCTYPE, which ISO 20022 bank statements never do: it is not a CAMT statement.');
  }
  if (!MESSAGE_MARK.test(head)) {
    const root = /<(?:[\w-]+:)?([\w.-]+)[\s/>]/.exec(head.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->/g, ''))?.[1] ?? '?';
    throw new StatementError('notThisFormat', `This XML file is not an ISO 20022 CAMT.053/052/054 bank statement (its root element is <${root}>).`);
  }
  const problem = tagProblem(xml);
  if (problem) throw new StatementError('truncated', `The statement's XML is cut off or damaged (${problem}). Download the statement again.`);
  try {
    return parser.parse(xml) as XmlNode;
  } catch (error) {
    throw new StatementError('truncated', `The statement's XML is damaged (${error instanceof Error ? error.message : String(error)}). Download the statement again.`);
  }
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:Z|[+-]\d{2}:\d{2})?$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** ISO dates of one file → ms; each local midnight computed once. */
function isoDateParser(timeZone: string): (text: string) => number | null {
  const midnights = new Map<string, number | null>();
  const midnight = (y: number, m: number, d: number, zone: string) => {
    const key = `${zone}|${y}-${m}-${d}`;
    let value = midnights.get(key);
    if (value === undefined) {
      value = localDateTime(y, m, d, zone);
      midnights.set(key, value);
    }
    return value;
  };
  return (value) => {
    const date = DATE.exec(value);
    if (date) return midnight(Number(date[1]), Number(date[2]), Number(date[3]), timeZone);
    const m = DATE_TIME.exec(value) as (string | undefined)[] | null;
    if (!m) return null;
    const part = (index: number) => Number(m[index] ?? 0);
    const [y, mo, d, h, mi, s] = [part(1), part(2), part(3), part(4), part(5), part(6)] as const;
    if (h > 23 || mi > 59 || s > 60) return null;
    const clock = ((h * 60 + mi) * 60 + Math.min(s, 59)) * 1000 + (m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0);
    const zone = m[8];
    if (zone === undefined) {
      const local = midnight(y, mo, d, timeZone);
      return local === null ? null : local + clock;
    }
    const utc = midnight(y, mo, d, 'UTC');
    if (utc === null) return null;
    const offset = zone === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2))) * 60_000;
    return utc + clock - offset;
  };
}

/**
 * What banks write where they have no reference: `NONREF` (German banks' AcctSvcrRef), SEPA's
 * `NOTPROVIDED`, `NONE`, `N/A`, dashes or zeros. The same word on every entry is no id: taken for
 * one, it made the next statement's entries look like the previous statement's.
 */
const PLACEHOLDER_REFERENCE = /^(?:NONREF|NOT\s*PROVIDED|NONE|N\/?A|-+|0+)$/i;

/** A reference that identifies its entry: not empty, not a placeholder. */
export const isReference = (value: string) => value !== '' && !PLACEHOLDER_REFERENCE.test(value);

function partyName(party: unknown): string {
  return text(party, 'Nm') || text(party, 'Pty', 'Nm');
}

/** `BkTxCd` → 'PMNT/ICDT/ESCT' (ISO domain/family/sub-family) or the proprietary code. */
function transactionCode(code: unknown): string {
  const domain = text(code, 'Domn', 'Cd');
  if (domain) return [domain, text(code, 'Domn', 'Fmly', 'Cd'), text(code, 'Domn', 'Fmly', 'SubFmlyCd')].filter(Boolean).join('/');
  return text(code, 'Prtry', 'Cd');
}

function statusOf(entry: unknown, reversal: boolean): LineStatus {
  const code = (text(entry, 'Sts', 'Cd') || text(entry, 'Sts', 'Prtry') || text(entry, 'Sts')).toUpperCase();
  if (code === 'PDNG' || code === 'INFO' || code === 'FUTR') return 'pending';
  return reversal ? 'refund' : 'done';
}

export const parseCamt: StatementParser = (bytes: Buffer, options: ParseOptions): ParsedStatement => {
  const document = readDocument(bytes);
  const root =
    node(document.Document) ??
    Object.values(document)
      .map(node)
      .find((value) => value?.Document !== undefined)?.Document;
  const message = MESSAGES.map(([name, part]) => ({ body: node(at(root, name)), part })).find((m) => m.body !== undefined);
  if (!message?.body) {
    const name = Object.keys(node(root) ?? document).find((key) => !key.startsWith('@')) ?? '?';
    throw new StatementError('notThisFormat', `This ISO 20022 file is not a bank statement (camt.053), report (camt.052) or notification (camt.054): it holds <${name}>.`);
  }

  const parseDate = isoDateParser(options.timeZone);
  const statements = list(message.body[message.part]);
  const accounts = statements.map((statement) => text(statement, 'Acct', 'Id', 'IBAN') || text(statement, 'Acct', 'Id', 'Othr', 'Id'));
  const distinctAccounts = [...new Set(accounts.filter(Boolean))];
  const lines: StatementLine[] = [];
  const invalid: InvalidLine[] = [];
  const currencies = new Set<string>();
  let ordinal = 0;
  statements.forEach((statement, s) => {
    const accountCurrency = text(statement, 'Acct', 'Ccy').toUpperCase();
    for (const entry of list(statement.Ntry)) {
      ordinal += 1;
      const result = readEntry(entry, ordinal, accountCurrency, parseDate);
      if ('kind' in result) {
        invalid.push(result);
        continue;
      }
      if (distinctAccounts.length > 1 && accounts[s]) result.method = accounts[s];
      currencies.add(result.currency ?? '');
      lines.push(result);
    }
    if (accountCurrency) currencies.add(accountCurrency);
  });
  const [only] = currencies;
  return {
    format: 'camt',
    lines,
    invalid,
    currency: currencies.size === 1 && only ? only : undefined,
    account: distinctAccounts.length > 0 ? distinctAccounts.join(', ') : undefined,
  };
};

function readEntry(entry: XmlNode, line: number, accountCurrency: string, parseDate: (text: string) => number | null): StatementLine | InvalidLine {
  const rawAmount = text(entry, 'Amt');
  if (rawAmount === '') return { line, kind: 'missingField', reason: `Entry ${line} has no amount (Amt).` };
  const amount = parseAmount(rawAmount);
  if (!amount || amount.negative) return { line, kind: 'badAmount', reason: `Entry ${line}: the amount "${rawAmount}" is not a positive number.` };
  const indicator = text(entry, 'CdtDbtInd').toUpperCase();
  if (indicator !== 'CRDT' && indicator !== 'DBIT') {
    return { line, kind: 'badDirection', reason: `Entry ${line}: the credit/debit indicator "${indicator}" is neither CRDT nor DBIT.` };
  }
  const rawDate = text(entry, 'BookgDt', 'DtTm') || text(entry, 'BookgDt', 'Dt') || text(entry, 'ValDt', 'DtTm') || text(entry, 'ValDt', 'Dt');
  if (rawDate === '') return { line, kind: 'missingField', reason: `Entry ${line} has no booking or value date (BookgDt, ValDt).` };
  const date = parseDate(rawDate);
  if (date === null) return { line, kind: 'badDate', reason: `Entry ${line}: the date "${rawDate}" is not an ISO date (YYYY-MM-DD or YYYY-MM-DDThh:mm:ss).` };

  const reversal = text(entry, 'RvslInd').toLowerCase() === 'true' || text(entry, 'RvslInd') === '1';
  const details = list(at(entry, 'NtryDtls')).flatMap((group) => list(group.TxDtls));
  const first = details.at(0);
  const parties = at(first, 'RltdPties');
  // The other party: the creditor of a payment out, the debtor of a payment in (sides swap in a reversal).
  const otherIsCreditor = (indicator === 'DBIT') !== reversal;
  const payee = otherIsCreditor ? partyName(at(parties, 'Cdtr')) || partyName(at(parties, 'UltmtCdtr')) : partyName(at(parties, 'Dbtr')) || partyName(at(parties, 'UltmtDbtr'));
  const remittance = texts(first, ['RmtInf'], 'Ustrd').join(' ') || text(first, 'RmtInf', 'Strd', 'CdtrRefInf', 'Ref') || text(first, 'AddtlTxInf');
  const entryInfo = text(entry, 'AddtlNtryInf');
  const description = details.length > 1 ? entryInfo || remittance : remittance || entryInfo;
  const refs = at(first, 'Refs');
  const externalId = [text(entry, 'AcctSvcrRef'), text(entry, 'NtryRef'), text(refs, 'AcctSvcrRef'), text(refs, 'EndToEndId'), text(refs, 'TxId')].find(isReference) ?? '';
  const category = transactionCode(at(entry, 'BkTxCd')) || transactionCode(at(first, 'BkTxCd'));
  const currency = (text(entry, 'Amt', '@Ccy') || accountCurrency).toUpperCase();
  return {
    line,
    date,
    amount: amount.amount,
    currency: currency || undefined,
    direction: indicator === 'CRDT' ? 'income' : 'expense',
    status: statusOf(entry, reversal),
    payee,
    description: withoutPayee(description, payee),
    externalId,
    sourceCategory: category || undefined,
  };
}
