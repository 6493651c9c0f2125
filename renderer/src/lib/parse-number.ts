/**
 * Numbers as people type them (English and Simplified Chinese: '.' is the decimal point, ','
 * groups thousands), read exactly or refused — never rounded, cut or guessed.
 *
 * Accepted: digits, at most one decimal point, commas only between groups of three digits
 * (`1,234,567.5`; not `1,23` or `12,34,567`), a leading minus where the field allows one, spaces
 * around the number, and the full-width forms Chinese input methods type (`１２３．５`). Refused:
 * exponents (`1e5`), letters (`12abc`), more decimals than the currency has (`1.999` in USD) and
 * amounts beyond the server's exact range. The problem comes back as data; the UI words it
 * (NumberField).
 */

/**
 * The largest amount in minor units the server keeps exactly (its MAX_MINOR, 10^15): 10,000,000,000,000.00
 * USD, 1,000,000,000,000,000 JPY. Below it every amount has at most 15 significant digits, so the
 * JSON number sent reads back on the server as exactly the typed decimal.
 */
export const MAX_MINOR = 10n ** 15n;

export type NumberRule =
  /** Money in a currency's major units, with that currency's decimals. */
  | { kind: 'money'; currency: string; decimals: number; sign: 'positive' | 'nonNegative' | 'any'; optional?: boolean }
  /** A count (shares): a whole number from min to max. */
  | { kind: 'whole'; min: number; max: number; optional?: boolean }
  /** An exchange rate: a positive decimal, up to 12 digits before and 12 after the point (sent as text). */
  | { kind: 'rate'; optional?: boolean };

export type NumberProblem =
  | { kind: 'required' }
  | { kind: 'format' }
  | { kind: 'negative' }
  | { kind: 'zero' }
  | { kind: 'decimals'; currency: string; decimals: number }
  | { kind: 'tooLarge'; max: string }
  | { kind: 'whole'; min: number; max: number }
  | { kind: 'rate' };

export type ParsedNumber =
  /** `value` is null only for an empty optional field; `text` is the exact decimal text (no grouping). */
  { ok: true; value: number | null; text: string } | { ok: false; problem: NumberProblem };

/** Full-width digits, point, comma and minus (Chinese input methods), and the typographic minus. */
function normalise(input: string): string {
  return input
    .replace(/[\uFF10-\uFF19]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xff10 + 0x30))
    .replace(/\uFF0E/g, '.')
    .replace(/\uFF0C/g, ',')
    .replace(/[\uFF0D\u2212]/g, '-')
    .trim();
}

/** sign, integer digits (no grouping, no leading zeros), fraction digits as typed — or null. */
const SHAPE = /^(-)?([1-9]\d{0,2}(?:,\d{3})+|\d*)(?:\.(\d*))?$/;
function split(text: string): { negative: boolean; int: string; frac: string } | null {
  const match = SHAPE.exec(text);
  if (!match) return null;
  // the integer group always takes part (possibly empty); the fraction group is optional
  const [, sign, rawInt = '', frac = ''] = match;
  if (rawInt === '' && frac === '') return null; // "", "-", ".", "-."
  const int = rawInt.replace(/,/g, '').replace(/^0+(?=\d)/, '') || '0';
  return { negative: sign === '-', int, frac };
}

/** "9007199254740991", 2 → "90,071,992,547,409.91" (the grouping both UI languages use). */
export function groupDigits(int: string, frac = ''): string {
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac ? `${grouped}.${frac}` : grouped;
}

/** The largest amount with `decimals` decimals, as text: 10,000,000,000,000.00 for 2. */
export function maxAmountText(decimals: number): string {
  const digits = MAX_MINOR.toString();
  return decimals === 0 ? groupDigits(digits) : groupDigits(digits.slice(0, -decimals), digits.slice(-decimals));
}

const RATE_DIGITS = 12;

export function parseNumber(input: string, rule: NumberRule): ParsedNumber {
  const text = normalise(input);
  if (text === '')
    return rule.optional
      ? { ok: true, value: null, text: '' }
      : { ok: false, problem: rule.kind === 'whole' ? { kind: 'whole', min: rule.min, max: rule.max } : rule.kind === 'rate' ? { kind: 'rate' } : { kind: 'required' } };
  const parts = split(text);

  if (rule.kind === 'whole') {
    const problem: NumberProblem = { kind: 'whole', min: rule.min, max: rule.max };
    if (!parts || parts.negative || parts.frac !== '' || text.includes('.')) return { ok: false, problem };
    const value = Number(parts.int);
    if (parts.int.length > 16 || value < rule.min || value > rule.max) return { ok: false, problem };
    return { ok: true, value, text: parts.int };
  }

  if (rule.kind === 'rate') {
    const problem: NumberProblem = { kind: 'rate' };
    if (!parts || parts.negative || parts.int.length > RATE_DIGITS || parts.frac.length > RATE_DIGITS) return { ok: false, problem };
    const exact = parts.frac ? `${parts.int}.${parts.frac}` : parts.int;
    if (!/[1-9]/.test(exact)) return { ok: false, problem };
    return { ok: true, value: Number(exact), text: exact };
  }

  if (!parts) return { ok: false, problem: { kind: 'format' } };
  if (parts.negative && rule.sign !== 'any') return { ok: false, problem: { kind: 'negative' } };
  if (parts.frac.length > rule.decimals) return { ok: false, problem: { kind: 'decimals', currency: rule.currency, decimals: rule.decimals } };
  const minor = BigInt(parts.int + parts.frac.padEnd(rule.decimals, '0'));
  if (minor > MAX_MINOR) return { ok: false, problem: { kind: 'tooLarge', max: maxAmountText(rule.decimals) } };
  if (minor === 0n && rule.sign === 'positive') return { ok: false, problem: { kind: 'zero' } };
  const frac = parts.frac.replace(/0+$/, '');
  const magnitude = frac ? `${parts.int}.${frac}` : parts.int;
  const value = Number(magnitude); // exact: at most 15 significant digits (see MAX_MINOR)
  if (minor === 0n) return { ok: true, value: 0, text: '0' };
  return parts.negative ? { ok: true, value: -value, text: `-${magnitude}` } : { ok: true, value, text: magnitude };
}

/** Exact text of a stored amount for an input (12.5 → "12.5"; amounts under the limit never use exponents). */
export function numberText(value: number | null | undefined): string {
  return value === null || value === undefined ? '' : String(value);
}
