import { describe, expect, it } from 'vitest';
import { ManualClock } from '../lib/clock';
import { tempDataDir } from '../test-support/test-server';
import { brownianAt, HISTORY_RANGES, historySteps, Market, MARKET_EPOCH, STEP_MS, stepAt, stepStart, STOCKS } from './market';
import { DAY, newPlayer, ok, startGame, T0 } from '../test-support/savings';
import { commonErrors } from '../lib/errors';
import { savingsErrors } from './errors';
import { expectRefusal } from '../test-support/refusal';

describe('price simulation (pure)', () => {
  it('is a Brownian motion: increments have mean ≈ 0 and variance ≈ 1 per step, at every scale', () => {
    for (const seed of [1, 99, 0xdeadbeef]) {
      let sum = 0;
      let squares = 0;
      const n = 4000;
      for (let i = 0; i < n; i++) {
        const step = 250_000 + i * 37;
        const d = brownianAt(seed, step + 1) - brownianAt(seed, step);
        sum += d;
        squares += d * d;
      }
      expect(Math.abs(sum / n)).toBeLessThan(0.06);
      expect(squares / n).toBeGreaterThan(0.9);
      expect(squares / n).toBeLessThan(1.1);
      // Over a day (288 steps) the variance is 288.
      let day = 0;
      for (let i = 0; i < 1000; i++) {
        const d = brownianAt(seed, i * 5000 + 288) - brownianAt(seed, i * 5000);
        day += d * d;
      }
      expect(day / 1000 / 288).toBeGreaterThan(0.85);
      expect(day / 1000 / 288).toBeLessThan(1.15);
    }
  });

  it('gives the same path for the same seed, another for another seed, and starts at 0', () => {
    expect(brownianAt(5, 0)).toBe(0);
    const a = [1, 2, 1000, 123_456, 2 ** 35 + 7].map((s) => brownianAt(5, s));
    expect([1, 2, 1000, 123_456, 2 ** 35 + 7].map((s) => brownianAt(5, s))).toEqual(a);
    expect(brownianAt(6, 1000)).not.toBe(brownianAt(5, 1000));
  });

  it('prices every stock from its listing price at the epoch, in whole cents, with each stock its own path', () => {
    const market = new Market(Buffer.alloc(32, 7));
    for (const stock of STOCKS) expect(market.priceAtStep(stock, 0)).toBe(stock.listPrice * 100);
    const step = stepAt(T0);
    const prices = STOCKS.map((s) => market.priceAtStep(s, step));
    for (const p of prices) expect(Number.isInteger(p) && p >= 1).toBe(true);
    expect(new Set(prices.map((p, i) => p / STOCKS.at(i)!.listPrice)).size).toBe(STOCKS.length);
    const other = new Market(Buffer.alloc(32, 8));
    expect(STOCKS.map((s) => other.priceAtStep(s, step))).not.toEqual(prices);
    // The price holds for the whole 5-minute step and moves at the next one (for most stocks).
    expect(market.priceAt(STOCKS.at(0)!, stepStart(step) + STEP_MS - 1)).toBe(prices[0]);
    const next = STOCKS.map((s) => market.priceAtStep(s, step + 1));
    expect(next.filter((p, i) => p !== prices[i]).length).toBeGreaterThan(5);
  });

  it('computes a price in time independent of how far from the epoch (no replay of every step)', () => {
    const market = new Market(Buffer.alloc(32, 1));
    const near = stepAt(MARKET_EPOCH + DAY);
    const far = stepAt(MARKET_EPOCH + 3000 * 365 * DAY);
    // Both finish in a fraction of a millisecond; a loop over every step would take ~10^8 iterations.
    let checksum = 0;
    for (let i = 0; i < 2000; i++) checksum += market.priceAtStep(STOCKS.at(i % 10)!, far - i) - market.priceAtStep(STOCKS.at(i % 10)!, near + i);
    expect(Number.isFinite(checksum)).toBe(true);
  });

  it('aligns chart points to the interval and ends at the current step', () => {
    for (const [range, { span, interval }] of Object.entries(HISTORY_RANGES)) {
      const steps = historySteps(range as keyof typeof HISTORY_RANGES, T0 + 123_456);
      expect(steps[steps.length - 1]).toBe(stepAt(T0 + 123_456));
      for (const s of steps.slice(0, -1)) expect((s * STEP_MS) % interval).toBe(0);
      expect(stepStart(steps.at(0)!)).toBeGreaterThan(T0 + 123_456 - span - STEP_MS);
      expect(steps.length).toBeLessThanOrEqual(span / interval + 1);
    }
    // Never before the epoch.
    expect(historySteps('year', MARKET_EPOCH + 2 * DAY)[0]).toBe(0);
  });
});

describe('market actions over HTTP', () => {
  it('lists the market and a stock history; unknown stock 404; bad range 400', async () => {
    const { t, clock } = await startGame();
    try {
      const player = await newPlayer(t);
      const market = await ok(t, 'savings.getMarket', {}, player.token);
      expect(market.asOf).toBe(stepStart(stepAt(clock.now())));
      expect(market.nextUpdateAt - market.asOf).toBe(STEP_MS);
      expect(market.stocks).toHaveLength(STOCKS.length);
      for (const s of market.stocks) {
        expect(Object.keys(s).sort()).toEqual(['change', 'changePercent', 'description', 'id', 'name', 'previousPrice', 'price', 'sector']);
        expect(s.change).toBeCloseTo(s.price - s.previousPrice, 6);
      }
      const history = await ok(t, 'savings.getStockHistory', { stockId: 'CLOU', range: 'week' }, player.token);
      expect(history.points).toHaveLength(7 * 24 + 1);
      expect(history.points[history.points.length - 1].price).toBe(market.stocks.find((s: any) => s.id === 'CLOU').price);
      expect(history.high).toBe(Math.max(...history.points.map((p: any) => p.price)));
      const day = await ok(t, 'savings.getStockHistory', { stockId: 'CLOU' }, player.token);
      expect(day.range).toBe('day');
      expect(day.points[0].price).toBe(market.stocks.find((s: any) => s.id === 'CLOU').previousPrice);
      expectRefusal(await t.api('savings.getStockHistory', { stockId: 'NOPE' }, player.token), savingsErrors.rows.stockNotFound);
      expectRefusal(await t.api('savings.getStockHistory', { stockId: 'CLOU', range: 'decade' }, player.token), commonErrors.rows.invalid);
      expectRefusal(await t.api('savings.getMarket', {}), commonErrors.rows.unauthorized);
      // Time moves the price.
      clock.advance(DAY);
      const tomorrow = await ok(t, 'savings.getMarket', {}, player.token);
      expect(tomorrow.stocks.map((s: any) => s.previousPrice)).toEqual(market.stocks.map((s: any) => s.price));
    } finally {
      await t.close();
    }
  });

  it('shows the same prices at the same time after a restart of the same data dir', async () => {
    const dataDir = tempDataDir('savings-restart');
    const clock = new ManualClock(T0 + 7 * DAY + 12_345);
    const first = await startGame({ dataDir, clock });
    let before: any;
    let history: any;
    let email: string;
    try {
      const player = await newPlayer(first.t);
      email = (await first.t.server.app.services.users.findById(player.id))!.email;
      before = await ok(first.t, 'savings.getMarket', {}, player.token);
      history = await ok(first.t, 'savings.getStockHistory', { stockId: 'GAME', range: 'month' }, player.token);
    } finally {
      await first.t.close(true);
    }
    clock.set(T0 + 7 * DAY + 200_000); // another moment of the same 5-minute step
    const second = await startGame({ dataDir, clock });
    try {
      const login = await ok(second.t, 'user.login', { email, password: 'correct horse battery' }, '');
      expect(await ok(second.t, 'savings.getMarket', {}, login.token)).toEqual(before);
      expect(await ok(second.t, 'savings.getStockHistory', { stockId: 'GAME', range: 'month' }, login.token)).toEqual(history);
    } finally {
      await second.t.close();
    }
    // Another data dir has its own market seed: its prices cannot be read from this one's.
    const elsewhere = await startGame({ clock });
    try {
      const player = await newPlayer(elsewhere.t);
      const prices = (await ok(elsewhere.t, 'savings.getMarket', {}, player.token)).stocks.map((s: any) => s.price);
      expect(prices).not.toEqual(before.stocks.map((s: any) => s.price));
    } finally {
      await elsewhere.t.close();
    }
  });
});
