import type { NoticeSource } from './notice-common';
import type { MoneyToken } from './notice-money';
import type { ZhProfile } from './notice-zh';

/**
 * The Chinese banks whose SMS and app notices the inbox recognises by name. Each is known by its
 * signature (`【招商银行】`, `[建设银行]` at either end of an SMS) or, in a forwarded app push that
 * lost it, by its name or card brand in the text (`招行信用卡`, `龙卡`, `交行`, `中信卡`). The shared
 * Chinese reading (notice-zh.ts) does the rest; a bank adds what only it writes.
 *
 * Phrasings each bank's entry was checked against (see notice-parsers.test.ts for the samples):
 *   招商银行  您账户1234于11月27日12:30在美团支付消费25.50元 · 在【财付通-…】发生快捷支付扣款，人民币… ·
 *            银联入账人民币0.09元 · 入账工资，人民币1000.00 · 向尾号为1356的信用卡还款 · 您尾号1356的招行信用卡消费…人民币
 *   工商银行  尾号1234卡11月27日12:30支出(消费星巴克)35元，余额1,000.00元 · 收入(他行汇入)660元…对方户名：…
 *   建设银行  您尾号1234的储蓄卡11月27日12时30分消费支出人民币25.00元,活期余额… · X向您尾号…的储蓄卡账户…收入 ·
 *            龙卡信用卡…消费(美团支付-…)14.93元，当前可用额度… · …已于…从约定账户成功扣款…账单已还清
 *   农业银行  您尾号0773账户11月06日15:03向X完成支付宝交易人民币-18.90，余额4834.48 (signed: no sign is money in)
 *   中国银行  您的借记卡账户6450，于11月28日网上支付支取人民币1.00元,交易后余额… · 您的信用卡6666于2024年10月05日，在X支付消费RMB138.20元
 *   交通银行  您尾号*1923的卡于11月08日11:05网络支付异地消费2.13元,交易后余额为… · 交行信用卡01日19时09分成功消费人民币…
 *   浦发银行  您尾号4036卡人民币活期14:09转入9,915.48元[其他代发工资],可用余额… · 交易金额：人民币活期-19.80
 *   中信银行  您尾号4924的中信卡于11月10日17:38，转账支出人民币1.00元，当前余额为人民币2.42元
 *   平安银行  您存款账户5514于…跨行转账转入人民币220.00元 · 交易类型：财付通快捷支付(微信红包-微信红包)
 *   民生银行  账户*0936于11月26日09:54存入￥100.00元，可用余额100.01元。银联入账：业务组。
 *   兴业银行  账户*6751*汇款汇入收入1000.00元，余额…。对方户名:麦卓华 · 交易类型：借记卡*4715跨行消费支出
 */

export interface BankDef {
  id: NoticeSource;
  /** The bank's SMS signature. */
  tag: RegExp;
  /** The bank's name, short name or card brand anywhere in the text. */
  name: RegExp;
  profile: ZhProfile;
}

/** 农业银行 writes expenses with a minus sign (`交易人民币-18.90`); a sum without one after 交易 is money in. */
function abcDirection(masked: string, token: MoneyToken): 'income' | null {
  return token.sign === '' && /交易\s*$/.test(masked.slice(Math.max(0, token.start - 4), token.start)) ? 'income' : null;
}

export const BANKS: readonly BankDef[] = [
  {
    id: 'cmb',
    tag: /[【[]招商银行(?:信用卡)?[】\]]/,
    name: /招商银行|招行|掌上生活/,
    profile: { fallbackDirection: 'expense', merchant: [/在【([^】]+)】/, /二维码收款\(([^)]+)\)/] },
  },
  {
    id: 'icbc',
    tag: /[【[](?:中国)?(?:工商银行|工行)[】\]]/,
    name: /工商银行|工行|ICBC/,
    profile: { fallbackDirection: 'expense' },
  },
  {
    id: 'ccb',
    tag: /[【[](?:中国)?(?:建设银行|建行)[】\]]/,
    name: /建设银行|建行|龙卡/,
    profile: { fallbackDirection: 'expense' },
  },
  {
    id: 'abc',
    tag: /[【[](?:中国)?(?:农业银行|农行)[】\]]/,
    name: /农业银行|农行/,
    profile: { fallbackDirection: 'expense', direction: abcDirection },
  },
  {
    id: 'boc',
    tag: /[【[](?:中国银行|中行)[】\]]/,
    name: /中国银行|中行/,
    profile: { fallbackDirection: 'expense' },
  },
  {
    id: 'bocom',
    tag: /[【[](?:交通银行|交行)[】\]]/,
    name: /交通银行|交行|买单吧/,
    profile: { fallbackDirection: 'expense' },
  },
  {
    id: 'spdb',
    tag: /[【[](?:上海)?浦(?:东)?发(?:展)?银行[】\]]/,
    name: /浦发|浦东发展银行/,
    profile: { fallbackDirection: 'expense', merchant: [/交易类型:[^\n]*?-([^\n]+)/] },
  },
  {
    id: 'citic',
    tag: /[【[]中信(?:银行)?(?:信用卡)?[】\]]/,
    name: /中信银行|中信卡|中信信用卡|中信/,
    profile: { fallbackDirection: 'expense' },
  },
  {
    id: 'pingan',
    tag: /[【[]平安银行(?:信用卡)?[】\]]/,
    name: /平安银行|平安信用卡|平安卡|口袋银行/,
    profile: { fallbackDirection: 'expense', merchant: [/交易类型:[^(\n]*\(((?:[^()\n]|\([^()]*\))+)\)/] },
  },
  {
    id: 'cmbc',
    tag: /[【[](?:中国)?民生银行(?:信用卡)?[】\]]/,
    name: /民生银行|民生信用卡|民生卡/,
    profile: { fallbackDirection: 'expense', merchant: [/元。(?:[^。:\n]{0,8}:)?([^。:\n]{1,30})。/] },
  },
  {
    id: 'cib',
    tag: /[【[]兴业银行(?:信用卡)?[】\]]/,
    name: /兴业银行|兴业信用卡|兴业卡/,
    profile: { fallbackDirection: 'expense', merchant: [/交易说明:([^\n]+)/] },
  },
];

function earliest(text: string, pick: (bank: BankDef) => RegExp): BankDef | undefined {
  let best: { bank: BankDef; index: number } | undefined;
  for (const bank of BANKS) {
    const index = text.search(pick(bank));
    if (index >= 0 && (!best || index < best.index)) best = { bank, index };
  }
  return best?.bank;
}

/** The bank whose SMS signature the text carries (the first one when several are named). */
export function bankByTag(text: string): BankDef | undefined {
  return earliest(text, (bank) => bank.tag);
}

/** The bank the text names first. */
export function bankByName(text: string): BankDef | undefined {
  return earliest(text, (bank) => bank.name);
}
