import type { GoalDoc } from './schema';

/**
 * The numbers of the savings game (docs/savings-game.md). The credits of this PennyPost and the
 * checks of rewards that arrive by sync (reward-judge.ts) use the same constants and formulas.
 */

export const DAY_MS = 86_400_000;
/** Coins given to every player once, on their first use of the game. */
export const WELCOME_GRANT = 10_000_00;
/** Coins for each day on which the player saved new money (above a goal's previous high). */
export const SAVING_DAY_REWARD = 50_00;
/** Coins per full day a goal was worked on before it was completed (capped), plus 50 % if early. */
export const COMPLETION_REWARD_PER_DAY = 10_00;
export const COMPLETION_REWARD_MAX_DAYS = 100;
/** Open goals (active, paused, expired) one user may have at once. */
export const MAX_OPEN_GOALS = 20;
/** Shares per single buy or sell. */
export const MAX_TRADE_QUANTITY = 1_000_000;

/**
 * The most one goal's completion can pay: 100 days × 10 coins, +50 % when early. A synced
 * completion reward above it is refused before its goal is looked at.
 */
export const MAX_COMPLETION_REWARD = Math.floor((COMPLETION_REWARD_MAX_DAYS * COMPLETION_REWARD_PER_DAY * 3) / 2);

/** Coin cents a completed goal earns: the full days it took (capped), +50 % when before its end date. */
export function completionReward(goal: Pick<GoalDoc, 'createdAt' | 'completedAt' | 'endDate'>): number {
  const days = Math.min(COMPLETION_REWARD_MAX_DAYS, Math.max(0, Math.floor((goal.completedAt - goal.createdAt) / DAY_MS)));
  const base = days * COMPLETION_REWARD_PER_DAY;
  return goal.completedAt < goal.endDate ? Math.floor((base * 3) / 2) : base;
}

/** What the leaderboard ranks by, and over which period (savings.getLeaderboard). */
export const LEADERBOARD_TYPES = ['savings', 'goals', 'portfolio', 'streak', 'achievements'] as const;
export type LeaderboardType = (typeof LEADERBOARD_TYPES)[number];
export const LEADERBOARD_PERIODS = ['week', 'month', 'all'] as const;
export type LeaderboardPeriod = (typeof LEADERBOARD_PERIODS)[number];
