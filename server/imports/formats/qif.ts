import { decodeLabelledText, isZeroAmount, localDateTime, parseAmount, withoutPayee } from './shared';
import { StatementError, type InvalidLine, type ParseOptions, type ParsedStatement, type StatementLine, type StatementParser, type StatementSniffer } from './types';

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
 * Fields: `D` date, `T` (or `U`) signed amount, `P` payee, `M` memo (description, without the payee
 * repeated), `L` category (sourceCategory; `[Account]` is a transfer: direction neutral), `N`
 * number ('No. 123' in the description when it is a number), `C` cleared status (not used: an
 * uncleared transaction still happened). Split lines (`S`, `E`, `$`, `%`) are ignored: `T` is
 * their total. QIF has no transaction ids: externalId is ''. `line` is the record's first line.
 * Money in is positive in every account type (a card's purchases are negative).
 *
 * Dates: `MM/DD/YY`, `MM/DD'YY` (Quicken's 2000s, also with a space: `1/ 5'04`), `M/D/YYYY`,
 * `DD/MM/YYYY`, `YYYY-MM-DD`, `DD.MM.YYYY`. Whether `01/02/2024` is 2 January or 1 February is
 * decided once for the whole file: day-first when any `/` or `-` date has a first part over 12,
 * otherwise month-first (Quicken's US convention). Dotted dates are always day-first. A date that
 * contradicts the file's order (second part over 12 in a day-first file) is invalid. Two-digit
 * years are 20YY after an apostrophe, otherwise 20YY below 70 and 19YY from 70.
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
    .subarray(0, 512)
    .toString('latin1')
    .replace(/\0/g, '')
    .replace(/^(?:\ufeff|ï»¿|þÿ|ÿþ)/, '');
  return /^\s*!(?:type|account|option|clear)\b/i.test(head);
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

  for (let i = 0; i < lines.length; i++) {
    const text = lines[i].trim();
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
    const letter = text[0].toUpperCase();
    if (SPLIT_FIELDS.has(letter)) continue; // a split's category, memo, amount or percent: T is the total
    if (!record.fields.has(letter)) record.fields.set(letter, text.slice(1).trim());
  }
  const last: QifRecord | null = record;
  return { records, accounts, unterminated: last && section === 'transactions' ? last : undefined, sawTransactions };
}

const ISO_DATE = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$/;
const DOTTED_DATE = /^(\d{1,2})\.(\d{1,2})\.(\d{4}|\d{2})$/;
const SLASHED_DATE = /^(\d{1,2})[/-](\d{1,2})(?:([/-])|(')|[/-]')(\d{4}|\d{2})$/;

function year(digits: string, apostrophe: boolean): number {
  const value = Number(digits);
  if (digits.length === 4) return value;
  return apostrophe || value < 70 ? 2000 + value : 1900 + value;
}

/** A QIF date → [year, month, day], or a reason it cannot be read. */
function readDate(text: string, dayFirst: boolean): [number, number, number] | string {
  const value = text.replace(/\s+/g, '');
  let m = ISO_DATE.exec(value);
  if (m) return [Number(m[1]), Number(m[2]), Number(m[3])];
  m = DOTTED_DATE.exec(value);
  if (m) return [year(m[3], false), Number(m[2]), Number(m[1])];
  m = SLASHED_DATE.exec(value);
  if (!m) return `the date "${text}" is not a QIF date (such as 12/31/2024, 12/31'24, 31/12/2024 or 2024-12-31)`;
  const first = Number(m[1]);
  const second = Number(m[2]);
  if (dayFirst && second > 12) return `the date "${text}" has a month over 12, though other dates of the file put the day first`;
  return [year(m[5], value.includes("'")), dayFirst ? second : first, dayFirst ? first : second];
}

/** Day-first when any `/` or `-` date of the file starts with a number over 12. */
function isDayFirst(dates: string[]): boolean {
  return dates.some((text) => {
    const m = SLASHED_DATE.exec(text.replace(/\s+/g, ''));
    return m !== null && Number(m[1]) > 12;
  });
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
  const dayFirst = isDayFirst(records.map((r) => r.fields.get('D') ?? ''));
  const midnights = new Map<string, number | null>();
  const lines: StatementLine[] = [];
  const invalid: InvalidLine[] = [];
  for (const record of records) {
    const result = readRecord(record, dayFirst, (y, m, d) => {
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
  return { format: 'qif', lines, invalid, account: accounts.length > 0 ? accounts.join(', ') : undefined };
};

function readRecord(record: QifRecord, dayFirst: boolean, midnight: (y: number, m: number, d: number) => number | null): StatementLine | InvalidLine {
  const { line, fields } = record;
  const rawDate = fields.get('D') ?? '';
  if (rawDate === '') return { line, kind: 'missingField', reason: `The record at line ${line} has no date (D line).` };
  const rawAmount = fields.get('T') || fields.get('U') || '';
  if (rawAmount === '') return { line, kind: 'missingField', reason: `The record at line ${line} has no amount (T line).` };
  const ymd = readDate(rawDate, dayFirst);
  if (typeof ymd === 'string') return { line, kind: 'badDate', reason: `Line ${line}: ${ymd}.` };
  const date = midnight(...ymd);
  if (date === null) return { line, kind: 'badDate', reason: `Line ${line}: the date "${rawDate}" does not exist.` };
  const amount = readAmount(rawAmount);
  if (!amount) return { line, kind: 'badAmount', reason: `Line ${line}: the amount "${rawAmount}" is not a number.` };

  const payee = fields.get('P') ?? '';
  const category = fields.get('L') ?? '';
  const transfer = /^\[[^\]]*\]/.test(category);
  if (transfer && /^opening balance$/i.test(payee)) {
    return { line, kind: 'badRow', reason: `Line ${line}: the "Opening Balance" record sets the account's starting balance; it is not a transaction, so it was not imported.` };
  }
  if (isZeroAmount(amount.amount)) return { line, kind: 'badAmount', reason: `Line ${line}: the amount "${rawAmount}" is zero, so nothing moved.` };

  let description = withoutPayee(fields.get('M') ?? '', payee);
  const number = fields.get('N') ?? '';
  if (/^\d+$/.test(number) && !`${payee} ${description}`.includes(number)) description = description ? `${description}; No. ${number}` : `No. ${number}`;
  return {
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
}
