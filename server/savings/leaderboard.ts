import type { AppContext } from '../app-context';
import type { UserDoc } from '../users/public';
import type { AchievementsService } from './achievements-service';
import type { BookkeepingStats } from './bookkeeping-stats';
import { Calendar, longestRun } from './calendar';
import { coinsOf, round1, round2 } from './coins';
import { type LeaderboardPeriod, type LeaderboardType } from './game-economy';
import type { GoalStore } from './goal-store';
import { effectiveStatus } from './goal-view';
import type { MarketQuotes } from './market-quotes';
import { readSavingsPrefs, type PlayerPrefs } from './player-prefs';
import { balanceAfter, holdingsValue, replay, type WalletState } from './wallet';
import type { WalletLog } from './wallet-log';

const LEADERBOARD_UNITS: Record<LeaderboardType, string> = {
  savings: 'saving coins',
  goals: 'goals completed',
  portfolio: '% return',
  streak: 'days in a row',
  achievements: 'achievements',
};

/**
 * What entry `i` of a replayed log moved the cash by: its cash, or 0 for a reward paid already
 * (the same reward credited by two PennyPosts of one person, or copied in CouchDB), which the
 * wallet does not count and so neither does the leaderboard.
 */
function credited(wallet: WalletState, i: number): number {
  return balanceAfter(wallet, i) - (i > 0 ? balanceAfter(wallet, i - 1) : 0);
}

const optedIn = (user: UserDoc) => readSavingsPrefs(user.prefs.savings).leaderboardOptIn;

/**
 * The leaderboard: ranks the players of this PennyPost who opted in (the accounts come from the
 * users service) by coins earned saving, goals completed, portfolio return, bookkeeping streak or
 * achievements; never by a real money amount.
 */
export class LeaderboardService {
  constructor(
    private readonly app: AppContext,
    private readonly prefs: PlayerPrefs,
    private readonly wallets: WalletLog,
    private readonly goals: GoalStore,
    private readonly achievements: AchievementsService,
    private readonly bookkeeping: BookkeepingStats,
    private readonly quotes: MarketQuotes,
  ) {}

  async rank(userId: string, type: LeaderboardType, period: LeaderboardPeriod, limit: number) {
    const now = this.app.clock.now();
    const calendar = await this.prefs.calendarOf(userId);
    const today = calendar.dayOf(now);
    const fromDay = period === 'week' ? Calendar.mondayOf(today) : period === 'month' ? Calendar.firstOfMonth(today) : null;
    const from = fromDay === null ? 0 : calendar.startOfDay(fromDay);
    const users = await this.app.services.users.all();
    const me = users.find((u) => u.id === userId);
    const players = users.filter((u) => optedIn(u));
    const scored: Array<{ user: UserDoc; score: number }> = [];
    for (const user of players) scored.push({ user, score: await this.score(user.id, type, from, now) });
    scored.sort((a, b) => b.score - a.score || (a.user.username < b.user.username ? -1 : 1));
    const rankOf = (score: number) => 1 + scored.filter((s) => s.score > score).length;
    const mine = me && optedIn(me) ? scored.find((s) => s.user.id === userId) : undefined;
    const myScore = mine ? mine.score : await this.score(userId, type, from, now);
    const top = scored.slice(0, limit);
    const entries = [];
    for (const { user, score } of top) {
      const publicGoals = (await this.goals.ofUser(user.id))
        .filter((g) => g.isPublic && g.status !== 'cancelled')
        .map((g) => ({ title: g.title, percent: round1(Math.min(100, (g.currentAmount / g.targetAmount) * 100)), status: effectiveStatus(g, now) }));
      entries.push({ rank: rankOf(score), username: user.username, score, isMe: user.id === userId, publicGoals });
    }
    return {
      type,
      period,
      unit: LEADERBOARD_UNITS[type],
      from,
      to: now,
      participants: scored.length,
      entries,
      me: { rank: rankOf(myScore), score: myScore, optedIn: !!me && optedIn(me) },
    };
  }

  private async score(userId: string, type: LeaderboardType, from: number, now: number): Promise<number> {
    switch (type) {
      case 'savings': {
        const wallet = await this.wallets.snapshot(userId);
        let cents = 0;
        wallet.entries.forEach((e, i) => {
          if (e.createdAt >= from && (e.reason === 'saving_day' || e.reason === 'goal_completed')) cents += credited(wallet, i);
        });
        return coinsOf(cents);
      }
      case 'goals':
        return (await this.goals.ofUser(userId)).filter((g) => g.status === 'completed' && g.completedAt >= from).length;
      case 'achievements': {
        // One per achievement: two PennyPosts of the same person each write an unlock of it.
        const first = new Map<string, number>();
        for (const a of await this.achievements.unlocksOf(userId)) {
          first.set(a.achievementId, Math.min(first.get(a.achievementId) ?? Infinity, a.unlockedAt));
        }
        return [...first.values()].filter((at) => at >= from).length;
      }
      case 'streak': {
        const calendar = await this.prefs.calendarOf(userId);
        const records = await this.bookkeeping.of(userId);
        return longestRun(records.days, from === 0 ? -Infinity : calendar.dayOf(from), calendar.dayOf(now));
      }
      case 'portfolio': {
        const wallet = await this.wallets.snapshot(userId);
        if (wallet.entries.length === 0) return 0;
        const valueAt = (state: WalletState, time: number) => state.cash + Number(holdingsValue(state, (id) => this.quotes.priceOf(id, time)));
        const before = from === 0 ? null : replay(wallet.entries, from - 1);
        const startValue = before ? valueAt(before, from) : 0;
        let inflow = 0;
        wallet.entries.forEach((e, i) => {
          if (e.createdAt >= from && (e.kind === 'grant' || e.kind === 'reward')) inflow += credited(wallet, i);
        });
        const base = startValue + inflow;
        if (base <= 0) return 0;
        return round2(((valueAt(wallet, now) - startValue - inflow) / base) * 100);
      }
    }
  }
}
