import { Type, type TSchema } from '@sinclair/typebox';
import { defineAction, defineActions, Params } from '../api/action';
import { ACHIEVEMENT_CATEGORIES } from './catalogue';
import { HISTORY_RANGES } from './market';
import { GOAL_CATEGORIES, GOAL_PRIORITIES, GOAL_STATUSES } from './schema';
import {
  COMPLETION_REWARD_MAX_DAYS,
  COMPLETION_REWARD_PER_DAY,
  LEADERBOARD_PERIODS,
  LEADERBOARD_TYPES,
  MAX_OPEN_GOALS,
  MAX_TRADE_QUANTITY,
  SAVING_DAY_REWARD,
  WELCOME_GRANT,
  type SavingsService,
} from './service';

declare module '../app-context' {
  interface ServiceMap {
    savings: SavingsService;
  }
}

const oneOf = <T extends string>(values: readonly T[], options: Record<string, unknown> = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options }) as TSchema & { static: T };

const Ms = (description: string) => Type.Integer({ minimum: 0, maximum: 8.64e15, description });
const GoalId = Type.String({ minLength: 1, maxLength: 40, description: 'Id of one of your goals.' });
const StockId = Type.String({ minLength: 1, maxLength: 16, description: 'Stock id from savings.getMarket, e.g. "PNYP".' });
const Quantity = Type.Integer({ minimum: 1, maximum: MAX_TRADE_QUANTITY, description: 'Whole shares.' });
const Page = Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 });
const PageSize = Type.Integer({ minimum: 1, maximum: 100, default: 20 });
const Title = Type.String({ minLength: 1, maxLength: 100, description: 'Goal name, e.g. "Trip to Japan".' });
const Description = Type.String({ maxLength: 1000 });
const Amount = (description: string) => Type.Number({ description });

const GOAL_OBJECT =
  'Goal: `{id, title, description, currency, targetAmount, currentAmount, remainingAmount, percent, category, priority, isPublic, ' +
  'status, startDate, endDate, completedAt, daysLeft, expectedAmount, onTrack, pace, dailyNeeded, contributionCount, lastContributionAt, ' +
  'createdAt, updatedAt}` — amounts in major units of the goal\'s currency; `status` is active, paused, cancelled, completed or expired; ' +
  '`pace` is completed, on_track or behind (`expectedAmount` is where a straight line from start to end would be today); ' +
  '`dailyNeeded` is what to save per remaining day to finish on time.';
const REWARDS = '`rewards`: coins credited by this call, `[{reason, ref, coins, note}]`';
const POSITION_OBJECT =
  '`{stockId, name, sector, quantity, averageCost, costBasis, price, marketValue, unrealizedProfit, unrealizedPercent, realizedProfit}` (coins)';

const GOAL_FIELDS = {
  category: `Categories: ${GOAL_CATEGORIES.join(', ')}. Priorities: ${GOAL_PRIORITIES.join(', ')}.`,
};

const createGoal = defineAction({
  summary: 'Create a savings goal.',
  notes:
    `${GOAL_FIELDS.category} The currency defaults to your ledger base currency (USD when none is set); amounts follow its decimals. ` +
    `At most ${MAX_OPEN_GOALS} open goals (active or paused) at a time. \`isPublic\` lets the goal's title and percent (never its amounts) appear next to your name on the leaderboard, if you opted in. ` +
    'Rules of the game: docs/savings-game.md.',
  auth: 'user',
  params: Params({
    title: Title,
    description: Type.Optional(Description),
    targetAmount: Amount('Amount to reach, > 0, major units.'),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code.' })),
    startDate: Type.Optional(Ms('Default: now.')),
    endDate: Ms('Deadline; after startDate and in the future.'),
    category: Type.Optional(oneOf(GOAL_CATEGORIES, { default: 'other' })),
    priority: Type.Optional(oneOf(GOAL_PRIORITIES, { default: 'medium' })),
    isPublic: Type.Optional(Type.Boolean({ default: false })),
  }),
  returns: `${GOAL_OBJECT}, plus ${REWARDS}.`,
  errors: [
    [400, 'invalid params: unknown category or priority, endDate not after startDate or not in the future, too many decimals, unknown currency'],
    [3003, 'targetAmount is 0 or negative'],
    [409, `you already have ${MAX_OPEN_GOALS} open goals`],
  ],
  handler: (p, ctx) => ctx.app.services.savings.createGoal(ctx.user.id, p),
});

const queryGoals = defineAction({
  summary: 'List your goals with their progress, newest first.',
  auth: 'user',
  params: Params({
    status: Type.Optional(oneOf(GOAL_STATUSES)),
    category: Type.Optional(oneOf(GOAL_CATEGORIES)),
    page: Type.Optional(Page),
    pageSize: Type.Optional(PageSize),
  }),
  returns: '`{list: Goal[], total, page, pageSize}` (Goal as in savings.createGoal).',
  errors: [[400, 'unknown status or category, page or pageSize out of range']],
  handler: (p, ctx) => ctx.app.services.savings.queryGoals(ctx.user.id, { status: p.status, category: p.category, page: p.page ?? 1, pageSize: p.pageSize ?? 20 }),
});

const getGoal = defineAction({
  summary: 'One of your goals with its progress.',
  auth: 'user',
  params: Params({ goalId: GoalId }),
  returns: 'Goal (as in savings.createGoal).',
  errors: [[4001, 'no such goal, or it is another user\'s']],
  handler: (p, ctx) => ctx.app.services.savings.getGoal(ctx.user.id, p.goalId),
});

const updateProgress = defineAction({
  summary: 'Add money to a goal (positive amount) or take some out (negative amount).',
  notes:
    'Reaching the target completes the goal (status completed, `completedAt` set); a completed goal is final. ' +
    `Rewards: ${SAVING_DAY_REWARD / 100} coins once per day on which your goal reaches a new high (withdrawing and re-adding the same money earns nothing); ` +
    `on completion ${COMPLETION_REWARD_PER_DAY / 100} coins per full day since the goal was created (up to ${COMPLETION_REWARD_MAX_DAYS} days), +50 % when completed before the end date.`,
  auth: 'user',
  params: Params({ goalId: GoalId, amount: Amount('Major units of the goal\'s currency; negative to withdraw.') }),
  returns: `Goal (as in savings.createGoal), plus ${REWARDS}.`,
  errors: [
    [4001, 'no such goal, or it is another user\'s'],
    [4002, 'the goal is completed'],
    [3003, 'amount is 0'],
    [400, 'more decimals than the goal\'s currency has'],
    [409, 'the withdrawal would take the goal below zero (`data.currentAmount` says how much there is), or the goal is paused or cancelled'],
  ],
  handler: (p, ctx) => ctx.app.services.savings.updateProgress(ctx.user.id, p.goalId, p.amount),
});

const updateGoal = defineAction({
  summary: 'Change a goal: its texts, target, dates, category, priority, visibility, or status (pause, resume, cancel).',
  notes:
    'Status moves: active ⇄ paused, active/paused → cancelled, cancelled → active. A target lowered to what is already saved completes the goal. ' +
    'The currency cannot change. Completed goals cannot change at all (4002).',
  auth: 'user',
  params: Params({
    goalId: GoalId,
    title: Type.Optional(Title),
    description: Type.Optional(Description),
    targetAmount: Type.Optional(Amount('New target, > 0.')),
    startDate: Type.Optional(Ms('New start.')),
    endDate: Type.Optional(Ms('New deadline, in the future.')),
    category: Type.Optional(oneOf(GOAL_CATEGORIES)),
    priority: Type.Optional(oneOf(GOAL_PRIORITIES)),
    isPublic: Type.Optional(Type.Boolean()),
    status: Type.Optional(oneOf(['active', 'paused', 'cancelled'] as const)),
  }),
  returns: `Goal (as in savings.createGoal), plus ${REWARDS}.`,
  errors: [
    [4001, 'no such goal, or it is another user\'s'],
    [4002, 'the goal is completed'],
    [400, 'invalid params (dates, category, priority, status, decimals)'],
    [3003, 'targetAmount is 0 or negative'],
    [409, `reactivating would exceed ${MAX_OPEN_GOALS} open goals`],
  ],
  handler: (p, ctx) => {
    const { goalId, ...patch } = p;
    return ctx.app.services.savings.updateGoal(ctx.user.id, goalId, patch);
  },
});

const deleteGoal = defineAction({
  summary: 'Delete a goal that is not completed. Coins it already earned stay in your wallet.',
  auth: 'user',
  params: Params({ goalId: GoalId }),
  returns: '`{deleted: true, id}`',
  errors: [
    [4001, 'no such goal, or it is another user\'s'],
    [4002, 'the goal is completed'],
  ],
  handler: (p, ctx) => ctx.app.services.savings.deleteGoal(ctx.user.id, p.goalId),
});

const getMarket = defineAction({
  summary: 'The virtual stocks with their current price and the change over the last 24 hours.',
  notes: 'Prices move every 5 minutes and are the same for everyone on this PennyPost, before and after restarts. Prices are in coins.',
  auth: 'user',
  params: Params({}),
  returns: '`{asOf, nextUpdateAt, stepMinutes, stocks: [{id, name, sector, description, price, previousPrice, change, changePercent}]}`',
  handler: (_p, ctx) => ctx.app.services.savings.getMarket(),
});

const getStockHistory = defineAction({
  summary: 'Price history of one stock, for a chart.',
  notes: `Ranges: day (5-minute points), week (hourly), month (every 4 hours), year (daily). The last point is the current price.`,
  auth: 'user',
  params: Params({ stockId: StockId, range: Type.Optional(oneOf(Object.keys(HISTORY_RANGES) as Array<keyof typeof HISTORY_RANGES>, { default: 'day' })) }),
  returns: '`{stockId, name, range, interval (ms), points: [{time, price}], open, close, high, low, change, changePercent}`',
  errors: [
    [404, 'no such stock'],
    [400, 'unknown range'],
  ],
  handler: (p, ctx) => ctx.app.services.savings.getStockHistory(p.stockId, p.range ?? 'day'),
});

const buyStock = defineAction({
  summary: 'Buy whole shares at the current price with virtual coins.',
  notes: 'No fees. The price is the one shown by savings.getMarket for the current 5-minute step.',
  auth: 'user',
  params: Params({ stockId: StockId, quantity: Quantity }),
  returns: `\`{trade: {id, kind, reason, ref, stockId, quantity, price, amount, note, createdAt}, cash, position: ${POSITION_OBJECT}, rewards}\``,
  errors: [
    [404, 'no such stock'],
    [4003, 'not enough coins (`data`: cash, cost, price, maxQuantity)'],
    [400, 'quantity is not a whole number from 1 to 1,000,000'],
  ],
  handler: (p, ctx) => ctx.app.services.savings.buy(ctx.user.id, p.stockId, p.quantity),
});

const sellStock = defineAction({
  summary: 'Sell whole shares you hold at the current price.',
  auth: 'user',
  params: Params({ stockId: StockId, quantity: Quantity }),
  returns: 'As savings.buyStock.',
  errors: [
    [404, 'no such stock'],
    [409, 'selling more shares than you hold (`data.held`)'],
    [400, 'quantity is not a whole number from 1 to 1,000,000'],
  ],
  handler: (p, ctx) => ctx.app.services.savings.sell(ctx.user.id, p.stockId, p.quantity),
});

const getWallet = defineAction({
  summary: 'Your virtual coins: cash, where they came from, and the wallet history (newest first).',
  notes: `Every player starts with a one-time grant of ${WELCOME_GRANT / 100} coins. The wallet is computed from the append-only log of grants, rewards, buys and sells.`,
  auth: 'user',
  params: Params({ page: Type.Optional(Page), pageSize: Type.Optional(PageSize) }),
  returns:
    '`{unit: "coins", cash, invested, holdingsValue, totalValue, received: {total, welcome, savingDays, goalsCompleted, achievements}, ' +
    'history: {list: [{id, kind, reason, ref, stockId, quantity, price, amount, balance, note, createdAt}], total, page, pageSize}}` — `amount` is the change of cash, `balance` the cash after it; `ref` says what a reward was for (goal id, achievement id, day).',
  errors: [[400, 'page or pageSize out of range']],
  handler: (p, ctx) => ctx.app.services.savings.getWallet(ctx.user.id, p.page ?? 1, p.pageSize ?? 20),
});

const getPositions = defineAction({
  summary: 'Your shares: quantity, average cost, market value, unrealised and realised profit per stock, and totals.',
  notes: 'Average-cost method: selling removes the sold shares\' share of the cost. `includeClosed` also lists stocks you sold completely (for their realised profit).',
  auth: 'user',
  params: Params({ includeClosed: Type.Optional(Type.Boolean({ default: false })) }),
  returns: `\`{asOf, positions: [${POSITION_OBJECT}], totals: {costBasis, marketValue, unrealizedProfit, unrealizedPercent, realizedProfit, totalProfit, cash, totalValue}}\``,
  handler: (p, ctx) => ctx.app.services.savings.getPositions(ctx.user.id, p.includeClosed ?? false),
});

const getAchievements = defineAction({
  summary: 'The achievements catalogue with your progress, unlock times and rewards.',
  notes: `Categories: ${ACHIEVEMENT_CATEGORIES.join(', ')}. Bookkeeping achievements count your ledger records, however they arrived (typed, imported or synced).`,
  auth: 'user',
  params: Params({ category: Type.Optional(oneOf(ACHIEVEMENT_CATEGORIES)), completed: Type.Optional(Type.Boolean()) }),
  returns:
    '`{list: [{id, category, title, description, progress, target, unit, completed, unlockedAt, reward}], ' +
    'summary: {unlocked, total, coinsEarned, bookkeepingStreak, longestBookkeepingStreak}}`',
  errors: [[400, 'unknown category']],
  handler: (p, ctx) => ctx.app.services.savings.getAchievements(ctx.user.id, p),
});

const getLeaderboard = defineAction({
  summary: 'Rank the players of this PennyPost who opted in, with your own rank.',
  notes:
    'Types: savings (coins earned by saving: saving days and completed goals), goals (goals completed), portfolio (% return of the virtual portfolio), ' +
    'streak (longest run of bookkeeping days), achievements (unlocked). Periods: week (since Monday), month (since the 1st), all. ' +
    'Only players who opted in (savings.setPreferences) are ranked; no real money amount is ever shown. `me` is your rank among them even outside the top `limit` ' +
    '(if you did not opt in, where you would stand, visible only to you).',
  auth: 'user',
  params: Params({
    type: Type.Optional(oneOf(LEADERBOARD_TYPES, { default: 'savings' })),
    period: Type.Optional(oneOf(LEADERBOARD_PERIODS, { default: 'week' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
  }),
  returns: '`{type, period, unit, from, to, participants, entries: [{rank, username, score, isMe, publicGoals: [{title, percent, status}]}], me: {rank, score, optedIn}}`',
  errors: [[400, 'unknown type or period']],
  handler: (p, ctx) => ctx.app.services.savings.getLeaderboard(ctx.user.id, p.type ?? 'savings', p.period ?? 'week', p.limit ?? 10),
});

const setPreferences = defineAction({
  summary: 'Opt in to (or out of) the leaderboard, and set the time zone your game days follow.',
  notes: 'Days (streaks, saving days, leaderboard weeks and months) follow `timeZone`; "" means the zone of the computer PennyPost runs on.',
  auth: 'user',
  params: Params({
    leaderboardOptIn: Type.Optional(Type.Boolean()),
    timeZone: Type.Optional(Type.String({ maxLength: 64, description: 'IANA name such as "Asia/Shanghai", or "".' })),
  }),
  returns: '`{leaderboardOptIn, timeZone, effectiveTimeZone}`',
  errors: [[400, 'unknown time zone']],
  handler: (p, ctx) => ctx.app.services.savings.setPrefs(ctx.user.id, p),
});

const getPreferences = defineAction({
  summary: 'Your savings-game preferences.',
  auth: 'user',
  params: Params({}),
  returns: '`{leaderboardOptIn, timeZone, effectiveTimeZone}`',
  handler: (_p, ctx) => ctx.app.services.savings.preferences(ctx.user.id),
});

export const savingsActions = defineActions({
  'savings.createGoal': createGoal,
  'savings.queryGoals': queryGoals,
  'savings.getGoal': getGoal,
  'savings.updateProgress': updateProgress,
  'savings.updateGoal': updateGoal,
  'savings.deleteGoal': deleteGoal,
  'savings.getMarket': getMarket,
  'savings.getStockHistory': getStockHistory,
  'savings.buyStock': buyStock,
  'savings.sellStock': sellStock,
  'savings.getWallet': getWallet,
  'savings.getPositions': getPositions,
  'savings.getAchievements': getAchievements,
  'savings.getLeaderboard': getLeaderboard,
  'savings.setPreferences': setPreferences,
  'savings.getPreferences': getPreferences,
});
