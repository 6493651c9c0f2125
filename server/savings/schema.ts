import { Type, type Static } from '@sinclair/typebox';
import { defineCollection } from '../db/collections';
import { Bool, EnumOf, IdField, Int, Ms, Str } from '../db/schema-fields';

/**
 * The savings game's collections. They sync to mobile clients, so every document is
 * self-contained: `userId`, integer ms timestamps, money as integer minor units (goal amounts in
 * the goal's currency; virtual cash in coin cents, 1 coin = 100 cents). Fields are only ever added
 * (with a schema version bump and a migration).
 */

export const GOAL_CATEGORIES = ['emergency', 'travel', 'home', 'car', 'education', 'wedding', 'retirement', 'health', 'gadget', 'gift', 'investment', 'other'] as const;
export type GoalCategory = (typeof GOAL_CATEGORIES)[number];

export const GOAL_PRIORITIES = ['low', 'medium', 'high'] as const;
export type GoalPriority = (typeof GOAL_PRIORITIES)[number];

/** Stored statuses. "expired" is derived when reading (an open goal past its end date). */
export const STORED_GOAL_STATUSES = ['active', 'paused', 'cancelled', 'completed'] as const;
export type StoredGoalStatus = (typeof STORED_GOAL_STATUSES)[number];
export const GOAL_STATUSES = ['active', 'paused', 'cancelled', 'completed', 'expired'] as const;
export type GoalStatus = (typeof GOAL_STATUSES)[number];

export const GoalDocument = Type.Object({
  id: IdField(),
  userId: IdField(),
  title: Str(100),
  description: Str(1000),
  /** ISO 4217 code; the goal's amounts are minor units of it. */
  currency: Str(3),
  targetAmount: Int(1, 1e15),
  /** Saved so far (contributions − withdrawals), ≥ 0. */
  currentAmount: Int(0, 1e15),
  /** Highest currentAmount ever reached: saving rewards are paid only above it. */
  peakAmount: Int(0, 1e15),
  category: EnumOf(GOAL_CATEGORIES),
  priority: EnumOf(GOAL_PRIORITIES),
  isPublic: Bool(),
  status: EnumOf(STORED_GOAL_STATUSES),
  startDate: Ms(),
  endDate: Ms(),
  /** When the target was reached; 0 while not completed. */
  completedAt: Ms(),
  contributionCount: Int(0, 1e9),
  /** 0 when there was none. */
  lastContributionAt: Ms(),
  createdAt: Ms(),
  updatedAt: Ms(),
});
export type GoalDoc = Static<typeof GoalDocument>;

export const TRADE_KINDS = ['grant', 'reward', 'buy', 'sell'] as const;

/** Why coins were credited (kind grant/reward); '' for buys and sells. */
export const REWARD_REASONS = ['', 'welcome', 'saving_day', 'goal_completed', 'achievement'] as const;
export type RewardReason = (typeof REWARD_REASONS)[number];

/**
 * One entry of the append-only wallet log. Entries are never changed or deleted; cash,
 * positions, average costs and realised profit are all derived by replaying the log in
 * (createdAt, id) order. Rewards carry deterministic ids (`<userId>:<reason>:<ref>`), so the same
 * reward can never be written twice, on this computer or by a synced device.
 */
export const TradeDocument = Type.Object({
  id: Str(120),
  userId: IdField(),
  kind: EnumOf(TRADE_KINDS, 10),
  reason: EnumOf(REWARD_REASONS),
  /** What a reward was for: goal id, achievement id, day (YYYY-MM-DD), 'grant' for the welcome grant; '' for trades. */
  ref: Str(64),
  /** '' for grants and rewards. */
  stockId: Str(16),
  /** Shares bought or sold; 0 for grants and rewards. */
  quantity: Int(0, 1e9),
  /** Price per share in coin cents; 0 for grants and rewards. */
  price: Int(0, 1e15),
  /** Change of the wallet's cash in coin cents: + for grants, rewards and sells, − for buys. */
  cash: Int(-1e15, 1e15),
  /** Short text shown in the wallet history. */
  note: Str(200),
  createdAt: Ms(),
});
export type TradeDoc = Static<typeof TradeDocument>;

export const AchievementDocument = Type.Object({
  /** `<userId>:<achievementId>`: one unlock per user and achievement. */
  id: Str(120),
  userId: IdField(),
  achievementId: Str(40),
  unlockedAt: Ms(),
  /** Coin cents credited with the unlock. */
  reward: Int(0, 1e15),
  createdAt: Ms(),
  updatedAt: Ms(),
});
export type AchievementDoc = Static<typeof AchievementDocument>;

export const goalsCollection = defineCollection({
  name: 'goals',
  version: 0,
  primaryKey: 'id',
  document: GoalDocument,
  indexes: [['userId', 'createdAt']],
  sync: true,
});

export const tradesCollection = defineCollection({
  name: 'trades',
  version: 0,
  primaryKey: 'id',
  document: TradeDocument,
  indexes: [['userId', 'createdAt']],
  sync: true,
});

export const achievementsCollection = defineCollection({
  name: 'achievements',
  version: 0,
  primaryKey: 'id',
  document: AchievementDocument,
  indexes: [['userId', 'unlockedAt']],
  sync: true,
});

export const savingsCollections = [goalsCollection, tradesCollection, achievementsCollection];
