import { csvRecords, decodeChineseExport, isBlankFile, isZeroAmount, localDateTimeParser, parseAmount, AS_CSV, type CsvRecord } from './shared';
import { csvHeadHasPaymentHeader, isZipFile, openPaymentTable, paymentLine, paymentRows, readRowBasics, type PaymentAppExport, type RowReading } from './payment-app-export';
import { StatementError, type InvalidLine, type LineStatus, type ParsedStatement, type StatementLine, type StatementParser, type StatementSniffer } from './types';

/**
 * Alipay's bill export (支付宝交易明细), in the two layouts people have:
 *
 * - the PC web export (支付宝交易记录明细查询), GBK: `账号:[…]`, a `----交易记录明细列表----` line,
 *   then `交易号, 商家订单号, 交易创建时间, 付款时间, 最近修改时间, 交易来源地, 类型, 交易对方, 商品名称,
 *   金额（元）, 收/支, 交易状态, 服务费（元）, 成功退款（元）, 备注, 资金状态,`, every cell padded with
 *   spaces, order numbers ending in a tab, a trailing comma; after the rows a dashed line and a
 *   summary (`共X笔记录`, `已收入:…`, `导出时间:[…]`);
 * - the app export (导出信息：… 电子客户回单), GBK or UTF-8: a block of totals and notes, a
 *   `----…电子客户回单----` line, then `交易时间, 交易分类, 交易对方, 对方账号, 商品说明, 收/支, 金额,
 *   收/付款方式, 交易状态, 交易订单号, 商家订单号, 备注,`.
 *
 * The header row is found by its column names (the block above it changes between versions) and
 * columns are read by name; the rows end at a dashed line or a summary line. Per row:
 * - date: 交易时间 (app); 付款时间, else 交易创建时间 (web: when the money moved; a closed order has no
 *   付款时间), wall clock in `options.timeZone`;
 * - direction (收/支): 支出 → expense, 收入 → income, 不计收支 / 其他 / empty → neutral; a refund
 *   written as 不计收支 or without 收/支 is money coming back: income;
 * - status (交易状态, else the web layout's 资金状态), checked in this order:
 *     …关闭… (交易关闭, 已关闭)                                   → closed
 *     …失败… (交易失败, 支付失败, 转账失败)                         → failed
 *     等待… / 待… / …中 / 冻结… (等待付款, 等待确认收货, 处理中,
 *       退款中, 冻结成功, 待支出)                                   → pending
 *     退款成功, 退税成功, or 商品说明 starting with 退款-             → refund
 *     解冻… (a hold released: nothing was paid)                     → closed
 *     …成功, …完成, 已支付/已付款/已收款, 已收入, 已支出, 资金转移 (交易成功, 支付成功,
 *       还款成功, 充值成功, 代付成功)                               → done
 *     anything else                                                 → pending (shown, not booked as final)
 * - refund originalId: the 交易订单号/交易号 of a refund is `<original>_<refund no>`; when it is
 *   not, the latest earlier payment in the file with the same 商家订单号 (Taobao reuses it for
 *   every step of one order). A fully refunded payment is itself 交易关闭 (closed): its refund
 *   row carries the link so that the pipeline can tell;
 * - description: 商品说明/商品名称 and 备注 (a non-zero 服务费 noted), without the payee;
 * - method: 收/付款方式 (app only), cardTail from `(1234)` / `尾号1234` in it.
 */

type Field = 'time' | 'created' | 'paid' | 'category' | 'payee' | 'goods' | 'direction' | 'amount' | 'method' | 'status' | 'id' | 'merchantId' | 'note' | 'fundStatus' | 'fee';

/** Header names (spaces removed, full-width parentheses made ASCII) → field. */
const FIELDS: Record<string, Field> = {
  交易时间: 'time',
  交易创建时间: 'created',
  付款时间: 'paid',
  交易分类: 'category',
  类型: 'category',
  交易对方: 'payee',
  商品说明: 'goods',
  商品名称: 'goods',
  '收/支': 'direction',
  金额: 'amount',
  '金额(元)': 'amount',
  '收/付款方式': 'method',
  交易状态: 'status',
  交易订单号: 'id',
  交易号: 'id',
  商家订单号: 'merchantId',
  商户订单号: 'merchantId',
  备注: 'note',
  资金状态: 'fundStatus',
  '服务费(元)': 'fee',
};

/** What decoding must find (else the bytes are not GBK/UTF-8 read right), and what marks an Alipay file. */
const EXPECTED_TEXT = /交易|支付宝/;
const ALIPAY_MARK = /支付宝交易记录明细查询|支付宝（中国）网络技术有限公司|电子客户回单|支付宝账户/;
/** An amount as Alipay writes it ('45.50'): taken as it is, without parseAmount's clean-up (a 100k-row file has 100k of them). */
const PLAIN_AMOUNT = /^(?:0|[1-9]\d*)(?:\.\d+)?$/;
const amountOf = (text: string): string | null => (PLAIN_AMOUNT.test(text) ? text : (parseAmount(text)?.amount ?? null));
const TRAILER = /^(?:-{3,}|共\d+笔记录|(?:已收入|待收入|已支出|待支出|导出时间)[:：])/;

/** Alipay's bill as the shared reader of payment-app exports sees it. */
const ALIPAY: PaymentAppExport<Field> = {
  app: 'Alipay',
  notIt: 'This is not an Alipay bill export (支付宝交易明细)',
  fields: FIELDS,
  required: [
    { field: ['time', 'created'], name: '交易时间' },
    { field: 'amount', name: '金额' },
    { field: 'direction', name: '收/支' },
    { field: 'status', name: '交易状态' },
  ],
  requiredText: '交易时间 (or 交易创建时间), 金额, 收/支 and 交易状态',
  mark: ALIPAY_MARK,
  markScan: 30,
};

/** The status table at the top of this file. */
export function alipayStatus(status: string, goods: string): LineStatus {
  if (/关闭/.test(status)) return 'closed';
  if (/失败/.test(status)) return 'failed';
  if (/^(?:等待|待)|中$|^冻结/.test(status)) return 'pending';
  if (/^退(?:款|税)成功$/.test(status) || goods.startsWith('退款-')) return 'refund';
  if (/^解冻/.test(status)) return 'closed';
  if (/成功|完成|^已(?:支付|付款|收款|收入|支出)$|^资金转移$/.test(status)) return 'done';
  return 'pending';
}

/** Reads the bytes as Alipay text, or says why not: garbled text is 'encoding', other text 'notThisFormat'. */
function decodeAlipay(bytes: Buffer): string {
  if (isZipFile(bytes)) {
    throw new StatementError(
      'notThisFormat',
      'This is a spreadsheet (XLSX), not an Alipay bill: Alipay exports its bill as a CSV file (支付宝 → 我的 → 账单 → 开具交易流水证明 → 用于个人对账).',
    );
  }
  return decodeChineseExport(bytes, EXPECTED_TEXT, {
    garbled:
      'The file could not be read as an Alipay export: its Chinese text is garbled (it was probably opened and re-saved in another encoding). Export the bill from Alipay again and import the file unchanged.',
    notThisFormat: `${ALIPAY.notIt}: it has none of its headings or columns. ${AS_CSV}`,
  });
}

function parseAlipayText(text: string, timeZone: string): ParsedStatement {
  // The first records are kept to find the header in; the rest are handled as they are read.
  const records = csvRecords(text);
  const head: CsvRecord[] = [];
  while (head.length < 100) {
    const next = records.next();
    if (next.done) break;
    head.push(next.value);
  }
  const table = openPaymentTable(ALIPAY, head);
  const { header, cell } = table;
  const reading: RowReading<Field> = {
    // 交易时间 (app); else 付款时间, and 交易创建时间 for an order never paid (web).
    dateFields: header.columns.time !== undefined ? ['time'] : ['paid', 'created'],
    parseDate: localDateTimeParser(timeZone),
    amountField: 'amount',
    amountOf,
    directionField: 'direction',
    neutral: ['其他'],
    directionWords: '收入, 支出 or 不计收支',
  };
  const lines: StatementLine[] = [];
  const invalid: InvalidLine[] = [];
  const byMerchantOrder: MerchantOrderLine[] = [];

  const firstData = header.index + 1;
  function* dataRecords(): Generator<CsvRecord, void, undefined> {
    yield* head.slice(firstData);
    yield* records;
  }
  for (const record of paymentRows(dataRecords(), header, TRAILER, invalid)) {
    const { line, cells } = record;
    const basics = readRowBasics(table, reading, record);
    if ('kind' in basics) {
      invalid.push(basics);
      continue;
    }
    const goods = cell(cells, 'goods');
    const status = alipayStatus(cell(cells, 'status') || cell(cells, 'fundStatus'), goods);
    const fee = amountOf(cell(cells, 'fee'));
    const externalId = cell(cells, 'id');
    const original = status === 'refund' ? /^([^_*]+)[_*][^_*]+$/.exec(externalId) : null;
    const statementLine = paymentLine({
      ...basics,
      line,
      status,
      payee: cell(cells, 'payee'),
      descriptionParts: [goods, cell(cells, 'note'), fee !== null && !isZeroAmount(fee) ? `服务费 ${fee}` : ''],
      externalId,
      ...(original ? { originalId: original[1] } : {}),
      method: cell(cells, 'method'),
      category: cell(cells, 'category'),
    });
    lines.push(statementLine);
    byMerchantOrder.push({ line: statementLine, merchantId: cell(cells, 'merchantId') });
  }

  linkRefundsByMerchantOrder(byMerchantOrder);
  const account = /账号[:：]\s*\[([^\]]*)\]/.exec(text.slice(0, 5000))?.[1] ?? /支付宝账户[:：]\s*\[?([^\],\r\n]+?)\]?\s*(?:,|\r?\n)/.exec(text.slice(0, 5000))?.[1];
  const statement: ParsedStatement = { format: 'alipay', lines, invalid, currency: 'CNY' };
  if (account !== undefined && account.trim() !== '') statement.account = account.trim();
  return statement;
}

/** A line of the export with its 商家订单号 ('' when the row has none). */
interface MerchantOrderLine {
  line: StatementLine;
  merchantId: string;
}

/**
 * A refund whose own id does not name its payment: the latest payment at or before it with the
 * same 商家订单号 (else the earliest after it), when that payment has an id.
 */
function linkRefundsByMerchantOrder(lines: readonly MerchantOrderLine[]): void {
  const payments = new Map<string, StatementLine[]>();
  for (const { line, merchantId } of lines) {
    if (line.status === 'refund' || merchantId === '' || line.externalId === '') continue;
    const list = payments.get(merchantId);
    if (list) list.push(line);
    else payments.set(merchantId, [line]);
  }
  const sorted = new Set<StatementLine[]>();
  for (const { line, merchantId } of lines) {
    if (line.status !== 'refund' || line.originalId !== undefined || merchantId === '') continue;
    const candidates = payments.get(merchantId);
    if (!candidates) continue;
    if (!sorted.has(candidates)) {
      candidates.sort((a, b) => a.date - b.date);
      sorted.add(candidates);
    }
    // The first candidate after the refund, then one back: the latest at or before it.
    let low = 0;
    let high = candidates.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      const candidate = candidates.at(mid);
      if (candidate === undefined) throw new Error('linkRefundsByMerchantOrder: the search left the candidates'); // low <= mid < high <= length
      if (candidate.date <= line.date) low = mid + 1;
      else high = mid;
    }
    // A list is only made with a payment in it, so there is one to link.
    const payment = candidates.at(Math.max(low - 1, 0));
    if (payment) line.originalId = payment.externalId;
  }
}

export const parseAlipay: StatementParser = (bytes, options) => {
  if (isBlankFile(bytes)) {
    throw new StatementError('empty', 'The file is empty: export the bill from Alipay again (支付宝 → 我的 → 账单 → 开具交易流水证明 → 用于个人对账).');
  }
  return parseAlipayText(decodeAlipay(bytes), options.timeZone);
};

/**
 * The file's first 16 KB hold the header row of Alipay's bill: its columns (交易时间 or
 * 交易创建时间, 金额, 收/支, 交易状态) found by name, as the parser finds them. The header and the
 * structure decide, never a word in the rows: a bank's CSV whose rows name 支付宝 as the payee is
 * not an Alipay bill.
 */
export const sniffAlipay: StatementSniffer = (bytes) => csvHeadHasPaymentHeader(ALIPAY, bytes);
