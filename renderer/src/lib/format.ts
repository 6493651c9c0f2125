import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';

const numberFormats = new Map<string, Intl.NumberFormat>();
function numberFormat(locale: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `${locale}|${JSON.stringify(options)}`;
  let format = numberFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, options);
    numberFormats.set(key, format);
  }
  return format;
}

export function currencyDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

export function formatMoney(locale: string, amount: number, currency: string, options: { sign?: boolean; compact?: boolean } = {}): string {
  try {
    return numberFormat(locale, {
      style: 'currency',
      currency,
      signDisplay: options.sign ? 'exceptZero' : 'auto',
      notation: options.compact ? 'compact' : 'standard',
    }).format(amount);
  } catch {
    return `${amount} ${currency}`;
  }
}

export function formatNumber(locale: string, value: number, options: Intl.NumberFormatOptions = {}): string {
  return numberFormat(locale, options).format(value);
}

export function formatPercent(locale: string, fraction: number, digits = 1): string {
  return numberFormat(locale, { style: 'percent', maximumFractionDigits: digits, signDisplay: 'auto' }).format(fraction);
}

export function formatDate(locale: string, ms: number, style: 'date' | 'datetime' | 'short' | 'month' = 'date'): string {
  const options: Intl.DateTimeFormatOptions =
    style === 'datetime'
      ? { dateStyle: 'medium', timeStyle: 'short' }
      : style === 'short'
        ? { month: 'short', day: 'numeric' }
        : style === 'month'
          ? { year: 'numeric', month: 'short' }
          : { dateStyle: 'medium' };
  return new Intl.DateTimeFormat(locale, options).format(new Date(ms));
}

export function formatBytes(locale: string, bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${formatNumber(locale, value, { maximumFractionDigits: unit === 0 ? 0 : 1 })} ${units.at(unit) ?? ''}`;
}

/** Formatting bound to the current UI language. */
export function useFormat() {
  const { i18n } = useTranslation();
  const locale = i18n.language;
  return useMemo(() => formatter(locale), [locale]);
}

function formatter(locale: string) {
  return {
    locale,
    money: (amount: number, currency: string, options?: { sign?: boolean; compact?: boolean }) => formatMoney(locale, amount, currency, options),
    number: (value: number, options?: Intl.NumberFormatOptions) => formatNumber(locale, value, options),
    percent: (fraction: number, digits?: number) => formatPercent(locale, fraction, digits),
    date: (ms: number, style?: 'date' | 'datetime' | 'short' | 'month') => formatDate(locale, ms, style),
    bytes: (bytes: number) => formatBytes(locale, bytes),
  };
}

/** Local-time helpers for ranges (ms). */
export function startOfDay(ms: number): number {
  const d = new Date(ms);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}
export function startOfMonth(ms: number, offsetMonths = 0): number {
  const d = new Date(ms);
  return new Date(d.getFullYear(), d.getMonth() + offsetMonths, 1).getTime();
}
export function startOfYear(ms: number, offsetYears = 0): number {
  return new Date(new Date(ms).getFullYear() + offsetYears, 0, 1).getTime();
}
export function addDays(ms: number, days: number): number {
  const d = new Date(ms);
  d.setDate(d.getDate() + days);
  return d.getTime();
}
/** `yyyy-mm-dd` of a local date (for <input type="date">). */
export function toDateInput(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}
/** Local midnight of a `yyyy-mm-dd` input value, or null. */
export function fromDateInput(value: string): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return null;
  return new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3])).getTime();
}
export const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
