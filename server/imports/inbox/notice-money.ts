import { isCurrencyCode } from '../../lib/money';
import { isZeroAmount, parseAmount } from '../formats/shared';

/**
 * The money mentions of a notice: `人民币25.00`, `25.50元`, `¥25.50`, `RMB 45.00元`, `人民币活期-19.80`,
 * `858.00日元`, `$1,200.00`, `EUR 25,00`, `HK$388.00`, and bare numbers right after an amount or
 * direction word (`消费1169.00`, `交易金额:100.00`, `余额4834.48`). Which one is the payment and which
 * the balance is decided by the callers from the words before each.
 */

export interface MoneyToken {
  /** Where the whole mention (with its currency mark) starts and ends. */
  start: number;
  end: number;
  /** Positive decimal, no separators: '1234.50'. */
  amount: string;
  /** ISO 4217 code of the mark, '' when the mention has none. */
  currency: string;
  sign: '' | '+' | '-';
  /** Written with a currency mark or unit (not just after a word). */
  marked: boolean;
}

const ZH_NUM = String.raw`(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?`;
// Not a date, a time, a count or a percentage: 14:09, 12月, 3笔, 20%.
const ZH_NUM_END = String.raw`(?![\d:时分点月日年号笔次个%]|\.\d)`;
const SIGN = String.raw`([+\-−]?)`;

const ZH_PREFIX = new RegExp(
  String.raw`(?<![A-Za-z])(人民币|RMB|CNY|US\$|HK\$|港币|港元|HKD|美元|USD|欧元|EUR|英镑|GBP|日元|JPY|[¥$€£])\s*(?:活期)?\s*${SIGN}\s*(${ZH_NUM})${ZH_NUM_END}(?:\s*(?:元|块))?`,
  'dgi',
);
const ZH_SUFFIX = new RegExp(String.raw`(?<![\d.,])${SIGN}(${ZH_NUM})\s*(元|块钱|块|人民币|美元|港元|港币|欧元|英镑|日元|(?:RMB|CNY|USD|HKD|EUR|GBP|JPY)(?![A-Za-z]))`, 'dgi');
const ZH_BARE = new RegExp(
  String.raw`(?:金额|余额(?!宝)(?:为)?|支出|收入|消费|存入|转入|转出|支取|入账|扣款|还款|退款|收款|付款|到账|取现|汇入|汇出|下单|支付|来账|缴存)\s*:?\s*${SIGN}(${ZH_NUM})${ZH_NUM_END}`,
  'dg',
);

const EN_NUM = String.raw`(?:\d{1,3}(?:[,.]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?)`;
const EN_NUM_END = String.raw`(?![\d%]|[.,]\d)`;
const EN_CODES = 'USD|EUR|GBP|HKD|JPY|CNY|RMB|AUD|CAD|SGD|CHF|NZD|INR|MXN|KRW|TWD|BRL';
const EN_PREFIX = new RegExp(String.raw`${SIGN}(?<![A-Za-z])(US\$|HK\$|CA\$|C\$|AU\$|A\$|SG\$|S\$|NZ\$|R\$|Rs\.?|${EN_CODES}|[$€£¥₹])\s*${SIGN}\s*(${EN_NUM})${EN_NUM_END}`, 'dgi');
const EN_SUFFIX = new RegExp(String.raw`(?<![\d.,])${SIGN}(${EN_NUM})\s*(${EN_CODES}|€|euros?)(?![A-Za-z])`, 'dgi');
const EN_BARE = new RegExp(String.raw`\b(?:amount|amt|total|balance|bal)\b\.?\s*(?:is|of)?\s*[:=]?\s*${SIGN}(${EN_NUM})${EN_NUM_END}`, 'dgi');

const MARKS: Record<string, string> = {
  人民币: 'CNY',
  rmb: 'CNY',
  cny: 'CNY',
  '¥': 'CNY',
  元: 'CNY',
  块: 'CNY',
  块钱: 'CNY',
  美元: 'USD',
  usd: 'USD',
  us$: 'USD',
  $: 'USD',
  港币: 'HKD',
  港元: 'HKD',
  hkd: 'HKD',
  hk$: 'HKD',
  欧元: 'EUR',
  eur: 'EUR',
  '€': 'EUR',
  euro: 'EUR',
  euros: 'EUR',
  英镑: 'GBP',
  gbp: 'GBP',
  '£': 'GBP',
  日元: 'JPY',
  jpy: 'JPY',
  ca$: 'CAD',
  c$: 'CAD',
  au$: 'AUD',
  a$: 'AUD',
  sg$: 'SGD',
  s$: 'SGD',
  nz$: 'NZD',
  r$: 'BRL',
  rs: 'INR',
  'rs.': 'INR',
  '₹': 'INR',
};

/** ISO 4217 code of a currency mark, word or code ('' when unknown). */
export function currencyOfMark(mark: string): string {
  const key = mark.trim().toLowerCase();
  if (MARKS[key]) return MARKS[key];
  const code = key.toUpperCase();
  return isCurrencyCode(code) ? code : '';
}

/** An English-style number: '1,200.00', '25,00' and '1.234,56' (decimal comma), '1.200' (thousands). */
export function normaliseEnNumber(text: string): string | null {
  let value = text;
  const lastComma = value.lastIndexOf(',');
  const lastDot = value.lastIndexOf('.');
  if (lastComma >= 0 && lastDot >= 0) {
    value = lastComma > lastDot ? value.replace(/\./g, '').replace(',', '.') : value.replace(/,/g, '');
  } else if (lastComma >= 0) {
    value = /^\d+,\d{1,2}$/.test(value) ? value.replace(',', '.') : value.replace(/,/g, '');
  } else if (/^\d{1,3}(?:\.\d{3})+$/.test(value)) {
    value = value.replace(/\./g, '');
  }
  return parseAmount(value)?.amount ?? null;
}

function signOf(...signs: (string | undefined)[]): MoneyToken['sign'] {
  for (const s of signs) {
    if (s === '+') return '+';
    if (s === '-' || s === '−') return '-';
  }
  return '';
}

interface Hit {
  numStart: number;
  token: MoneyToken;
}

interface Groups {
  num: number;
  mark?: number;
  signs: number[];
  /** The group where the mention starts (a bare number: its sign, not the word before it). */
  from?: number;
}

function scan(text: string, re: RegExp, groups: Groups, toAmount: (s: string) => string | null, hits: Map<number, Hit>) {
  const { num, mark, signs, from } = groups;
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const span = m.indices?.[num];
    if (!span) continue;
    const amount = toAmount(text.slice(span[0], span[1])); // the text of group `num`
    if (amount === null) continue;
    const markText = mark === undefined ? undefined : m.at(mark);
    const currency = markText ? currencyOfMark(markText) : '';
    const sign = signOf(...signs.map((i) => m.at(i)));
    const start = from === undefined ? m.index + (m[0].length - m[0].trimStart().length) : (m.indices?.[from]?.[0] ?? span[0]);
    const end = m.index + m[0].length;
    const previous = hits.get(span[0]);
    if (previous) {
      const t = previous.token;
      t.start = Math.min(t.start, start);
      t.end = Math.max(t.end, end);
      t.currency ||= currency;
      t.sign ||= sign;
      t.marked ||= markText !== undefined;
    } else {
      hits.set(span[0], { numStart: span[0], token: { start, end, amount, currency, sign, marked: markText !== undefined } });
    }
  }
}

const zhAmount = (s: string) => parseAmount(s)?.amount ?? null;

/** Money mentions of a Chinese notice, in text order. */
export function findMoneyZh(text: string): MoneyToken[] {
  const hits = new Map<number, Hit>();
  scan(text, ZH_PREFIX, { num: 3, mark: 1, signs: [2] }, zhAmount, hits);
  scan(text, ZH_SUFFIX, { num: 2, mark: 3, signs: [1] }, zhAmount, hits);
  scan(text, ZH_BARE, { num: 2, signs: [1], from: 1 }, zhAmount, hits);
  return [...hits.values()].sort((a, b) => a.numStart - b.numStart).map((h) => h.token);
}

/** Money mentions of an English notice, in text order. */
export function findMoneyEn(text: string): MoneyToken[] {
  const hits = new Map<number, Hit>();
  scan(text, EN_PREFIX, { num: 4, mark: 2, signs: [1, 3] }, normaliseEnNumber, hits);
  scan(text, EN_SUFFIX, { num: 2, mark: 3, signs: [1] }, normaliseEnNumber, hits);
  scan(text, EN_BARE, { num: 2, signs: [1], from: 1 }, normaliseEnNumber, hits);
  return [...hits.values()].sort((a, b) => a.numStart - b.numStart).map((h) => h.token);
}

export type LabelKind = 'balance' | 'skip' | 'prefer' | 'plain';

/**
 * The payment among the mentions and the balance after it. `labelOf(token, previous)` is the
 * text that introduces mention `token`, which follows mention `previous` (none for the first) ('余额', '可用额度为', 'Available balance:'); `classify` says what that label makes it.
 * The first plain mention is the payment unless a later one is labelled as the actual amount
 * ('实际金额'); zero amounts never are.
 */
export function pickAmount(
  tokens: MoneyToken[],
  labelOf: (token: MoneyToken, previous: MoneyToken | undefined) => string,
  classify: (label: string, token: MoneyToken) => LabelKind,
): { main?: MoneyToken; balance?: string } {
  let main: MoneyToken | undefined;
  let preferred = false;
  let balance: string | undefined;
  let previous: MoneyToken | undefined;
  for (const token of tokens) {
    const kind = classify(labelOf(token, previous), token);
    previous = token;
    if (kind === 'balance') {
      balance ??= token.amount;
      continue;
    }
    if (kind === 'skip' || isZeroAmount(token.amount)) continue;
    if (kind === 'prefer' && !preferred) {
      main = token;
      preferred = true;
    } else if (!main) main = token;
  }
  return { main, balance };
}
