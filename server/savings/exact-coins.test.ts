import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../test-support/test-server';
import type { TradeDoc } from './schema';
import { idle, newPlayer, ok, startGame, type Player } from '../test-support/savings';
import { savingsErrors } from './errors';
import { expectRefusal } from '../test-support/refusal';

/** Issue 15: whole shares only (finding 7, server side), and exact coin sums (finding 6). */

let t: TestServer;
let clockNow: () => number;
beforeAll(async () => {
  const game = await startGame();
  t = game.t;
  clockNow = () => game.clock.now();
});
afterAll(() => t.close());

/** Writes wallet log entries straight into the collection, as a synced device would. */
async function syncedRewards(player: Player, count: number, cash: number): Promise<void> {
  const trades = t.server.app.db.collection<TradeDoc>('trades');
  for (let i = 0; i < count; i++) {
    const ref = `synced-${i}`;
    await trades.insert({
      id: `${player.id}:achievement:${ref}`,
      userId: player.id,
      kind: 'reward',
      reason: 'achievement',
      ref,
      stockId: '',
      quantity: 0,
      price: 0,
      cash,
      note: 'from another device',
      createdAt: clockNow() - 1000 + i,
    });
  }
}

describe('share quantities', () => {
  it('refuses negative and fractional shares with 400 and trades nothing (shares -5 bought 1, 2.5 bought 2)', async () => {
    const player = await newPlayer(t);
    for (const action of ['savings.buyStock', 'savings.sellStock']) {
      for (const quantity of [-5, 2.5, 0.5, -0.5, 1e-9, 1 + 1e-12]) {
        const answer = await t.api(action, { stockId: 'FARM', quantity }, player.token);
        expect(answer.status, `${action} ${quantity}`).toBe(400);
        expect(answer.data).toMatchObject({ field: 'params.quantity' });
      }
    }
    const wallet = await ok(t, 'savings.getWallet', {}, player.token);
    expect(wallet.history.list.filter((e: { kind: string }) => e.kind === 'buy' || e.kind === 'sell')).toEqual([]);
  });
});

describe('exact coin sums', () => {
  it('marks wallet sums of a synced log beyond the exact range as inexact and refuses a sell that would go further', async () => {
    const player = await newPlayer(t);
    await ok(t, 'savings.buyStock', { stockId: 'FARM', quantity: 1 }, player.token);
    const before = await ok(t, 'savings.getWallet', {}, player.token);
    expect(before.inexact).toEqual([]);
    // Ten rewards of 9,999,999,999,999.99 coins arrive by sync: the cash is beyond 2^53 cents.
    await syncedRewards(player, 10, 999_999_999_999_999);
    await idle(t);
    const wallet = await ok(t, 'savings.getWallet', {}, player.token);
    expect(wallet.inexact).toEqual(expect.arrayContaining(['cash', 'totalValue', 'received.total', 'received.achievements']));
    const positions = await ok(t, 'savings.getPositions', {}, player.token);
    expect(positions.inexact).toEqual(expect.arrayContaining(['totals.cash', 'totals.totalValue']));
    const sell = await t.api('savings.sellStock', { stockId: 'FARM', quantity: 1 }, player.token);
    expectRefusal(sell, savingsErrors.rows.cashBeyondExactRange);
    expect(sell.message).toContain('10,000,000,000,000.00 coins');
    expect(sell.data).toMatchObject({ field: 'params.quantity', limit: 10_000_000_000_000 });
    const after = await ok(t, 'savings.getPositions', {}, player.token);
    expect(after.positions).toHaveLength(1);
    expect(after.positions[0].quantity).toBe(1);
  });
});
