import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '../lib/clock';
import type { TestServer } from '../test-support/test-server';
import type { GoalDoc } from './schema';
import { DAY, goalParams, idle, newPlayer, ok, startGame, type Player } from '../test-support/savings';
import { commonErrors } from '../lib/errors';
import { savingsErrors } from './errors';
import { usersErrors } from '../users/errors';
import { expectRefusal } from '../test-support/refusal';

let t: TestServer;
let clock: ManualClock;
let alice: Player;
let bob: Player;

beforeAll(async () => {
  ({ t, clock } = await startGame());
  alice = await newPlayer(t);
  bob = await newPlayer(t);
});
afterAll(async () => {
  await t.close();
});

const create = (player: Player, overrides: Record<string, unknown> = {}) => ok(t, 'savings.createGoal', goalParams(clock, overrides), player.token);

describe('savings.createGoal', () => {
  it('creates a goal with its progress fields and defaults', async () => {
    const goal = await create(alice, { title: '  Emergency fund ', category: 'emergency', priority: 'low', isPublic: true, targetAmount: 1234.56 });
    expect(goal).toMatchObject({
      title: 'Emergency fund',
      currency: 'USD',
      targetAmount: 1234.56,
      currentAmount: 0,
      remainingAmount: 1234.56,
      percent: 0,
      category: 'emergency',
      priority: 'low',
      isPublic: true,
      status: 'active',
      startDate: clock.now(),
      completedAt: null,
      daysLeft: 60,
      onTrack: true,
      pace: 'on_track',
      contributionCount: 0,
    });
    expect(goal.id).toMatch(/^[0-9a-z]{9}[0-9A-Za-z]{10}$/);
    const minimal = await ok(t, 'savings.createGoal', { title: 'x', targetAmount: 5, endDate: clock.now() + DAY }, bob.token);
    expect(minimal).toMatchObject({ category: 'other', priority: 'medium', isPublic: false, currency: 'USD', description: '' });
  });

  it('follows the decimals of the goal currency exactly', async () => {
    const yen = await create(alice, { currency: 'JPY', targetAmount: 150000 });
    expect(yen.targetAmount).toBe(150000);
    expectRefusal(await t.api('savings.createGoal', goalParams(clock, { currency: 'JPY', targetAmount: 10.5 }), alice.token), commonErrors.rows.invalid);
    const cents = await create(alice, { targetAmount: 0.3 });
    const after = await ok(t, 'savings.updateProgress', { goalId: cents.id, amount: 0.1 }, alice.token);
    const again = await ok(t, 'savings.updateProgress', { goalId: cents.id, amount: 0.1 }, alice.token);
    expect([after.currentAmount, again.currentAmount]).toEqual([0.1, 0.2]);
    await ok(t, 'savings.deleteGoal', { goalId: cents.id }, alice.token);
    await ok(t, 'savings.deleteGoal', { goalId: yen.id }, alice.token);
  });

  it.each([
    ['unknown category', { category: 'yacht' }, commonErrors.rows.invalid],
    ['unknown priority', { priority: 'urgent' }, commonErrors.rows.invalid],
    ['endDate before startDate', { startDate: Date.UTC(2026, 5, 1), endDate: Date.UTC(2026, 4, 1) }, savingsErrors.rows.endBeforeStart],
    ['endDate in the past', { startDate: Date.UTC(2025, 0, 1), endDate: Date.UTC(2025, 5, 1) }, savingsErrors.rows.endInThePast],
    ['three decimals in USD', { targetAmount: 1.005 }, commonErrors.rows.invalid],
    ['unknown currency', { currency: 'ABC' }, savingsErrors.rows.unknownCurrency],
    ['lower-case currency', { currency: 'usd' }, commonErrors.rows.invalid],
    ['blank title', { title: '   ' }, savingsErrors.rows.blankTitle],
    ['title too long', { title: 'x'.repeat(101) }, commonErrors.rows.invalid],
    ['string amount', { targetAmount: '100' }, commonErrors.rows.invalid],
    ['unknown param', { colour: 'red' }, commonErrors.rows.invalid],
    ['zero target', { targetAmount: 0 }, savingsErrors.rows.targetNotPositive],
    ['negative target', { targetAmount: -5 }, savingsErrors.rows.targetNotPositive],
  ])('refuses %s', async (_label, overrides, row) => {
    const answer = await t.api('savings.createGoal', goalParams(clock, overrides), alice.token);
    expectRefusal(answer, row);
    expect(answer.message.length).toBeGreaterThan(5);
  });

  it('needs a token', async () => {
    expectRefusal(await t.api('savings.createGoal', goalParams(clock)), commonErrors.rows.unauthorized);
    expectRefusal(await t.api('savings.queryGoals', {}, 'not-a-token'), usersErrors.rows.invalidToken);
  });
});

describe('savings.queryGoals and savings.getGoal', () => {
  it("pages newest first, filters by status and category, and never shows another user's goals", async () => {
    const player = await newPlayer(t);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      clock.advance(1000);
      ids.push((await create(player, { title: `goal ${i}`, category: i % 2 ? 'car' : 'home' })).id);
    }
    const page1 = await ok(t, 'savings.queryGoals', { page: 1, pageSize: 2 }, player.token);
    expect(page1.total).toBe(5);
    expect(page1.list.map((g: any) => g.id)).toEqual([ids[4], ids[3]]);
    const page3 = await ok(t, 'savings.queryGoals', { page: 3, pageSize: 2 }, player.token);
    expect(page3.list.map((g: any) => g.id)).toEqual([ids[0]]);
    expect((await ok(t, 'savings.queryGoals', { category: 'car' }, player.token)).total).toBe(2);
    await ok(t, 'savings.updateGoal', { goalId: ids[0], status: 'paused' }, player.token);
    expect((await ok(t, 'savings.queryGoals', { status: 'paused' }, player.token)).list.map((g: any) => g.id)).toEqual([ids[0]]);
    expect((await ok(t, 'savings.queryGoals', { status: 'active' }, player.token)).total).toBe(4);
    const defaults = await ok(t, 'savings.queryGoals', {}, player.token);
    expect([defaults.page, defaults.pageSize]).toEqual([1, 20]);
    expectRefusal(await t.api('savings.queryGoals', { status: 'done' }, player.token), commonErrors.rows.invalid);
    expectRefusal(await t.api('savings.queryGoals', { pageSize: 101 }, player.token), commonErrors.rows.invalid);
    expect((await ok(t, 'savings.queryGoals', {}, bob.token)).list.some((g: any) => ids.includes(g.id))).toBe(false);
    expectRefusal(await t.api('savings.getGoal', { goalId: ids[1] }, bob.token), savingsErrors.rows.goalNotFound);
    expectRefusal(await t.api('savings.getGoal', { goalId: 'nope' }, player.token), savingsErrors.rows.goalNotFound);
    expect((await ok(t, 'savings.getGoal', { goalId: ids[1] }, player.token)).title).toBe('goal 1');
  });

  it('reports pace: on track, behind, days left, daily amount needed, expired after the end date', async () => {
    const player = await newPlayer(t);
    const goal = await create(player, { targetAmount: 300, endDate: clock.now() + 30 * DAY });
    expect(goal.dailyNeeded).toBe(10);
    clock.advance(10 * DAY);
    try {
      let view = await ok(t, 'savings.getGoal', { goalId: goal.id }, player.token);
      expect(view).toMatchObject({ daysLeft: 20, expectedAmount: 100, onTrack: false, pace: 'behind', dailyNeeded: 15 });
      view = await ok(t, 'savings.updateProgress', { goalId: goal.id, amount: 100 }, player.token);
      expect(view).toMatchObject({ onTrack: true, pace: 'on_track', percent: 33.3, remainingAmount: 200 });
      clock.advance(21 * DAY);
      view = await ok(t, 'savings.getGoal', { goalId: goal.id }, player.token);
      expect(view).toMatchObject({ status: 'expired', daysLeft: 0, pace: 'behind' });
      expect((await ok(t, 'savings.queryGoals', { status: 'expired' }, player.token)).list.map((g: any) => g.id)).toEqual([goal.id]);
      // An expired goal can still be finished, or given a new end date.
      view = await ok(t, 'savings.updateGoal', { goalId: goal.id, endDate: clock.now() + 5 * DAY }, player.token);
      expect(view.status).toBe('active');
    } finally {
      clock.advance(-31 * DAY);
    }
  });
});

describe('savings.updateProgress', () => {
  it('adds and withdraws, never below zero, and completes the goal at its target', async () => {
    const goal = await create(alice, { targetAmount: 100 });
    let view = await ok(t, 'savings.updateProgress', { goalId: goal.id, amount: 40 }, alice.token);
    expect(view).toMatchObject({ currentAmount: 40, percent: 40, contributionCount: 1, status: 'active' });
    view = await ok(t, 'savings.updateProgress', { goalId: goal.id, amount: -15.5 }, alice.token);
    expect(view.currentAmount).toBe(24.5);
    const below = await t.api('savings.updateProgress', { goalId: goal.id, amount: -30 }, alice.token);
    expectRefusal(below, savingsErrors.rows.withdrawalTooLarge);
    expect(below.data).toMatchObject({ currentAmount: 24.5, reason: 'savings.withdrawalTooLarge' });
    expectRefusal(await t.api('savings.updateProgress', { goalId: goal.id, amount: 0 }, alice.token), savingsErrors.rows.zeroProgress);
    expectRefusal(await t.api('savings.updateProgress', { goalId: goal.id, amount: 1.001 }, alice.token), commonErrors.rows.invalid);
    expectRefusal(await t.api('savings.updateProgress', { goalId: goal.id }, alice.token), commonErrors.rows.invalid);
    view = await ok(t, 'savings.updateProgress', { goalId: goal.id, amount: 80 }, alice.token);
    expect(view).toMatchObject({ status: 'completed', completedAt: clock.now(), currentAmount: 104.5, percent: 104.5, pace: 'completed', daysLeft: 0 });
  });

  it("answers 4001 for an unknown goal and for another user's goal, on every path, without touching it", async () => {
    const goal = await create(alice, { targetAmount: 50 });
    for (const [action, params] of [
      ['savings.getGoal', { goalId: goal.id }],
      ['savings.updateProgress', { goalId: goal.id, amount: 5 }],
      ['savings.updateGoal', { goalId: goal.id, title: 'mine now' }],
      ['savings.deleteGoal', { goalId: goal.id }],
    ] as const) {
      const other = await t.api(action, params, bob.token);
      expectRefusal(other, savingsErrors.rows.goalNotFound, { label: action });
      expectRefusal(other, savingsErrors.rows.goalNotFound);
      expect(JSON.stringify(other)).not.toContain('Trip to Japan');
      expectRefusal(await t.api(action, { ...params, goalId: '0000000000000000000' }, alice.token), savingsErrors.rows.goalNotFound, { label: action });
    }
    expect(await ok(t, 'savings.getGoal', { goalId: goal.id }, alice.token)).toMatchObject({ title: 'Trip to Japan', currentAmount: 0 });
  });

  it('refuses any change to a completed goal with 4002: progress (either sign), every field, every status, delete', async () => {
    const goal = await create(alice, { targetAmount: 10 });
    await ok(t, 'savings.updateProgress', { goalId: goal.id, amount: 10 }, alice.token);
    const attempts: Array<[string, Record<string, unknown>]> = [
      ['savings.updateProgress', { amount: 5 }],
      ['savings.updateProgress', { amount: -5 }],
      ['savings.updateProgress', { amount: 0 }],
      ['savings.updateGoal', { title: 'again' }],
      ['savings.updateGoal', { description: 'x' }],
      ['savings.updateGoal', { targetAmount: 20 }],
      ['savings.updateGoal', { endDate: clock.now() + 90 * DAY }],
      ['savings.updateGoal', { startDate: clock.now() - DAY }],
      ['savings.updateGoal', { category: 'car' }],
      ['savings.updateGoal', { priority: 'low' }],
      ['savings.updateGoal', { isPublic: true }],
      ['savings.updateGoal', { status: 'active' }],
      ['savings.updateGoal', { status: 'paused' }],
      ['savings.updateGoal', { status: 'cancelled' }],
      ['savings.updateGoal', {}],
      ['savings.deleteGoal', {}],
    ];
    for (const [action, params] of attempts) {
      const answer = await t.api(action, { goalId: goal.id, ...params }, alice.token);
      expectRefusal(answer, savingsErrors.rows.goalCompleted, { label: `${action} ${JSON.stringify(params)}` });
      expectRefusal(answer, savingsErrors.rows.goalCompleted);
    }
    expect(await ok(t, 'savings.getGoal', { goalId: goal.id }, alice.token)).toMatchObject({ status: 'completed', currentAmount: 10, title: 'Trip to Japan' });
  });
});

describe('savings.updateGoal and savings.deleteGoal', () => {
  it('edits fields, pauses, resumes, cancels and reactivates; paused and cancelled goals take no money', async () => {
    const goal = await create(alice, { targetAmount: 500 });
    const edited = await ok(t, 'savings.updateGoal', { goalId: goal.id, title: 'Bike', category: 'gadget', priority: 'low', isPublic: true, targetAmount: 600 }, alice.token);
    expect(edited).toMatchObject({ title: 'Bike', category: 'gadget', priority: 'low', isPublic: true, targetAmount: 600, status: 'active' });
    for (const status of ['paused', 'cancelled']) {
      await ok(t, 'savings.updateGoal', { goalId: goal.id, status }, alice.token);
      const refused = await t.api('savings.updateProgress', { goalId: goal.id, amount: 1 }, alice.token);
      expectRefusal(refused, savingsErrors.rows.goalNotActive);
      expect(refused.message).toMatch(new RegExp(status));
    }
    await ok(t, 'savings.updateGoal', { goalId: goal.id, status: 'active' }, alice.token);
    expect((await ok(t, 'savings.updateProgress', { goalId: goal.id, amount: 1 }, alice.token)).currentAmount).toBe(1);
    for (const params of [{ status: 'completed' }, { endDate: clock.now() - 1 }, { startDate: clock.now() + 400 * DAY }, { targetAmount: 0.001 }, { category: 'yacht' }]) {
      expect((await t.api('savings.updateGoal', { goalId: goal.id, ...params }, alice.token)).code, JSON.stringify(params)).toBe(400);
    }
    expectRefusal(await t.api('savings.updateGoal', { goalId: goal.id, targetAmount: -1 }, alice.token), savingsErrors.rows.targetNotPositive);
  });

  it('completes a goal whose target is lowered to what is already saved', async () => {
    const goal = await create(alice, { targetAmount: 500 });
    await ok(t, 'savings.updateProgress', { goalId: goal.id, amount: 120 }, alice.token);
    const done = await ok(t, 'savings.updateGoal', { goalId: goal.id, targetAmount: 100 }, alice.token);
    expect(done).toMatchObject({ status: 'completed', completedAt: clock.now(), percent: 120 });
  });

  it('deletes an open goal', async () => {
    const goal = await create(alice);
    expect(await ok(t, 'savings.deleteGoal', { goalId: goal.id }, alice.token)).toEqual({ deleted: true, id: goal.id });
    expectRefusal(await t.api('savings.getGoal', { goalId: goal.id }, alice.token), savingsErrors.rows.goalNotFound);
    expectRefusal(await t.api('savings.deleteGoal', { goalId: goal.id }, alice.token), savingsErrors.rows.goalNotFound);
  });

  it(`limits open goals to 20 (409); cancelled and completed ones do not count`, async () => {
    const player = await newPlayer(t);
    const goals = [];
    for (let i = 0; i < 20; i++) goals.push(await create(player, { targetAmount: 10 }));
    const refused = await t.api('savings.createGoal', goalParams(clock), player.token);
    expectRefusal(refused, savingsErrors.rows.tooManyOpenGoals);
    expect(refused.data).toEqual({ limit: 20, reason: 'savings.tooManyOpenGoals', args: [20] });
    await ok(t, 'savings.updateGoal', { goalId: goals[0].id, status: 'cancelled' }, player.token);
    const extra = await create(player);
    expectRefusal(await t.api('savings.updateGoal', { goalId: goals[0].id, status: 'active' }, player.token), savingsErrors.rows.tooManyOpenGoals);
    await ok(t, 'savings.updateProgress', { goalId: extra.id, amount: 1000 }, player.token);
    await ok(t, 'savings.updateGoal', { goalId: goals[0].id, status: 'active' }, player.token);
  });
});

describe('saving rewards', () => {
  const rewardsOf = async (player: Player) =>
    (await ok(t, 'savings.getWallet', { pageSize: 100 }, player.token)).history.list.filter((e: any) => e.kind !== 'buy' && e.kind !== 'sell');

  it("pays the saving-day reward once per day, only for money above the goal's previous high (withdraw + re-add mints nothing)", async () => {
    const player = await newPlayer(t);
    const goal = await create(player, { targetAmount: 1000 });
    const first = await ok(t, 'savings.updateProgress', { goalId: goal.id, amount: 100 }, player.token);
    expect(first.rewards.map((r: any) => [r.reason, r.coins])).toEqual([
      ['saving_day', 50],
      ['achievement', 100],
    ]);
    // Same day, a new high: no second saving-day reward.
    expect((await ok(t, 'savings.updateProgress', { goalId: goal.id, amount: 50 }, player.token)).rewards).toEqual([]);
    const startClock = clock.now();
    try {
      for (let day = 1; day <= 3; day++) {
        clock.advance(DAY);
        // Take money out and put it back: never above the high of 150 → nothing.
        expect((await ok(t, 'savings.updateProgress', { goalId: goal.id, amount: -150 }, player.token)).rewards).toEqual([]);
        expect((await ok(t, 'savings.updateProgress', { goalId: goal.id, amount: 150 }, player.token)).rewards).toEqual([]);
      }
      // A new goal does not help either: the second goal's money counts only on a new day.
      const second = await create(player, { targetAmount: 1000 });
      await ok(t, 'savings.deleteGoal', { goalId: goal.id }, player.token);
      expect((await ok(t, 'savings.updateProgress', { goalId: second.id, amount: 10 }, player.token)).rewards.map((r: any) => r.reason)).toEqual(['saving_day']);
      expect((await ok(t, 'savings.updateProgress', { goalId: second.id, amount: 10 }, player.token)).rewards).toEqual([]);
      const days = (await rewardsOf(player)).filter((e: any) => e.reason === 'saving_day');
      expect(days.map((e: any) => e.amount)).toEqual([50, 50]);
      expect((await ok(t, 'savings.getWallet', {}, player.token)).received.savingDays).toBe(100);
    } finally {
      clock.set(startClock);
    }
  });

  it('rewards completion by the days the goal took (+50 % before the end date); instant goals earn nothing', async () => {
    const player = await newPlayer(t);
    const instant = await create(player, { targetAmount: 5 });
    const done = await ok(t, 'savings.updateProgress', { goalId: instant.id, amount: 5 }, player.token);
    expect(done.rewards.filter((r: any) => r.reason === 'goal_completed')).toEqual([]);
    const slow = await create(player, { targetAmount: 100, endDate: clock.now() + 30 * DAY });
    const start = clock.now();
    try {
      clock.advance(10 * DAY + 3600_000);
      const finished = await ok(t, 'savings.updateProgress', { goalId: slow.id, amount: 100 }, player.token);
      expect(finished.rewards.find((r: any) => r.reason === 'goal_completed')).toMatchObject({ coins: 150, ref: slow.id });
      const late = await create(player, { targetAmount: 100, endDate: clock.now() + 5 * DAY });
      clock.advance(8 * DAY);
      const lateDone = await ok(t, 'savings.updateProgress', { goalId: late.id, amount: 100 }, player.token);
      expect(lateDone.rewards.find((r: any) => r.reason === 'goal_completed')).toMatchObject({ coins: 80 });
    } finally {
      clock.set(start);
    }
  });

  it('credits the completion reward once even when the goal was completed by another device (sync)', async () => {
    const player = await newPlayer(t);
    const goal = await create(player, { targetAmount: 100 });
    const start = clock.now();
    try {
      clock.advance(4 * DAY);
      const doc = await t.server.app.db.collection<GoalDoc>('goals').findOne(goal.id).exec();
      await doc!.incrementalPatch({ status: 'completed', currentAmount: 100, peakAmount: 100, completedAt: clock.now(), updatedAt: clock.now() });
      await idle(t);
      const completions = (await rewardsOf(player)).filter((e: any) => e.reason === 'goal_completed');
      expect(completions.map((e: any) => e.amount)).toEqual([60]);
      await doc!.incrementalPatch({ updatedAt: clock.now() + 1 });
      await idle(t);
      expect((await rewardsOf(player)).filter((e: any) => e.reason === 'goal_completed')).toHaveLength(1);
    } finally {
      clock.set(start);
    }
  });
});
