import { ALIPAY, ALIPAY_MARK, UNIONPAY, UNIONPAY_MARK, WECHAT, WECHAT_MARK } from './app-notices';
import { bankByName, bankByTag } from './bank-notices';
import { parseEn } from './english-notices';
import { CJK, clip, isNotAPayment, normalizeNotice, NOTE_LIMIT, type NoticeCore, type NoticeDraft, type NoticeSource } from './notice-common';
import { FIELD_KEYS, fieldAmount, fieldCardTail, fieldCurrency, fieldDirection, pickField } from './notice-fields';
import { parseTimeValue, usableTimeZone, type NoticeContext } from './notice-time';
import { parseZh, type ZhProfile } from './notice-zh';

/**
 * The record-by-message inbox's parsers: a forwarded payment notice (a bank SMS, an app push, an
 * e-mail alert, or the fields of an iOS Shortcut) → a draft record. Pure functions; the route that
 * receives `POST /in/{inboxKey}` turns a null into a clear error.
 *
 * Sources (NoticeDraft.source), in the order a text is matched:
 *   1. a bank's SMS signature (【招商银行】, [建设银行] …): cmb icbc ccb abc boc bocom spdb citic pingan cmbc cib
 *   2. a payment app's own phrasing, unless the text reads like a bank's (尾号…, 您的账户1234…): alipay, wechat
 *   3. UnionPay's 云闪付 / 支付助手: unionpay
 *   4. a bank named anywhere (a forwarded app push without its signature)
 *   5. any other Chinese text: generic-zh (needs an amount with a currency mark and a direction word)
 *   6. text without Chinese: generic-en (the same requirement)
 *   parseNoticeFields: fields
 */

export type { NoticeDirection, NoticeDraft, NoticeSource } from './notice-common';

export interface NoticeOptions {
  now: number;
  timeZone: string;
}

// Only the start of a very long text is read (a notice is a few hundred characters).
const READ_LIMIT = 4000;

// Reads like a bank's notice even when it mentions 支付宝 or 微信 (`尾号1054卡…支出(消费支付宝-谢水生)`).
const BANK_STRUCTURE = /尾(?:号|数)\s*(?:为|是)?\s*:?\s*\*?\d|(?:您|你)的?(?:借记卡|储蓄卡|信用卡)?(?:账户|帐户|信用卡|借记卡|储蓄卡)\s*\*?\d|账户\s*\*\d{3,4}/;
const GENERIC_ZH: ZhProfile = { fallbackDirection: null, requireMark: true };

function appOf(text: string): { source: NoticeSource; profile: ZhProfile } | undefined {
  if (BANK_STRUCTURE.test(text)) return undefined;
  const alipay = text.search(ALIPAY_MARK);
  const wechat = text.search(WECHAT_MARK);
  if (alipay >= 0 && (wechat < 0 || alipay <= wechat)) return { source: 'alipay', profile: ALIPAY };
  if (wechat >= 0) return { source: 'wechat', profile: WECHAT };
  return undefined;
}

/** Which parser reads a normalised Chinese text. */
function chooseZh(text: string): { source: NoticeSource; profile: ZhProfile } {
  const tagged = bankByTag(text);
  if (tagged) return { source: tagged.id, profile: tagged.profile };
  const app = appOf(text);
  if (app) return app;
  if (UNIONPAY_MARK.test(text)) return { source: 'unionpay', profile: UNIONPAY };
  const named = bankByName(text);
  if (named) return { source: named.id, profile: named.profile };
  return { source: 'generic-zh', profile: GENERIC_ZH };
}

function contextOf(options: NoticeOptions): NoticeContext {
  const now = Number.isFinite(options.now) ? options.now : Date.now();
  return { now, timeZone: usableTimeZone(options.timeZone) };
}

function read(text: string, ctx: NoticeContext): { source: NoticeSource; core: NoticeCore | null } | null {
  const t = normalizeNotice(clip(text, READ_LIMIT));
  if (!t || isNotAPayment(t)) return null;
  if (!CJK.test(t)) return { source: 'generic-en', core: parseEn(t, ctx) };
  const { source, profile } = chooseZh(t);
  return { source, core: parseZh(t, ctx, profile) };
}

/**
 * A payment notice's text → a draft; null when it names no amount (or is a verification code, an
 * ad, a bill reminder, a failed payment). Dates without a year are placed in the year of
 * `options.now` in `options.timeZone` (the previous year when that would be more than a day ahead).
 */
export function parseNoticeText(text: string, options: NoticeOptions): NoticeDraft | null {
  if (typeof (text as unknown) !== 'string') return null;
  const original = text.trim();
  if (!original) return null;
  const found = read(original, contextOf(options));
  if (!found?.core) return null;
  return { ...found.core, source: found.source, note: clip(original, NOTE_LIMIT) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function noteOf(fields: Record<string, unknown>, text: string | undefined): string {
  if (text !== undefined) return clip(text, NOTE_LIMIT);
  try {
    return clip(JSON.stringify(fields), NOTE_LIMIT);
  } catch {
    return '';
  }
}

/**
 * A notice sent as fields (JSON or a form, e.g. from an iOS Shortcut): amount|money|金额,
 * merchant|payee|商户|title, type|direction ('expense' '支出' 'out' / 'income' '收入' 'in'),
 * time|date (ms, seconds, ISO, 'YYYY-MM-DD HH:mm'), card|cardTail|尾号, currency, balance|余额,
 * text|message|body|content. Without an amount the text is parsed as a notice (its parser's source
 * stays, the other fields given override what it read); with one, the fields make the draft
 * (source 'fields') and a text only fills what they leave out. A negative amount without a type is
 * an expense; no type at all is an expense. null when there is no usable amount.
 */
export function parseNoticeFields(fields: Record<string, unknown>, options: NoticeOptions): NoticeDraft | null {
  if (!isRecord(fields)) return null;
  const ctx = contextOf(options);
  const textValue = pickField(fields, FIELD_KEYS.text);
  const text = textValue === undefined ? undefined : String(textValue);
  const fromText = text === undefined ? null : parseNoticeText(text, options);
  const amountValue = pickField(fields, FIELD_KEYS.amount);
  const amount = amountValue === undefined ? null : fieldAmount(amountValue);
  if (amountValue !== undefined && !amount) return null;
  const base = amount ? null : fromText;
  if (!amount && !base) return null;

  const typeValue = fieldDirection(pickField(fields, FIELD_KEYS.direction));
  const merchantValue = pickField(fields, FIELD_KEYS.merchant);
  const timeValue = pickField(fields, FIELD_KEYS.time);
  const fieldTime = timeValue === undefined ? null : parseTimeValue(timeValue, ctx);
  const cardValue = pickField(fields, FIELD_KEYS.card);
  const currencyValue = pickField(fields, FIELD_KEYS.currency);
  const balanceValue = pickField(fields, FIELD_KEYS.balance);
  const balance = (balanceValue === undefined ? null : fieldAmount(balanceValue))?.amount ?? fromText?.balance;

  const draft: NoticeDraft = {
    amount: amount?.amount ?? base?.amount ?? '',
    currency: (currencyValue === undefined ? '' : fieldCurrency(currencyValue)) || amount?.currency || fromText?.currency || '',
    direction: typeValue ?? (amount?.negative ? 'expense' : (fromText?.direction ?? 'expense')),
    merchant: merchantValue === undefined ? (fromText?.merchant ?? '') : clip(String(merchantValue), 200),
    time: fieldTime ?? fromText?.time ?? ctx.now,
    timeFromText: fieldTime !== null || (fromText?.timeFromText ?? false),
    cardTail: cardValue === undefined ? (fromText?.cardTail ?? '') : fieldCardTail(cardValue),
    source: base?.source ?? 'fields',
    note: base?.note ?? noteOf(fields, text),
  };
  if (balance !== undefined) draft.balance = balance;
  return draft;
}
