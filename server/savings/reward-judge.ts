import type { Clock } from '../lib/clock';
import { SYNC_CLOCK_SKEW_MS } from '../arrival-checks';
import type { SyncedCollection } from '../arrival-checks';
import type { AchievementsService } from './achievements-service';
import { ACHIEVEMENTS } from './catalogue';
import { coinsOf } from './coins';
import { completionReward, DAY_MS, MAX_COMPLETION_REWARD, SAVING_DAY_REWARD, WELCOME_GRANT } from './game-economy';
import type { GoalStore } from './goal-store';
import type { TradeDoc } from './schema';
import type { WalletState } from './wallet';

/**
 * What the reward formulas (game-economy.ts) say about a grant or reward entry of the wallet log
 * that arrived by sync (RewardJudge.judge): they pay exactly this entry; its cause is not here yet
 * (check again when `on` changes); or they never pay it.
 */
export type RewardJudgement = { ok: true } | { wait: string; on: readonly SyncedCollection[] } | { never: string };

const HOUR_MS = 3_600_000;

/** "2026-03-02" → day number (days since 1970-01-01), or null. */
function parseIsoDay(text: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
  const time = Date.parse(`${text}T00:00:00Z`);
  if (!Number.isFinite(time) || new Date(time).toISOString().slice(0, 10) !== text) return null;
  return time / DAY_MS;
}

const isoTime = (time: number) => new Date(time).toISOString();

/** Re-derives the grants and rewards that arrive by sync from this PennyPost's own data (arrival-checks.ts). */
export class RewardJudge {
  constructor(
    private readonly clock: Clock,
    private readonly goals: GoalStore,
    private readonly achievements: AchievementsService,
  ) {}

  /**
   * Does this PennyPost's data call for exactly this entry — its reason and what it is for, its
   * amount, its time? The same constants and formulas as the credits of the game (the reward
   * rules of docs/savings-game.md). Whether it was paid already does not matter: the wallet
   * counts one reward per reason and ref. `wallet` is the log as it stands with the entries of
   * the pull so far.
   */
  async judge(userId: string, entry: TradeDoc, wallet: WalletState): Promise<RewardJudgement> {
    const now = this.clock.now();
    const pays = (cents: number, what: string): RewardJudgement | null =>
      entry.cash === cents ? null : { never: `the rules pay ${coinsOf(cents)} coins for ${what}, not ${coinsOf(entry.cash)}` };
    switch (entry.reason) {
      case 'welcome':
        if (entry.ref !== 'grant') return { never: 'the welcome grant is the one with ref "grant"' };
        return pays(WELCOME_GRANT, 'the welcome grant') ?? { ok: true };
      case 'saving_day': {
        const day = parseIsoDay(entry.ref);
        if (day === null) return { never: `"${entry.ref}" is not a day (YYYY-MM-DD)` };
        const wrong = pays(SAVING_DAY_REWARD, 'a saving day');
        if (wrong) return wrong;
        // The day in the time zone of whoever saved: from UTC+14 to UTC−12 around the UTC day.
        const from = day * DAY_MS - 14 * HOUR_MS;
        const to = (day + 1) * DAY_MS + 12 * HOUR_MS;
        if (from > now) return { never: `${entry.ref} has not begun anywhere yet` };
        if (entry.createdAt < from || entry.createdAt > to) return { never: `it was credited at ${isoTime(entry.createdAt)}, not on ${entry.ref}` };
        // Its cause: a goal that existed that day and was saved into then or later (deleted goals
        // count too: the coins a goal earned stay when it is deleted).
        const goals = await this.goals.withDeleted(userId);
        if (!goals.some((g) => g.createdAt <= to && g.peakAmount > 0 && g.lastContributionAt >= from)) {
          return { wait: `waiting for a goal saved into on ${entry.ref}: none is here (yet)`, on: ['goals'] };
        }
        return { ok: true };
      }
      case 'goal_completed': {
        if (entry.cash > MAX_COMPLETION_REWARD) return { never: `no goal pays more than ${coinsOf(MAX_COMPLETION_REWARD)} coins for its completion, not ${coinsOf(entry.cash)}` };
        const goal = (await this.goals.withDeleted(userId, entry.ref)).at(0);
        if (!goal) return { wait: `waiting for the goal ${entry.ref}: it is not here (yet), and the reward is paid for a completed goal`, on: ['goals'] };
        if (goal.status !== 'completed') return { wait: `waiting for the goal ${entry.ref} to be completed here (it is ${goal.status})`, on: ['goals'] };
        if (entry.createdAt < goal.completedAt - SYNC_CLOCK_SKEW_MS) return { never: `it was credited before the goal was completed (${isoTime(goal.completedAt)})` };
        const cents = completionReward(goal);
        if (cents <= 0) return { never: 'this goal earns no completion reward (it took less than a day)' };
        return pays(cents, `completing "${goal.title}"`) ?? { ok: true };
      }
      case 'achievement': {
        const def = ACHIEVEMENTS.find((a) => a.id === entry.ref);
        if (!def) return { never: `there is no achievement "${entry.ref}"` };
        const wrong = pays(def.reward, `"${def.title}"`);
        if (wrong) return wrong;
        const stats = await this.achievements.stats(userId, wallet, await this.goals.ofUser(userId));
        const reached = def.measure(stats);
        if (reached < def.target) {
          return { wait: `waiting until "${def.title}" is reached here (${reached} of ${def.target} ${def.unit} so far)`, on: ['records', 'goals', 'trades'] };
        }
        return { ok: true };
      }
      default:
        return { never: 'a grant or reward needs a reason' };
    }
  }
}
