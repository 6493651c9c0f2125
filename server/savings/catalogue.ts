/**
 * The achievements. Each has a measure (taken from the user's ledger records, goals and wallet)
 * and a target; reaching the target unlocks it once, for good, and credits its reward.
 */

export const ACHIEVEMENT_CATEGORIES = ['bookkeeping', 'saving', 'trading'] as const;
export type AchievementCategory = (typeof ACHIEVEMENT_CATEGORIES)[number];

/** What the measures are computed from. */
export interface AchievementStats {
  /** Ledger records of the user (records collection, whatever wrote them: app, import, sync). */
  records: number;
  /** Longest run of consecutive days on which the user added at least one record (by createdAt). */
  longestStreak: number;
  goalsCreated: number;
  goalsCompleted: number;
  /** Goals completed before their end date. */
  goalsCompletedEarly: number;
  /** Days on which the user saved new money (see docs/savings-game.md). */
  savingDays: number;
  trades: number;
  maxDistinctHeld: number;
  profitableSells: number;
  /** Realised + unrealised profit now, coin cents. */
  portfolioProfit: number;
}

export interface AchievementDefinition {
  id: string;
  category: AchievementCategory;
  title: string;
  description: string;
  target: number;
  /** Word for the progress numbers ("5/7 days"). */
  unit: string;
  /** Coins credited on unlock, in coin cents. */
  reward: number;
  measure(stats: AchievementStats): number;
}

const coins = (n: number) => n * 100;

export const ACHIEVEMENTS: readonly AchievementDefinition[] = [
  {
    id: 'first_record',
    category: 'bookkeeping',
    title: 'First entry',
    description: 'Add your first income, expense or transfer.',
    target: 1,
    unit: 'records',
    reward: coins(100),
    measure: (s) => s.records,
  },
  {
    id: 'records_10',
    category: 'bookkeeping',
    title: 'Getting the habit',
    description: 'Keep 10 records.',
    target: 10,
    unit: 'records',
    reward: coins(150),
    measure: (s) => s.records,
  },
  {
    id: 'records_100',
    category: 'bookkeeping',
    title: 'Bookkeeper',
    description: 'Keep 100 records.',
    target: 100,
    unit: 'records',
    reward: coins(300),
    measure: (s) => s.records,
  },
  {
    id: 'records_1000',
    category: 'bookkeeping',
    title: 'Ledger legend',
    description: 'Keep 1,000 records.',
    target: 1000,
    unit: 'records',
    reward: coins(1000),
    measure: (s) => s.records,
  },
  {
    id: 'streak_3',
    category: 'bookkeeping',
    title: 'Three in a row',
    description: 'Add records on 3 days in a row.',
    target: 3,
    unit: 'days',
    reward: coins(100),
    measure: (s) => s.longestStreak,
  },
  {
    id: 'streak_7',
    category: 'bookkeeping',
    title: 'A full week',
    description: 'Add records on 7 days in a row.',
    target: 7,
    unit: 'days',
    reward: coins(300),
    measure: (s) => s.longestStreak,
  },
  {
    id: 'streak_30',
    category: 'bookkeeping',
    title: 'Monthly ritual',
    description: 'Add records on 30 days in a row.',
    target: 30,
    unit: 'days',
    reward: coins(1000),
    measure: (s) => s.longestStreak,
  },
  {
    id: 'first_goal',
    category: 'saving',
    title: 'Dream it',
    description: 'Create your first savings goal.',
    target: 1,
    unit: 'goals',
    reward: coins(100),
    measure: (s) => s.goalsCreated,
  },
  {
    id: 'first_saving',
    category: 'saving',
    title: 'First coin in the jar',
    description: 'Put money towards a goal for the first time.',
    target: 1,
    unit: 'saving days',
    reward: coins(100),
    measure: (s) => s.savingDays,
  },
  {
    id: 'saving_days_7',
    category: 'saving',
    title: 'Regular saver',
    description: 'Save new money on 7 different days.',
    target: 7,
    unit: 'saving days',
    reward: coins(200),
    measure: (s) => s.savingDays,
  },
  {
    id: 'saving_days_30',
    category: 'saving',
    title: 'Saving is a habit',
    description: 'Save new money on 30 different days.',
    target: 30,
    unit: 'saving days',
    reward: coins(800),
    measure: (s) => s.savingDays,
  },
  {
    id: 'goal_completed',
    category: 'saving',
    title: 'Made it',
    description: 'Complete a savings goal.',
    target: 1,
    unit: 'goals',
    reward: coins(300),
    measure: (s) => s.goalsCompleted,
  },
  {
    id: 'goal_early',
    category: 'saving',
    title: 'Ahead of schedule',
    description: 'Complete a goal before its end date.',
    target: 1,
    unit: 'goals',
    reward: coins(300),
    measure: (s) => s.goalsCompletedEarly,
  },
  {
    id: 'goals_5',
    category: 'saving',
    title: 'Goal getter',
    description: 'Complete 5 savings goals.',
    target: 5,
    unit: 'goals',
    reward: coins(1000),
    measure: (s) => s.goalsCompleted,
  },
  {
    id: 'first_trade',
    category: 'trading',
    title: 'Market debut',
    description: 'Buy your first virtual shares.',
    target: 1,
    unit: 'trades',
    reward: coins(50),
    measure: (s) => s.trades,
  },
  {
    id: 'diversified',
    category: 'trading',
    title: 'Eggs in many baskets',
    description: 'Hold 3 different stocks at the same time.',
    target: 3,
    unit: 'stocks',
    reward: coins(150),
    measure: (s) => s.maxDistinctHeld,
  },
  {
    id: 'first_profit',
    category: 'trading',
    title: 'Sell high',
    description: 'Sell shares for more than they cost you.',
    target: 1,
    unit: 'sales',
    reward: coins(150),
    measure: (s) => s.profitableSells,
  },
  {
    id: 'profitable_portfolio',
    category: 'trading',
    title: 'In the green',
    description: 'Have your portfolio 100 coins in profit (realised + unrealised).',
    target: 100,
    unit: 'coins',
    reward: coins(300),
    measure: (s) => Math.floor(Math.max(0, s.portfolioProfit) / 100),
  },
];
