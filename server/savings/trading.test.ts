import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '../lib/clock';
import type { TestServer } from '../test-support/test-server';
import { STEP_MS, STOCKS } from './market';
import type { TradeDoc } from './schema';
import { newPlayer, ok, startGame, type Player } from '../test-support/savings';
import { commonErrors } from '../lib/errors';
import { savingsErrors } from './errors';
import { expectRefusal } from '../test-support/refusal';

let t: TestServer;
let clock: ManualClock;

beforeAll(async () => {
  ({ t, clock } = await startGame());
});
afterAll(async () => {
  await t.close();
});

const cents = (coins: number) => Math.round(coins * 100);
const priceNow = async (player: Player, stockId: string) => cents((await ok(t, 'savings.getMarket', {}, player.token)).stocks.find((s: any) => s.id === stockId).price);

describe('buying and selling', () => {
  it('starts every player with the welcome grant, once', async () => {
    const player = await newPlayer(t);
    const wallet = await ok(t, 'savings.getWallet', {}, player.token);
    expect(wallet).toMatchObject({ unit: 'coins', cash: 10000, invested: 0, totalValue: 10000, received: { total: 10000, welcome: 10000 } });
    expect(wallet.history.list).toEqual([expect.objectContaining({ kind: 'grant', reason: 'welcome', amount: 10000, balance: 10000 })]);
    await Promise.all([1, 2, 3].map(() => ok(t, 'savings.getWallet', {}, player.token)));
    expect((await ok(t, 'savings.getWallet', {}, player.token)).history.total).toBe(1);
  });

  it('buys at the current price, sells with average-cost realised profit, and reports positions', async () => {
    const player = await newPlayer(t);
    const p1 = await priceNow(player, 'ACRN');
    const bought = await ok(t, 'savings.buyStock', { stockId: 'ACRN', quantity: 10 }, player.token);
    expect(bought.trade).toMatchObject({ kind: 'buy', stockId: 'ACRN', quantity: 10, price: p1 / 100, amount: (-10 * p1) / 100 });
    expect(bought.rewards.map((r: any) => r.ref)).toEqual(['first_trade']);
    clock.advance(12 * STEP_MS);
    const p2 = await priceNow(player, 'ACRN');
    await ok(t, 'savings.buyStock', { stockId: 'ACRN', quantity: 30 }, player.token);
    clock.advance(40 * STEP_MS);
    const p3 = await priceNow(player, 'ACRN');
    const sold = await ok(t, 'savings.sellStock', { stockId: 'ACRN', quantity: 15 }, player.token);
    const basis = 10 * p1 + 30 * p2;
    const removed = Math.floor((basis * 15) / 40);
    expect(sold.trade).toMatchObject({ kind: 'sell', quantity: 15, price: p3 / 100, amount: (15 * p3) / 100 });
    expect(sold.position).toMatchObject({
      quantity: 25,
      costBasis: (basis - removed) / 100,
      averageCost: Math.round((basis - removed) / 25) / 100,
      realizedProfit: (15 * p3 - removed) / 100,
      price: p3 / 100,
      marketValue: (25 * p3) / 100,
      unrealizedProfit: (25 * p3 - (basis - removed)) / 100,
    });
    const positions = await ok(t, 'savings.getPositions', {}, player.token);
    expect(positions.positions).toEqual([sold.position]);
    expect(positions.totals).toMatchObject({
      costBasis: (basis - removed) / 100,
      marketValue: (25 * p3) / 100,
      realizedProfit: (15 * p3 - removed) / 100,
      totalProfit: (25 * p3 - (basis - removed) + 15 * p3 - removed) / 100,
    });
    // Selling everything closes the position; it stays visible with includeClosed for its realised profit.
    await ok(t, 'savings.sellStock', { stockId: 'ACRN', quantity: 25 }, player.token);
    expect((await ok(t, 'savings.getPositions', {}, player.token)).positions).toEqual([]);
    const closed = await ok(t, 'savings.getPositions', { includeClosed: true }, player.token);
    expect(closed.positions).toEqual([expect.objectContaining({ stockId: 'ACRN', quantity: 0, costBasis: 0, averageCost: 0 })]);
    expect(closed.totals.realizedProfit).toBe((40 * p3 - basis) / 100);
  });

  it('answers 4003 without enough coins, 409 when selling more than held, 404 for an unknown stock, 400 for bad quantities', async () => {
    const player = await newPlayer(t);
    const price = await priceNow(player, 'CLOU');
    const tooMany = Math.floor(1_000_000 / price) + 1;
    const poor = await t.api('savings.buyStock', { stockId: 'CLOU', quantity: tooMany }, player.token);
    expectRefusal(poor, savingsErrors.rows.insufficientFunds);
    expect(poor.data).toMatchObject({ reason: 'savings.insufficientFunds', cash: 10000, cost: (tooMany * price) / 100, price: price / 100, maxQuantity: tooMany - 1 });
    await ok(t, 'savings.buyStock', { stockId: 'CLOU', quantity: 2 }, player.token);
    const oversell = await t.api('savings.sellStock', { stockId: 'CLOU', quantity: 3 }, player.token);
    expectRefusal(oversell, savingsErrors.rows.notEnoughShares);
    expect(oversell.data).toEqual({ held: 2, stockId: 'CLOU', reason: 'savings.notEnoughShares', args: [2, 'CLOU', 3] });
    expect((await t.api('savings.sellStock', { stockId: 'BOND', quantity: 1 }, player.token)).data).toMatchObject({ held: 0, stockId: 'BOND' });
    for (const action of ['savings.buyStock', 'savings.sellStock']) {
      const unknown = await t.api(action, { stockId: 'ZZZZ', quantity: 1 }, player.token);
      expectRefusal(unknown, savingsErrors.rows.stockNotFound);
      expect(unknown.message).toMatch(/ZZZZ/);
      for (const quantity of [0, -1, 1.5, '2', 1_000_001, null]) {
        expect((await t.api(action, { stockId: 'CLOU', quantity }, player.token)).code, `${action} ${String(quantity)}`).toBe(400);
      }
      expectRefusal(await t.api(action, { stockId: 'CLOU' }, player.token), commonErrors.rows.invalid);
      expectRefusal(await t.api(action, { stockId: 'CLOU', quantity: 1 }), commonErrors.rows.unauthorized);
    }
    // Nothing of the refused attempts reached the log.
    const wallet = await ok(t, 'savings.getWallet', { pageSize: 100 }, player.token);
    expect(wallet.history.list.filter((e: any) => e.kind === 'buy' || e.kind === 'sell')).toHaveLength(1);
  });

  it('never spends the same coins twice under concurrent buys', async () => {
    const player = await newPlayer(t);
    const price = await priceNow(player, 'PNYP');
    // Three of these cost more than the 10,000 coins plus the 50-coin first-trade reward; two do not.
    const each = Math.floor(1_005_000 / price / 3) + 1;
    const answers = await Promise.all([1, 2, 3].map(() => t.api('savings.buyStock', { stockId: 'PNYP', quantity: each }, player.token)));
    expect(answers.map((a) => a.code).sort()).toEqual([200, 200, savingsErrors.rows.insufficientFunds.code]);
    expectRefusal(
      answers.find((a) => a.code !== 200)!,
      savingsErrors.rows.insufficientFunds,
    );
    const wallet = await ok(t, 'savings.getWallet', {}, player.token);
    expect(cents(wallet.cash)).toBe(1_000_000 + 5_000 - 2 * each * price);
  });

  it('pages the wallet history newest first with the running balance', async () => {
    const player = await newPlayer(t);
    for (let i = 0; i < 4; i++) await ok(t, 'savings.buyStock', { stockId: 'FARM', quantity: 1 }, player.token);
    const all = await ok(t, 'savings.getWallet', { pageSize: 100 }, player.token);
    const list = all.history.list;
    expect(list[list.length - 1]).toMatchObject({ reason: 'welcome' });
    for (let i = 0; i < list.length - 1; i++) expect(cents(list[i].balance)).toBe(cents(list[i + 1].balance) + cents(list[i].amount));
    expect(cents(list[0].balance)).toBe(cents(all.cash));
    const page2 = await ok(t, 'savings.getWallet', { page: 2, pageSize: 2 }, player.token);
    expect(page2.history.list).toEqual(list.slice(2, 4));
    expectRefusal(await t.api('savings.getWallet', { pageSize: 0 }, player.token), commonErrors.rows.invalid);
  });
});

/** An independent reading of the documented rules, applied to the raw log. */
function recompute(log: TradeDoc[]) {
  const sorted = [...log].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  let cash = 0;
  const positions = new Map<string, { quantity: number; cost: number; realized: number }>();
  for (const e of sorted) {
    cash += e.cash;
    if (e.kind !== 'buy' && e.kind !== 'sell') continue;
    const p = positions.get(e.stockId) ?? { quantity: 0, cost: 0, realized: 0 };
    positions.set(e.stockId, p);
    expect(e.cash).toBe((e.kind === 'buy' ? -1 : 1) * e.price * e.quantity);
    if (e.kind === 'buy') {
      p.quantity += e.quantity;
      p.cost += e.price * e.quantity;
    } else {
      expect(e.quantity).toBeLessThanOrEqual(p.quantity);
      const removed = e.quantity === p.quantity ? p.cost : Math.floor((p.cost * e.quantity) / p.quantity);
      p.realized += e.cash - removed;
      p.cost -= removed;
      p.quantity -= e.quantity;
    }
    expect(cash).toBeGreaterThanOrEqual(0);
  }
  return { cash, positions };
}

describe('wallet and positions are the replay of the trade log (property)', () => {
  const op = fc.oneof(
    fc.record({ op: fc.constant('buy' as const), stock: fc.integer({ min: 0, max: 99 }), quantity: fc.integer({ min: 1, max: 300 }), wait: fc.integer({ min: 0, max: 60 }) }),
    // Buys often and sells mostly pick a stock the player already holds (so average costs mix prices).
    fc.record({ op: fc.constant('sell' as const), stock: fc.integer({ min: 0, max: 99 }), quantity: fc.integer({ min: 1, max: 120 }), wait: fc.integer({ min: 0, max: 60 }) }),
    fc.record({ op: fc.constant('wait' as const), steps: fc.integer({ min: 0, max: 600 }) }),
  );

  it('holds for random trade sequences, refusals included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30 }), async (ops) => {
        const player = await newPlayer(t);
        const model = { cash: 1_000_000, held: new Map<string, number>() };
        for (const step of ops) {
          if (step.op === 'wait') {
            clock.advance(step.steps * STEP_MS);
            continue;
          }
          clock.advance(step.wait * STEP_MS);
          const holding = [...model.held].filter(([, n]) => n > 0).map(([id]) => id);
          const fromHolding = holding.length > 0 && step.stock < (step.op === 'sell' ? 90 : 50);
          const stock = fromHolding ? holding.at(step.stock % holding.length)! : STOCKS.at(step.stock % STOCKS.length)!.id;
          const price = await priceNow(player, stock);
          const held = model.held.get(stock) ?? 0;
          const answer = await t.api(step.op === 'buy' ? 'savings.buyStock' : 'savings.sellStock', { stockId: stock, quantity: step.quantity }, player.token);
          if (step.op === 'buy' && price * step.quantity > model.cash) {
            expectRefusal(answer, savingsErrors.rows.insufficientFunds);
            continue;
          }
          if (step.op === 'sell' && step.quantity > held) {
            expectRefusal(answer, savingsErrors.rows.notEnoughShares);
            continue;
          }
          expect(answer.code).toBe(200);
          expect(cents(answer.data.trade.price)).toBe(price);
          model.cash += (step.op === 'buy' ? -1 : 1) * price * step.quantity;
          for (const reward of answer.data.rewards) model.cash += cents(reward.coins);
          model.held.set(stock, held + (step.op === 'buy' ? 1 : -1) * step.quantity);
          expect(cents(answer.data.cash)).toBe(model.cash);
        }
        const wallet = await ok(t, 'savings.getWallet', { pageSize: 100 }, player.token);
        const positions = await ok(t, 'savings.getPositions', { includeClosed: true }, player.token);
        const log = (
          await t.server.app.db
            .collection<TradeDoc>('trades')
            .find({ selector: { userId: player.id } })
            .exec()
        ).map((d) => d.toJSON() as TradeDoc);
        const replayed = recompute(log);
        expect(cents(wallet.cash)).toBe(replayed.cash);
        expect(cents(wallet.cash)).toBe(model.cash);
        expect(wallet.history.total).toBe(log.length);
        const shown = new Map(positions.positions.map((p: any) => [p.stockId, p]));
        expect(shown.size).toBe(replayed.positions.size);
        let cost = 0;
        let realized = 0;
        for (const [stockId, p] of replayed.positions) {
          const view: any = shown.get(stockId);
          expect(view.quantity).toBe(p.quantity);
          expect(view.quantity).toBe(model.held.get(stockId));
          expect(cents(view.costBasis)).toBe(p.cost);
          expect(cents(view.realizedProfit)).toBe(p.realized);
          expect(cents(view.marketValue)).toBe(p.quantity * cents(view.price));
          cost += p.cost;
          realized += p.realized;
        }
        expect(cents(positions.totals.costBasis)).toBe(cost);
        expect(cents(positions.totals.realizedProfit)).toBe(realized);
        // The state kept in memory equals a cold replay: drop it and ask again.
        const service = t.server.app.services.savings as unknown as { wallets: { invalidate(id: string): void } };
        service.wallets.invalidate(player.id);
        expect(await ok(t, 'savings.getPositions', { includeClosed: true }, player.token)).toEqual(positions);
      }),
      { numRuns: 15, seed: 20260302 },
    );
  });
});
