import type { CollectionDefinition } from '../db/collections';
import { enumOf, idField as id, int, ms, str } from '../db/schema-fields';

/**
 * The savings game's collections. They sync to mobile clients, so every document is
 * self-contained: `userId`, integer ms timestamps, money as integer minor units (goal amounts in
 * the goal's currency; virtual cash in coin cents, 1 coin = 100 cents). Fields are only ever added
 * (with a schema version bump and a migration).
 */

export const GOAL_CATEGORIES = [
  'emergency', 'travel', 'home', 'car', 'education', 'wedding', 'retirement', 'health', 'gadget', 'gift', 'investment', 'other',
] as const;
export type GoalCategory = (typeof GOAL_CATEGORIES)[number];

export const GOAL_PRIORITIES = ['low', 'medium', 'high'] as const;
export type GoalPriority = (typeof GOAL_PRIORITIES)[number];

/** Stored statuses. "expired" is derived when reading (an open goal past its end date). */
export const STORED_GOAL_STATUSES = ['active', 'paused', 'cancelled', 'completed'] as const;
export type StoredGoalStatus = (typeof STORED_GOAL_STATUSES)[number];
export const GOAL_STATUSES = ['active', 'paused', 'cancelled', 'completed', 'expired'] as const;
export type GoalStatus = (typeof GOAL_STATUSES)[number];

export interface GoalDoc {
  id: string;
  userId: string;
  title: string;
  description: string;
  /** ISO 4217 code; the goal's amounts are minor units of it. */
  currency: string;
  targetAmount: number;
  /** Saved so far (contributions − withdrawals), ≥ 0. */
  currentAmount: number;
  /** Highest currentAmount ever reached: saving rewards are paid only above it. */
  peakAmount: number;
  category: GoalCategory;
  priority: GoalPriority;
  isPublic: boolean;
  status: StoredGoalStatus;
  startDate: number;
  endDate: number;
  /** When the target was reached; 0 while not completed. */
  completedAt: number;
  contributionCount: number;
  /** 0 when there was none. */
  lastContributionAt: number;
  createdAt: number;
  updatedAt: number;
}

export const TRADE_KINDS = ['grant', 'reward', 'buy', 'sell'] as const;
export type TradeKind = (typeof TRADE_KINDS)[number];

/** Why coins were credited (kind grant/reward); '' for buys and sells. */
export const REWARD_REASONS = ['', 'welcome', 'saving_day', 'goal_completed', 'achievement'] as const;
export type RewardReason = (typeof REWARD_REASONS)[number];

/**
 * One entry of the append-only wallet log. Entries are never changed or deleted; cash,
 * positions, average costs and realised profit are all derived by replaying the log in
 * (createdAt, id) order. Rewards carry deterministic ids (`<userId>:<reason>:<ref>`), so the same
 * reward can never be written twice, on this computer or by a synced device.
 */
export interface TradeDoc {
  id: string;
  userId: string;
  kind: TradeKind;
  reason: RewardReason;
  /** What a reward was for: goal id, achievement id, day (YYYY-MM-DD), 'grant' for the welcome grant; '' for trades. */
  ref: string;
  /** '' for grants and rewards. */
  stockId: string;
  /** Shares bought or sold; 0 for grants and rewards. */
  quantity: number;
  /** Price per share in coin cents; 0 for grants and rewards. */
  price: number;
  /** Change of the wallet's cash in coin cents: + for grants, rewards and sells, − for buys. */
  cash: number;
  /** Short text shown in the wallet history. */
  note: string;
  createdAt: number;
}

export interface AchievementDoc {
  /** `<userId>:<achievementId>`: one unlock per user and achievement. */
  id: string;
  userId: string;
  achievementId: string;
  unlockedAt: number;
  /** Coin cents credited with the unlock. */
  reward: number;
  createdAt: number;
  updatedAt: number;
}


export const goalsCollection: CollectionDefinition<GoalDoc> = {
  name: 'goals',
  sync: true,
  schema: {
    version: 0,
    primaryKey: 'id',
    type: 'object',
    properties: {
      id,
      userId: id,
      title: str(100),
      description: str(1000),
      currency: str(3),
      targetAmount: int(1, 1e15),
      currentAmount: int(0, 1e15),
      peakAmount: int(0, 1e15),
      category: enumOf(GOAL_CATEGORIES),
      priority: enumOf(GOAL_PRIORITIES),
      isPublic: { type: 'boolean' },
      status: enumOf(STORED_GOAL_STATUSES),
      startDate: ms,
      endDate: ms,
      completedAt: ms,
      contributionCount: int(0, 1e9),
      lastContributionAt: ms,
      createdAt: ms,
      updatedAt: ms,
    },
    required: [
      'id', 'userId', 'title', 'description', 'currency', 'targetAmount', 'currentAmount', 'peakAmount', 'category', 'priority',
      'isPublic', 'status', 'startDate', 'endDate', 'completedAt', 'contributionCount', 'lastContributionAt', 'createdAt', 'updatedAt',
    ],
    indexes: [['userId', 'createdAt']],
  } as any,
};

export const tradesCollection: CollectionDefinition<TradeDoc> = {
  name: 'trades',
  sync: true,
  schema: {
    version: 0,
    primaryKey: 'id',
    type: 'object',
    properties: {
      id: str(120),
      userId: id,
      kind: enumOf(TRADE_KINDS, 10),
      reason: enumOf(REWARD_REASONS),
      ref: str(64),
      stockId: str(16),
      quantity: int(0, 1e9),
      price: int(0, 1e15),
      cash: int(-1e15, 1e15),
      note: str(200),
      createdAt: ms,
    },
    required: ['id', 'userId', 'kind', 'reason', 'ref', 'stockId', 'quantity', 'price', 'cash', 'note', 'createdAt'],
    indexes: [['userId', 'createdAt']],
  } as any,
};

export const achievementsCollection: CollectionDefinition<AchievementDoc> = {
  name: 'achievements',
  sync: true,
  schema: {
    version: 0,
    primaryKey: 'id',
    type: 'object',
    properties: {
      id: str(120),
      userId: id,
      achievementId: str(40),
      unlockedAt: ms,
      reward: int(0, 1e15),
      createdAt: ms,
      updatedAt: ms,
    },
    required: ['id', 'userId', 'achievementId', 'unlockedAt', 'reward', 'createdAt', 'updatedAt'],
    indexes: [['userId', 'unlockedAt']],
  } as any,
};

export const savingsCollections = [goalsCollection, tradesCollection, achievementsCollection];
