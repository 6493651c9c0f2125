import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '../lib/clock';
import type { TestServer } from '../test-support/test-server';
import { STEP_MS } from './market';
import { DAY, goalParams, idle, insertSyncedRecord, newPlayer, ok, startGame, T0, type Player } from '../test-support/savings';
import { commonErrors } from '../lib/errors';
import { expectRefusal } from '../test-support/refusal';

let t: TestServer;
let clock: ManualClock;
let ann: Player;
let ben: Player;
let cat: Player; // never opts in
let dan: Player;

const board = (player: Player, params: Record<string, unknown>) => ok(t, 'savings.getLeaderboard', params, player.token);

beforeAll(async () => {
  ({ t, clock } = await startGame());
  ann = await newPlayer(t);
  ben = await newPlayer(t);
  cat = await newPlayer(t);
  dan = await newPlayer(t);
  for (const p of [ann, ben, dan]) await ok(t, 'savings.setPreferences', { leaderboardOptIn: true }, p.token);

  // Last week (before Monday T0): ann saves on 3 days; this week ben saves on 2 days, ann on 1.
  clock.set(T0 - 5 * DAY);
  const annGoal = await ok(t, 'savings.createGoal', goalParams(clock, { title: 'Ann public goal', targetAmount: 1000, isPublic: true }), ann.token);
  await ok(t, 'savings.createGoal', goalParams(clock, { title: 'Ann secret goal', targetAmount: 777.77 }), ann.token);
  for (let d = 0; d < 3; d++) {
    await ok(t, 'savings.updateProgress', { goalId: annGoal.id, amount: 100 }, ann.token);
    clock.advance(DAY);
  }
  clock.set(T0);
  const benGoal = await ok(t, 'savings.createGoal', goalParams(clock, { title: 'Ben bike', targetAmount: 500 }), ben.token);
  await ok(t, 'savings.updateProgress', { goalId: benGoal.id, amount: 50 }, ben.token);
  await ok(t, 'savings.updateProgress', { goalId: annGoal.id, amount: 100 }, ann.token);
  clock.set(T0 + DAY);
  await ok(t, 'savings.updateProgress', { goalId: benGoal.id, amount: 50 }, ben.token);
  // Cat saves more than anyone, privately, with a big secret goal, and keeps books daily.
  const catGoal = await ok(t, 'savings.createGoal', goalParams(clock, { title: 'Cat private fortune', targetAmount: 987654.32 }), cat.token);
  for (let d = 0; d < 3; d++) {
    clock.set(T0 + d * DAY);
    await ok(t, 'savings.updateProgress', { goalId: catGoal.id, amount: 12345.67 }, cat.token);
    await insertSyncedRecord(t, cat.id, clock.now());
  }
  // Bookkeeping: dan 2 days in a row this week, ben 1.
  await insertSyncedRecord(t, dan.id, T0);
  await insertSyncedRecord(t, dan.id, T0 + DAY);
  await insertSyncedRecord(t, ben.id, T0 + DAY);
  await idle(t);
  clock.set(T0 + 2 * DAY);
});
afterAll(async () => {
  await t.close();
});

describe('savings.getLeaderboard', () => {
  it('ranks only opted-in players and never shows anything of the others', async () => {
    for (const [type, period] of [
      ['savings', 'week'],
      ['savings', 'all'],
      ['goals', 'month'],
      ['streak', 'week'],
      ['achievements', 'all'],
      ['portfolio', 'all'],
    ]) {
      const answer = await t.api('savings.getLeaderboard', { type, period }, ann.token);
      expect(answer.code).toBe(200);
      const text = JSON.stringify(answer.data);
      expect(answer.data.participants).toBe(3);
      expect(answer.data.entries.map((e: any) => e.username).sort()).toEqual([ann.username, ben.username, dan.username].sort());
      expect(text).not.toContain(cat.username);
      expect(text).not.toContain('Cat private');
      expect(text).not.toContain('secret');
      // Real money never appears: no amounts, and not the numbers of any goal.
      expect(text).not.toMatch(/amount/i);
      expect(text).not.toContain('12345.67');
      expect(text).not.toContain('777.77');
      expect(text).not.toContain(ann.id);
    }
  });

  it('scores saving coins per period: this week vs all time', async () => {
    const week = await board(ann, { type: 'savings', period: 'week' });
    expect(week).toMatchObject({ type: 'savings', period: 'week', unit: 'saving coins', from: Date.UTC(2026, 2, 2), to: T0 + 2 * DAY });
    expect(week.entries.map((e: any) => [e.username, e.score, e.rank])).toEqual([
      [ben.username, 100, 1],
      [ann.username, 50, 2],
      [dan.username, 0, 3],
    ]);
    const all = await board(ann, { type: 'savings', period: 'all' });
    expect(all.entries.map((e: any) => [e.username, e.score])).toEqual([
      [ann.username, 200],
      [ben.username, 100],
      [dan.username, 0],
    ]);
    expect(all.me).toEqual({ rank: 1, score: 200, optedIn: true });
    expect(all.entries[0]).toMatchObject({ isMe: true, publicGoals: [{ title: 'Ann public goal', percent: 40, status: 'active' }] });
    expect(all.entries[1].publicGoals).toEqual([]);
  });

  it('gives the caller their own rank even outside the top N, and a private rank to someone not opted in', async () => {
    const top1 = await board(dan, { type: 'savings', period: 'week', limit: 1 });
    expect(top1.entries).toHaveLength(1);
    expect(top1.entries[0].username).toBe(ben.username);
    expect(top1.me).toEqual({ rank: 3, score: 0, optedIn: true });
    const outsider = await board(cat, { type: 'savings', period: 'week' });
    expect(outsider.me).toEqual({ rank: 1, score: 150, optedIn: false });
    expect(outsider.participants).toBe(3);
    expect(outsider.entries.some((e: any) => e.isMe)).toBe(false);
    expect(JSON.stringify(outsider.entries)).not.toContain(cat.username);
  });

  it('ranks bookkeeping streaks, completed goals and achievements', async () => {
    const streak = await board(ben, { type: 'streak', period: 'week' });
    expect(streak.entries.map((e: any) => [e.username, e.score])).toEqual([
      [dan.username, 2],
      [ben.username, 1],
      [ann.username, 0],
    ]);
    expect(streak.unit).toBe('days in a row');
    const goals = await board(ben, { type: 'goals', period: 'all' });
    expect(goals.entries.every((e: any) => e.score === 0)).toBe(true);
    expect(goals.entries.map((e: any) => e.rank)).toEqual([1, 1, 1]);
    const achievements = await board(ben, { type: 'achievements', period: 'all' });
    const scores = Object.fromEntries(achievements.entries.map((e: any) => [e.username, e.score]));
    // ann: first goal, first saving, first record? no; ben: first goal, first saving, first record; dan: first record, streak? no.
    expect(scores).toEqual({ [ann.username]: 2, [ben.username]: 3, [dan.username]: 1 });
  });

  it('ranks the portfolio return, counting rewards as money put in, not as profit', async () => {
    const before = await board(ben, { type: 'portfolio', period: 'all' });
    expect(before.entries.every((e: any) => e.score === 0)).toBe(true);
    const price = (await ok(t, 'savings.getMarket', {}, ben.token)).stocks.find((s: any) => s.id === 'GAME').price;
    await ok(t, 'savings.buyStock', { stockId: 'GAME', quantity: Math.floor(6000 / price) }, ben.token);
    const start = clock.now();
    try {
      // The market's path is seeded per data dir (random here): move on until the price has
      // really moved, so the return cannot round to 0.00 % by chance.
      for (let i = 0; i < 200; i++) {
        clock.advance(DAY + 7 * STEP_MS);
        const now = (await ok(t, 'savings.getMarket', {}, ben.token)).stocks.find((s: any) => s.id === 'GAME').price;
        if (Math.abs(now - price) / price > 0.02) break;
      }
      const positions = await ok(t, 'savings.getPositions', {}, ben.token);
      const wallet = await ok(t, 'savings.getWallet', {}, ben.token);
      const expected = Math.round(((positions.totals.totalValue - wallet.received.total) / wallet.received.total) * 10000) / 100;
      const after = await board(ben, { type: 'portfolio', period: 'all' });
      expect(after.me.score).toBeCloseTo(expected, 2);
      expect(after.me.score).not.toBe(0);
      expect(after.unit).toBe('% return');
    } finally {
      clock.set(start);
    }
  });

  it('refuses unknown types and periods, and forgets players who opt out', async () => {
    expectRefusal(await t.api('savings.getLeaderboard', { type: 'wealth' }, ann.token), commonErrors.rows.invalid);
    expectRefusal(await t.api('savings.getLeaderboard', { period: 'decade' }, ann.token), commonErrors.rows.invalid);
    expectRefusal(await t.api('savings.getLeaderboard', { limit: 0 }, ann.token), commonErrors.rows.invalid);
    const defaults = await board(ann, {});
    expect([defaults.type, defaults.period]).toEqual(['savings', 'week']);
    await ok(t, 'savings.setPreferences', { leaderboardOptIn: false }, dan.token);
    try {
      const after = await board(ann, { type: 'streak', period: 'week' });
      expect(after.participants).toBe(2);
      expect(JSON.stringify(after)).not.toContain(dan.username);
    } finally {
      await ok(t, 'savings.setPreferences', { leaderboardOptIn: true }, dan.token);
    }
  });
});
