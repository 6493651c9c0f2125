import type { RxCollection } from 'rxdb';
import type { AppContext } from '../app-context';
import type { KeyedMutex } from '../lib/keyed-mutex';
import { describeError } from '../lib/logger';
import type { BookkeepingStats } from './bookkeeping-stats';
import { currentRun, longestRun } from './calendar';
import { ACHIEVEMENTS, type AchievementCategory, type AchievementStats } from './catalogue';
import { coinsOf } from './coins';
import type { GoalStore } from './goal-store';
import type { MarketQuotes } from './market-quotes';
import type { PlayerPrefs } from './player-prefs';
import type { AchievementDoc, GoalDoc } from './schema';
import { portfolioProfit, type WalletState } from './wallet';
import type { RewardView, WalletLog } from './wallet-log';

/**
 * Achievements: measures each player's bookkeeping, saving and trading against the catalogue,
 * unlocks what is reached (the `achievements` collection) and credits its reward. Evaluates after
 * each of the player's calls and, in the background, when records or completed goals arrive (typed,
 * imported or synced).
 */
export class AchievementsService {
  private readonly scheduled = new Map<string, Promise<void>>();
  private readonly rerun = new Set<string>();
  private subscriptions: Array<{ unsubscribe(): void }> = [];
  private stopped = false;

  constructor(
    private readonly app: AppContext,
    private readonly locks: KeyedMutex,
    private readonly wallets: WalletLog,
    private readonly goals: GoalStore,
    private readonly bookkeeping: BookkeepingStats,
    private readonly quotes: MarketQuotes,
    private readonly prefs: PlayerPrefs,
  ) {}

  private get collection(): RxCollection<AchievementDoc> {
    return this.app.db.collection<AchievementDoc>('achievements');
  }

  /** Evaluates again when the ledger's records change, and when a goal is completed (on another device too). */
  start(): void {
    this.subscriptions.push(
      this.app.services.ledger.watchRecords(({ userId, operation, createdAt }) => {
        this.bookkeeping.recordChanged(userId, operation, createdAt);
        this.scheduleEvaluation(userId);
      }),
      this.goals.watch((goal) => {
        // A goal completed on another device earns its reward and achievements here too.
        if (goal.userId && goal.status === 'completed') this.scheduleEvaluation(goal.userId);
      }),
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.subscriptions = [];
    await this.idle();
  }

  /** Resolves when every evaluation triggered by change events so far has finished. */
  async idle(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (this.scheduled.size > 0) await Promise.all([...this.scheduled.values()]);
  }

  private scheduleEvaluation(userId: string): void {
    if (this.stopped) return;
    if (this.scheduled.has(userId)) {
      this.rerun.add(userId);
      return;
    }
    const run = async () => {
      // Let a burst of events (an import, a sync batch) land before evaluating once.
      await new Promise((resolve) => setImmediate(resolve));
      do {
        this.rerun.delete(userId);
        try {
          // Records synced for an account that does not exist here start nothing.
          if (await this.app.services.users.findById(userId)) await this.locks.run(userId, () => this.evaluateLocked(userId));
        } catch (error) {
          this.app.log.warn('savings: achievement evaluation failed', { ...describeError(error) });
        }
      } while (this.rerun.has(userId) && !this.stopped);
      this.scheduled.delete(userId);
    };
    this.scheduled.set(userId, run());
  }

  /** What the achievements measure, for one player. */
  async stats(userId: string, wallet: WalletState, goals: GoalDoc[]): Promise<AchievementStats> {
    const records = await this.bookkeeping.of(userId);
    const completed = goals.filter((g) => g.status === 'completed');
    return {
      records: records.count,
      longestStreak: longestRun(records.days),
      goalsCreated: goals.length,
      goalsCompleted: completed.length,
      goalsCompletedEarly: completed.filter((g) => g.completedAt < g.endDate).length,
      savingDays: wallet.savingDays,
      trades: wallet.buys + wallet.sells,
      maxDistinctHeld: wallet.maxDistinctHeld,
      profitableSells: wallet.profitableSells,
      portfolioProfit: portfolioProfit(wallet, (id) => this.quotes.priceOf(id)),
    };
  }

  /** A player's unlocks (two PennyPosts of the same person may each have written one of the same achievement). */
  async unlocksOf(userId: string): Promise<AchievementDoc[]> {
    return (await this.collection.find({ selector: { userId } }).exec()).map((d) => d.toJSON() as AchievementDoc);
  }

  /**
   * Unlocks every achievement whose target is reached and credits its reward; repairs what an
   * interrupted write left behind (a completed goal without its reward, a reward without its
   * unlock record). Idempotent: run it as often as you like. Call under the player's lock.
   */
  async evaluateLocked(userId: string): Promise<RewardView[]> {
    const wallet = await this.wallets.locked(userId);
    const goals = await this.goals.ofUser(userId);
    const rewards: RewardView[] = [];
    for (const goal of goals) {
      if (goal.status === 'completed' && !wallet.rewardKeys.has(`goal_completed:${goal.id}`)) {
        const reward = await this.wallets.creditCompletion(userId, wallet, goal);
        if (reward) rewards.push(reward);
      }
    }
    const stats = await this.stats(userId, wallet, goals);
    const unlocked = new Set((await this.unlocksOf(userId)).map((d) => d.achievementId));
    for (const entry of wallet.entries) {
      if (entry.reason === 'achievement' && !unlocked.has(entry.ref)) {
        await this.insertUnlock(userId, entry.ref, entry.createdAt, entry.cash);
        unlocked.add(entry.ref);
      }
    }
    for (const def of ACHIEVEMENTS) {
      if (unlocked.has(def.id) || def.measure(stats) < def.target) continue;
      // The reward first: if the process stops in between, the unlock record is repaired above.
      const reward = await this.wallets.credit(userId, wallet, 'achievement', def.id, def.reward, `Achievement: ${def.title}`);
      const at = wallet.entries.find((e) => e.reason === 'achievement' && e.ref === def.id)?.createdAt ?? this.app.clock.now();
      await this.insertUnlock(userId, def.id, at, def.reward);
      unlocked.add(def.id);
      if (reward) rewards.push(reward);
    }
    return rewards;
  }

  private async insertUnlock(userId: string, achievementId: string, at: number, reward: number): Promise<void> {
    const doc: AchievementDoc = { id: `${userId}:${achievementId}`, userId, achievementId, unlockedAt: at, reward, createdAt: at, updatedAt: at };
    const result = await this.collection.bulkInsert([doc]);
    const failure = result.error.at(0);
    if (failure && failure.status !== 409) throw new Error(`achievement write failed with status ${failure.status}`);
  }

  /** The catalogue with the player's progress, unlock times and rewards (savings.getAchievements). */
  async list(userId: string, filter: { category?: AchievementCategory; completed?: boolean }) {
    await this.locks.run(userId, () => this.evaluateLocked(userId));
    const wallet = await this.wallets.snapshot(userId);
    const stats = await this.stats(userId, wallet, await this.goals.ofUser(userId));
    const unlocked = new Map((await this.unlocksOf(userId)).map((d) => [d.achievementId, d]));
    const all = ACHIEVEMENTS.map((def) => {
      const unlock = unlocked.get(def.id);
      return {
        id: def.id,
        category: def.category,
        title: def.title,
        description: def.description,
        progress: unlock ? def.target : Math.min(def.target, def.measure(stats)),
        target: def.target,
        unit: def.unit,
        completed: !!unlock,
        unlockedAt: unlock?.unlockedAt ?? null,
        reward: coinsOf(def.reward),
      };
    });
    const list = all.filter((a) => (!filter.category || a.category === filter.category) && (filter.completed === undefined || a.completed === filter.completed));
    const records = await this.bookkeeping.of(userId);
    const calendar = await this.prefs.calendarOf(userId);
    return {
      list,
      summary: {
        unlocked: all.filter((a) => a.completed).length,
        total: all.length,
        coinsEarned: coinsOf(wallet.receivedBy.achievement),
        bookkeepingStreak: currentRun(records.days, calendar.dayOf(this.app.clock.now())),
        longestBookkeepingStreak: longestRun(records.days),
      },
    };
  }
}
