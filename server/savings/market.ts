import { createHash } from 'node:crypto';

/**
 * The virtual market: a fixed list of fictional stocks whose prices follow geometric Brownian
 * motion, stepped every 5 minutes from a fixed epoch, and fully determined by (seed, stock, step).
 *
 * How a price is computed in O(log N) without any state:
 * - The Brownian path W(n) at integer steps n ∈ [0, 2^40] is built by the Lévy (Brownian bridge)
 *   construction on a binary tree: W(2^40) = 2^20·Z_root, and the midpoint of an interval of length
 *   L whose ends are known is their mean plus (√L / 2)·Z. Each Z comes from a hash of
 *   (seed, stock, level, interval index), so W(n) is found by walking 40 levels down the tree —
 *   no loop over every step since the epoch, no cache, same answer on every call.
 * - Z is an Irwin–Hall normal (sum of 12 uniforms − 6), each uniform a 32-bit integer hash / 2^32.
 *   The walk uses only +, ×, / 2 and √ of powers of two, which IEEE 754 defines exactly, so every
 *   JavaScript engine computes the same W(n) bit for bit. The only transcendental call is the
 *   final exp, and the price is rounded to whole cents of a coin.
 * - log P(n) = log P0 + (μ − σ²/2)·n·Δt + σ·√Δt·W(n), Δt = one step in years.
 */

export const STEP_MS = 5 * 60 * 1000;
/** 2024-01-01T00:00:00Z: step 0, where every stock starts at its listing price. */
export const MARKET_EPOCH = Date.UTC(2024, 0, 1);
const LEVELS = 40;
const HORIZON = 2 ** LEVELS;
const YEAR_MS = 365 * 24 * 3600 * 1000;
const DT = STEP_MS / YEAR_MS;
const SQRT_DT = Math.sqrt(DT);

export interface StockDefinition {
  id: string;
  name: string;
  sector: string;
  /** Listing price at the epoch, in coins. */
  listPrice: number;
  /** Annual drift μ. */
  drift: number;
  /** Annual volatility σ. */
  volatility: number;
  description: string;
}

export const STOCKS: readonly StockDefinition[] = [
  { id: 'PNYP', name: 'PennyPost Holdings', sector: 'technology', listPrice: 120, drift: 0.1, volatility: 0.35, description: 'A bookkeeping app that got ideas.' },
  { id: 'ACRN', name: 'Acorn Savings Bank', sector: 'finance', listPrice: 45, drift: 0.06, volatility: 0.2, description: 'Slow and steady, like its customers.' },
  { id: 'SOLR', name: 'Sunbeam Solar', sector: 'energy', listPrice: 28, drift: 0.12, volatility: 0.55, description: 'Panels on every roof, swings in every chart.' },
  { id: 'BREW', name: 'Morning Brew Coffee', sector: 'consumer', listPrice: 62, drift: 0.07, volatility: 0.25, description: 'The latte you did not buy today.' },
  { id: 'MEDI', name: 'Mediquill Health', sector: 'healthcare', listPrice: 88, drift: 0.08, volatility: 0.28, description: 'Clinics and quiet growth.' },
  { id: 'RAIL', name: 'Silkline Railways', sector: 'industrials', listPrice: 35, drift: 0.05, volatility: 0.18, description: 'Freight that always arrives.' },
  { id: 'CLOU', name: 'Cumulus Cloud', sector: 'technology', listPrice: 210, drift: 0.14, volatility: 0.45, description: 'Servers, somewhere, for everyone.' },
  { id: 'FARM', name: 'Greenfield Farms', sector: 'staples', listPrice: 18, drift: 0.04, volatility: 0.15, description: 'Rice, wheat and dull reliability.' },
  { id: 'GAME', name: 'Pixel Arcade', sector: 'entertainment', listPrice: 15, drift: 0.1, volatility: 0.7, description: 'Hit or miss, mostly loud.' },
  { id: 'BOND', name: 'Steady Treasury Fund', sector: 'fixed income', listPrice: 100, drift: 0.03, volatility: 0.05, description: 'Barely moves. That is the point.' },
];

const BY_ID = new Map(STOCKS.map((s) => [s.id, s]));

export function findStock(id: string): StockDefinition | undefined {
  return BY_ID.get(id);
}

/** Step index of a time: steps before the epoch are clamped to 0. */
export function stepAt(time: number): number {
  return Math.max(0, Math.floor((time - MARKET_EPOCH) / STEP_MS));
}

export function stepStart(step: number): number {
  return MARKET_EPOCH + step * STEP_MS;
}

/** murmur3's finaliser: a fast, well-mixed 32-bit integer hash. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Standard normal (Irwin–Hall, 12 uniforms) for one node of the tree. */
function gaussian(seed: number, level: number, index: number): number {
  const hi = Math.floor(index / 4294967296);
  const lo = index >>> 0;
  let h = fmix32(seed ^ Math.imul(level + 1, 0x9e3779b1));
  h = fmix32(h ^ lo);
  h = fmix32((h + Math.imul(hi, 0x27d4eb2f)) >>> 0);
  let sum = 0;
  for (let k = 0; k < 12; k++) {
    h = fmix32((h + 0x6d2b79f5) >>> 0);
    sum += h / 4294967296;
  }
  return sum - 6;
}

/** Exact standard Brownian motion at integer step n (0 ≤ n ≤ 2^40), O(40). */
export function brownianAt(seed: number, n: number): number {
  if (n <= 0) return 0;
  let lo = 0;
  let len = HORIZON;
  let wLo = 0;
  let wHi = Math.sqrt(HORIZON) * gaussian(seed, LEVELS, 0);
  if (n >= HORIZON) return wHi;
  for (let level = LEVELS - 1; level >= 0; level--) {
    const half = len / 2;
    const mid = lo + half;
    // Conditional law of the midpoint given both ends: mean of the ends, variance len / 4.
    const wMid = (wLo + wHi) / 2 + (Math.sqrt(len) / 2) * gaussian(seed, level, lo / len);
    if (n === mid) return wMid;
    if (n < mid) {
      wHi = wMid;
    } else {
      lo = mid;
      wLo = wMid;
    }
    len = half;
    if (n === lo) return wLo;
  }
  return wLo;
}

/** A market: the stock list priced with one seed (per data dir, so prices cannot be foreseen). */
export class Market {
  private readonly seeds = new Map<string, number>();

  constructor(private readonly seed: Buffer) {
    for (const stock of STOCKS) {
      const digest = createHash('sha256').update(seed).update('\0').update(stock.id).digest();
      this.seeds.set(stock.id, digest.readUInt32LE(0));
    }
  }

  /** Price in coin cents (integer ≥ 1) of a stock at a step. */
  priceAtStep(stock: StockDefinition, step: number): number {
    const seed = this.seeds.get(stock.id);
    if (seed === undefined) throw new Error(`priceAtStep: ${stock.id} is not a listed stock`);
    const mu = stock.drift;
    const sigma = stock.volatility;
    const logReturn = (mu - (sigma * sigma) / 2) * step * DT + sigma * SQRT_DT * brownianAt(seed, step);
    const cents = Math.round(stock.listPrice * 100 * Math.exp(logReturn));
    return Math.max(1, Math.min(cents, 1e13));
  }

  /** Price in coin cents at a time (the price of the step that contains it). */
  priceAt(stock: StockDefinition, time: number): number {
    return this.priceAtStep(stock, stepAt(time));
  }
}

export const HISTORY_RANGES = {
  day: { span: 24 * 3600 * 1000, interval: STEP_MS },
  week: { span: 7 * 24 * 3600 * 1000, interval: 60 * 60 * 1000 },
  month: { span: 30 * 24 * 3600 * 1000, interval: 4 * 60 * 60 * 1000 },
  year: { span: 365 * 24 * 3600 * 1000, interval: 24 * 60 * 60 * 1000 },
} as const;
export type HistoryRange = keyof typeof HISTORY_RANGES;

/**
 * Chart points of a range ending now: times aligned to multiples of the interval from the epoch
 * (so two calls in the same interval agree), never before the epoch, last point = current step.
 */
export function historySteps(range: HistoryRange, now: number): number[] {
  const { span, interval } = HISTORY_RANGES[range];
  const perPoint = interval / STEP_MS;
  const current = stepAt(now);
  const first = Math.max(0, stepAt(now - span));
  const firstAligned = Math.ceil(first / perPoint) * perPoint;
  const steps: number[] = [];
  for (let s = firstAligned; s < current; s += perPoint) steps.push(s);
  steps.push(current);
  return steps;
}
