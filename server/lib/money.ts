import { commonErrors, type DomainError } from './errors';

/**
 * Money rules (docs/ledger.md): amounts travel in major units as JSON numbers (12.34) and are kept as
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

/**
 * The exact range: every amount, balance and sum PennyPost keeps or reports lies within
 * ±MAX_MINOR minor units (10^15). Inside it, a minor-unit integer is exact in a double and, more
 * strictly, its major-unit value (at most 15 significant digits for 0–4 decimals) survives the
 * trip through a JSON number unchanged. In major units the limit depends on the decimals:
 * 1,000,000,000,000,000 JPY, 10,000,000,000,000.00 USD, 1,000,000,000,000.000 KWD,
 * 100,000,000,000.0000 CLF. Writes that would leave the range are refused (outOfRangeError);
 * sums that leave it anyway (records arriving by sync, conversions) are computed exactly with
 * MinorSum and reported as inexact, never silently rounded.
 */
export const MAX_MINOR = 1e15;

/** True when a minor-unit value is an integer within ±MAX_MINOR. */
export function inRange(minor: number | bigint): boolean {
  if (typeof minor === 'bigint') return minor <= BigInt(MAX_MINOR) && minor >= -BigInt(MAX_MINOR);
  return Number.isInteger(minor) && Math.abs(minor) <= MAX_MINOR;
}

/** The limit in major units of a currency, as text with grouping: "10,000,000,000,000.00". */
export function limitText(currency: string): string {
  const [int, frac] = formatMajor(MAX_MINOR, currency).split('.') as [string, string | undefined];
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac === undefined ? grouped : `${grouped}.${frac}`;
}

/**
 * The 400 of a write that would take an amount, a balance or a sum out of the exact range; the
 * message names the limit in the currency's major units, `data` has it too (limit, limitMinor).
 */
export function outOfRangeError(what: string, currency: string, field: string, extra: Record<string, unknown> = {}): DomainError {
  return commonErrors
    .invalid(
      `${what} would be beyond ±${limitText(currency)} ${currency}, the largest amount PennyPost keeps exactly (10^15 minor units; ${currencyDecimals(currency)} decimals in ${currency}).`,
    )
    .with({ field, currency, limit: toMajor(MAX_MINOR, currency), limitMinor: MAX_MINOR, ...extra });
}

/** Throws outOfRangeError unless `minor` is within ±MAX_MINOR. */
export function checkInRange(minor: number | bigint, currency: string, field: string, what = field, extra?: Record<string, unknown>): void {
  if (!inRange(minor)) throw outOfRangeError(what, currency, field, extra);
}

/**
 * An exact sum of integer minor units. Adds in a plain number while the running total is a safe
 * integer (the common case costs one check per term) and moves to BigInt once it would not be,
 * so a sum is never rounded whatever its terms (bigint terms, e.g. large conversions, welcome).
 */
export class MinorSum {
  private small = 0;
  private big = 0n;

  add(value: number | bigint): this {
    if (typeof value === 'number') {
      const next = this.small + value;
      if (Number.isSafeInteger(next)) this.small = next;
      else {
        this.big += BigInt(this.small) + BigInt(value);
        this.small = 0;
      }
    } else this.big += value;
    return this;
  }

  sub(value: number | bigint): this {
    return typeof value === 'number' ? this.add(-value) : this.add(-value);
  }

  /** The exact total. */
  get value(): bigint {
    return this.big + BigInt(this.small);
  }

  /** The total as a number: exact while it is a safe integer, else the nearest double. */
  toNumber(): number {
    return this.big === 0n ? this.small : Number(this.value);
  }

  /** The total when it is a safe integer, else the exact bigint. */
  exact(): number | bigint {
    if (this.big === 0n) return this.small;
    const v = this.value;
    return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  }
}

/** A minor-unit value as a number when it is a safe integer, else as the exact bigint. */
export function exactMinor(value: bigint): number | bigint {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

/**
 * Converts every amount of an answer to major units and notes the ones beyond the exact range:
 * `major(path, minor)` gives the number to send (the nearest one when beyond), and `inexact`
 * lists the paths of those that are beyond, for the answer's `inexact` field.
 */
export class MajorWriter {
  readonly inexact: string[] = [];
  constructor(readonly currency: string) {}

  major(path: string, minor: number | bigint, currency = this.currency): number {
    if (!inRange(minor)) this.inexact.push(path);
    return toMajor(minor, currency);
  }
}

/**
 * 12.34 (USD) → 1234. Throws a 400 DomainError for more decimals than the currency has, for
 * non-finite numbers and for magnitudes beyond MAX_MINOR (the message names the limit in the
 * currency's major units). Sign is kept; callers check > 0 (3003).
 */
export function toMinor(amount: number, currency: string, field = 'amount'): number {
  if (typeof amount !== 'number' || !Number.isFinite(amount)) {
    throw commonErrors.invalid(`${field} must be a finite number`).at(field);
  }
  const decimals = currencyDecimals(currency);
  const text = Math.abs(amount).toFixed(20).replace(/0+$/, '');
  // toFixed(20) of a double can show binary noise; the shortest round-trip text is authoritative.
  const shortest = Math.abs(amount).toString();
  const [intPart = '', fracPart = ''] = (shortest.includes('e') ? text : shortest).split('.');
  if (fracPart.length > decimals) {
    throw commonErrors.invalid(`${field} has more decimals than ${currency} allows (${decimals})`).with({ field, decimals });
  }
  const minor = Number(intPart + fracPart.padEnd(decimals, '0'));
  if (!Number.isSafeInteger(minor) || minor > MAX_MINOR) throw outOfRangeError(`${field} is too large: it`, currency, field);
  return amount < 0 ? -minor : minor;
}

/** The digits of |minor| (integers beyond the safe range through BigInt, never "1e+21"). */
function absText(minor: number | bigint): string {
  const big = typeof minor === 'bigint' ? minor : Number.isSafeInteger(minor) ? undefined : BigInt(minor);
  if (big === undefined) return Math.abs(minor as number).toString();
  return (big < 0n ? -big : big).toString();
}

/**
 * 1234 (USD) → 12.34, exact for every integer up to MAX_MINOR (beyond it: the nearest number;
 * bigint values are converted through their exact decimal text).
 */
export function toMajor(minor: number | bigint, currency: string): number {
  const decimals = currencyDecimals(currency);
  if (decimals === 0) return Number(minor);
  const sign = minor < 0 ? '-' : '';
  const digits = absText(minor).padStart(decimals + 1, '0');
  return Number(`${sign}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`);
}

/** 1230 (USD) → "12.30": the exact decimal text with all of the currency's decimals. */
export function formatMajor(minor: number | bigint, currency: string): string {
  const decimals = currencyDecimals(currency);
  const sign = minor < 0 ? '-' : '';
  const digits = absText(minor).padStart(decimals + 1, '0');
  return decimals === 0 ? `${sign}${digits}` : `${sign}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}
