import { ApiError, ErrorCode } from '../api/errors';

/**
 * Money rules (DESIGN.md): amounts travel in major units as JSON numbers (12.34) and are kept as
 * integers in minor units (1234). The number of decimals comes from the currency (Intl: JPY 0,
 * USD 2, KWD 3). Conversion goes through the decimal text of the number, never through floating
 * multiplication, so 0.1 + 0.2 style errors cannot creep in.
 */
const decimalsCache = new Map<string, number>();

/** ISO 4217 currencies this runtime knows (Intl accepts any well-formed code, so we list them). */
const KNOWN_CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/** ISO 4217 code check: an upper-case code of a currency in use. */
export function isCurrencyCode(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && KNOWN_CURRENCIES.has(code);
}

export function currencyDecimals(currency: string): number {
  let decimals = decimalsCache.get(currency);
  if (decimals === undefined) {
    decimals = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    decimalsCache.set(currency, decimals);
  }
  return decimals;
}

/** Largest amount in minor units we accept (keeps sums far inside Number.MAX_SAFE_INTEGER). */
export const MAX_MINOR = 1e15;

/**
 * 12.34 (USD) → 1234. Throws ApiError 400 for more decimals than the currency has, for
 * non-finite numbers and for magnitudes beyond MAX_MINOR. Sign is kept; callers check > 0 (3003).
 */
export function toMinor(amount: number, currency: string, field = 'params.amount'): number {
  if (typeof amount !== 'number' || !Number.isFinite(amount)) {
    throw new ApiError(ErrorCode.Validation, `${field} must be a finite number`, { field });
  }
  const decimals = currencyDecimals(currency);
  const text = Math.abs(amount).toFixed(20).replace(/0+$/, '');
  // toFixed(20) of a double can show binary noise; the shortest round-trip text is authoritative.
  const shortest = Math.abs(amount).toString();
  const [intPart, fracPart = ''] = (shortest.includes('e') ? text : shortest).split('.');
  if (fracPart.length > decimals) {
    throw new ApiError(
      ErrorCode.Validation,
      `${field} has more decimals than ${currency} allows (${decimals})`,
      { field, decimals },
    );
  }
  const minor = Number(intPart + fracPart.padEnd(decimals, '0'));
  if (!Number.isSafeInteger(minor) || minor > MAX_MINOR) {
    throw new ApiError(ErrorCode.Validation, `${field} is too large`, { field });
  }
  return amount < 0 ? -minor : minor;
}

/** 1234 (USD) → 12.34, exact for every integer up to MAX_MINOR. */
export function toMajor(minor: number, currency: string): number {
  const decimals = currencyDecimals(currency);
  if (decimals === 0) return minor;
  const sign = minor < 0 ? '-' : '';
  const digits = Math.abs(minor).toString().padStart(decimals + 1, '0');
  return Number(`${sign}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`);
}

/** 1230 (USD) → "12.30": the exact decimal text with all of the currency's decimals. */
export function formatMajor(minor: number, currency: string): string {
  const decimals = currencyDecimals(currency);
  const sign = minor < 0 ? '-' : '';
  const digits = Math.abs(minor).toString().padStart(decimals + 1, '0');
  return decimals === 0 ? `${sign}${digits}` : `${sign}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}
