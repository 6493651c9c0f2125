import type { AppContext } from '../app-context';
import { newId } from '../lib/ids';
import type { KeyedMutex } from '../lib/keyed-mutex';
import { isCurrencyCode, toMajor, toMinor } from '../lib/money';
import type { AchievementsService } from './achievements-service';
import { Calendar } from './calendar';
import { savingsErrors } from './errors';
import { MAX_OPEN_GOALS, SAVING_DAY_REWARD } from './game-economy';
import type { GoalStore } from './goal-store';
import { effectiveStatus, goalView } from './goal-view';
import type { PlayerPrefs } from './player-prefs';
import type { GoalCategory, GoalDoc, GoalPriority, GoalStatus, StoredGoalStatus } from './schema';
import type { RewardView, WalletLog } from './wallet-log';

export interface GoalInput {
  title: string;
  description?: string;
  targetAmount: number;
  currency?: string;
  startDate?: number;
  endDate: number;
  category?: GoalCategory;
  priority?: GoalPriority;
  isPublic?: boolean;
}

export interface GoalPatch {
  title?: string;
  description?: string;
  targetAmount?: number;
  startDate?: number;
  endDate?: number;
  category?: GoalCategory;
  priority?: GoalPriority;
  isPublic?: boolean;
  status?: Exclude<StoredGoalStatus, 'completed'>;
}

function refuseCompleted(goal: GoalDoc): void {
  if (goal.status === 'completed') throw savingsErrors.goalCompleted().with({ goalId: goal.id, completedAt: goal.completedAt });
}

function checkedTitle(title: string): string {
  const trimmed = title.trim();
  if (!trimmed) throw savingsErrors.blankTitle().at('title');
  return trimmed;
}

function checkedTarget(amount: number, currency: string): number {
  // toMinor names the field in its message as the caller sent it ("params.targetAmount has more decimals …").
  const target = toMinor(amount, currency, 'targetAmount');
  if (target <= 0) throw savingsErrors.targetNotPositive().at('targetAmount');
  return target;
}

/**
 * Savings goals: create, list, fund or withdraw, change, delete. Saving above a goal's previous
 * high pays the saving-day reward, completing it the completion reward (docs/savings-game.md).
 */
export class GoalsService {
  constructor(
    private readonly app: AppContext,
    private readonly locks: KeyedMutex,
    private readonly store: GoalStore,
    private readonly wallets: WalletLog,
    private readonly prefs: PlayerPrefs,
    private readonly achievements: AchievementsService,
  ) {}

  private now(): number {
    return this.app.clock.now();
  }

  /** The player's ledger base currency (USD when none is set). */
  private async defaultCurrency(userId: string): Promise<string> {
    try {
      const { currency } = await this.app.services.ledger.baseCurrency(userId);
      if (isCurrencyCode(currency)) return currency;
    } catch {
      // fall through to the stored preference
    }
    const stored = (await this.app.services.users.getPrefs(userId, 'ledger')).baseCurrency;
    return typeof stored === 'string' && isCurrencyCode(stored) ? stored : 'USD';
  }

  private async refuseTooManyOpen(userId: string): Promise<void> {
    if ((await this.store.openCount(userId)) >= MAX_OPEN_GOALS) throw savingsErrors.tooManyOpenGoals(MAX_OPEN_GOALS).with({ limit: MAX_OPEN_GOALS });
  }

  async create(userId: string, input: GoalInput) {
    const now = this.now();
    const currency = input.currency ?? (await this.defaultCurrency(userId));
    if (!isCurrencyCode(currency)) throw savingsErrors.unknownCurrency(currency).at('currency');
    const target = checkedTarget(input.targetAmount, currency);
    const startDate = input.startDate ?? now;
    if (input.endDate <= startDate) throw savingsErrors.endBeforeStart().at('endDate');
    if (input.endDate <= now) throw savingsErrors.endInThePast().at('endDate');
    const title = checkedTitle(input.title);
    return this.locks.run(userId, async () => {
      await this.refuseTooManyOpen(userId);
      const doc: GoalDoc = {
        id: newId(now),
        userId,
        title,
        description: input.description ?? '',
        currency,
        targetAmount: target,
        currentAmount: 0,
        peakAmount: 0,
        category: input.category ?? 'other',
        priority: input.priority ?? 'medium',
        isPublic: input.isPublic ?? false,
        status: 'active',
        startDate,
        endDate: input.endDate,
        completedAt: 0,
        contributionCount: 0,
        lastContributionAt: 0,
        createdAt: now,
        updatedAt: now,
      };
      await this.store.insert(doc);
      const unlocked = await this.achievements.evaluateLocked(userId);
      return { ...goalView(doc, now), rewards: unlocked };
    });
  }

  async query(userId: string, filter: { status?: GoalStatus; category?: GoalCategory; page: number; pageSize: number }) {
    const now = this.now();
    let goals = await this.store.ofUser(userId);
    if (filter.status) goals = goals.filter((g) => effectiveStatus(g, now) === filter.status);
    if (filter.category) goals = goals.filter((g) => g.category === filter.category);
    const start = (filter.page - 1) * filter.pageSize;
    return {
      list: goals.slice(start, start + filter.pageSize).map((g) => goalView(g, now)),
      total: goals.length,
      page: filter.page,
      pageSize: filter.pageSize,
    };
  }

  async get(userId: string, goalId: string) {
    return goalView(await this.store.own(userId, goalId), this.now());
  }

  /** Adds money to a goal (positive amount) or takes some out (negative), in major units of its currency. */
  async updateProgress(userId: string, goalId: string, amount: number) {
    return this.locks.run(userId, async () => {
      const goal = await this.store.own(userId, goalId);
      refuseCompleted(goal);
      if (goal.status === 'cancelled' || goal.status === 'paused') throw savingsErrors.goalNotActive(goal.status).with({ goalId, status: goal.status });
      const delta = toMinor(amount, goal.currency);
      if (delta === 0) throw savingsErrors.zeroProgress().at('amount');
      const next = goal.currentAmount + delta;
      if (next < 0) {
        const saved = toMajor(goal.currentAmount, goal.currency);
        throw savingsErrors.withdrawalTooLarge(saved, goal.currency).with({ currentAmount: saved });
      }
      if (next > 1e15) throw savingsErrors.progressTooLarge().at('amount');
      const now = this.now();
      const completes = next >= goal.targetAmount;
      const previousPeak = goal.peakAmount;
      const updated: GoalDoc = {
        ...goal,
        currentAmount: next,
        peakAmount: Math.max(goal.peakAmount, next),
        contributionCount: goal.contributionCount + 1,
        lastContributionAt: now,
        status: completes ? 'completed' : goal.status,
        completedAt: completes ? now : 0,
        updatedAt: now,
      };
      await this.store.write(updated);
      const wallet = await this.wallets.locked(userId);
      const rewards: RewardView[] = [];
      if (next > previousPeak) {
        const calendar = await this.prefs.calendarOf(userId);
        const day = Calendar.isoDate(calendar.dayOf(now));
        const reward = await this.wallets.credit(userId, wallet, 'saving_day', day, SAVING_DAY_REWARD, `Saved on ${day}`);
        if (reward) rewards.push(reward);
      }
      if (completes) {
        const reward = await this.wallets.creditCompletion(userId, wallet, updated);
        if (reward) rewards.push(reward);
      }
      rewards.push(...(await this.achievements.evaluateLocked(userId)));
      return { ...goalView(updated, now), rewards };
    });
  }

  async update(userId: string, goalId: string, patch: GoalPatch) {
    return this.locks.run(userId, async () => {
      const goal = await this.store.own(userId, goalId);
      refuseCompleted(goal);
      const now = this.now();
      const next: GoalDoc = { ...goal, updatedAt: now };
      if (patch.title !== undefined) next.title = checkedTitle(patch.title);
      if (patch.description !== undefined) next.description = patch.description;
      if (patch.category !== undefined) next.category = patch.category;
      if (patch.priority !== undefined) next.priority = patch.priority;
      if (patch.isPublic !== undefined) next.isPublic = patch.isPublic;
      if (patch.startDate !== undefined) next.startDate = patch.startDate;
      if (patch.endDate !== undefined) {
        if (patch.endDate <= now) throw savingsErrors.endInThePast().at('endDate');
        next.endDate = patch.endDate;
      }
      if (next.endDate <= next.startDate) throw savingsErrors.endBeforeStart().at('endDate');
      if (patch.targetAmount !== undefined) next.targetAmount = checkedTarget(patch.targetAmount, goal.currency);
      if (patch.status !== undefined && patch.status !== goal.status) {
        if (patch.status !== 'cancelled' && goal.status === 'cancelled') await this.refuseTooManyOpen(userId);
        next.status = patch.status;
      }
      const rewards: RewardView[] = [];
      // Lowering the target to what is already saved completes an open goal.
      if (next.status === 'active' && next.currentAmount >= next.targetAmount) {
        next.status = 'completed';
        next.completedAt = now;
      }
      await this.store.write(next);
      if (next.status === 'completed') {
        const wallet = await this.wallets.locked(userId);
        const reward = await this.wallets.creditCompletion(userId, wallet, next);
        if (reward) rewards.push(reward);
        rewards.push(...(await this.achievements.evaluateLocked(userId)));
      }
      return { ...goalView(next, now), rewards };
    });
  }

  /** Deletes a goal that is not completed; the coins it earned stay in the wallet. */
  async remove(userId: string, goalId: string) {
    return this.locks.run(userId, async () => {
      const goal = await this.store.own(userId, goalId);
      refuseCompleted(goal);
      await this.store.remove(goalId);
      return { deleted: true as const, id: goalId };
    });
  }
}
