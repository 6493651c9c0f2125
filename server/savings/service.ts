import { createHmac } from 'node:crypto';
import type { AppContext } from '../app-context';
import { KeyedMutex } from '../lib/keyed-mutex';
import { AchievementsService } from './achievements-service';
import { BookkeepingStats } from './bookkeeping-stats';
import type { Subscription } from 'rxjs';
import { GoalStore } from './goal-store';
import { GoalsService } from './goals-service';
import { LeaderboardService } from './leaderboard';
import { MarketQuotes } from './market-quotes';
import { PlayerPrefs } from './player-prefs';
import { RewardJudge } from './reward-judge';
import type { GoalDoc } from './schema';
import { TradingService } from './trading-service';
import { WalletLog } from './wallet-log';

/**
 * The savings game (app.services.savings): its parts, wired together. Goals, trading (market,
 * wallet, positions), achievements and the leaderboard share the players' locks, wallets and
 * preferences; the actions call the part they need (`savings.goals.create(…)`).
 */
export class SavingsService {
  /** One lock per player: every read-check-write of the game runs under it. */
  private readonly locks = new KeyedMutex();
  readonly quotes: MarketQuotes;
  readonly prefs: PlayerPrefs;
  readonly wallets: WalletLog;
  readonly bookkeeping: BookkeepingStats;
  readonly achievements: AchievementsService;
  readonly goals: GoalsService;
  readonly trading: TradingService;
  readonly leaderboard: LeaderboardService;
  /** Checks the grants and rewards that arrive by sync (arrival-checks.ts). */
  readonly rewards: RewardJudge;
  private readonly goalStore: GoalStore;

  constructor(app: AppContext) {
    const seed = app.secrets.get('market-seed', 32);
    const tradeKey = createHmac('sha256', seed).update('pennypost: buys and sells of this market').digest();
    const goalStore = new GoalStore(app);
    this.goalStore = goalStore;
    this.quotes = new MarketQuotes(seed, app.clock);
    this.prefs = new PlayerPrefs(app, (userId) => this.bookkeeping.invalidate(userId));
    this.wallets = new WalletLog(app, this.locks, tradeKey);
    this.bookkeeping = new BookkeepingStats(app, this.prefs);
    this.achievements = new AchievementsService(app, this.locks, this.wallets, goalStore, this.bookkeeping, this.quotes, this.prefs);
    this.goals = new GoalsService(app, this.locks, goalStore, this.wallets, this.prefs, this.achievements);
    this.trading = new TradingService(app.clock, this.locks, this.wallets, this.quotes, this.achievements);
    this.leaderboard = new LeaderboardService(app, this.prefs, this.wallets, goalStore, this.achievements, this.bookkeeping, this.quotes);
    this.rewards = new RewardJudge(app.clock, goalStore, this.achievements);
  }

  /** Subscribes to the change streams: records and goals (achievements), trades written by sync (wallets). */
  start(): void {
    this.achievements.start();
    this.wallets.start();
  }

  /** Calls `listener` with every goal written, here or arriving by sync (reminders announce completed ones). */
  watchGoals(listener: (goal: GoalDoc) => void): Subscription {
    return this.goalStore.watch(listener);
  }

  async stop(): Promise<void> {
    this.wallets.stop();
    await this.achievements.stop();
  }

  /** Resolves when every evaluation triggered by change events so far has finished. */
  idle(): Promise<void> {
    return this.achievements.idle();
  }
}
