/**
 * What the record-by-message inbox's notice parsers share: the draft they produce, how a notice's
 * text is normalised, which texts are no payment at all (codes, ads, bills, failures), card tails,
 * and the clean-up of merchant names.
 */
import { captured } from '../formats/shared';

export const NOTICE_SOURCES = [
  'cmb',
  'icbc',
  'ccb',
  'abc',
  'boc',
  'bocom',
  'spdb',
  'citic',
  'pingan',
  'cmbc',
  'cib',
  'alipay',
  'wechat',
  'unionpay',
  'generic-zh',
  'generic-en',
  'fields',
] as const;
export type NoticeSource = (typeof NOTICE_SOURCES)[number];

export type NoticeDirection = 'income' | 'expense';

/** A draft record read from one forwarded payment notice. */
export interface NoticeDraft {
  /** Positive decimal in major units: '25.50'. */
  amount: string;
  /** ISO 4217 ('CNY' for ¥/元/人民币, 'USD' for $…); '' when unknown (the caller uses the asset's currency). */
  currency: string;
  direction: NoticeDirection;
  /** '' when the notice does not name one. */
  merchant: string;
  /** ms: from the notice when it has a date/time, else `now`. */
  time: number;
  timeFromText: boolean;
  /** Last digits (4, or the 3 some banks print) of the card/account named, '' if none. */
  cardTail: string;
  /** The balance after, when the notice says. */
  balance?: string;
  source: NoticeSource;
  /** The original text, trimmed to 500 characters. */
  note: string;
}

/** What a parser reads; the source and note are added around it. */
export type NoticeCore = Omit<NoticeDraft, 'source' | 'note'>;

export const NOTE_LIMIT = 500;

/** The first `limit` characters (code points, never half a surrogate pair). */
export function clip(text: string, limit: number): string {
  const chars = Array.from(text);
  return chars.length <= limit ? text : chars.slice(0, limit).join('');
}

/**
 * NFKC (full-width digits, colons, commas, brackets and ￥ become ASCII), no zero-width characters,
 * `\n` line ends, single spaces, no spaces around line breaks.
 */
export function normalizeNotice(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/[\u200b-\u200f\u2060\ufeff]/g, '')
    .replace(/\r\n?/g, '\n')
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .trim();
}

export const CJK = /[\u3400-\u9fff]/;

const VERIFY =
  /验证码|校验码|动态码|动态密码|短信密码|确认码|verification code|security code|one[- ]time (?:pass(?:word|code)|code|pin)|\bOTP\b|passcode|auth(?:entication|orization)? code/i;
const FAILED = /(?:交易|支付|付款|扣款|转账|消费|还款|收款)(?:失败|未成功|不成功)|\bdeclined\b|\bfailed\b|was not (?:approved|completed)/i;
const BILL =
  /账单(?:金额)?\s*:?\s*(?:人民币|RMB|¥|\d)|应还(?:款)?(?:金额|人民币|额|¥|\d)|最低还款|(?:到期|最后)还款日|statement balance|minimum (?:payment|amount) due|payment (?:is )?due/i;
const PAID = /已还清|还款成功|成功还款|已还款|成功扣款|已于|存入|入账|payment (?:of \S+ )?(?:was )?(?:received|posted)|thank you for your payment/i;
const PROMO =
  /退订|回T|拒收|优惠券|消费券|代金券|红包雨|领取|抽奖|立减|满\d+元?减|免费|申请|额度(?:提升|高达)|最高可|可借|秒杀|大促|活动|邀请|福利|限时|狂欢|unsubscribe|opt[- ]out|reply stop|\boffer\b|promo|% off|limited time|apply now|\bsave\b|\bwin\b/i;
const EVIDENCE =
  /尾(?:号|数)\s*(?:为|是)?\s*:?\s*\*?\d|(?:账户|帐户|卡)\s*\*?\d{3,4}|已(?:成功)?(?:支付|付款|扣款|到账|收款|入账|消费|转入|存入|还款|支出)|(?:支付|付款|收款|交易|扣款|还款|转账|到账|入账|消费|提现)成功|成功(?:支付|付款|收款|消费|扣款|还款|转账|到账|下单|入账)|有一笔|支出|收入|入账|存入|转入|card ending|account ending|ending (?:in |with )?[x*.]*\d{4}|was charged|you spent|deposit of|was credited|was debited|you received|you sent|transaction with/i;

/**
 * True for texts that must not become a record although they may name an amount: verification
 * codes (`验证码123456，您正在支付25.00元`), failed or declined payments, bill reminders (`本期账单…
 * 最低还款…`, unless they say it was paid) and ads (promotional words and no sign of a real payment).
 */
export function isNotAPayment(text: string): boolean {
  if (VERIFY.test(text) || FAILED.test(text)) return true;
  if (BILL.test(text) && !PAID.test(text)) return true;
  return PROMO.test(text) && !EVIDENCE.test(text);
}

// Card tails. Masked numbers (6212 **** **** 7432, 498451******0914) first become ****7432.
const MASKED_NUMBER = /\d{4,6}[\s*]*\*{2,}[\s*]*(\d{4})(?!\d)/g;
const ZH_TAILS: readonly RegExp[] = [
  /尾(?:号|数)\s*(?:为|是)?\s*:?\s*\**\s*(\d{3,4})(?!\d)/g,
  /(?:存款账户|账户|帐户|账号|卡号|银行卡|信用卡|借记卡|储蓄卡|贷记卡|一卡通|钱包|卡)\s*:?\s*\**\s*(\d{4})(?![\d年月日时点:.])/g,
  /(?:卡|账户|账号)\s*\(\s*(\d{4})\s*\)/g,
  /您\s*(\d{4})\s*的/g,
];
const EN_TAILS: readonly RegExp[] = [
  /\b(?:card|account|acct|a\/c)\s*(?:no\.?|number|#)?\s*(?:ending|ends)?\s*(?:in|with)?\s*[:#]?\s*(?:[x*•.]+\s*)?(\d{4})\b/gi,
  /\b(?:ending|ends)\s*(?:in|with)?\s*[:#]?\s*(?:[x*•.]+)?(\d{4})\b/gi,
  /(?:\.{2,}|\*{2,}|\bx{2,})(\d{4})\b/gi,
];
// The other side's card ("对方账户尾号", "转出方尾号", "向尾号为1356的信用卡还款", "您向陈阳的…卡", "张三账户2428向您…").
const OTHER_SIDE = /对方|转出方|转入方|付款方(?!式)|收款方(?!式)|收款人(?!民币)|来自|向(?![您你])/;

/** The last digits of the person's own card or account the notice names, '' if none. */
export function findCardTail(text: string, english: boolean): string {
  const t = text.replace(MASKED_NUMBER, (_m, tail: string) => `****${tail}`);
  let best: { index: number; tail: string } | undefined;
  for (const re of english ? EN_TAILS : ZH_TAILS) {
    re.lastIndex = 0;
    for (let m = re.exec(t); m; m = re.exec(t)) {
      const before = t.slice(Math.max(0, m.index - 10), m.index);
      const clause = before.slice(before.search(/[^,;。\n]*$/));
      if (OTHER_SIDE.test(clause) || /^\s*向(?:您|你)/.test(t.slice(m.index + m[0].length))) continue;
      if (!best || m.index < best.index) best = { index: m.index, tail: captured(m, 1) };
      break;
    }
  }
  return best?.tail ?? '';
}

// Merchant clean-up: payment channels and transaction-type words are not merchants.
const CHANNELS = ['支付宝', '财付通', '微信支付', '美团支付', '京东支付', '抖音支付', '云闪付', '银联', '网银在线', '翼支付', '拉卡拉'];
const GLUED = ['支付宝', '财付通', '微信支付', '美团支付', '京东支付', '抖音支付'];
const TYPE_WORDS = [
  '消费',
  '支出',
  '收入',
  '缴费',
  '退款',
  '退货',
  '退税',
  '转账',
  '转入',
  '转出',
  '存入',
  '汇入',
  '汇出',
  '汇款',
  '他行',
  '本行',
  '行内',
  '跨行',
  '入账',
  '来账',
  '提现',
  '快捷支付',
  '快捷',
  '网上支付',
  '网上银行',
  '网银',
  '网络支付',
  '无卡支付',
  '扫码',
  '二维码',
  'POS',
  '代发',
  '代付',
  '工资',
  '其他',
  '其它',
  '支付',
  '付款',
  '收款',
  '手机银行',
  'ATM',
  '取款',
  '取现',
  '异地',
  '互联',
  '实时',
  '预授权',
  '预付款',
  '事由',
  '存款',
  '渠道',
  '支付平台',
  '第三方',
  '交易',
  '业务',
  '网联',
  '零钱通',
  '零钱',
  '微信零钱',
  '微信',
];
const alternation = (words: string[]) => [...words].sort((a, b) => b.length - a.length).join('|');
const VOCAB_ONLY = new RegExp(`^(?:${alternation([...CHANNELS, ...TYPE_WORDS])}|[\\s\\-/:()·,])*$`, 'i');
// Words glued before a merchant name: 消费星巴克, 缴费财付通-…, 微信支付大商鲜生, 财付通 华强电子世界.
const LEADING = new RegExp(`^(?:${alternation([...GLUED, '消费', '缴费', '退款', '退货', '转账', '网上支付', '快捷支付', '网络支付', '扫码支付'])})[\\s:/]*`, 'i');
// Where a merchant captured from a "label: value" line runs into the next label of a one-line notice.
const NEXT_LABEL =
  /\s*(?:交易状态|付款方式|支付方式|收单机构|交易时间|转账备注|备注|到账时间|交易单号|商户单号|可用额度|可用余额|交易类型|[\u4e00-\u9fff]{0,2}金额|(?:人民币|RMB|[¥$])\s*\d|\d+(?:\.\d+)?元|(?:支付|交易|付款|收款)成功|\d{1,2}月\d{1,2}日).*$/;

function cleanSegment(segment: string): string {
  let s = segment.trim();
  for (let i = 0; i < 4; i++) {
    const m = LEADING.exec(s);
    if (!m || m[0].length === s.length || s.charAt(m[0].length) === '(') break;
    s = s.slice(m[0].length).trim();
  }
  return VOCAB_ONLY.test(s) ? '' : s;
}

/** A merchant as written, without channel prefixes, type words, ellipses, brackets and trailing e-mail addresses; '' if nothing is left. */
export function cleanMerchant(raw: string): string {
  let s = raw.replace(NEXT_LABEL, '').trim();
  s = s.replace(/\s+\S*@\S*$/, '').replace(/\s*[【[][^】\]]{2,12}[】\]]$/, '');
  s = s.replace(/(?:…|\.{2,}|\*+|\s)+$/, '');
  const wrapped = /^[【[「"'](.*)[】\]」"']$/.exec(s);
  if (wrapped) s = captured(wrapped, 1);
  const colon = s.lastIndexOf(':');
  if (colon >= 0 && colon < s.length - 1) s = s.slice(colon + 1);
  const parts: string[] = [];
  for (const part of s.split(/-+/).map(cleanSegment)) {
    if (part && parts.at(-1) !== part) parts.push(part);
  }
  const merchant = parts.join('-').replace(/^[\s,.:]+|[\s,.:]+$/g, '');
  return VOCAB_ONLY.test(merchant) ? '' : clip(merchant, 100);
}

/** A merchant phrasing: group 1 is the merchant; with a function, it is cut by it before cleaning. */
export type MerchantPattern = RegExp | readonly [RegExp, (captured: string) => string];

/** The first pattern whose group 1 cleans to a non-empty merchant. */
export function firstMerchant(text: string, patterns: readonly MerchantPattern[]): string {
  for (const pattern of patterns) {
    const [re, cut] = pattern instanceof RegExp ? [pattern, undefined] : pattern;
    const m = re.exec(text);
    if (!m) continue;
    const named = captured(m, 1);
    const merchant = cleanMerchant(cut ? cut(named) : named);
    if (merchant) return merchant;
  }
  return '';
}
