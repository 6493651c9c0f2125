import type { Clock } from '../lib/clock';
import { SYNC_CLOCK_SKEW_MS } from '../arrival-checks';
import { coinsOf, round2 } from './coins';
import { savingsErrors } from './errors';
import { DAY_MS } from './game-economy';
import { findStock, HISTORY_RANGES, historySteps, Market, STEP_MS, stepAt, stepStart, STOCKS, type HistoryRange, type StockDefinition } from './market';

/** The prices of this PennyPost's virtual market (market.ts), as the game and its actions read them. */
export class MarketQuotes {
  readonly market: Market;

  constructor(
    seed: Buffer,
    private readonly clock: Clock,
  ) {
    this.market = new Market(seed);
  }

  /** The listed stock, or 404. */
  stock(stockId: string): StockDefinition {
    const stock = findStock(stockId);
    if (!stock) throw savingsErrors.stockNotFound(stockId).with({ stockId });
    return stock;
  }

  /** Price of a stock in coin cents at `time` (0 for a stock that is not listed). */
  priceOf = (stockId: string, time = this.clock.now()): number => {
    const stock = findStock(stockId);
    return stock ? this.market.priceAt(stock, time) : 0;
  };

  /** Prices (coin cents) of a stock on this market during the steps that may have priced an entry dated `time`. */
  pricesAround(stock: StockDefinition, time: number): number[] {
    const prices: number[] = [];
    for (let step = stepAt(time - SYNC_CLOCK_SKEW_MS); step <= stepAt(time); step++) prices.push(this.market.priceAtStep(stock, step));
    return prices;
  }

  /** Every stock with its current price and the change over the last 24 hours (savings.getMarket). */
  listing() {
    const now = this.clock.now();
    const step = stepAt(now);
    const dayAgo = Math.max(0, step - DAY_MS / STEP_MS);
    return {
      asOf: stepStart(step),
      nextUpdateAt: stepStart(step + 1),
      stepMinutes: STEP_MS / 60_000,
      stocks: STOCKS.map((stock) => {
        const price = this.market.priceAtStep(stock, step);
        const previous = this.market.priceAtStep(stock, dayAgo);
        return {
          id: stock.id,
          name: stock.name,
          sector: stock.sector,
          description: stock.description,
          price: coinsOf(price),
          previousPrice: coinsOf(previous),
          change: coinsOf(price - previous),
          changePercent: round2(((price - previous) / previous) * 100),
        };
      }),
    };
  }

  /** One stock's prices over a range, for a chart (savings.getStockHistory). */
  history(stockId: string, range: HistoryRange) {
    const stock = this.stock(stockId);
    const steps = historySteps(range, this.clock.now());
    const points = steps.map((step) => ({ time: stepStart(step), price: coinsOf(this.market.priceAtStep(stock, step)) }));
    const prices = points.map((p) => p.price);
    const open = prices.at(0);
    const close = prices.at(-1);
    if (open === undefined || close === undefined) throw new Error(`historySteps gave no step for the range ${range}`); // it always ends with the current step
    return {
      stockId: stock.id,
      name: stock.name,
      range,
      interval: HISTORY_RANGES[range].interval,
      points,
      open,
      close,
      high: Math.max(...prices),
      low: Math.min(...prices),
      change: round2(close - open),
      changePercent: round2(((close - open) / open) * 100),
    };
  }
}
