import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { CsvError, parse } from 'csv-parse/sync';
import iconv from 'iconv-lite';
import { csvRecords, decodeText, isZeroAmount, parseAmount } from './shared';
import { StatementError, type CsvMapping, type InvalidLine, type StatementLine, type StatementParser } from './types';
import { COLUMNS, DATE_FORMATS, HEADER_NAMES, headerKey, PLACEHOLDER, readCell, type Column, type DateFormat } from './csv-columns';
import { parseCsvDate } from './csv-dates';
import { foldText } from '../../lib/fold-text';

/**
 * The generic CSV format: any bank's CSV export, read through a column mapping the person chose in
 * the import wizard. describeCsv shows the wizard the header and a sample, guessMapping and
 * guessDateFormat (./csv-guess.ts, ./csv-dates.ts) pre-fill the choices, and the pipeline saves the mapping per source under
 * describeCsv's signature. Cells are text only: nothing is ever evaluated, and the apostrophe an
 * export puts before formula-looking text (`'=…`) is dropped again (restoreCell).
 */

export type CsvDelimiter = ',' | ';' | '\t';
type Encoding = NonNullable<CsvMapping['encoding']>;

export interface CsvDescription {
  /** The header row's cells, trimmed (index = the column index a mapping uses). */
  headers: string[];
  delimiter: CsvDelimiter;
  /** The first 5 data rows (blank rows left out), cells trimmed. */
  sample: string[][];
  /** A stable id of this source's layout: sha256 of the normalised header cells, base64url, 24 characters. */
  signature: string;
  /** Lines before the header row (without one: before the first transaction), as given or as found (locateTable). */
  skipRows: number;
  /** false: the file has no header row; `headers` are blank and the first row is a transaction. */
  header: boolean;
}

const DELIMITERS: readonly CsvDelimiter[] = [',', ';', '\t'];
const ENCODINGS: readonly Encoding[] = ['utf8', 'gbk', 'latin1'];
const LABELS: Partial<Record<Column, string>> = { inflow: 'money-in', outflow: 'money-out', externalId: 'transaction id' };
const label = (column: Column) => LABELS[column] ?? column;

/** The mapping after checking, with its defaults filled in (skipRows and header stay undefined when the file decides). */
interface Mapping extends CsvMapping {
  dateFormat: DateFormat;
  decimal: '.' | ',';
}

interface Row {
  cells: string[];
  /** 1-based line of the file where the row starts. */
  line: number;
}

/** A row that cannot be read: becomes an InvalidLine. */
class RowProblem extends Error {
  constructor(
    readonly kind: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const badMapping = (message: string) => new StatementError('badMapping', message);

function checkMapping(input: CsvMapping | undefined): Mapping {
  // The mapping may come from saved JSON: check it as untyped data.
  const raw: unknown = input;
  if (typeof raw !== 'object' || raw === null || input === undefined) {
    throw badMapping('The CSV format needs a column mapping: which column holds the date, and which the amount (or money in and money out).');
  }
  const fields = raw as Record<string, unknown>;
  for (const column of COLUMNS) {
    const value = fields[column];
    if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < 0)) {
      throw badMapping(`The ${label(column)} column must be a column index (0, 1, 2…), not ${JSON.stringify(value)}.`);
    }
  }
  const mapping = input;
  if (fields.date === undefined) throw badMapping('The mapping has no date column: choose the column that holds the date.');
  const inOut = mapping.inflow !== undefined || mapping.outflow !== undefined;
  if (mapping.amount === undefined && !inOut) {
    throw badMapping('The mapping has no amount column: choose a signed amount column, or the columns for money in and money out.');
  }
  if (mapping.amount !== undefined && inOut) {
    throw badMapping('The mapping has both a signed amount column and money-in/money-out columns: choose one of the two.');
  }
  const valueColumns = (['date', 'amount', 'inflow', 'outflow'] as const).filter((c) => mapping[c] !== undefined);
  for (const [i, a] of valueColumns.entries()) {
    const b = valueColumns.slice(i + 1).find((other) => mapping[other] === mapping[a]);
    if (b) throw badMapping(`The ${label(a)} and the ${label(b)} cannot be the same column (index ${mapping[a] ?? ''}).`);
  }
  const oneOf = (name: string, value: unknown, allowed: readonly unknown[]) => {
    if (value !== undefined && !allowed.includes(value)) {
      throw badMapping(`The ${name} ${JSON.stringify(value)} is not one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}.`);
    }
  };
  oneOf('date format', fields.dateFormat, DATE_FORMATS);
  oneOf('decimal separator', fields.decimal, ['.', ',']);
  oneOf('delimiter', fields.delimiter, DELIMITERS);
  oneOf('encoding', fields.encoding, ENCODINGS);
  oneOf('positiveIsExpense setting', fields.positiveIsExpense, [true, false]);
  oneOf('header setting', fields.header, [true, false]);
  checkSkipRows(fields.skipRows);
  return { ...mapping, dateFormat: mapping.dateFormat ?? 'YYYY-MM-DD', decimal: mapping.decimal ?? '.' };
}

function checkSkipRows(skipRows: unknown): number | undefined {
  if (skipRows === undefined) return undefined;
  if (typeof skipRows !== 'number' || !Number.isInteger(skipRows) || skipRows < 0) {
    throw badMapping(`The rows to skip before the header must be a whole number (0 or more), not ${JSON.stringify(skipRows)}.`);
  }
  return skipRows;
}

/** Every mapped column must exist in the header row: a saved mapping applied to a changed layout is refused, not guessed at. */
function checkWidth(mapping: Mapping, headers: string[], delimiter: CsvDelimiter): void {
  const beyond = COLUMNS.filter((c) => mapping[c] !== undefined && (mapping[c] ?? 0) >= headers.length);
  if (beyond.length === 0) return;
  const what = beyond.map((c) => `the ${label(c)} in column index ${mapping[c] ?? ''}`).join(' and ');
  const shown = headers.map((h) => (h === '' ? '(blank)' : h)).join(' | ');
  throw badMapping(
    `The mapping expects ${what}, but the header row has only ${headers.length} column${headers.length === 1 ? '' : 's'} (${shown}) ` +
      `when split at ${delimiter === '\t' ? 'tabs' : `'${delimiter}'`}. Check the delimiter and the rows to skip, or map the columns again.`,
  );
}

// Text: decoding, lines to skip, delimiter

/**
 * True when bytes that are not UTF-8 look like a single-byte Western encoding (Windows-1252 /
 * Latin-1): their non-ASCII bytes mostly stand alone ('Empf\xE4nger'), where GBK writes every
 * Chinese character as a pair of high bytes.
 */
function looksSingleByte(bytes: Buffer): boolean {
  let single = 0;
  let multi = 0;
  let run = 0;
  const endRun = () => {
    if (run === 1) single++;
    else if (run > 1) multi++;
    run = 0;
  };
  for (const byte of bytes) {
    if (byte >= 0x80) run++;
    else endRun();
  }
  endRun();
  return single > multi;
}

function hasBom(bytes: Buffer): boolean {
  return (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) || (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
}

function decode(bytes: Buffer, encoding: Encoding | undefined): string {
  let text: string;
  if (encoding === 'utf8') {
    const body = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
    if (!isUtf8(body)) {
      throw new StatementError('encoding', 'The file is not UTF-8 text: choose the encoding the bank uses (often Windows-1252 / Latin-1 in Europe, GBK in China).');
    }
    text = body.toString('utf8');
  } else if (encoding === 'gbk') text = iconv.decode(bytes, 'gb18030');
  else if (encoding === 'latin1') text = iconv.decode(bytes, 'windows-1252');
  else if (!hasBom(bytes) && !isUtf8(bytes) && looksSingleByte(bytes)) text = iconv.decode(bytes, 'windows-1252');
  else text = decodeText(bytes);
  if (text.includes('\u0000')) {
    throw new StatementError(
      'encoding',
      'The file is not CSV text (it holds NUL bytes): it may be an Excel workbook or PDF, or UTF-16 text without a byte order mark. Export it as CSV again.',
    );
  }
  return text;
}

interface Prepared {
  /** The text after the rows to skip, with '\n' line ends. */
  body: string;
  delimiter: CsvDelimiter;
  skipRows: number;
  /** The body starts with a header row (false: with a transaction). */
  header: boolean;
}

/** How a CSV file is to be read: what the mapping (or describeCsv's caller) says; what it leaves out, the file decides. */
interface Reading {
  skipRows?: number;
  delimiter?: CsvDelimiter;
  encoding?: Encoding;
  header?: boolean;
}

function prepare(bytes: Buffer, reading: Reading): Prepared {
  if (bytes.length === 0) throw new StatementError('empty', 'The file is empty.');
  // One line end for csv-parse and for line numbers; a quoted cell's CRLF becomes '\n' too.
  const text = decode(bytes, reading.encoding).replace(/\r\n?/g, '\n');
  if (text.trim() === '') throw new StatementError('empty', 'The file is empty.');
  const found = locateTable(text, reading);
  const skipRows = found.skipRows;
  let start = 0;
  for (let i = 0; i < skipRows; i++) {
    const end = text.indexOf('\n', start);
    if (end < 0) {
      start = text.length;
      break;
    }
    start = end + 1;
  }
  const body = text.slice(start);
  if (body.trim() === '') throw new StatementError('empty', `The file has nothing after the ${skipRows} line${skipRows === 1 ? '' : 's'} to skip.`);
  return { body, delimiter: reading.delimiter ?? detectDelimiter(body), skipRows, header: found.header };
}

/** Lines of the file's top searched for the header row. */
const SCAN_LINES = 60;

/** The first `count` lines of the text (a quoted cell may run over more). */
function topLines(text: string, count: number): string {
  let end = 0;
  for (let i = 0; i < count && end !== -1; i++) end = text.indexOf('\n', end + (i === 0 ? 0 : 1));
  return end === -1 ? text : text.slice(0, end + 1);
}

/** Cells up to the last one with text (padding and trailing delimiters left out). */
function filledWidth(cells: readonly string[]): number {
  return cells.findLastIndex((cell) => readCell(cell) !== '') + 1;
}

/**
 * Where the table starts, when the reading does not say: banks put titles, the account and the
 * period above the header row (4 of 12 real exports), and some write no header row at all.
 * - The header row is the first of the top lines that names a date column and an amount column
 *   (money in / money out) in any of the languages guessMapping knows, and the most columns.
 * - Without such a row, the table is the run of rows of the width most rows have (with the
 *   delimiter that gives the most such rows): it starts at the first row of that width.
 * - A first row with a date and an amount in its cells is a transaction, not a header: the file
 *   has no header row.
 * `skipRows` and `header` given in the reading are taken as they are.
 */
function locateTable(text: string, reading: Reading): { skipRows: number; header: boolean } {
  if (reading.skipRows !== undefined) {
    const skip = reading.skipRows;
    const rest = text.slice(lineStart(text, skip), lineStart(text, skip + SCAN_LINES));
    const first = Array.from(csvRecords(rest, reading.delimiter ?? detectDelimiter(rest))).find((r) => filledWidth(r.cells) > 0);
    return { skipRows: skip, header: reading.header ?? !(first && looksLikeTransaction(first.cells)) };
  }
  const top = topLines(text, SCAN_LINES);
  const delimiters = reading.delimiter ? [reading.delimiter] : DELIMITERS;
  const recordsBy = new Map(delimiters.map((d) => [d, Array.from(csvRecords(top, d)).filter((r) => filledWidth(r.cells) > 0)]));
  let start: { line: number; cells: string[] } | undefined;
  // A row of names.
  let bestNamed = 1;
  for (const records of recordsBy.values()) {
    for (const record of records) {
      const named = namedColumns(record.cells);
      if (named > bestNamed || (named === bestNamed && start !== undefined && record.line < start.line && named > 1)) {
        bestNamed = named;
        start = record;
      }
    }
  }
  if (start !== undefined) return { skipRows: start.line - 1, header: reading.header ?? true };
  // The widest run of rows of one width.
  let best: { count: number; width: number; first: { line: number; cells: string[] } } | undefined;
  for (const records of recordsBy.values()) {
    const counts = new Map<number, number>();
    for (const record of records) counts.set(filledWidth(record.cells), (counts.get(filledWidth(record.cells)) ?? 0) + 1);
    for (const [width, count] of counts) {
      if (width < 2) continue;
      if (!best || count > best.count || (count === best.count && width > best.width)) {
        const first = records.find((r) => filledWidth(r.cells) === width);
        if (first) best = { count, width, first };
      }
    }
  }
  if (!best) return { skipRows: 0, header: reading.header ?? true };
  return { skipRows: best.first.line - 1, header: reading.header ?? !looksLikeTransaction(best.first.cells) };
}

/** Where line `n` (0-based) of the text starts (the text's length past its end). */
function lineStart(text: string, n: number): number {
  let at = 0;
  for (let i = 0; i < n; i++) {
    const end = text.indexOf('\n', at);
    if (end === -1) return text.length;
    at = end + 1;
  }
  return at;
}

/** A row that holds a date and an amount in its cells: a transaction (a header row names its columns, it holds no date). */
function looksLikeTransaction(cells: readonly string[]): boolean {
  const values = cells.map(readCell);
  const dateAt = values.findIndex((cell) => cell !== '' && DATE_FORMATS.some((format) => parseCsvDate(cell, format, 'UTC') !== null));
  if (dateAt === -1) return false;
  return values.some((cell, index) => index !== dateAt && !PLACEHOLDER.test(cell) && /\d/.test(cell) && parseAmount(cell, '.') !== null);
}

/** How many of the cells are known column names, when they name a date and an amount (or money in / out); else 0. */
function namedColumns(cells: readonly string[]): number {
  const keys = cells.map(headerKey);
  const named = new Set<Column>();
  let count = 0;
  for (const key of keys) {
    const column = HEADER_NAMES.find(([, pattern]) => pattern.test(key))?.[0];
    if (column === undefined) continue;
    named.add(column);
    count++;
  }
  return named.has('date') && (named.has('amount') || named.has('inflow') || named.has('outflow')) ? count : 0;
}

/** Counts of each delimiter outside quotes in the record starting at `from`, and where it ends. */
function scanRecord(text: string, from: number): { counts: Record<CsvDelimiter, number>; end: number; blank: boolean } {
  const counts: Record<CsvDelimiter, number> = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  let blank = true;
  let i = from;
  for (; i < text.length; i++) {
    const ch = text.charAt(i);
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === '\n') break;
    else if (!quoted && (ch === ',' || ch === ';' || ch === '\t')) counts[ch]++;
    if (blank && ch.trim() !== '') blank = false;
  }
  return { counts, end: i + 1, blank };
}

/**
 * The delimiter of the header line: the one of ',', ';' and tab found most often outside quotes.
 * A tie is broken by the next 5 rows (the delimiter whose count they repeat most), then by the
 * order ',' ';' tab. A header with none of them is one column, read with ','.
 */
function detectDelimiter(body: string): CsvDelimiter {
  const records: Record<CsvDelimiter, number>[] = [];
  for (let pos = 0; pos < body.length && records.length < 6;) {
    const record = scanRecord(body, pos);
    if (!record.blank) records.push(record.counts);
    pos = record.end;
  }
  const header = records.at(0);
  const rest = records.slice(1);
  if (header === undefined) return ',';
  const consistency = (d: CsvDelimiter) => rest.filter((counts) => counts[d] === header[d]).length;
  let best: CsvDelimiter = ',';
  for (const d of DELIMITERS) {
    if (header[d] > header[best] || (header[d] === header[best] && header[d] > 0 && consistency(d) > consistency(best))) best = d;
  }
  return best;
}

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** The rows of the body (blank rows left out), each with the file line it starts on. */
function readRows(prepared: Prepared, limit?: number): Row[] {
  const rows: Row[] = [];
  let lastLine = prepared.skipRows;
  try {
    parse(prepared.body, {
      delimiter: prepared.delimiter,
      relax_column_count: true,
      // A stray quote inside an unquoted cell (`Joe's "Diner"`) is text, not an error.
      relax_quotes: true,
      skip_empty_lines: true,
      to: limit,
      on_record: (record: string[], context) => {
        // context.lines: the line the record ends on; a quoted cell's line breaks moved it down.
        lastLine = prepared.skipRows + context.lines;
        const cells = record.map(readCell);
        if (cells.every((cell) => cell === '')) return null;
        let inner = 0;
        for (const cell of record) inner += countNewlines(cell);
        rows.push({ cells, line: lastLine - inner });
        return null;
      },
    });
  } catch (error) {
    if (error instanceof CsvError && error.code === 'CSV_QUOTE_NOT_CLOSED') {
      throw new StatementError(
        'truncated',
        `The file ends inside a quoted cell that opens after line ${lastLine}: it looks cut off. Download the export again and import the whole file.`,
      );
    }
    if (error instanceof CsvError) throw new StatementError('notThisFormat', `The file could not be read as CSV: ${error.message}`);
    throw error;
  }
  return rows;
}

// Cells: dates, amounts, currencies

/** An amount cell → { amount, negative }; a RowProblem when it is not a number in the file's decimal style. */
/**
 * True when the cell's last digits are 1 or 2 digits right after `separator` (only non-digits after
 * them): '12,50', '12,5 €'. Read from the end, once (the regular expression `,\d{1,2}\D*$` retried
 * from every separator, quadratic in a crafted cell).
 */
function endsInDecimals(cell: string, separator: ',' | '.'): boolean {
  const digit = (i: number) => cell.charCodeAt(i) >= 48 && cell.charCodeAt(i) <= 57;
  let end = cell.length;
  while (end > 0 && !digit(end - 1)) end--;
  let start = end;
  while (start > 0 && digit(start - 1)) start--;
  return end - start >= 1 && end - start <= 2 && start > 0 && cell[start - 1] === separator;
}

function readAmount(cell: string, decimal: '.' | ',', column: string): { amount: string; negative: boolean } {
  // A separator and 1–2 final digits is a decimal separator: '12,50' is refused here, not read as 1250.
  if (decimal === '.' && endsInDecimals(cell, ',')) {
    throw new RowProblem('badAmount', `'${cell}' in ${column} is written with ',' as the decimal separator: set the decimal separator to ','.`);
  }
  if (decimal === ',' && endsInDecimals(cell, '.')) {
    throw new RowProblem('badAmount', `'${cell}' in ${column} is written with '.' as the decimal separator: set the decimal separator to '.'.`);
  }
  const parsed = parseAmount(cell, decimal);
  if (!parsed) throw new RowProblem('badAmount', `'${cell}' in ${column} is not an amount.`);
  return parsed;
}

/** Currency names and signs Chinese and European exports write instead of a code. */
const CURRENCY_NAMES = new Map(
  ['人民币 CNY', 'RMB CNY', '美元 USD', 'US$ USD', '欧元 EUR', '€ EUR', '英镑 GBP', '£ GBP', '港币 HKD', '港元 HKD', '日元 JPY'].map((p) => p.split(' ') as [string, string]),
);

function readCurrency(cell: string, column: string): string | undefined {
  if (cell === '') return undefined;
  const upper = cell.toUpperCase();
  if (/^[A-Z]{3}$/.test(upper)) return upper === 'RMB' ? 'CNY' : upper;
  const named = CURRENCY_NAMES.get(upper);
  if (named) return named;
  throw new RowProblem('badRow', `The currency '${cell}' in ${column} is not a currency code such as EUR or USD.`);
}

// Rows

function readRow(row: Row, m: Mapping, headers: string[], timeZone: string): StatementLine {
  const name = (index: number) => (headers[index] ? `'${headers[index]}'` : `column ${index + 1}`);
  const cells = row.cells;
  const short = (index: number, what: string) =>
    new RowProblem(
      'badRow',
      `The row has ${cells.length} cell${cells.length === 1 ? '' : 's'}, but the ${what} is in ${name(index)} (cell ${index + 1}): the row is cut short or has another layout.`,
    );
  // Column indexes are whole numbers from 0 (checkMapping): a cell is missing only past the row's end.
  const dateCell = cells.at(m.date);
  if (dateCell === undefined) throw short(m.date, 'date');
  if (dateCell === '') throw new RowProblem('missingField', `The date cell (${name(m.date)}) is empty.`);
  const date = parseCsvDate(dateCell, m.dateFormat, timeZone);
  if (date === null) throw new RowProblem('badDate', `'${dateCell}' in ${name(m.date)} is not a date in the ${m.dateFormat} format.`);

  let amount: string;
  let direction: 'income' | 'expense';
  if (m.amount !== undefined) {
    const cell = cells.at(m.amount);
    if (cell === undefined) throw short(m.amount, 'amount');
    if (PLACEHOLDER.test(cell)) throw new RowProblem('missingField', `The amount cell (${name(m.amount)}) is empty.`);
    const parsed = readAmount(cell, m.decimal, name(m.amount));
    // A zero is read as written: the pipeline skips it (nothing moved).
    amount = parsed.amount;
    direction = parsed.negative !== (m.positiveIsExpense ?? false) ? 'expense' : 'income';
  } else {
    const sides = ([m.inflow, m.outflow] as const).filter((index) => index !== undefined);
    if (sides.every((index) => index >= cells.length)) throw short(Math.min(...sides), 'money-in / money-out amount');
    // The column decides the direction; a minus sign some banks print in their debit column does not flip it.
    const side = (index: number | undefined) => {
      const cell = index === undefined ? '' : (cells[index] ?? '');
      if (index === undefined || PLACEHOLDER.test(cell)) return undefined;
      const parsed = readAmount(cell, m.decimal, name(index));
      return { cell, index, amount: parsed.amount, zero: isZeroAmount(parsed.amount) };
    };
    const inflow = side(m.inflow);
    const outflow = side(m.outflow);
    if (inflow && outflow && !inflow.zero && !outflow.zero) {
      throw new RowProblem(
        'badAmount',
        `Both money in ('${inflow.cell}' in ${name(inflow.index)}) and money out ('${outflow.cell}' in ${name(outflow.index)}) are filled: a row must have one of them.`,
      );
    }
    if (inflow && !inflow.zero) {
      amount = inflow.amount;
      direction = 'income';
    } else if (outflow && !outflow.zero) {
      amount = outflow.amount;
      direction = 'expense';
    } else if (inflow || outflow) {
      // Zero (in one column or both): read as written, and skipped by the pipeline.
      amount = (inflow ?? outflow)?.amount ?? '0';
      direction = inflow ? 'income' : 'expense';
    } else throw new RowProblem('missingField', 'Both money in and money out are empty.');
  }

  const text = (index: number | undefined) => (index === undefined ? '' : (cells[index] ?? ''));
  const [payee, description, category] = [text(m.payee), text(m.description), text(m.category)];
  const line: StatementLine = {
    line: row.line,
    date,
    amount,
    direction,
    status: 'done',
    payee,
    description: description === payee ? '' : description,
    externalId: text(m.externalId),
  };
  const currency = m.currency === undefined ? undefined : readCurrency(text(m.currency), name(m.currency));
  if (currency) line.currency = currency;
  if (category) line.sourceCategory = category;
  return line;
}

/** The generic CSV format, read through `options.mapping`. */
export const parseMappedCsv: StatementParser = (bytes, options) => {
  const mapping = checkMapping(options.mapping);
  const prepared = prepare(bytes, mapping);
  const rows = readRows(prepared);
  const first = rows.at(0);
  if (first === undefined) throw new StatementError('empty', prepared.header ? 'The file has no header row.' : 'The file has no transactions.');
  // Without a header row the columns have no names, and the first row is a transaction.
  const headers = prepared.header ? first.cells : Array.from({ length: Math.max(...rows.slice(0, 64).map((r) => r.cells.length)) }, () => '');
  checkWidth(mapping, headers, prepared.delimiter);
  const firstData = prepared.header ? 1 : 0;
  if (rows.length === firstData) throw new StatementError('empty', 'The file has a header row but no transactions.');
  const lines: StatementLine[] = [];
  const invalid: InvalidLine[] = [];
  for (const row of rows.slice(firstData)) {
    try {
      lines.push(readRow(row, mapping, headers, options.timeZone));
    } catch (error) {
      if (!(error instanceof RowProblem)) throw error;
      invalid.push({ line: row.line, kind: error.kind, reason: error.reason });
    }
  }
  const currencies = new Set(lines.map((l) => l.currency));
  const [only] = currencies;
  return { format: 'csv', lines, invalid, ...(currencies.size === 1 && only !== undefined ? { currency: only } : {}) };
};

// The wizard's mapping step

/** A layout's id: the header cells, trimmed, NFKC, lower case, inner spaces collapsed, trailing blank cells dropped. */
function layoutSignature(headers: string[]): string {
  const cells = headers.map((h) => foldText(h).replace(/\s+/g, ' ').trim());
  while (cells.length > 0 && cells[cells.length - 1] === '') cells.pop();
  return createHash('sha256').update(cells.join('\u001f')).digest('base64url').slice(0, 24);
}

/** The header, delimiter and first rows of a CSV file, for the wizard's mapping step (the same decoding and splitting as parseMappedCsv). */
export function describeCsv(bytes: Buffer, options: Reading = {}): CsvDescription {
  checkSkipRows(options.skipRows);
  const prepared = prepare(bytes, options);
  const rows = readRows(prepared, 64);
  const header = rows.at(0);
  if (header === undefined) throw new StatementError('empty', 'The file has no header row.');
  const common = { delimiter: prepared.delimiter, skipRows: prepared.skipRows, header: prepared.header };
  if (prepared.header) return { ...common, headers: header.cells, sample: rows.slice(1, 6).map((r) => r.cells), signature: layoutSignature(header.cells) };
  // No header row: the columns are known by their number, and the layout by how many there are
  // and where the date is (so that the next statement of the same bank finds its saved mapping).
  const width = Math.max(...rows.map((r) => r.cells.length));
  const dateAt = header.cells.findIndex((cell) => DATE_FORMATS.some((format) => parseCsvDate(readCell(cell), format, 'UTC') !== null));
  return {
    ...common,
    headers: Array.from({ length: width }, () => ''),
    sample: rows.slice(0, 5).map((r) => r.cells),
    signature: layoutSignature([`(no header: ${width} columns, date in ${dateAt})`]),
  };
}
