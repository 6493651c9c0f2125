import { Type, type Static } from '@sinclair/typebox';
import { Result, Shape } from '../api/result';
import { ACHIEVEMENT_CATEGORIES } from './catalogue';
import { LEADERBOARD_PERIODS, LEADERBOARD_TYPES } from './game-economy';
import { HISTORY_RANGES } from './market';
import { GOAL_CATEGORIES, GOAL_PRIORITIES, GOAL_STATUSES, REWARD_REASONS, TRADE_KINDS } from './schema';

/** Result shapes of savings.* (server/api/result.ts): goal amounts in major units of the goal's currency, game money in coins, times in ms. */

const literals = <V extends string>(values: readonly V[], description?: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    description ? { description } : {},
  );
const Ms = (description = 'ms') => Type.Integer({ description });
const Coins = (description = 'coins') => Type.Number({ description });
const Inexact = Type.Array(Type.String(), {
  description: 'paths of the figures beyond the exact range (±10,000,000,000,000.00 coins) or from a wallet whose sums lost precision: those are the nearest number',
});

const goalFields = {
  id: Type.String(),
  title: Type.String(),
  description: Type.String(),
  currency: Type.String({ description: 'ISO 4217 code' }),
  targetAmount: Type.Number({ description: "major units of the goal's currency" }),
  currentAmount: Type.Number({ description: 'saved so far, major units' }),
  remainingAmount: Type.Number({ description: 'still to save, major units' }),
  percent: Type.Number({ description: 'of the target saved, 1 decimal' }),
  category: literals(GOAL_CATEGORIES),
  priority: literals(GOAL_PRIORITIES),
  isPublic: Type.Boolean({ description: "the title and percent (never the amounts) may appear next to the owner's name on the leaderboard" }),
  status: literals(GOAL_STATUSES, 'an open goal past its end date is expired'),
  startDate: Ms(),
  endDate: Ms('the deadline (ms)'),
  completedAt: Type.Union([Ms(), Type.Null()], { description: 'ms; null until completed' }),
  daysLeft: Type.Integer({ description: 'whole days until endDate (0 once completed)' }),
  expectedAmount: Type.Number({ description: 'where a straight line from start to end would be today, major units' }),
  onTrack: Type.Boolean({ description: 'at or above `expectedAmount` (or completed)' }),
  pace: literals(['completed', 'on_track', 'behind'] as const),
  dailyNeeded: Type.Number({ description: 'what to save per remaining day to finish on time, major units (0 once completed)' }),
  contributionCount: Type.Integer({ description: 'progress updates so far' }),
  lastContributionAt: Type.Union([Ms(), Type.Null()], { description: 'ms; null before the first' }),
  createdAt: Ms(),
  updatedAt: Ms(),
};

export const GoalShape = Shape('Goal', goalFields, "A savings goal with its progress; amounts in major units of the goal's currency.");
export type GoalView = Static<typeof GoalShape>;

const RewardShape = Shape(
  'Reward',
  {
    reason: literals(REWARD_REASONS),
    ref: Type.String({ description: 'what it was for: a goal id, an achievement id, a day' }),
    coins: Coins(),
    note: Type.String(),
  },
  'Coins credited by the call.',
);
export type RewardView = Static<typeof RewardShape>;

const rewards = Type.Array(RewardShape, { description: 'coins credited by this call' });

export const GoalWithRewards = Result({ ...goalFields, rewards }, { description: 'the Goal, plus the rewards this call credited' });

export const GoalList = Result({ list: Type.Array(GoalShape, { description: 'newest first' }), total: Type.Integer(), page: Type.Integer(), pageSize: Type.Integer() });

export const GoalDeleted = Result({ deleted: Type.Literal(true), id: Type.String() });

export const MarketListing = Result({
  asOf: Ms('start of the current 5-minute price step (ms)'),
  nextUpdateAt: Ms('when prices move next (ms)'),
  stepMinutes: Type.Integer({ description: 'minutes between price moves' }),
  stocks: Type.Array(
    Result({
      id: Type.String(),
      name: Type.String(),
      sector: Type.String(),
      description: Type.String(),
      price: Coins(),
      previousPrice: Coins('24 hours ago, coins'),
      change: Coins('over the last 24 hours, coins'),
      changePercent: Type.Number({ description: 'over the last 24 hours, 2 decimals' }),
    }),
  ),
});

export const StockHistory = Result({
  stockId: Type.String(),
  name: Type.String(),
  range: literals(Object.keys(HISTORY_RANGES) as Array<keyof typeof HISTORY_RANGES>),
  interval: Ms('between points (ms)'),
  points: Type.Array(Result({ time: Ms(), price: Coins() }), { description: 'oldest first; the last is the current price' }),
  open: Coins(),
  close: Coins(),
  high: Coins(),
  low: Coins(),
  change: Coins('close − open, coins'),
  changePercent: Type.Number({ description: '2 decimals' }),
});

const tradeFields = {
  id: Type.String(),
  kind: literals(TRADE_KINDS),
  reason: literals(REWARD_REASONS, "why coins were credited ('' for buys and sells)"),
  ref: Type.String({ description: 'what a reward was for (goal id, achievement id, day)' }),
  stockId: Type.String({ description: "'' for grants and rewards" }),
  quantity: Type.Integer({ description: 'shares (0 for grants and rewards)' }),
  price: Coins('per share, coins'),
  amount: Coins('the change of cash, coins'),
  note: Type.String(),
  createdAt: Ms(),
};

const PositionShape = Shape(
  'Position',
  {
    stockId: Type.String(),
    name: Type.String(),
    sector: Type.String(),
    quantity: Type.Integer({ description: 'shares held' }),
    averageCost: Coins('per share, coins'),
    costBasis: Coins(),
    price: Coins('current price, coins'),
    marketValue: Coins(),
    unrealizedProfit: Coins(),
    unrealizedPercent: Type.Number({ description: '2 decimals' }),
    realizedProfit: Coins(),
    inexact: Type.Optional(Inexact),
  },
  'Shares of one stock (average-cost method), in coins.',
);

export const TradeAnswer = Result({
  trade: Result(tradeFields),
  cash: Coins('cash after the trade, coins'),
  position: PositionShape,
  rewards,
});

export const Wallet = Result({
  unit: Type.Literal('coins'),
  cash: Coins(),
  invested: Coins('the cost of the shares held, coins'),
  holdingsValue: Coins('the shares held at current prices, coins'),
  totalValue: Coins('cash + holdingsValue, coins'),
  received: Result({ total: Coins(), welcome: Coins(), savingDays: Coins(), goalsCompleted: Coins(), achievements: Coins() }, { description: 'where the coins came from' }),
  history: Result({
    list: Type.Array(Result({ ...tradeFields, balance: Coins('the cash after it, coins') }), { description: 'newest first' }),
    total: Type.Integer(),
    page: Type.Integer(),
    pageSize: Type.Integer(),
  }),
  inexact: Inexact,
});

export const Positions = Result({
  asOf: Ms('start of the current 5-minute price step (ms)'),
  positions: Type.Array(PositionShape),
  totals: Result({
    costBasis: Coins(),
    marketValue: Coins(),
    unrealizedProfit: Coins(),
    unrealizedPercent: Type.Number({ description: '2 decimals' }),
    realizedProfit: Coins(),
    totalProfit: Coins(),
    cash: Coins(),
    totalValue: Coins(),
  }),
  inexact: Inexact,
});

export const Achievements = Result({
  list: Type.Array(
    Result({
      id: Type.String(),
      category: literals(ACHIEVEMENT_CATEGORIES),
      title: Type.String(),
      description: Type.String(),
      progress: Type.Number({ description: 'towards `target`' }),
      target: Type.Number(),
      unit: Type.String({ description: 'word for the progress numbers ("5/7 days")' }),
      completed: Type.Boolean(),
      unlockedAt: Type.Union([Ms(), Type.Null()], { description: 'ms; null while locked' }),
      reward: Coins('credited on unlock, coins'),
    }),
  ),
  summary: Result({
    unlocked: Type.Integer(),
    total: Type.Integer(),
    coinsEarned: Coins('from achievements, coins'),
    bookkeepingStreak: Type.Integer({ description: 'days in a row with records, up to today' }),
    longestBookkeepingStreak: Type.Integer({ description: 'days' }),
  }),
});

export const Leaderboard = Result(
  {
    type: literals(LEADERBOARD_TYPES),
    period: literals(LEADERBOARD_PERIODS),
    unit: Type.String({ description: 'what `score` counts: saving coins, goals completed, % return, days in a row, achievements' }),
    from: Ms('start of the period (ms; 0 for all)'),
    to: Ms('now (ms)'),
    participants: Type.Integer({ description: 'players who opted in' }),
    entries: Type.Array(
      Result({
        rank: Type.Integer(),
        username: Type.String(),
        score: Type.Number(),
        isMe: Type.Boolean(),
        publicGoals: Type.Array(Result({ title: Type.String(), percent: Type.Number({ description: '1 decimal, at most 100' }), status: literals(GOAL_STATUSES) }), {
          description: "the player's public goals (never their amounts)",
        }),
      }),
    ),
    me: Result(
      { rank: Type.Integer(), score: Type.Number(), optedIn: Type.Boolean() },
      { description: 'your rank among them even outside the top `limit` (if you did not opt in: where you would stand, visible only to you)' },
    ),
  },
  { description: 'no real money amount is ever shown' },
);

export const SavingsPrefsShape = Result({
  leaderboardOptIn: Type.Boolean(),
  timeZone: Type.String({ description: 'IANA zone for game days; "" = the zone of the computer PennyPost runs on' }),
  effectiveTimeZone: Type.String({ description: 'the zone days follow now' }),
});
export type SavingsPrefsView = Static<typeof SavingsPrefsShape>;
