import type { NoticeDirection } from './notice-common';
import { currencyOfMark, normaliseEnNumber } from './notice-money';
import { nameKey } from '../../lib/fold-text';

/**
 * The values of a notice sent as fields (an iOS Shortcut's JSON, a form): which keys mean what and
 * how each value is read. Keys match without regard to case or surrounding spaces.
 */

export const FIELD_KEYS = {
  amount: ['amount', 'money', '金额'],
  merchant: ['merchant', 'payee', '商户', 'title', '商家'],
  direction: ['type', 'direction', '类型', '收支'],
  time: ['time', 'date', '时间', '日期'],
  card: ['card', 'cardTail', '尾号', 'card_tail'],
  currency: ['currency', '币种'],
  balance: ['balance', '余额'],
  text: ['text', 'message', 'body', 'content'],
} as const;

const KNOWN_KEYS = new Set(Object.values(FIELD_KEYS).flatMap((keys) => keys.map((key) => key.toLowerCase())));

/**
 * A form body (`application/x-www-form-urlencoded`): its fields when one of them is a notice field
 * (`text=…`, `amount=…&merchant=…`); otherwise the body is the notice text itself — `curl -d '…'`
 * sends a bare text with the form type, unencoded (kept exactly as sent), and a percent-encoded
 * text without a field name (`--data-urlencode`) is decoded.
 */
export function formNotice(body: string): string | Record<string, unknown> {
  const params = new URLSearchParams(body);
  const fields: Record<string, unknown> = {};
  for (const [key, value] of params) if (!(key in fields) && key !== '__proto__') fields[key] = value;
  if (Object.keys(fields).some((key) => KNOWN_KEYS.has(key.trim().toLowerCase()))) return fields;
  if (!body.includes('=') && /%[0-9A-Fa-f]{2}/.test(body)) {
    try {
      return decodeURIComponent(body.replace(/\+/g, ' '));
    } catch {
      return body;
    }
  }
  return body;
}

/** The first usable value among `keys`: a non-empty trimmed string or a finite number (an array gives its first element). */
export function pickField(fields: Record<string, unknown>, keys: readonly string[]): string | number | undefined {
  const wanted = new Set(keys.map((k) => k.toLowerCase()));
  const byKey = new Map<string, unknown>();
  for (const [key, value] of Object.entries(fields)) {
    const k = key.trim().toLowerCase();
    if (wanted.has(k) && !byKey.has(k)) byKey.set(k, value);
  }
  for (const key of keys) {
    let value = byKey.get(key.toLowerCase());
    if (Array.isArray(value)) value = value[0] as unknown;
    if (typeof value === 'string' && value.trim()) return value.trim();
    if (typeof value === 'number' && Number.isFinite(value)) return value;
  }
  return undefined;
}

const MARK = /人民币|RMB|CNY|US\$|HK\$|港币|港元|HKD|美元|USD|欧元|EUR|英镑|GBP|日元|JPY|AUD|CAD|SGD|CHF|NZD|INR|KRW|TWD|[¥$€£元]/i;

/** An amount field: 25.5, '25.50', '¥1,234.50', '-12.50', '25,50 €'. null when it is not a positive number. */
export function fieldAmount(value: string | number): { amount: string; negative: boolean; currency: string } | null {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value === 0) return null;
    const text = String(Math.abs(value));
    return /^\d+(?:\.\d+)?$/.test(text) ? { amount: text, negative: value < 0, currency: '' } : null;
  }
  const text = value.normalize('NFKC').trim();
  const mark = MARK.exec(text);
  const rest = text.replace(mark?.[0] ?? '', '').trim();
  if (!/^[-−+(]?\s*\d[\d.,' ]*\)?\s*-?$/.test(rest)) return null;
  const amount = normaliseEnNumber(rest.replace(/[^\d.,]/g, ''));
  if (amount === null || /^0+(?:\.0+)?$/.test(amount)) return null;
  return { amount, negative: /^[-−(]|-$/.test(rest), currency: mark ? currencyOfMark(mark[0]) : '' };
}

const EXPENSE_VALUES = new Set(['expense', 'expenses', '支出', 'out', 'outgoing', 'debit', 'spend', 'spent', 'payment', 'pay', 'paid', '消费', '付款', '-']);
const INCOME_VALUES = new Set(['income', '收入', 'in', 'incoming', 'credit', 'deposit', '收款', '退款', 'refund', '+']);

/** 'expense' | '支出' | 'out' … → expense; 'income' | '收入' | 'in' … → income; anything else null. */
export function fieldDirection(value: string | number | undefined): NoticeDirection | null {
  if (typeof value !== 'string') return null;
  const v = nameKey(value);
  if (EXPENSE_VALUES.has(v)) return 'expense';
  if (INCOME_VALUES.has(v)) return 'income';
  return null;
}

/** The last 4 digits of a card field ('尾号1234', '6222 **** 1234', 98765 → '8765'); 3 digits as given; else ''. */
export function fieldCardTail(value: string | number): string {
  const digits = String(value).normalize('NFKC').replace(/\D/g, '');
  if (digits.length >= 4) return digits.slice(-4);
  return digits.length === 3 ? digits : '';
}

/** A currency field: 'usd' → 'USD', 'RMB'/'¥'/'元'/'人民币' → 'CNY', '$' → 'USD'; '' when unknown. */
export function fieldCurrency(value: string | number): string {
  return typeof value === 'string' ? currencyOfMark(value.normalize('NFKC')) : '';
}
