import iconv from 'iconv-lite';
import { cardTailOf, cleanCell, findHeaderRow, readCsvRecords, rowShape, withoutPayee, AS_CSV, type CsvRecord, type HeaderRow } from './shared';
import { StatementError, type Direction, type InvalidLine, type LineStatus, type StatementLine } from './types';

/**
 * What the bill exports of China's payment apps (Alipay's 支付宝交易明细, WeChat Pay's
 * 微信支付账单明细) have in common, as one reader of their table: a block of titles and totals,
 * then a header row found by its column names, then one row per transaction up to a summary. Each
 * app's reader (alipay.ts, wechat.ts) names its columns, its words and its status table; this
 * module finds the header, refuses a file without the app's columns, walks the data rows, reads
 * the date, amount and 收/支 of a row (or says why it cannot) and builds the statement line.
 */
export interface PaymentAppExport<F extends string> {
  /** The app as messages name it: 'Alipay', 'WeChat Pay'. */
  app: string;
  /** The start of the refusal of another kind of file: 'This is not an Alipay bill export (支付宝交易明细)'. */
  notIt: string;
  /** Header names (as `headerKey` gives them) → field. */
  fields: Readonly<Record<string, F>>;
  /** The columns a bill must have, in the order messages name them; a column given as several fields is there when one of them is. */
  required: readonly { field: F | readonly F[]; name: string }[];
  /** The required columns as a message lists them: '交易时间, 收/支, 金额(元) and 当前状态'. */
  requiredText: string;
  /** The app's own title lines above the table (their first cell), and how many rows to look in when no header is found. */
  mark: RegExp;
  markScan: number;
}

/** The header of an app's bill found among the rows, with its cells read by field. */
export interface PaymentTable<F extends string> {
  header: HeaderRow<F>;
  /** The row's cell of a field, cleaned (`cleanCell`); '' when the file has no such column. */
  cell: (cells: readonly string[], field: F) => string;
  /** The field's header cell as the file writes it (for messages). */
  name: (field: F) => string;
}

const missingOf = <F extends string>(spec: PaymentAppExport<F>, columns: Partial<Record<F, number>>): string[] =>
  spec.required.filter(({ field }) => (typeof field === 'string' ? [field] : field).every((f) => columns[f] === undefined)).map(({ name }) => name);

/** The header row of the app's bill among the first rows (as a sniffer asks): every required column found by name. */
export function hasPaymentHeader<F extends string>(spec: PaymentAppExport<F>, rows: readonly CsvRecord[]): boolean {
  const header = findHeaderRow(rows.slice(0, 100), spec.fields);
  return header !== null && missingOf(spec, header.columns).length === 0;
}

/**
 * The first 16 KB of a CSV file, read as UTF-8 and as GB18030 (a copy re-saved in Excel), hold
 * the app's header row. The header decides, never a word in the rows: a bank's CSV naming the
 * app as a payee is not its bill.
 */
export function csvHeadHasPaymentHeader<F extends string>(spec: PaymentAppExport<F>, bytes: Buffer): boolean {
  const head = bytes.subarray(0, 16_384);
  return [head.toString('utf8'), iconv.decode(head, 'gb18030')].some((text) => hasPaymentHeader(spec, readCsvRecords(text)));
}

/** A ZIP container (an XLSX workbook) by its first bytes. */
export const isZipFile = (bytes: Buffer) => bytes.length >= 4 && bytes.readUInt32LE(0) === 0x04034b50;

/**
 * The app's table among the first rows, or the refusal: a file with the app's title lines but
 * without its table or columns is the app's file edited ('missingColumns'); any other is
 * 'notThisFormat'.
 */
export function openPaymentTable<F extends string>(spec: PaymentAppExport<F>, head: readonly CsvRecord[]): PaymentTable<F> {
  const header = findHeaderRow(head, spec.fields);
  const isApp = head.slice(0, header?.index ?? spec.markScan).some((record) => spec.mark.test(record.cells[0] ?? ''));
  if (header === null) {
    if (isApp) {
      throw new StatementError(
        'missingColumns',
        `This ${spec.app} export has no table of transactions: no header row with the columns ${spec.requiredText} was found. Export the bill again without editing it.`,
      );
    }
    const list = spec.required.map(({ name }) => name).join(', ');
    throw new StatementError('notThisFormat', `${spec.notIt}: no header row with its columns (${list}) was found. ${AS_CSV}`);
  }
  const missing = missingOf(spec, header.columns);
  if (missing.length > 0) {
    if (!isApp) throw new StatementError('notThisFormat', `${spec.notIt}: its header lacks the columns ${missing.join(', ')}. ${AS_CSV}`);
    throw new StatementError(
      'missingColumns',
      `This ${spec.app} export lacks the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: export the bill again without removing columns.`,
    );
  }
  const { columns } = header;
  return {
    header,
    cell: (cells, field) => {
      const index = columns[field];
      return index === undefined ? '' : cleanCell(cells[index]);
    },
    name: (field) => header.names[field] ?? field,
  };
}

/**
 * The data rows after the header, up to the summary (`trailer` matches its first cell): blank
 * rows skipped, a row cut off or short of a read column added to `invalid` instead.
 */
export function* paymentRows(records: Iterable<CsvRecord>, header: HeaderRow<string>, trailer: RegExp, invalid: InvalidLine[]): Generator<CsvRecord, void, undefined> {
  for (const record of records) {
    const shape = rowShape(record, header, trailer);
    if (shape === 'end') return;
    if (shape === 'blank') continue;
    if (shape) invalid.push(shape);
    else yield record;
  }
}

/** 收/支 → direction: 支出, 收入, or one of the app's words for neither (empty and 不计收支 always); null for anything else. */
export function paymentDirection(text: string, neutral: readonly string[]): Direction | null {
  if (text === '支出') return 'expense';
  if (text === '收入') return 'income';
  if (text === '' || text === '不计收支' || neutral.includes(text)) return 'neutral';
  return null;
}

/** How a reader reads the three cells every row must have right. */
export interface RowReading<F extends string> {
  /** The columns the date may be in, in order: the first whose cell is a date wins; when none is, the last one's cell is reported. */
  dateFields: readonly [F, ...F[]];
  parseDate: (text: string) => number | null;
  amountField: F;
  amountOf: (text: string) => string | null;
  directionField: F;
  neutral: readonly string[];
  /** The 收/支 words a message lists: '收入, 支出 or 不计收支'. */
  directionWords: string;
}

/** A data row's date, amount and direction, or the invalid line that says which cell is wrong. */
export function readRowBasics<F extends string>(
  table: PaymentTable<F>,
  reading: RowReading<F>,
  { line, cells }: CsvRecord,
): { date: number; amount: string; direction: Direction } | InvalidLine {
  let date: number | null = null;
  // After the loop: the first field whose cell is a date, else the last field.
  let dateField = reading.dateFields[0];
  for (const field of reading.dateFields) {
    date = reading.parseDate(table.cell(cells, field));
    dateField = field;
    if (date !== null) break;
  }
  if (date === null) return unreadable(line, table.name(dateField), table.cell(cells, dateField), 'badDate', 'a date and time (YYYY-MM-DD HH:mm:ss)');
  const amountText = table.cell(cells, reading.amountField);
  const amount = reading.amountOf(amountText);
  if (amount === null) return unreadable(line, table.name(reading.amountField), amountText, 'badAmount', 'an amount');
  const directionText = table.cell(cells, reading.directionField);
  const direction = paymentDirection(directionText, reading.neutral);
  if (direction === null) return { line, kind: 'badDirection', reason: `The ${table.name(reading.directionField)} cell "${directionText}" is not ${reading.directionWords}.` };
  return { date, amount, direction };
}

function unreadable(line: number, name: string, text: string, kind: 'badDate' | 'badAmount', what: string): InvalidLine {
  if (text === '') return { line, kind: 'missingField', reason: `The ${name} cell is empty.` };
  return { line, kind, reason: `The ${name} cell "${text}" is not ${what}.` };
}

/** What a statement line of a payment app's bill is made of. */
export interface PaymentLineParts {
  line: number;
  date: number;
  amount: string;
  direction: Direction;
  status: LineStatus;
  payee: string;
  /** Goods, note and the like: joined without repeats or empty parts, the payee taken out. */
  descriptionParts: readonly string[];
  externalId: string;
  originalId?: string;
  /** 收/付款方式 or 支付方式: the card's last four digits read from it. */
  method: string;
  /** The app's own category (交易分类, 交易类型). */
  category: string;
}

/** The statement line (in CNY) of a row: a refund the app counts as neither income nor expense is money coming back, income. */
export function paymentLine(parts: PaymentLineParts): StatementLine {
  const { line, date, amount, status, payee, externalId, method, category } = parts;
  const direction = status === 'refund' && parts.direction === 'neutral' ? 'income' : parts.direction;
  const description = withoutPayee([...new Set(parts.descriptionParts.filter((part) => part !== ''))].join('; '), payee);
  const entry: StatementLine = { line, date, amount, currency: 'CNY', direction, status, payee, description, externalId };
  if (parts.originalId !== undefined) entry.originalId = parts.originalId;
  if (method !== '') {
    entry.method = method;
    const tail = cardTailOf(method);
    if (tail !== undefined) entry.cardTail = tail;
  }
  if (category !== '') entry.sourceCategory = category;
  return entry;
}
