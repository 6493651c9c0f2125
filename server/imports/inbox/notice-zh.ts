import { captured } from '../formats/shared';
import { cleanMerchant, findCardTail, firstMerchant, type MerchantPattern, type NoticeCore, type NoticeDirection } from './notice-common';
import { findMoneyZh, pickAmount, type LabelKind, type MoneyToken } from './notice-money';
import { findNoticeTime, type NoticeContext } from './notice-time';

/**
 * The reading of a Chinese payment notice that every Chinese parser shares (banks' SMS and app
 * pushes, Alipay, WeChat Pay, UnionPay, the generic fallback): which amount is the payment (not the
 * 余额, 可用额度 or a 共计), its direction, merchant, card tail and time. A parser adds its sender's
 * own phrasing through a profile.
 */

export interface ZhProfile {
  /** The sender's own merchant phrasings, tried first (group 1 is the merchant). */
  merchant?: readonly MerchantPattern[];
  /** false: besides its own, only `label: value` merchants (app notices put other things in brackets). */
  genericMerchant?: boolean;
  /** A sender rule for the direction, tried before the shared ones (null: no opinion). */
  direction?: (masked: string, token: MoneyToken) => NoticeDirection | null;
  /** When no word gives the direction: the sender's usual one, or null to give up (generic parser). */
  fallbackDirection: NoticeDirection | null;
  /** Only an amount written with a currency mark or unit can be the payment (generic parser). */
  requireMark?: boolean;
}

// Labels and names that contain direction words without meaning them (收款方 on a payment, 支付宝 on
// a refund, 付款业务转入, 还款日 on a purchase): blanked out, keeping positions, before reading words.
const MASK =
  /支付宝|支付机构|付款业务|支付平台|付款方式|支付方式|收款方式|退款方式|收款方|付款方|收款人(?!民币)|付款人(?!民币)|收款账户|收款店铺|收款单位|收款码|收单机构|转出方|转入方|到账时间|还款日|还款卡号|还款卡片|消费金融|消费券|消费记录|汇款人(?!民币)|付方/g;

export function maskZh(text: string): string {
  return text.replace(MASK, (m) => '#'.repeat(m.length));
}

const INCOME_WORDS = [
  '收入',
  '转入',
  '存入',
  '入账',
  '来账',
  '到账',
  '收款',
  '收到',
  '汇入',
  '工资',
  '代发',
  '报销',
  '利息',
  '结息',
  '返现',
  '退款',
  '退货',
  '退税',
  '退回',
  '冲正',
  '撤销',
  '转存',
  '缴存',
  '收益',
  '奖金',
];
const EXPENSE_WORDS = [
  '支出',
  '消费',
  '扣款',
  '扣费',
  '扣收',
  '扣除',
  '支付',
  '付款',
  '转出',
  '汇出',
  '取现',
  '取款',
  '支取',
  '缴费',
  '预授权',
  '下单',
  '刷卡',
  '还款',
  '代扣',
  '购买',
  '买入',
  '充值',
  '付费',
];
const INCOME_SET = new Set(INCOME_WORDS);
const WORDS = new RegExp(`汇款(?!汇入|转入|收入|入账)|${[...INCOME_WORDS, ...EXPENSE_WORDS].sort((a, b) => b.length - a.length).join('|')}`, 'g');
const CLAUSE_END = /[。;!?\n]/;
const LABEL_END = /[,;。!?\n]/;

interface Word {
  index: number;
  end: number;
  kind: NoticeDirection;
}

function wordsOf(masked: string): Word[] {
  const words: Word[] = [];
  WORDS.lastIndex = 0;
  for (let m = WORDS.exec(masked); m; m = WORDS.exec(masked)) {
    words.push({ index: m.index, end: m.index + m[0].length, kind: INCOME_SET.has(m[0]) ? 'income' : 'expense' });
  }
  return words;
}

/** Brackets open at `index`, counted from `from`: words inside `支出(消费…)` explain, the one outside decides. */
function bracketDepth(text: string, from: number, index: number): number {
  let depth = 0;
  for (let i = from; i < index; i++) {
    const c = text.charAt(i);
    if ('([{【'.includes(c)) depth++;
    else if (')]}】'.includes(c) && depth > 0) depth--;
  }
  return depth;
}

/**
 * A credit card repayment is income to the card (`龙卡信用卡…扣款…账单已还清`, `交易类型:信用卡还款`)
 * but an expense of the account it is paid from (`您账户6598…向尾号为1356的信用卡还款`,
 * `您尾号6598的账户信用卡预约还款`).
 */
function creditCardRepayment(masked: string): NoticeDirection | null {
  if (!/信用卡|贷记卡|龙卡/.test(masked) || !/还款|还清/.test(masked)) return null;
  if (/向[^,;。\n]{0,20}?(?:信用卡|贷记卡)[^,;。\n]{0,6}?还款/.test(masked)) return 'expense';
  if (/(?:账户|一卡通|储蓄卡|借记卡)[^,;。\n]{0,12}?(?:预约|自动|主动)?还款/.test(masked)) return 'expense';
  return 'income';
}

/**
 * The direction of the payment `token`: its sign (`人民币-18.90`, `活期+68`), a credit card
 * repayment, else the last direction word before it in its clause (outside brackets first:
 * `收入(退款…消费)` is income, `消费退货/退税(…)` too), `向您`/`您向`, the first word after it (`你有一笔43.73元的支出`),
 * the first word anywhere. null when the notice has none.
 */
export function zhDirection(masked: string, token: MoneyToken): NoticeDirection | null {
  if (token.sign === '-') return 'expense';
  if (token.sign === '+') return 'income';
  const card = creditCardRepayment(masked);
  if (card) return card;
  let clauseStart = token.start;
  while (clauseStart > 0 && !CLAUSE_END.test(masked.charAt(clauseStart - 1))) clauseStart--;
  let clauseEnd = token.end;
  while (clauseEnd < masked.length && !CLAUSE_END.test(masked.charAt(clauseEnd))) clauseEnd++;
  const words = wordsOf(masked);
  const before = words.filter((w) => w.index >= clauseStart && w.end <= token.start);
  const outside = before.filter((w) => bracketDepth(masked, clauseStart, w.index) === 0);
  const closest = outside.at(-1) ?? before.at(-1);
  if (closest) return closest.kind;
  if (/向(?:您|你)/.test(masked.slice(0, token.start))) return 'income';
  if (/(?:您|你)向/.test(masked)) return 'expense';
  const after = words.find((w) => w.index >= token.end && w.index < clauseEnd);
  return (after ?? words.at(0))?.kind ?? null;
}

function labelOf(masked: string, token: MoneyToken, previous: MoneyToken | undefined): string {
  const floor = previous?.end ?? 0;
  let start = token.start;
  while (start > floor && !LABEL_END.test(masked.charAt(start - 1))) start--;
  return masked.slice(start, token.start);
}

/** What the words introducing an amount make it. Only the words after the label's last direction word count (`余额变动:支出25元` is a payment). */
function classifyZh(label: string): LabelKind {
  let tail = label;
  WORDS.lastIndex = 0;
  for (let m = WORDS.exec(label); m; m = WORDS.exec(label)) tail = label.slice(m.index + m[0].length);
  if (/余额(?!宝)|结余/.test(tail)) return 'balance';
  if (/额度|可用|共计|累计|汇总|最低|应还|手续费|积分|优惠|减免|折扣|利率|限额|上限|原价|原金额|原预授权|账单/.test(tail)) return 'skip';
  if (/实际|实付|实扣|实收/.test(label)) return 'prefer';
  return 'plain';
}

// `label: value` merchants (商户：…, 收款方 …, 对方户名：…, 付方何露, 交易对象：…).
export const LABELLED_MERCHANT =
  /(?:交易商户|商户名称|商户全称|商户名|消费商户|消费商家|收款店铺|收款单位|交易对方|交易对象|对方户名|对方账户名|对方名称|收款方|收款人|付款方|付款人|商户|商家|付方|对方)(?!式|账|卡|尾|单号|备注|号|信息|银行|已|民币)\s*:?\s*([^\n,;。]+)/;

/** `向X…` names the other side until its card: 向宋闶尾号1963账户, 向陈阳的工商银行卡…, 向尾号为1356的信用卡 (none). */
const cutAtCard = (s: string) => s.replace(/(?:尾号|的[^的]{0,12}(?:银行|卡|账户)|账户|信用卡|\d{4}).*$/, '');

const GENERIC_MERCHANT: readonly MerchantPattern[] = [
  LABELLED_MERCHANT,
  /在[【[]([^】\]\n]{1,40})[】\]]/,
  /在([^,;。\n]{1,40}?)(?:发生)?(?:支付消费|快捷支付|网上支付|网络支付|POS消费|消费|支付了|支付|扣款|退款|付款|刷卡)(?=\s*,?\s*(?:人民币|RMB|CNY|[¥$€£]|[+-]?\d))/,
  /在([^,;。\n]{1,40}?)有一笔/,
  [/向(?![您你])([^,;。\n]{1,40}?)(?:完成|支出|转出|转账|付款|做|消费|汇款|还款|跨行|支付(?=\s*(?:人民币|RMB|[¥$]|\d)))/, cutAtCard],
  /([^\s\d,;。:【】[\]()您你年月日]{1,20}?)于?\s*(?:\d{2,4}年)?(?:\d{1,2}月)?\d{1,2}日[\d:时分秒\s]{0,10}向(?:您|你)/,
  /\d([^\d\s,;。:【】[\]]{1,20}?)账户\s*\d{3,4}向(?:您|你)/,
  /(?:支出|收入|消费|退货|退税|退款|缴费|扣款|收款)(?:\/[^\s(]{1,6})?\s*\(((?:[^()]|\([^()]*\))+)\)/,
];

/** A merchant in brackets right after the amount: `85.87元(支付宝(中国)网络技术有限公司)`, `1.00[银联入账:何露]`. */
function merchantAfter(text: string, token: MoneyToken): string {
  const m = /^\s*[([]((?:[^()[\]]|\([^()]*\))+)[)\]]/.exec(text.slice(token.end));
  return m ? cleanMerchant(captured(m, 1)) : '';
}

/** A Chinese notice read with `profile`; null when it names no amount or (generic) no direction. */
export function parseZh(text: string, ctx: NoticeContext, profile: ZhProfile): NoticeCore | null {
  const masked = maskZh(text);
  const tokens = findMoneyZh(text);
  const { main, balance } = pickAmount(
    tokens,
    (token, previous) => labelOf(masked, token, previous),
    (label, token) => {
      const kind = classifyZh(label);
      return profile.requireMark && !token.marked && kind !== 'balance' ? 'skip' : kind;
    },
  );
  if (!main) return null;
  const direction = profile.direction?.(masked, main) ?? zhDirection(masked, main) ?? profile.fallbackDirection;
  if (!direction) return null;
  const { time, fromText } = findNoticeTime(text, ctx);
  let merchant = firstMerchant(text, profile.merchant ?? []);
  if (!merchant && profile.genericMerchant === false) merchant = firstMerchant(text, [LABELLED_MERCHANT]);
  else if (!merchant) merchant = firstMerchant(text, GENERIC_MERCHANT) || merchantAfter(text, main);
  return {
    amount: main.amount,
    currency: main.currency || 'CNY',
    direction,
    merchant,
    time,
    timeFromText: fromText,
    cardTail: findCardTail(text, false),
    ...(balance === undefined ? {} : { balance }),
  };
}
