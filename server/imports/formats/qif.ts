import { captured, decodeLabelledText, localDateTime, parseAmount, withoutPayee } from './shared';
import {
  DATE_ORDERS,
  StatementError,
  type DateOrder,
  type InvalidLine,
  type ParseOptions,
  type ParsedStatement,
  type StatementLine,
  type StatementParser,
  type StatementSniffer,
} from './types';

/**
 * QIF (Quicken Interchange Format) statements. A file is a series of sections, each opened by a
 * `!` line, of records of one-letter fields ended by `^`:
 * - `!Type:Bank`, `!Type:CCard`, `!Type:Cash`, `!Type:Oth A`, `!Type:Oth L`: transactions, read;
 * - `!Type:Invst`, lists (`!Type:Cat`, `!Type:Class`, `!Type:Memorized`, `!Type:Security`…): skipped;
 * - `!Account` then a record (`N` name, `T` type, `^`): the account the following `!Type:` section
 *   belongs to. Between `!Option:AutoSwitch` and `!Clear:AutoSwitch`, `!Account` records are a
 *   list of all accounts and are skipped.
 * A file of several accounts gives all their transactions: `account` joins the names and each
 * line's `method` names its account (a transfer between two of them then appears in both, as the
 * two accounts' sides of it).
 *
 * Fields: `D` date, `T` (or `U`) signed amount (zero is read, and the pipeline skips it), `P` payee,
 * `M` memo (description, without the payee repeated), `L` category (sourceCategory; `[Account]` is
 * a transfer: direction neutral; with the payee `Opening Balance` it is the account's starting
 * balance, `openingBalance`, which the pipeline skips), `N`
 * number ('No. 123' in the description when it is a number), `C` cleared status (not used: an
 * uncleared transaction still happened). Split lines (`S`, `E`, `$`, `%`) are ignored: `T` is
 * their total. QIF has no transaction ids: externalId is ''. `line` is the record's first line.
 * Money in is positive in every account type (a card's purchases are negative).
 *
 * Dates: `MM/DD/YY`, `MM/DD'YY` (Quicken's 2000s, also with a space: `1/ 5'04`, and with one
 * digit: `8/31' 0` is 2000), `M/D/YYYY`, `DD/MM/YYYY`, `YY/MM/DD`, `YYYY-MM-DD`, `DD.MM.YYYY`.
 * Whether `01/02/03` is 2 January, 1 February or 3 February 2001 is decided once for the whole file
 * (dateOrderOf): the order that reads the most dates, then the one whose dates lie closest
 * together, then month-first (Quicken's US convention); when several orders read every date the
 * statement says so (`dateOrder`) and `options.dateOrder` chooses. Dotted dates are always
 * day-first. A date the file's order cannot read (second part over 12 in a day-first file) is
 * invalid. Two-digit years are 20YY after an apostrophe, otherwise 20YY below 70 and 19YY from 70.
 *
 * The last record must end with `^`; one that does not is reported invalid (the file may be cut
 * off) rather than imported half.
 */

interface QifRecord {
  line: number;
  fields: Map<string, string>;
  account?: string;
}

const TRANSACTION_SECTION = /^type\s*:\s*(?:bank|cash|ccard|oth\s*a|oth\s*l)\s*$/i;
const SPLIT_FIELDS = new Set(['S', 'E', '$', '%']);

export const sniffQif: StatementSniffer = (bytes) => {
  const head = bytes
    .subarray(0, 4096)
    .toString('latin1')
    .replace(/\0/g, '')
    .replace(/^(?:\ufeff|ï»¿|þÿ|ÿþ)/, '');
  // Comment lines (`# …`) may come first.
  return /^(?:\s*#[^\n]*\n)*\s*!(?:type|account|option|clear)\b/i.test(head);
};

/** The records of the transaction sections, the accounts they belong to, and whether the file had any such section. */
function readRecords(text: string): { records: QifRecord[]; accounts: string[]; unterminated?: QifRecord; sawTransactions: boolean } {
  const lines = text.split(/\r\n|\r|\n/);
  const records: QifRecord[] = [];
  const accounts: string[] = [];
  const seenAccounts = new Set<string>();
  let section: 'transactions' | 'account' | 'skip' = 'skip';
  let autoSwitch = false;
  let sawHeader = false;
  let sawTransactions = false;
  let account: string | undefined;
  let record: QifRecord | null = null;

  const end = () => {
    if (record && section === 'transactions') {
      records.push(record);
      if (record.account !== undefined && !seenAccounts.has(record.account)) {
        seenAccounts.add(record.account);
        accounts.push(record.account);
      }
    }
    if (record && section === 'account') account = record.fields.get('N') || undefined;
    record = null;
  };

  for (const [i, raw] of lines.entries()) {
    const text = raw.trim();
    if (text === '') continue;
    if (text.startsWith('!')) {
      end();
      sawHeader = true;
      const header = text.slice(1).trim();
      if (/^option\s*:\s*autoswitch/i.test(header)) {
        autoSwitch = true;
        section = 'skip';
      } else if (/^clear\s*:\s*autoswitch/i.test(header)) {
        autoSwitch = false;
        section = 'skip';
      } else if (/^account\b/i.test(header)) {
        section = autoSwitch ? 'skip' : 'account';
      } else if (TRANSACTION_SECTION.test(header)) {
        section = 'transactions';
        sawTransactions = true;
      } else if (!/^option\s*:/i.test(header)) {
        section = 'skip'; // !Type:Invst, !Type:Cat and the other lists
      }
      continue;
    }
    // Lines before the first `!` line that start with `#` are comments some tools write.
    if (!sawHeader && text.startsWith('#')) continue;
    if (!sawHeader) {
      throw new StatementError(
        'notThisFormat',
        'This is not a QIF file: it does not start with a "!Type:" (or "!Account") line. Export the statement from the bank or app as QIF.',
      );
    }
    if (text.startsWith('^')) {
      end();
      continue;
    }
    record ??= { line: i + 1, fields: new Map(), account };
    const letter = text.charAt(0).toUpperCase();
    if (SPLIT_FIELDS.has(letter)) continue; // a split's category, memo, amount or percent: T is the total
    if (!record.fields.has(letter)) record.fields.set(letter, text.slice(1).trim());
  }
  const last: QifRecord | null = record;
  return { records, accounts, unterminated: last && section === 'transactions' ? last : undefined, sawTransactions };
}

const ISO_DATE = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$/;
const DOTTED_DATE = /^(\d{1,2})\.(\d{1,2})\.(\d{4}|\d{2})$/;
/** `12/31/2024`, `12/31/24`, `12/31'24`, `8/31' 0` (Quicken's 2000s: an apostrophe and one or two digits), `13/08/12` (year first). */
const SLASHED_DATE = /^(\d{1,2})[/-](\d{1,2})(?:[/-]'?|')(\d{4}|\d{1,2})$/;

function year(digits: string, apostrophe: boolean): number {
  const value = Number(digits);
  if (digits.length === 4) return value;
  return apostrophe || value < 70 ? 2000 + value : 1900 + value;
}

/** A QIF date written with `/` or `-`, its parts as written. */
interface SlashedDate {
  parts: [number, number, number];
  /** The last part is the year for sure: four digits, or after an apostrophe. */
  yearLast: boolean;
  /** The last part as written, and whether an apostrophe marks it (Quicken's years 2000 and later). */
  last: string;
  apostrophe: boolean;
}

function slashed(text: string): SlashedDate | null {
  const value = text.replace(/\s+/g, '');
  const m = SLASHED_DATE.exec(value);
  if (!m) return null;
  const apostrophe = value.includes("'");
  const last = captured(m, 3);
  return { parts: [Number(m[1]), Number(m[2]), Number(last)], yearLast: apostrophe || last.length === 4, last, apostrophe };
}

/** A slashed date read in `order` → [year, month, day], or null when that order cannot read it. */
function inOrder(date: SlashedDate, order: DateOrder): [number, number, number] | null {
  const [a, b, c] = date.parts;
  if (order === 'YMD') {
    if (date.yearLast) return null;
    return [year(String(a).padStart(2, '0'), false), b, c];
  }
  const y = year(date.last, date.apostrophe);
  return order === 'MDY' ? [y, a, b] : [y, b, a];
}

const isCalendarDate = ([y, m, d]: [number, number, number]) => m >= 1 && m <= 12 && d >= 1 && d <= new Date(Date.UTC(y, m, 0)).getUTCDate();

/**
 * The order the file's `/` and `-` dates are written in (they all share one): the order that
 * reads the most of them as real dates; among orders that read as many, the one whose dates lie
 * closest together (a statement covers weeks, not decades: `13/08/12` … `13/3/3` are 2013 read
 * year first, but 2003–2012 read day first), then month-first (Quicken's US habit), day-first,
 * year-first. `possible` lists every order that reads as many: more than one is ambiguous, and
 * the preview says so (the person can choose another, `dateOrder`).
 */
export function dateOrderOf(dates: readonly string[]): { used: DateOrder; possible: DateOrder[] } {
  const read = dates.map(slashed).filter((d): d is SlashedDate => d !== null);
  const scored = DATE_ORDERS.map((order) => {
    const days = read.map((d) => inOrder(d, order)).filter((ymd): ymd is [number, number, number] => ymd !== null && isCalendarDate(ymd));
    let first = Infinity;
    let last = -Infinity;
    for (const [y, m, d] of days) {
      const at = Date.UTC(y, m - 1, d);
      first = Math.min(first, at);
      last = Math.max(last, at);
    }
    return { order, count: days.length, span: days.length > 0 ? last - first : 0 };
  });
  const best = Math.max(...scored.map((s) => s.count));
  const possible = scored.filter((s) => s.count === best);
  const used = [...possible].sort((a, b) => a.span - b.span).at(0);
  if (used === undefined) throw new Error('dateOrderOf: no date order scored the best count'); // one of DATE_ORDERS always does
  return { used: used.order, possible: best > 0 ? possible.map((s) => s.order) : [used.order] };
}

const ORDER_NAMES: Record<DateOrder, string> = { MDY: 'month/day/year', DMY: 'day/month/year', YMD: 'year/month/day' };

/** A QIF date → [year, month, day], or a reason it cannot be read. */
function readDate(text: string, order: DateOrder): [number, number, number] | string {
  const value = text.replace(/\s+/g, '');
  let m = ISO_DATE.exec(value);
  if (m) return [Number(m[1]), Number(m[2]), Number(m[3])];
  m = DOTTED_DATE.exec(value);
  if (m) return [year(captured(m, 3), false), Number(m[2]), Number(m[1])];
  const date = slashed(value);
  if (!date) return `the date "${text}" is not a QIF date (such as 12/31/2024, 12/31'24, 31/12/2024 or 2024-12-31)`;
  const ymd = inOrder(date, order);
  if (ymd === null || ymd[1] < 1 || ymd[1] > 12) return `the date "${text}" cannot be read as ${ORDER_NAMES[order]}, the order of the file's other dates`;
  return ymd;
}

/** A T/U amount: thousands commas (`-1,250.00`), or a decimal comma (`-12,50`, `1.234,56`). */
function readAmount(text: string): { amount: string; negative: boolean } | null {
  const value = text.trim();
  return parseAmount(value, /,\d{1,2}$/.test(value) ? ',' : '.');
}

export const parseQif: StatementParser = (bytes: Buffer, options: ParseOptions): ParsedStatement => {
  const text = decodeLabelledText(bytes);
  if (text.trim() === '') throw new StatementError('empty', 'The file is empty.');
  const { records, accounts, unterminated, sawTransactions } = readRecords(text.replace(/^\ufeff/, ''));
  if (!sawTransactions) {
    throw new StatementError(
      'notThisFormat',
      'This QIF file holds no bank, cash or card account section ("!Type:Bank", "!Type:CCard"…): investment accounts and lists cannot be imported.',
    );
  }
  const found = dateOrderOf(records.map((r) => r.fields.get('D') ?? ''));
  const order = options.dateOrder ?? found.used;
  const midnights = new Map<string, number | null>();
  const lines: StatementLine[] = [];
  const invalid: InvalidLine[] = [];
  for (const record of records) {
    const result = readRecord(record, order, (y, m, d) => {
      const key = `${y}-${m}-${d}`;
      let at = midnights.get(key);
      if (at === undefined) {
        at = localDateTime(y, m, d, options.timeZone);
        midnights.set(key, at);
      }
      return at;
    });
    if ('kind' in result) invalid.push(result);
    else {
      if (accounts.length > 1 && record.account) result.method = record.account;
      lines.push(result);
    }
  }
  if (unterminated) {
    invalid.push({
      line: unterminated.line,
      kind: 'badRow',
      reason: `The record starting at line ${unterminated.line} is not ended by "^": the file may be cut off, so it was not imported.`,
    });
  }
  const statement: ParsedStatement = { format: 'qif', lines, invalid, account: accounts.length > 0 ? accounts.join(', ') : undefined };
  if (found.possible.length > 1) statement.dateOrder = { used: order, possible: found.possible };
  return statement;
};

function readRecord(record: QifRecord, order: DateOrder, midnight: (y: number, m: number, d: number) => number | null): StatementLine | InvalidLine {
  const { line, fields } = record;
  const rawDate = fields.get('D') ?? '';
  if (rawDate === '') return { line, kind: 'missingField', reason: `The record at line ${line} has no date (D line).` };
  const rawAmount = fields.get('T') || fields.get('U') || '';
  if (rawAmount === '') return { line, kind: 'missingField', reason: `The record at line ${line} has no amount (T line).` };
  const ymd = readDate(rawDate, order);
  if (typeof ymd === 'string') return { line, kind: 'badDate', reason: `Line ${line}: ${ymd}.` };
  const date = midnight(...ymd);
  if (date === null) return { line, kind: 'badDate', reason: `Line ${line}: the date "${rawDate}" does not exist.` };
  const amount = readAmount(rawAmount);
  if (!amount) return { line, kind: 'badAmount', reason: `Line ${line}: the amount "${rawAmount}" is not a number.` };

  const payee = fields.get('P') ?? '';
  const category = fields.get('L') ?? '';
  const transfer = /^\[[^\]]*\]/.test(category);

  let description = withoutPayee(fields.get('M') ?? '', payee);
  const number = fields.get('N') ?? '';
  if (/^\d+$/.test(number) && !`${payee} ${description}`.includes(number)) description = description ? `${description}; No. ${number}` : `No. ${number}`;
  const parsed: StatementLine = {
    line,
    date,
    amount: amount.amount,
    direction: transfer ? 'neutral' : amount.negative ? 'expense' : 'income',
    status: 'done',
    payee,
    description,
    externalId: '',
    sourceCategory: category || undefined,
  };
  // Quicken's first record of an account: its starting balance, against the account itself.
  if (transfer && /^opening balance$/i.test(payee)) parsed.openingBalance = true;
  return parsed;
}
