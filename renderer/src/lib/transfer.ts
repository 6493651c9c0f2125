import { currencyDigits, formatNumber } from './format';

/** What a transfer shows of itself: the amount sent and, across currencies, the amount received. */
export interface TransferAmounts {
  amount: number;
  currency: string;
  toAmount?: number;
  toCurrency?: string;
}

/** 710 CNY → "710.00 CNY": the currency's decimals, grouped in the UI language, the ISO code after. */
export function moneyWithCode(locale: string, amount: number, currency: string, sign: '' | '−' | '+' = ''): string {
  const digits = currencyDigits(currency);
  return `${sign}${formatNumber(locale, Math.abs(amount), { minimumFractionDigits: digits, maximumFractionDigits: digits })} ${currency}`;
}

/** True for a transfer between assets of two currencies (it then has two amounts to show). */
export function isCrossCurrency(record: TransferAmounts): record is TransferAmounts & { toAmount: number; toCurrency: string } {
  return record.toCurrency !== undefined && record.toAmount !== undefined && record.toCurrency !== record.currency;
}

/**
 * Both amounts of a transfer across currencies, "−100.00 USD → +710.00 CNY" (docs/ui.md,
 * "Transfers across currencies"); null for any other record, shown as a single amount.
 */
export function crossCurrencyText(locale: string, record: TransferAmounts): string | null {
  if (!isCrossCurrency(record)) return null;
  return `${moneyWithCode(locale, record.amount, record.currency, '−')} → ${moneyWithCode(locale, record.toAmount, record.toCurrency, '+')}`;
}
