import { constants as zlibConstants, inflateRawSync } from 'node:zlib';
import { InvalidInputError, readSheet } from 'read-excel-file/node';
import { captured, decodeChineseExport, isBlankFile, localDateTimeParser, parseAmount, readCsvRecords, AS_CSV, type CsvRecord } from './shared';
import {
  csvHeadHasPaymentHeader,
  hasPaymentHeader,
  isZipFile,
  openPaymentTable,
  paymentLine,
  paymentRows,
  readRowBasics,
  type PaymentAppExport,
  type RowReading,
} from './payment-app-export';
import { storedZip, unpackXlsxEntries } from './zip-budget';
import { StatementError, type Direction, type InvalidLine, type LineStatus, type ParsedStatement, type StatementLine, type StatementParser, type StatementSniffer } from './types';

/**
 * WeChat Pay's bill export (微信支付账单明细), as CSV (UTF-8 with a BOM; GBK when someone re-saved
 * it in Excel) or XLSX (recent exports; the same layout in the first sheet). A block of titles
 * and totals (`微信昵称：[…]`, `共N笔记录`, `收入：…`, `中性交易：…`, notes), a
 * `----微信支付账单明细列表----` line, then `交易时间, 交易类型, 交易对方, 商品, 收/支, 金额(元),
 * 支付方式, 当前状态, 交易单号, 商户单号, 备注`. The header row is found by its column names. Some
 * exports end the header with a second `备注` that rows leave out: a complete row may stop after
 * the last column read.
 *
 * Direction (收/支): 支出 → expense, 收入 → income, `/` (中性交易: 零钱充值, 零钱提现, 信用卡还款,
 * 转入零钱通, 理财通…) → neutral; a refund row without 收入 is still money coming back: income.
 *
 * A refund row is one whose 交易类型 ends in 退款 (`美团平台商户-退款`, `微信红包-退款`, `退款`),
 * or an income row whose 当前状态 is 退款成功/已退款. Status (当前状态), checked in this order:
 *   refund row, …失败…                                  → failed
 *   refund row, 等待…/待…/…中                           → pending
 *   refund row, anything else (已全额退款, 已退款, 退款成功) → refund (originalId: see below)
 *   …失败… (支付失败, 提现失败，已退回零钱)              → failed
 *   已全额退款 (a payment or a receipt given back in full) → closed: no money moved, net
 *   已退款(￥5.00) / 已退款（￥5.00） / 已部分退款 / 已退款  → done: the payment stands; its refund is
 *                                                         its own refund row
 *   …退还… / 已退回 / …关闭… / 已撤销 / 已取消 / 已过期
 *     (对方已退还, 已退还: a transfer or red packet that came back) → closed
 *   等待… / 待… / …中 (等待确认收货, 待支付, 处理中)       → pending
 *   …成功 / …完成 / 已到账 / 已收钱 / 已收款 / 已转账 / 已存入零钱 / 已支付 / 已扣款
 *     (支付成功, 已转账, 已收钱, 已存入零钱, 朋友已收钱, 对方已收钱, 充值完成, 充值成功,
 *     提现已到账, 还款成功)                                 → done
 *   anything else                                          → pending (shown, not booked as final)
 *
 * A refund's originalId: the 交易单号 of the payment in the file with the same 商户单号, or whose
 * 商户单号 is the refund's own 交易单号 (a refunded red packet or transfer: `微信红包-退款`,
 * `转账-退款` rows have no 交易对方 and no 商户单号); else of the one payment to the same 交易对方, at or before the refund, marked refunded (已全额退款 for the
 * same amount, 已退款(￥x) for x, or 已退款/已部分退款 for at least the refund). Without either
 * the refund has no originalId.
 *
 * Amounts: `¥18.00`, `"¥1,234.00"`, or `?18.00` in a copy re-saved as GBK (which cannot hold '¥').
 * XLSX cells may be text or typed: a date cell (read as a Date whose UTC fields are the wall
 * clock written) or text, an amount as a number or as `¥18.00`.
 */

type Field = 'time' | 'category' | 'payee' | 'goods' | 'direction' | 'amount' | 'method' | 'status' | 'id' | 'merchantId' | 'note';

const FIELDS: Record<string, Field> = {
  交易时间: 'time',
  交易类型: 'category',
  交易对方: 'payee',
  商品: 'goods',
  商品说明: 'goods',
  '收/支': 'direction',
  '金额(元)': 'amount',
  金额: 'amount',
  支付方式: 'method',
  当前状态: 'status',
  交易单号: 'id',
  商户单号: 'merchantId',
  备注: 'note',
};

const WECHAT_MARK = /微信支付账单明细|微信昵称[:：]/;
const TRAILER = /^-{3,}/;

/** WeChat Pay's bill as the shared reader of payment-app exports sees it. */
const WECHAT: PaymentAppExport<Field> = {
  app: 'WeChat Pay',
  notIt: 'This is not a WeChat Pay bill export (微信支付账单明细)',
  fields: FIELDS,
  required: [
    { field: 'time', name: '交易时间' },
    { field: 'direction', name: '收/支' },
    { field: 'amount', name: '金额(元)' },
    { field: 'status', name: '当前状态' },
  ],
  requiredText: '交易时间, 收/支, 金额(元) and 当前状态',
  mark: WECHAT_MARK,
  markScan: 40,
};
const EXPECTED_TEXT = /交易|微信/;

const isRefundRow = (category: string, status: string, direction: Direction) => /退款$/.test(category) || (direction === 'income' && /^(?:退款成功|已退款)$/.test(status));

/** The status table at the top of this file. */
export function wechatStatus(status: string, refundRow: boolean): LineStatus {
  const pending = /^(?:等待|待)|中$/.test(status);
  if (refundRow) return /失败/.test(status) ? 'failed' : pending ? 'pending' : 'refund';
  if (/失败/.test(status)) return 'failed';
  if (/全额退款/.test(status)) return 'closed';
  if (/^已(?:部分)?退款/.test(status)) return 'done';
  if (/退还|已退回|关闭|^已撤销$|^已取消$|^已过期$/.test(status)) return 'closed';
  if (pending) return 'pending';
  if (/成功|完成|已到账|已收钱|已收款|已转账|已存入|^已支付$|^已扣款$/.test(status)) return 'done';
  return 'pending';
}

/** A table row of the file: its cells as text, its 1-based line (CSV) or row (XLSX). */
type Row = CsvRecord;

/** A line of the bill with what linkRefunds reads of its row besides it. */
interface Extra {
  line: StatementLine;
  merchantId: string;
  /** What 当前状态 says was refunded of a payment: all of it, an amount, some (how much unsaid), or nothing. */
  refunded: 'all' | 'some' | 'none' | { amount: string };
}

function parseRows(rows: Row[], timeZone: string): ParsedStatement {
  const table = openPaymentTable(WECHAT, rows);
  const { header, cell } = table;
  const reading: RowReading<Field> = {
    dateFields: ['time'],
    parseDate: localDateTimeParser(timeZone),
    amountField: 'amount',
    // '?30.00': a copy re-saved as GBK, which has no '¥' (U+00A5), lost the currency sign.
    amountOf: (text) => parseAmount(text.replace(/^\?(?=[\d.])/, ''))?.amount ?? null,
    directionField: 'direction',
    neutral: ['中性交易'],
    directionWords: '收入, 支出 or /',
  };
  const lines: StatementLine[] = [];
  const extras: Extra[] = [];
  const invalid: InvalidLine[] = [];
  for (const record of paymentRows(rows.slice(header.index + 1), header, TRAILER, invalid)) {
    const { line, cells } = record;
    const basics = readRowBasics(table, reading, record);
    if ('kind' in basics) {
      invalid.push(basics);
      continue;
    }
    const category = cell(cells, 'category');
    const statusText = cell(cells, 'status');
    const statementLine = paymentLine({
      ...basics,
      line,
      status: wechatStatus(statusText, isRefundRow(category, statusText, basics.direction)),
      payee: cell(cells, 'payee'),
      descriptionParts: [cell(cells, 'goods'), cell(cells, 'note')],
      externalId: cell(cells, 'id'),
      method: cell(cells, 'method'),
      category,
    });
    lines.push(statementLine);
    extras.push({ line: statementLine, merchantId: cell(cells, 'merchantId'), refunded: refundedOf(statusText) });
  }
  linkRefunds(extras);
  const headerBlock = rows.slice(0, header.index).map((row) => row.cells.join(','));
  const nickname = /微信昵称[:：]\s*\[([^\]]*)\]/.exec(headerBlock.join('\n'));
  const account = nickname ? captured(nickname, 1).trim() : undefined;
  const statement: ParsedStatement = { format: 'wechat', lines, invalid, currency: 'CNY' };
  if (account) statement.account = account;
  return statement;
}

/** What 当前状态 says was refunded of a payment. */
function refundedOf(status: string): Extra['refunded'] {
  if (/全额退款/.test(status)) return 'all';
  const partial = /^已退款[(（]\s*[¥￥]?\s*([\d.,]+)\s*[)）]/.exec(status);
  const amount = partial ? parseAmount(captured(partial, 1)) : null;
  if (amount) return { amount: amount.amount };
  return /^已(?:部分)?退款/.test(status) ? 'some' : 'none';
}

const toCents = (amount: string) => Math.round(Number(amount) * 100);

/**
 * The originalId rule at the top of this file, in one sweep by date (O(n log n)): the payments at
 * or before each refund are counted as the sweep passes them, per payee and amount for "refunded
 * all / this much", and per payee as the two largest amounts for "refunded some" (a refund of x
 * has exactly one such candidate when the largest is at least x and the second is not). Filtering
 * every payment of the payee for every refund was quadratic in a file of one payee.
 */
function linkRefunds(lines: readonly Extra[]): void {
  const byMerchantId = new Map<string, StatementLine>();
  const payments: Array<{ payment: StatementLine; refunded: Exclude<Extra['refunded'], 'none'> }> = [];
  for (const { line, merchantId, refunded } of lines) {
    if (line.status === 'refund' || line.externalId === '') continue;
    if (merchantId !== '' && !byMerchantId.has(merchantId)) byMerchantId.set(merchantId, line);
    if (refunded === 'none' || line.direction !== 'expense' || line.payee === '') continue;
    payments.push({ payment: line, refunded });
  }
  const refunds: StatementLine[] = [];
  for (const { line: refund, merchantId } of lines) {
    if (refund.status !== 'refund') continue;
    // A red packet's or a transfer's refund row (微信红包-退款, 转账-退款) names its payment by its
    // own 交易单号, which is the payment's 商户单号.
    const sameOrder = (merchantId === '' ? undefined : byMerchantId.get(merchantId)) ?? (refund.externalId === '' ? undefined : byMerchantId.get(refund.externalId));
    if (sameOrder) refund.originalId = sameOrder.externalId;
    else refunds.push(refund);
  }
  if (refunds.length === 0 || payments.length === 0) return;
  const byDate =
    <T>(date: (item: T) => number) =>
    (a: T, b: T) =>
      date(a) - date(b);
  payments.sort(byDate((p) => p.payment.date));
  const exact = new Map<string, { count: number; first: StatementLine }>();
  const some = new Map<string, { best: StatementLine; bestCents: number; secondCents: number }>();
  let next = 0;
  for (const refund of [...refunds].sort(byDate((l: StatementLine) => l.date))) {
    for (let passed = payments.at(next); passed !== undefined && passed.payment.date <= refund.date; passed = payments.at(++next)) {
      const { payment, refunded } = passed;
      if (refunded === 'some') {
        const cents = toCents(payment.amount);
        const top = some.get(payment.payee);
        if (!top) some.set(payment.payee, { best: payment, bestCents: cents, secondCents: -1 });
        else if (cents > top.bestCents) Object.assign(top, { best: payment, bestCents: cents, secondCents: top.bestCents });
        else if (cents > top.secondCents) top.secondCents = cents;
        continue;
      }
      const key = `${payment.payee}\u0000${toCents(refunded === 'all' ? payment.amount : refunded.amount)}`;
      const found = exact.get(key);
      if (found) found.count++;
      else exact.set(key, { count: 1, first: payment });
    }
    const cents = toCents(refund.amount);
    const same = exact.get(`${refund.payee}\u0000${cents}`);
    const top = some.get(refund.payee);
    const someCount = !top || top.bestCents < cents ? 0 : top.secondCents >= cents ? 2 : 1;
    const count = (same?.count ?? 0) + someCount;
    if (count !== 1) continue;
    refund.originalId = same ? same.first.externalId : top?.best.externalId;
  }
}

/** An XLSX cell → the text a CSV export would have. Dates come back with the written wall clock in their UTC fields. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return '';
    // A date cell is a fraction of days: 08:00:00 can come back as 07:59:59.999. Round to the second.
    const time = new Date(Math.round(value.getTime() / 1000) * 1000);
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${time.getUTCFullYear()}-${pad(time.getUTCMonth() + 1)}-${pad(time.getUTCDate())} ${pad(time.getUTCHours())}:${pad(time.getUTCMinutes())}:${pad(time.getUTCSeconds())}`;
  }
  if (typeof value === 'number') {
    const hundredths = value * 100;
    return Math.abs(hundredths - Math.round(hundredths)) < 1e-6 && Math.abs(value) < 1e13 ? value.toFixed(2) : String(value);
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  return '';
}

async function readXlsx(bytes: Buffer): Promise<Row[]> {
  let sheet: unknown[][];
  // Unpacked here within the budget, checked entry by entry; the library reads only those entries,
  // from a ZIP whose every size is true (zip-budget.ts), never the file's own local entries.
  const checked = storedZip(unpackXlsxEntries(bytes));
  try {
    sheet = await readSheet(checked);
  } catch (error) {
    if (error instanceof InvalidInputError && error.code === 'XLS_FILE_NOT_SUPPORTED') {
      throw new StatementError('notThisFormat', 'This is an old Excel .xls file, not a WeChat Pay export: WeChat exports its bill as CSV or XLSX.');
    }
    throw new StatementError('truncated', 'The spreadsheet could not be opened: it is damaged or cut off. Download the WeChat Pay bill again.');
  }
  return sheet.map((row, index) => ({ line: index + 1, cells: row.map(cellText), unterminated: false, unfinished: false }));
}

const isOldExcel = (bytes: Buffer) => bytes.length >= 8 && bytes.readUInt32BE(0) === 0xd0cf11e0 && bytes.readUInt32BE(4) === 0xa1b11ae1;

function decodeWechat(bytes: Buffer): string {
  return decodeChineseExport(bytes, EXPECTED_TEXT, {
    garbled:
      'The file could not be read as a WeChat Pay export: its Chinese text is garbled (it was probably opened and re-saved in another encoding). Download the bill from WeChat again and import the file unchanged.',
    notThisFormat: `${WECHAT.notIt}: it has none of its headings or columns. ${AS_CSV}`,
  });
}

export const parseWechat: StatementParser = async (bytes, options) => {
  if (isBlankFile(bytes)) throw new StatementError('empty', 'The file is empty: download the WeChat Pay bill again (我 → 服务 → 钱包 → 账单 → 下载账单 → 用于个人对账).');
  if (isOldExcel(bytes)) throw new StatementError('notThisFormat', 'This is an old Excel .xls file, not a WeChat Pay export: WeChat exports its bill as CSV or XLSX.');
  if (isZipFile(bytes)) {
    const rows = await readXlsx(bytes);
    if (rows.every((row) => row.cells.every((c) => c.trim() === ''))) throw new StatementError('empty', 'The spreadsheet is empty: download the WeChat Pay bill again.');
    return parseRows(rows, options.timeZone);
  }
  const text = decodeWechat(bytes);
  return parseRows(readCsvRecords(text), options.timeZone);
};

/** The start of an entry of a ZIP file (found through its central directory), inflated as far as `limit` compressed bytes go; '' when absent or unreadable. */
function zipEntryHead(bytes: Buffer, name: string, limit = 65_536): string {
  try {
    const end = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    if (end < 0 || end + 22 > bytes.length) return '';
    let p = bytes.readUInt32LE(end + 16);
    for (let n = bytes.readUInt16LE(end + 10); n > 0 && p + 46 <= bytes.length && bytes.readUInt32LE(p) === 0x02014b50; n--) {
      const nameLength = bytes.readUInt16LE(p + 28);
      const next = p + 46 + nameLength + bytes.readUInt16LE(p + 30) + bytes.readUInt16LE(p + 32);
      if (bytes.toString('utf8', p + 46, p + 46 + nameLength) === name) {
        const method = bytes.readUInt16LE(p + 10);
        const local = bytes.readUInt32LE(p + 42);
        const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
        const data = bytes.subarray(start, Math.min(start + bytes.readUInt32LE(p + 20), start + limit));
        if (method === 0) return data.toString('utf8');
        if (method === 8) return inflateRawSync(data, { finishFlush: zlibConstants.Z_SYNC_FLUSH, maxOutputLength: 1024 * 1024 }).toString('utf8');
        return '';
      }
      p = next;
    }
  } catch {
    return '';
  }
  return '';
}

/**
 * The file's header row is WeChat Pay's: in the first 16 KB of a CSV, or among the workbook's
 * first strings (XLSX, whose title may be its own first string). The header and the structure
 * decide, never a word in the rows: a bank's CSV whose rows name 微信支付 is not a WeChat bill.
 */
export const sniffWechat: StatementSniffer = (bytes) => {
  if (isZipFile(bytes)) {
    const strings = zipEntryHead(bytes, 'xl/sharedStrings.xml') + zipEntryHead(bytes, 'xl/worksheets/sheet1.xml');
    const cells = Array.from(strings.matchAll(/<t(?:\s[^>]*)?>([^<]*)<\/t>/g), (m) => captured(m, 1));
    return WECHAT_MARK.test(strings) || hasPaymentHeader(WECHAT, [{ line: 1, cells, unterminated: false, unfinished: false }]);
  }
  return csvHeadHasPaymentHeader(WECHAT, bytes);
};
