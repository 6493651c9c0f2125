import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '../lib/clock';
import type { RecordDoc } from '../ledger/schema';
import type { TestServer } from '../test-support/test-server';
import { STEP_MS } from './market';
import type { AchievementDoc, TradeDoc } from './schema';
import { DAY, goalParams, idle, insertSyncedRecord, newPlayer, ok, startGame, type Player } from '../test-support/savings';
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

const log = async (player: Player) =>
  (
    await t.server.app.db
      .collection<TradeDoc>('trades')
      .find({ selector: { userId: player.id } })
      .exec()
  ).map((d) => d.toJSON() as TradeDoc);
const achievementRewards = async (player: Player) =>
  (await log(player))
    .filter((e) => e.reason === 'achievement')
    .map((e) => e.ref)
    .sort();
const unlockDocs = async (player: Player) =>
  (
    await t.server.app.db
      .collection<AchievementDoc>('achievements')
      .find({ selector: { userId: player.id } })
      .exec()
  )
    .map((d) => d.achievementId)
    .sort();
const achievement = async (player: Player, id: string) => (await ok(t, 'savings.getAchievements', {}, player.token)).list.find((a: any) => a.id === id);

describe('bookkeeping achievements', () => {
  it('unlock from records that arrive by sync (written straight into the collection), with the reward, once', async () => {
    const player = await newPlayer(t);
    const other = await newPlayer(t);
    await insertSyncedRecord(t, other.id, clock.now());
    await insertSyncedRecord(t, player.id, clock.now());
    await idle(t);
    // Unlocked by the change stream alone: nothing read the achievements yet.
    expect(await unlockDocs(player)).toEqual(['first_record']);
    expect(await achievementRewards(player)).toEqual(['first_record']);
    const wallet = await ok(t, 'savings.getWallet', {}, player.token);
    expect(wallet.received).toMatchObject({ welcome: 10000, achievements: 100 });
    const unlocked = await achievement(player, 'first_record');
    expect(unlocked).toMatchObject({ category: 'bookkeeping', progress: 1, target: 1, completed: true, reward: 100 });
    // Log entries of one player are strictly ordered, so an unlock may sit a few ms after "now".
    expect(unlocked.unlockedAt - clock.now()).toBeGreaterThanOrEqual(0);
    expect(unlocked.unlockedAt - clock.now()).toBeLessThan(10);

    // A sync batch of 9 more: "10 records" unlocks once, the other user's records never count.
    await t.server.app.db
      .collection<RecordDoc>('records')
      .bulkInsert(Array.from({ length: 9 }, (_, i) => ({ ...baseRecord(player.id, clock.now()), id: `r${i}${player.id}`.slice(0, 40) })));
    await idle(t);
    expect(await achievementRewards(player)).toEqual(['first_record', 'records_10']);
    expect((await achievement(player, 'records_100')).progress).toBe(10);
    expect((await achievement(other, 'records_10')).progress).toBe(1);
    // Reading again, evaluating again: still one reward each.
    await ok(t, 'savings.getAchievements', {}, player.token);
    await ok(t, 'savings.getAchievements', {}, player.token);
    expect(await achievementRewards(player)).toEqual(['first_record', 'records_10']);
    // Deleting records later does not take an unlock back.
    const records = await t.server.app.db
      .collection<RecordDoc>('records')
      .find({ selector: { userId: player.id } })
      .exec();
    for (const r of records) await r.remove();
    await idle(t);
    expect(await achievement(player, 'records_10')).toMatchObject({ completed: true, progress: 10 });
  });

  it('ignore records synced for an account that does not exist here', async () => {
    await insertSyncedRecord(t, 'ghost000000000000000', clock.now());
    await idle(t);
    const ghostLog = await t.server.app.db
      .collection<TradeDoc>('trades')
      .find({ selector: { userId: 'ghost000000000000000' } })
      .exec();
    expect(ghostLog).toEqual([]);
  });

  it('unlock from records created through accounting.create', async () => {
    const player = await newPlayer(t);
    const asset = await ok(t, 'asset.create', { name: 'Wallet', type: 'cash', currency: 'USD', balance: 100 }, player.token);
    await ok(t, 'accounting.create', { type: 'expense', amount: 12.5, asset: asset.id, category: 'food', description: 'noodles', date: clock.now() }, player.token);
    await idle(t);
    expect(await achievementRewards(player)).toEqual(['first_record']);
  });

  it("count bookkeeping streaks by the day records were added, in the player's time zone", async () => {
    const player = await newPlayer(t);
    const start = clock.now();
    try {
      await insertSyncedRecord(t, player.id, start);
      await insertSyncedRecord(t, player.id, start + DAY);
      // A record back-dated to last month but added today counts for today, not for last month.
      await insertSyncedRecord(t, player.id, start + DAY + 60_000, { date: start - 30 * DAY });
      await idle(t);
      clock.set(start + DAY);
      expect(await achievement(player, 'streak_3')).toMatchObject({ progress: 2, target: 3, unit: 'days', completed: false });
      // A gap breaks the run.
      await insertSyncedRecord(t, player.id, start + 3 * DAY);
      clock.set(start + 3 * DAY);
      expect((await achievement(player, 'streak_3')).progress).toBe(2);
      await insertSyncedRecord(t, player.id, start + 2 * DAY);
      await idle(t);
      expect(await achievement(player, 'streak_3')).toMatchObject({ progress: 3, completed: true });
      const summary = (await ok(t, 'savings.getAchievements', { category: 'bookkeeping' }, player.token)).summary;
      expect(summary).toMatchObject({ bookkeepingStreak: 4, longestBookkeepingStreak: 4 });
      clock.set(start + 6 * DAY);
      expect((await ok(t, 'savings.getAchievements', {}, player.token)).summary.bookkeepingStreak).toBe(0);

      // 23:30 and 00:30 UTC are two days in UTC but one morning in Shanghai (UTC+8).
      const east = await newPlayer(t, 'Asia/Shanghai');
      const west = await newPlayer(t, 'UTC');
      const midnight = Date.UTC(2026, 2, 10);
      for (const p of [east, west]) {
        await insertSyncedRecord(t, p.id, midnight - 30 * 60_000);
        await insertSyncedRecord(t, p.id, midnight + 30 * 60_000);
      }
      await idle(t);
      expect((await achievement(east, 'streak_3')).progress).toBe(1);
      expect((await achievement(west, 'streak_3')).progress).toBe(2);
      expectRefusal(await t.api('savings.setPreferences', { timeZone: 'Mars/Olympus' }, east.token), savingsErrors.rows.unknownTimeZone);
      expect(await ok(t, 'savings.getPreferences', {}, east.token)).toEqual({ leaderboardOptIn: false, timeZone: 'Asia/Shanghai', effectiveTimeZone: 'Asia/Shanghai' });
      // Changing the zone re-counts the days.
      await ok(t, 'savings.setPreferences', { timeZone: 'UTC' }, east.token);
      expect((await achievement(east, 'streak_3')).progress).toBe(2);
    } finally {
      clock.set(start);
    }
  });
});

describe('saving and trading achievements', () => {
  it('unlock when goals are created, funded and completed, including early', async () => {
    const player = await newPlayer(t);
    const goal = await ok(t, 'savings.createGoal', goalParams(clock, { targetAmount: 100 }), player.token);
    expect(goal.rewards.map((r: any) => r.ref)).toEqual(['first_goal']);
    const done = await ok(t, 'savings.updateProgress', { goalId: goal.id, amount: 100 }, player.token);
    expect(done.rewards.map((r: any) => r.ref)).toEqual(['saving_day' === done.rewards[0].reason ? done.rewards[0].ref : '', 'first_saving', 'goal_completed', 'goal_early']);
    const saving = await ok(t, 'savings.getAchievements', { category: 'saving', completed: true }, player.token);
    expect(saving.list.map((a: any) => a.id)).toEqual(['first_goal', 'first_saving', 'goal_completed', 'goal_early']);
    const open = await ok(t, 'savings.getAchievements', { category: 'saving', completed: false }, player.token);
    expect(open.list.map((a: any) => [a.id, a.progress, a.target])).toEqual([
      ['saving_days_7', 1, 7],
      ['saving_days_30', 1, 30],
      ['goals_5', 1, 5],
    ]);
    expectRefusal(await t.api('savings.getAchievements', { category: 'gardening' }, player.token), commonErrors.rows.invalid);
  });

  it('unlock for the first trade, a diversified portfolio and a profitable sale', async () => {
    const player = await newPlayer(t);
    for (const stockId of ['BOND', 'FARM']) await ok(t, 'savings.buyStock', { stockId, quantity: 1 }, player.token);
    expect(await achievementRewards(player)).toEqual(['first_trade']);
    expect((await achievement(player, 'diversified')).progress).toBe(2);
    const third = await ok(t, 'savings.buyStock', { stockId: 'GAME', quantity: 20 }, player.token);
    expect(third.rewards.map((r: any) => r.ref)).toEqual(['diversified']);
    // Wait, an hour at a time, until GAME trades above what it cost, and sell: a profit.
    const cost = third.trade.price;
    const start = clock.now();
    try {
      let price = cost;
      for (let i = 0; i < 5000 && price <= cost; i++) {
        clock.advance(12 * STEP_MS);
        price = (await ok(t, 'savings.getMarket', {}, player.token)).stocks.find((s: any) => s.id === 'GAME').price;
      }
      expect(price).toBeGreaterThan(cost);
      const sold = await ok(t, 'savings.sellStock', { stockId: 'GAME', quantity: 1 }, player.token);
      expect(sold.rewards.map((r: any) => r.ref)).toContain('first_profit');
      const profit = await achievement(player, 'first_profit');
      expect(profit.completed).toBe(true);
      expect(profit.unlockedAt - clock.now()).toBeLessThan(10);
    } finally {
      clock.set(start);
    }
  });

  it('repairs an unlock record lost between the reward and its write, without paying twice', async () => {
    const player = await newPlayer(t);
    await ok(t, 'savings.createGoal', goalParams(clock), player.token);
    const docs = t.server.app.db.collection<AchievementDoc>('achievements');
    const lost = await docs.findOne(`${player.id}:first_goal`).exec();
    const unlockedAt = lost!.unlockedAt;
    await lost!.remove();
    expect(await achievement(player, 'first_goal')).toMatchObject({ completed: true, unlockedAt });
    expect(await achievementRewards(player)).toEqual(['first_goal']);
  });
});

function baseRecord(userId: string, at: number): RecordDoc {
  return {
    id: '',
    userId,
    type: 'income',
    amount: 100,
    asset: 'a',
    toAsset: '',
    toAmount: 0,
    fee: 0,
    category: 'salary',
    description: '',
    searchText: '',
    date: at,
    tags: [],
    attachments: [],
    importKey: '',
    createdAt: at,
    updatedAt: at,
  };
}
