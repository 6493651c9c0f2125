import { currencyDecimals } from '../lib/money';

/** An exchange rate as exact decimal text: 1 `from` = `rate` `to`, effective from `date`. */
export interface Rate {
  from: string;
  to: string;
  rate: string;
  date: number;
}

const RATE_PATTERN = /^(?:0|[1-9]\d{0,11})(?:\.\d{1,12})?$/;

export function isValidRate(text: string): boolean {
  return RATE_PATTERN.test(text) && Number(text) > 0;
}

/** "7.1234" → { num: 71234n, den: 10000n } */
function rational(text: string): { num: bigint; den: bigint } {
  const [int = '', frac = ''] = text.split('.');
  return { num: BigInt(int + frac), den: 10n ** BigInt(frac.length) };
}

/** Rounds num/den to the nearest integer, halves away from zero. */
function divRound(num: bigint, den: bigint): bigint {
  const negative = num < 0n !== den < 0n;
  const n = num < 0n ? -num : num;
  const d = den < 0n ? -den : den;
  const q = (2n * n + d) / (2n * d);
  return negative ? -q : q;
}

/**
 * Converts minor units of `from` to minor units of `to` at `rate` (exact decimal arithmetic,
 * rounded half away from zero to the target currency's minor unit), as an exact integer.
 */
export function convertMinorExact(amount: number | bigint, from: string, to: string, rateText: string, inverse = false): bigint {
  const { num, den } = rational(rateText);
  const scale = BigInt(currencyDecimals(to)) - BigInt(currencyDecimals(from));
  let n = BigInt(amount) * (inverse ? den : num);
  let d = inverse ? num : den;
  if (scale >= 0n) n *= 10n ** scale;
  else d *= 10n ** -scale;
  return divRound(n, d);
}

/**
 * The rate book of one user: rates by currency pair sorted by date. A conversion uses the
 * latest rate on or before the date; before the first rate, the earliest one. A pair can be
 * used in either direction (1 / rate). No rate → undefined (reported, never counted as 1).
 */
export class RateBook {
  private readonly byPair = new Map<string, Rate[]>();

  constructor(rates: Iterable<Rate>) {
    for (const rate of rates) this.add(rate);
  }

  add(rate: Rate): void {
    const key = `${rate.from}>${rate.to}`;
    const list = this.byPair.get(key) ?? [];
    list.push(rate);
    list.sort((a, b) => a.date - b.date);
    this.byPair.set(key, list);
  }

  private pick(list: Rate[] | undefined, date: number): Rate | undefined {
    if (!list || list.length === 0) return undefined;
    let chosen = list[0];
    for (const rate of list) {
      if (rate.date <= date) chosen = rate;
      else break;
    }
    return chosen;
  }

  /**
   * Minor units of `to`, or undefined when no rate links the pair. A result beyond the safe
   * integers is the nearest number: callers that must be exact use convertExact.
   */
  convert(amount: number, from: string, to: string, date: number): number | undefined {
    const exact = this.convertExact(amount, from, to, date);
    return exact === undefined ? undefined : Number(exact);
  }

  /**
   * The stored rate a conversion from `from` to `to` on `date` uses: the pair as stored, or the
   * reverse pair (`inverse`, used as 1 / rate). Undefined when no rate links the two.
   */
  rateFor(from: string, to: string, date: number): { rate: Rate; inverse: boolean } | undefined {
    const direct = this.pick(this.byPair.get(`${from}>${to}`), date);
    if (direct) return { rate: direct, inverse: false };
    const reverse = this.pick(this.byPair.get(`${to}>${from}`), date);
    return reverse ? { rate: reverse, inverse: true } : undefined;
  }

  /** Exact minor units of `to` (bigint), or undefined when no rate links the pair. */
  convertExact(amount: number | bigint, from: string, to: string, date: number): bigint | undefined {
    if (from === to) return BigInt(amount);
    const used = this.rateFor(from, to, date);
    return used ? convertMinorExact(amount, from, to, used.rate.rate, used.inverse) : undefined;
  }
}
