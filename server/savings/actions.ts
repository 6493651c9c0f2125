import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params } from '../api/action';
import { Currency, Id, Money, Ms, OneOf, Page, PageSize, Text } from '../api/params';
import { commonErrors } from '../lib/errors';
import { ACHIEVEMENT_CATEGORIES } from './catalogue';
import { savingsErrors } from './errors';
import {
  COMPLETION_REWARD_MAX_DAYS,
  COMPLETION_REWARD_PER_DAY,
  LEADERBOARD_PERIODS,
  LEADERBOARD_TYPES,
  MAX_OPEN_GOALS,
  MAX_TRADE_QUANTITY,
  SAVING_DAY_REWARD,
  WELCOME_GRANT,
} from './game-economy';
import { HISTORY_RANGES } from './market';
import {
  Achievements,
  GoalDeleted,
  GoalList,
  GoalShape,
  GoalWithRewards,
  Leaderboard,
  MarketListing,
  Positions,
  SavingsPrefsShape,
  StockHistory,
  TradeAnswer,
  Wallet,
} from './result-shapes';
import { GOAL_CATEGORIES, GOAL_PRIORITIES, GOAL_STATUSES } from './schema';
import type { SavingsService } from './service';

declare module '../app-context' {
  interface ServiceMap {
    savings: SavingsService;
  }
}

const GoalId = Id('Id of one of your goals.', 40);
const StockId = Id('Stock id from savings.getMarket, e.g. "PNYP".', 16);
const Quantity = Type.Integer({ minimum: 1, maximum: MAX_TRADE_QUANTITY, description: 'Whole shares.' });
const Title = Text(100, { minLength: 1, description: 'Goal name, e.g. "Trip to Japan".' });
const Description = Text(1000);

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
    targetAmount: Money('Amount to reach, > 0, major units.'),
    currency: Type.Optional(Currency('ISO 4217 code.')),
    startDate: Type.Optional(Ms('Default: now.')),
    endDate: Ms('Deadline; after startDate and in the future.'),
    category: Type.Optional(OneOf(GOAL_CATEGORIES, { default: 'other' })),
    priority: Type.Optional(OneOf(GOAL_PRIORITIES, { default: 'medium' })),
    isPublic: Type.Optional(Type.Boolean({ default: false })),
  }),
  result: GoalWithRewards,
  errors: [
    [commonErrors.rows.invalid, 'invalid params: unknown category or priority, more decimals than the currency has'],
    [savingsErrors.rows.unknownCurrency, 'unknown currency'],
    [savingsErrors.rows.blankTitle, 'the title is blank'],
    [savingsErrors.rows.endBeforeStart, 'endDate is not after startDate'],
    [savingsErrors.rows.endInThePast, 'endDate is not in the future'],
    [savingsErrors.rows.targetNotPositive, 'targetAmount is 0 or negative'],
    [savingsErrors.rows.tooManyOpenGoals, `you already have ${MAX_OPEN_GOALS} open goals`],
  ],
  handler: (p, ctx) => ctx.app.services.savings.goals.create(ctx.user.id, p),
});

const queryGoals = defineAction({
  summary: 'List your goals with their progress, newest first.',
  auth: 'user',
  params: Params({
    status: Type.Optional(OneOf(GOAL_STATUSES)),
    category: Type.Optional(OneOf(GOAL_CATEGORIES)),
    page: Type.Optional(Page()),
    pageSize: Type.Optional(PageSize(100, 20)),
  }),
  result: GoalList,
  errors: [[commonErrors.rows.invalid, 'unknown status or category, page or pageSize out of range']],
  handler: (p, ctx) => ctx.app.services.savings.goals.query(ctx.user.id, { status: p.status, category: p.category, page: p.page ?? 1, pageSize: p.pageSize ?? 20 }),
});

const getGoal = defineAction({
  summary: 'One of your goals with its progress.',
  auth: 'user',
  params: Params({ goalId: GoalId }),
  result: GoalShape,
  errors: [[savingsErrors.rows.goalNotFound, "no such goal, or it is another user's"]],
  handler: (p, ctx) => ctx.app.services.savings.goals.get(ctx.user.id, p.goalId),
});

const updateProgress = defineAction({
  summary: 'Add money to a goal (positive amount) or take some out (negative amount).',
  notes:
    'Reaching the target completes the goal (status completed, `completedAt` set); a completed goal is final. ' +
    `Rewards: ${SAVING_DAY_REWARD / 100} coins once per day on which your goal reaches a new high (withdrawing and re-adding the same money earns nothing); ` +
    `on completion ${COMPLETION_REWARD_PER_DAY / 100} coins per full day since the goal was created (up to ${COMPLETION_REWARD_MAX_DAYS} days), +50 % when completed before the end date.`,
  auth: 'user',
  params: Params({ goalId: GoalId, amount: Money("Major units of the goal's currency; negative to withdraw.") }),
  result: GoalWithRewards,
  errors: [
    [savingsErrors.rows.goalNotFound, "no such goal, or it is another user's"],
    [savingsErrors.rows.goalCompleted, 'the goal is completed'],
    [savingsErrors.rows.zeroProgress, 'amount is 0'],
    [commonErrors.rows.invalid, "more decimals than the goal's currency has"],
    [savingsErrors.rows.progressTooLarge, 'the goal would hold more than 10^15 minor units'],
    [savingsErrors.rows.withdrawalTooLarge, 'the withdrawal would take the goal below zero (`data.currentAmount` says how much there is)'],
    [savingsErrors.rows.goalNotActive, 'the goal is paused or cancelled'],
  ],
  handler: (p, ctx) => ctx.app.services.savings.goals.updateProgress(ctx.user.id, p.goalId, p.amount),
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
    targetAmount: Type.Optional(Money('New target, > 0.')),
    startDate: Type.Optional(Ms('New start.')),
    endDate: Type.Optional(Ms('New deadline, in the future.')),
    category: Type.Optional(OneOf(GOAL_CATEGORIES)),
    priority: Type.Optional(OneOf(GOAL_PRIORITIES)),
    isPublic: Type.Optional(Type.Boolean()),
    status: Type.Optional(OneOf(['active', 'paused', 'cancelled'] as const)),
  }),
  result: GoalWithRewards,
  errors: [
    [savingsErrors.rows.goalNotFound, "no such goal, or it is another user's"],
    [savingsErrors.rows.goalCompleted, 'the goal is completed'],
    [commonErrors.rows.invalid, 'invalid params (category, priority, status, decimals)'],
    [savingsErrors.rows.blankTitle, 'the title is blank'],
    [savingsErrors.rows.endBeforeStart, 'endDate is not after startDate'],
    [savingsErrors.rows.endInThePast, 'endDate is not in the future'],
    [savingsErrors.rows.targetNotPositive, 'targetAmount is 0 or negative'],
    [savingsErrors.rows.tooManyOpenGoals, `reactivating would exceed ${MAX_OPEN_GOALS} open goals`],
  ],
  handler: (p, ctx) => {
    const { goalId, ...patch } = p;
    return ctx.app.services.savings.goals.update(ctx.user.id, goalId, patch);
  },
});

const deleteGoal = defineAction({
  summary: 'Delete a goal that is not completed. Coins it already earned stay in your wallet.',
  auth: 'user',
  params: Params({ goalId: GoalId }),
  result: GoalDeleted,
  errors: [
    [savingsErrors.rows.goalNotFound, "no such goal, or it is another user's"],
    [savingsErrors.rows.goalCompleted, 'the goal is completed'],
  ],
  handler: (p, ctx) => ctx.app.services.savings.goals.remove(ctx.user.id, p.goalId),
});

const getMarket = defineAction({
  summary: 'The virtual stocks with their current price and the change over the last 24 hours.',
  notes: 'Prices move every 5 minutes and are the same for everyone on this PennyPost, before and after restarts. Prices are in coins.',
  auth: 'user',
  params: Params({}),
  result: MarketListing,
  handler: (_p, ctx) => ctx.app.services.savings.quotes.listing(),
});

const getStockHistory = defineAction({
  summary: 'Price history of one stock, for a chart.',
  notes: `Ranges: day (5-minute points), week (hourly), month (every 4 hours), year (daily). The last point is the current price.`,
  auth: 'user',
  params: Params({ stockId: StockId, range: Type.Optional(OneOf(Object.keys(HISTORY_RANGES) as Array<keyof typeof HISTORY_RANGES>, { default: 'day' })) }),
  result: StockHistory,
  errors: [
    [savingsErrors.rows.stockNotFound, 'no such stock'],
    [commonErrors.rows.invalid, 'unknown range'],
  ],
  handler: (p, ctx) => ctx.app.services.savings.quotes.history(p.stockId, p.range ?? 'day'),
});

const buyStock = defineAction({
  summary: 'Buy whole shares at the current price with virtual coins.',
  notes: 'No fees. The price is the one shown by savings.getMarket for the current 5-minute step.',
  auth: 'user',
  params: Params({ stockId: StockId, quantity: Quantity }),
  result: TradeAnswer,
  errors: [
    [savingsErrors.rows.stockNotFound, 'no such stock'],
    [savingsErrors.rows.insufficientFunds, 'not enough coins (`data`: cash, cost, price, maxQuantity)'],
    [commonErrors.rows.invalid, 'quantity is not a whole number from 1 to 1,000,000'],
  ],
  handler: (p, ctx) => ctx.app.services.savings.trading.buy(ctx.user.id, p.stockId, p.quantity),
});

const sellStock = defineAction({
  summary: 'Sell whole shares you hold at the current price.',
  auth: 'user',
  params: Params({ stockId: StockId, quantity: Quantity }),
  result: TradeAnswer,
  errors: [
    [savingsErrors.rows.stockNotFound, 'no such stock'],
    [savingsErrors.rows.notEnoughShares, 'selling more shares than you hold (`data.held`)'],
    [commonErrors.rows.invalid, 'quantity is not a whole number from 1 to 1,000,000'],
    [savingsErrors.rows.cashBeyondExactRange, 'the sale would take your cash beyond 10,000,000,000,000.00 coins (`data.maxQuantity`: what you can sell)'],
  ],
  handler: (p, ctx) => ctx.app.services.savings.trading.sell(ctx.user.id, p.stockId, p.quantity),
});

const getWallet = defineAction({
  summary: 'Your virtual coins: cash, where they came from, and the wallet history (newest first).',
  notes: `Every player starts with a one-time grant of ${WELCOME_GRANT / 100} coins. The wallet is computed from the append-only log of grants, rewards, buys and sells.`,
  auth: 'user',
  params: Params({ page: Type.Optional(Page()), pageSize: Type.Optional(PageSize(100, 20)) }),
  result: Wallet,
  errors: [[commonErrors.rows.invalid, 'page or pageSize out of range']],
  handler: (p, ctx) => ctx.app.services.savings.trading.wallet(ctx.user.id, p.page ?? 1, p.pageSize ?? 20),
});

const getPositions = defineAction({
  summary: 'Your shares: quantity, average cost, market value, unrealised and realised profit per stock, and totals.',
  notes: "Average-cost method: selling removes the sold shares' share of the cost. `includeClosed` also lists stocks you sold completely (for their realised profit).",
  auth: 'user',
  params: Params({ includeClosed: Type.Optional(Type.Boolean({ default: false })) }),
  result: Positions,
  handler: (p, ctx) => ctx.app.services.savings.trading.positions(ctx.user.id, p.includeClosed ?? false),
});

const getAchievements = defineAction({
  summary: 'The achievements catalogue with your progress, unlock times and rewards.',
  notes: `Categories: ${ACHIEVEMENT_CATEGORIES.join(', ')}. Bookkeeping achievements count your ledger records, however they arrived (typed, imported or synced).`,
  auth: 'user',
  params: Params({ category: Type.Optional(OneOf(ACHIEVEMENT_CATEGORIES)), completed: Type.Optional(Type.Boolean()) }),
  result: Achievements,
  errors: [[commonErrors.rows.invalid, 'unknown category']],
  handler: (p, ctx) => ctx.app.services.savings.achievements.list(ctx.user.id, p),
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
    type: Type.Optional(OneOf(LEADERBOARD_TYPES, { default: 'savings' })),
    period: Type.Optional(OneOf(LEADERBOARD_PERIODS, { default: 'week' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
  }),
  result: Leaderboard,
  errors: [[commonErrors.rows.invalid, 'unknown type or period']],
  handler: (p, ctx) => ctx.app.services.savings.leaderboard.rank(ctx.user.id, p.type ?? 'savings', p.period ?? 'week', p.limit ?? 10),
});

const setPreferences = defineAction({
  summary: 'Opt in to (or out of) the leaderboard, and set the time zone your game days follow.',
  notes: 'Days (streaks, saving days, leaderboard weeks and months) follow `timeZone`; "" means the zone of the computer PennyPost runs on.',
  auth: 'user',
  params: Params({
    leaderboardOptIn: Type.Optional(Type.Boolean()),
    timeZone: Type.Optional(Type.String({ maxLength: 64, description: 'IANA name such as "Asia/Shanghai", or "".' })),
  }),
  result: SavingsPrefsShape,
  errors: [[savingsErrors.rows.unknownTimeZone, 'unknown time zone']],
  handler: (p, ctx) => ctx.app.services.savings.prefs.update(ctx.user.id, p),
});

const getPreferences = defineAction({
  summary: 'Your savings-game preferences.',
  auth: 'user',
  params: Params({}),
  result: SavingsPrefsShape,
  handler: (_p, ctx) => ctx.app.services.savings.prefs.view(ctx.user.id),
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
