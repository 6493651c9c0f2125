import { inRange } from '../lib/money';

/** Coin cents → coins (1 coin = 100 cents). */
export const coinsOf = (cents: number) => cents / 100;

/** The exact range of coin amounts (±10^15 cents), as the messages name it. */
export const COIN_LIMIT = '10,000,000,000,000.00';

export const round1 = (x: number) => Math.round(x * 10) / 10;
export const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * Coin amounts of one answer: `coins(path, cents)` gives the number to send and lists `path` in
 * `inexact` when the exact value is beyond ±10^15 cents (10,000,000,000,000.00 coins, the exact
 * range) or the wallet's sums lost precision while replaying a synced log.
 */
export class CoinWriter {
  readonly inexact: string[] = [];
  constructor(private readonly lostPrecision: boolean) {}
  coins(path: string, cents: number | bigint): number {
    if (this.lostPrecision || !inRange(cents)) this.inexact.push(path);
    return typeof cents === 'bigint' ? Number(cents) / 100 : cents / 100;
  }
}
