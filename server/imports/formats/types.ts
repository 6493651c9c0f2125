/**
 * What every statement parser (Alipay, WeChat Pay, OFX, QIF, CAMT.053, mapped CSV) turns a file
 * into: plain lines in the file's own terms. Deciding what becomes a record (status rules, rules,
 * assets, duplicates) is the import pipeline's job (server/imports/preview.ts), not the parsers'.
 */

export const STATEMENT_FORMATS = ['alipay', 'wechat', 'ofx', 'qif', 'camt', 'csv'] as const;
export type StatementFormat = (typeof STATEMENT_FORMATS)[number];

/**
 * Money moving in (`income`), out (`expense`), or between the person's own accounts (`neutral`:
 * Alipay's 不计收支, WeChat's 中性交易 "/", a bank's transfer to one's own savings when the file says so).
 */
export type Direction = 'income' | 'expense' | 'neutral';

/**
 * `done`: the payment happened. `refund`: money coming back for an earlier payment.
 * `closed`: a payment that was closed or cancelled (no money moved, or all of it came back).
 * `failed`: the payment failed. `pending`: not finished yet (waiting for payment or for the payee).
 */
export const LINE_STATUSES = ['done', 'refund', 'closed', 'failed', 'pending'] as const;
export type LineStatus = (typeof LINE_STATUSES)[number];

export interface StatementLine {
  /** Where the line is in the file, 1-based (a CSV line, a spreadsheet row, an OFX/CAMT entry's ordinal, a QIF record's first line). */
  line: number;
  /** When it happened, ms since the epoch (dates without a time: midnight in the requested time zone). */
  date: number;
  /** The amount as a positive decimal in major units exactly as written, normalised: '18.00', '1234.5'. */
  amount: string;
  /** ISO 4217 code when the file says (OFX CURDEF, CAMT Ccy, a currency column); undefined when it does not. */
  currency?: string;
  direction: Direction;
  status: LineStatus;
  /** The other party: merchant, payer, payee ('' when unknown). */
  payee: string;
  /** What it was for: goods, memo, remittance information ('' when none). Never repeats `payee`. */
  description: string;
  /** The source's own id of this transaction (order number, FITID, AcctSvcrRef…), trimmed; '' when the file has none. */
  externalId: string;
  /** For a refund: the id of the payment it refunds, when the file says (Alipay's 商家订单号 / order number). */
  originalId?: string;
  /** How it was paid or which account the source names (支付方式 / 收/付款方式, e.g. '招商银行信用卡(1234)'). */
  method?: string;
  /** Last 4 digits of the card, when the file names one. */
  cardTail?: string;
  /** The source's own category (Alipay 交易分类, WeChat 交易类型, QIF L, bank transaction code), for rules and the preview. */
  sourceCategory?: string;
  /** The account's starting balance as the file writes it (QIF `Opening Balance`): not a transaction. */
  openingBalance?: true;
}

/** The order of a date's parts where the file does not say it (QIF): month/day/year, day/month/year, year/month/day. */
export const DATE_ORDERS = ['MDY', 'DMY', 'YMD'] as const;
export type DateOrder = (typeof DATE_ORDERS)[number];

/** A line that could not be read; the rest of the file still imports. */
export interface InvalidLine {
  line: number;
  /** Machine-readable: 'badDate' | 'badAmount' | 'badDirection' | 'missingField' | 'badRow'. */
  kind: string;
  /** One English sentence a person understands, naming the cell as written. */
  reason: string;
}

export interface ParsedStatement {
  format: StatementFormat;
  lines: StatementLine[];
  invalid: InvalidLine[];
  /** The statement's currency when the file states one for all lines. */
  currency?: string;
  /** The account the file describes (OFX ACCTID, CAMT IBAN, Alipay account), for the preview's heading. */
  account?: string;
  /** Set when the file's dates read as real dates in more than one order: the order used, and those possible (the person may choose). */
  dateOrder?: { used: DateOrder; possible: DateOrder[] };
}

/** Column mapping of the generic CSV format (saved per source by the pipeline). Columns by 0-based index. */
export interface CsvMapping {
  date: number;
  /** One signed amount column… */
  amount?: number;
  /** …or separate columns for money in and money out. */
  inflow?: number;
  outflow?: number;
  payee?: number;
  description?: number;
  externalId?: number;
  currency?: number;
  category?: number;
  /** 'YYYY-MM-DD' (default; also accepts YYYY/MM/DD and a time), 'DD/MM/YYYY', 'MM/DD/YYYY', 'DD.MM.YYYY'. */
  dateFormat?: 'YYYY-MM-DD' | 'DD/MM/YYYY' | 'MM/DD/YYYY' | 'DD.MM.YYYY';
  /** '.' (default) or ',' as the decimal separator. */
  decimal?: '.' | ',';
  /** A signed amount column: true when a positive number is money going out (some card statements). */
  positiveIsExpense?: boolean;
  /** Lines before the header row (default: found, see csv-mapped.ts locateTable); the header row itself is not a transaction. */
  skipRows?: number;
  /** false: the file has no header row, its first row (after skipRows) is a transaction (default: found). */
  header?: boolean;
  /** Field delimiter; default: detected from the header line (',', ';', tab). */
  delimiter?: ',' | ';' | '\t';
  /**
   * The file's text encoding; default: detected (a BOM, else UTF-8, else Windows-1252 when the
   * non-ASCII bytes stand alone as in 'Empfänger', else GBK). 'latin1' reads Windows-1252.
   */
  encoding?: 'utf8' | 'gbk' | 'latin1';
}

export interface ParseOptions {
  /** IANA zone for dates written without one. */
  timeZone: string;
  /** Only for 'csv'. */
  mapping?: CsvMapping;
  /** Only for 'qif': the order of the dates' parts, when the person chose it (else the file's is worked out). */
  dateOrder?: DateOrder;
}

/** A problem with the whole file: nothing is imported, the message says what to do. */
export class StatementError extends Error {
  constructor(
    /** 'encoding' | 'notThisFormat' | 'truncated' | 'missingColumns' | 'empty' | 'tooLarge' | 'badMapping' */
    readonly kind: string,
    message: string,
  ) {
    super(message);
    this.name = 'StatementError';
  }
}

/** Parsers may be async (reading XLSX is). They throw StatementError for a file that cannot be read at all. */
export type StatementParser = (bytes: Buffer, options: ParseOptions) => ParsedStatement | Promise<ParsedStatement>;

/** A cheap look at the first bytes: does this file look like the parser's format? (for the wizard's format guess) */
export type StatementSniffer = (bytes: Buffer) => boolean;
