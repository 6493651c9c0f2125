/**
 * Savings-game benchmark: `npm run bench:savings`. Prints a table; not a test.
 * Runs a real server on 127.0.0.1:0 with a temp data dir and a ManualClock.
 */
import { ManualClock } from '../../server/lib/clock';
import { createLogger } from '../../server/lib/logger';
import { newId } from '../../server/lib/ids';
import type { RecordDoc } from '../../server/ledger/schema';
import { registerUser, startTestServer } from '../../server/test-support/test-server';
import { Market, STOCKS, stepAt } from '../../server/savings/market';
import type { TradeDoc } from '../../server/savings/schema';
import { cycled, percentile, required } from '../lib';

const T0 = Date.UTC(2026, 2, 2, 10);
const rows: Array<[string, string, string]> = [];
const row = (what: string, value: string, goal: string) => {
  rows.push([what, value, goal]);
  process.stdout.write(`${what}: ${value}\n`);
};

async function timed(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await fn(i);
    samples.push(performance.now() - start);
  }
  return samples;
}

const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

async function main() {
  // Pure price computation.
  const market = new Market(Buffer.alloc(32, 3));
  const step = stepAt(T0);
  let start = performance.now();
  const N = 200_000;
  let sink = 0;
  for (let i = 0; i < N; i++) sink += market.priceAtStep(cycled(STOCKS, i), step - (i % 100_000));
  row('price at any step (pure)', `${(((performance.now() - start) / N) * 1000).toFixed(2)} µs`, '< 10 µs');
  const firstStock = required(STOCKS.at(0), 'a stock');
  start = performance.now();
  for (let i = 0; i < 20; i++) sink += market.priceAtStep(firstStock, stepAt(T0 + i * 1e12));
  row('price 30,000 years after the epoch', `${(((performance.now() - start) / 20) * 1000).toFixed(2)} µs`, 'same as above (O(log N))');
  if (!Number.isFinite(sink)) throw new Error('unreachable');

  const clock = new ManualClock(T0);
  const t = await startTestServer({ clock, logger: createLogger('silent'), settings: { auth: { tokenLifetimeSeconds: 10 * 365 * 86400 } } });
  try {
    const user = await registerUser(t);
    const api = (action: string, params: unknown = {}) => t.api(action, params, user.token);
    await api('savings.getWallet');

    let samples = await timed(300, () => api('savings.getMarket'));
    row('savings.getMarket p50 / p95 (HTTP)', `${fmt(percentile(samples, 50))} / ${fmt(percentile(samples, 95))}`, 'p95 < 10 ms');
    samples = await timed(50, () => api('savings.getStockHistory', { stockId: 'CLOU', range: 'year' }));
    row('savings.getStockHistory year, 366 points p50 / p95', `${fmt(percentile(samples, 50))} / ${fmt(percentile(samples, 95))}`, 'p95 < 20 ms');

    samples = await timed(300, (i) => api('savings.buyStock', { stockId: cycled(STOCKS, i).id, quantity: 1 }));
    row('savings.buyStock p50 / p95 (fsync per write)', `${fmt(percentile(samples, 50))} / ${fmt(percentile(samples, 95))}`, 'p95 < 30 ms');

    // A long history: 10,000 log entries written as a sync would (straight into the collection).
    const trades = t.server.app.db.collection<TradeDoc>('trades');
    const docs: TradeDoc[] = [];
    for (let i = 0; i < 10_000; i++) {
      const stock = cycled(STOCKS, i);
      const buy = i % 4 !== 3;
      const price = market.priceAtStep(stock, step);
      docs.push({
        id: newId(T0 - 1e9 + i),
        userId: user.id,
        kind: buy ? 'buy' : 'sell',
        reason: '',
        ref: '',
        stockId: stock.id,
        quantity: 1,
        price,
        cash: buy ? -price : price,
        note: 'bench',
        createdAt: T0 - 1e9 + i,
      });
    }
    docs.push({
      id: `${user.id}:bench`,
      userId: user.id,
      kind: 'grant',
      reason: 'welcome',
      ref: 'bench',
      stockId: '',
      quantity: 0,
      price: 0,
      cash: 1e9,
      note: 'bench',
      createdAt: T0 - 2e9,
    });
    for (let i = 0; i < docs.length; i += 1000) await trades.bulkInsert(docs.slice(i, i + 1000));
    start = performance.now();
    await api('savings.getPositions');
    row('savings.getPositions, 10,300-entry log, cold (replay)', fmt(performance.now() - start), '< 500 ms');
    samples = await timed(100, () => api('savings.getPositions'));
    row('savings.getPositions, 10,300-entry log, warm p50 / p95', `${fmt(percentile(samples, 50))} / ${fmt(percentile(samples, 95))}`, 'p95 < 10 ms');
    samples = await timed(100, () => api('savings.getWallet', { page: 3, pageSize: 50 }));
    row('savings.getWallet page 3, warm p50 / p95', `${fmt(percentile(samples, 50))} / ${fmt(percentile(samples, 95))}`, 'p95 < 10 ms');
    samples = await timed(50, (i) => api('savings.buyStock', { stockId: cycled(STOCKS, i).id, quantity: 1 }));
    row('savings.buyStock with a 10,300-entry log p50 / p95', `${fmt(percentile(samples, 50))} / ${fmt(percentile(samples, 95))}`, 'p95 < 30 ms');

    // A sync burst of 5,000 records: achievements evaluated once the burst has landed.
    const records = t.server.app.db.collection<RecordDoc>('records');
    const batch: RecordDoc[] = [];
    for (let i = 0; i < 5000; i++) {
      const at = T0 - (i % 60) * 86_400_000;
      batch.push({
        id: newId(at),
        userId: user.id,
        type: 'expense',
        amount: 100 + i,
        asset: 'bench',
        toAsset: '',
        toAmount: 0,
        fee: 0,
        category: 'food',
        description: '',
        searchText: '',
        date: at,
        tags: [],
        attachments: [],
        importKey: '',
        createdAt: at,
        updatedAt: at,
      });
    }
    start = performance.now();
    for (let i = 0; i < batch.length; i += 500) await records.bulkInsert(batch.slice(i, i + 500));
    await t.server.app.services.savings.idle();
    row('5,000 synced records → achievements unlocked (insert + evaluation)', fmt(performance.now() - start), '< 3 s');
    const answer = await api('savings.getAchievements', { category: 'bookkeeping' });
    const unlocked = answer.data.list.filter((a: { completed: boolean }) => a.completed).length;
    row('bookkeeping achievements unlocked by the burst', `${unlocked} of ${answer.data.list.length}`, '7 of 7');

    // Leaderboard over 20 opted-in players.
    const others = [];
    for (let i = 0; i < 19; i++) others.push(await registerUser(t));
    for (const u of [user, ...others]) await t.api('savings.setPreferences', { leaderboardOptIn: true }, u.token);
    for (const type of ['savings', 'portfolio', 'streak']) {
      samples = await timed(20, () => api('savings.getLeaderboard', { type, period: 'month' }));
      row(`savings.getLeaderboard ${type}, 20 players p50 / p95`, `${fmt(percentile(samples, 50))} / ${fmt(percentile(samples, 95))}`, 'p95 < 100 ms');
    }
  } finally {
    await t.close();
  }

  process.stdout.write('\n| measure | result | goal |\n|---|---|---|\n');
  for (const [what, value, goal] of rows) process.stdout.write(`| ${what} | ${value} | ${goal} |\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? error.stack : String(error))}\n`);
  process.exit(1);
});
