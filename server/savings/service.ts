import { createHmac } from 'node:crypto';
import { normalizeMangoQuery, prepareQuery, type RxCollection } from 'rxdb';
import type { Subscription } from 'rxjs';
import type { AppContext } from '../app-context';
import { ApiError, ErrorCode } from '../api/errors';
import { newId } from '../lib/ids';
import { KeyedMutex } from '../lib/keyed-mutex';
import { inRange, isCurrencyCode, MAX_MINOR, toMajor, toMinor } from '../lib/money';
import { describeError } from '../lib/logger';
import type { RecordDoc } from '../ledger/schema';
import type { UserDoc } from '../users/schema';
import { SYNC_CLOCK_SKEW_MS } from '../sync/rules';
import type { SyncedCollection } from '../sync/synced-collections';
import { Calendar, currentRun, longestRun } from './calendar';
import { ACHIEVEMENTS, type AchievementCategory, type AchievementStats } from './catalogue';
import {
  findStock,
  HISTORY_RANGES,
  historySteps,
  Market,
  STEP_MS,
  stepAt,
  stepStart,
  STOCKS,
  type HistoryRange,
  type StockDefinition,
} from './market';
import type { AchievementDoc, GoalCategory, GoalDoc, GoalPriority, GoalStatus, RewardReason, StoredGoalStatus, TradeDoc } from './schema';
import { applyTrade, holdingsValue, portfolioProfit, replay, type PositionState, type WalletState } from './wallet';

export const DAY_MS = 86_400_000;
/** Coins given to every player once, on their first use of the game. */
export const WELCOME_GRANT = 10_000_00;
/** Coins for each day on which the player saved new money (above a goal's previous high). */
export const SAVING_DAY_REWARD = 50_00;
/** Coins per full day a goal was worked on before it was completed (capped), plus 50 % if early. */
export const COMPLETION_REWARD_PER_DAY = 10_00;
export const COMPLETION_REWARD_MAX_DAYS = 100;
/** Open goals (active, paused, expired) one user may have at once. */
export const MAX_OPEN_GOALS = 20;
/** Shares per single buy or sell. */
export const MAX_TRADE_QUANTITY = 1_000_000;

export const coinsOf = (cents: number) => cents / 100;

/**
 * The most one goal's completion can pay: 100 days × 10 coins, +50 % when early. A synced
 * completion reward above it is refused before its goal is looked at.
 */
export const MAX_COMPLETION_REWARD = Math.floor((COMPLETION_REWARD_MAX_DAYS * COMPLETION_REWARD_PER_DAY * 3) / 2);

/**
 * What the reward rules say about a grant or reward entry of the wallet log that arrived by sync
 * (SavingsService.judgeReward): the rules pay exactly this entry; its cause is not here yet
 * (check again when `on` changes); or the rules never pay it.
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

/**
 * Coin amounts of one answer: `coins(path, cents)` gives the number to send and lists `path` in
 * `inexact` when the exact value is beyond ±10^15 cents (10,000,000,000,000.00 coins, the exact
 * range) or the wallet's sums lost precision while replaying a synced log.
 */
class CoinWriter {
  readonly inexact: string[] = [];
  constructor(private readonly lostPrecision: boolean) {}
  coins(path: string, cents: number | bigint): number {
    if (this.lostPrecision || !inRange(cents)) this.inexact.push(path);
    return typeof cents === 'bigint' ? Number(cents) / 100 : cents / 100;
  }
}
const COIN_LIMIT = '10,000,000,000,000.00';
const round1 = (x: number) => Math.round(x * 10) / 10;
const round2 = (x: number) => Math.round(x * 100) / 100;

export interface SavingsPrefs {
  leaderboardOptIn: boolean;
  /** IANA zone for days (streaks, saving days, leaderboard weeks); '' = this computer's zone. */
  timeZone: string;
}

export interface RewardView {
  reason: RewardReason;
  ref: string;
  coins: number;
  note: string;
}

interface RecordStats {
  count: number;
  /** Sorted distinct day numbers (user's zone) on which records were added. */
  days: number[];
  /** The zone the days were counted in (a new record's day is added with it). */
  calendar: Calendar | null;
}

/** Per-user cache of a derived value; invalidated by change events and own writes. */
class UserCache<T> {
  private readonly versions = new Map<string, number>();
  private readonly values = new Map<string, { version: number; value: Promise<T> }>();
  private readonly resolved = new Map<string, { version: number; value: T }>();

  /** The current value when it is already computed (for in-place updates), else undefined. */
  peek(userId: string): T | undefined {
    const entry = this.resolved.get(userId);
    return entry && entry.version === (this.versions.get(userId) ?? 0) ? entry.value : undefined;
  }

  invalidate(userId: string): void {
    this.versions.set(userId, (this.versions.get(userId) ?? 0) + 1);
    this.values.delete(userId);
  }

  clear(): void {
    for (const userId of [...this.values.keys()]) this.invalidate(userId);
  }

  get(userId: string, load: () => Promise<T>): Promise<T> {
    const version = this.versions.get(userId) ?? 0;
    const cached = this.values.get(userId);
    if (cached && cached.version === version) return cached.value;
    const value = load();
    this.values.set(userId, { version, value });
    value.then((result) => {
      if ((this.versions.get(userId) ?? 0) === version) this.resolved.set(userId, { version, value: result });
    }, () => undefined);
    value.catch(() => {
      if (this.values.get(userId)?.value === value) this.values.delete(userId);
    });
    return value;
  }
}

const GOAL_NOT_FOUND = 'No such goal: it does not exist or is not yours.';

/** The savings game: goals, the virtual market, the wallet, achievements, the leaderboard. */
export class SavingsService {
  readonly market: Market;
  private readonly locks = new KeyedMutex();
  private readonly wallets = new UserCache<WalletState>();
  private readonly recordStatsCache = new UserCache<RecordStats>();
  private readonly calendars = new Map<string, Calendar>();
  /** Trade ids this service wrote and has already applied to the cached wallet. */
  private readonly ownTrades = new Set<string>();
  private readonly welcomed = new Set<string>();
  private readonly scheduled = new Map<string, Promise<void>>();
  private readonly rerun = new Set<string>();
  private subscriptions: Subscription[] = [];
  private stopped = false;

  /** Signs the buys and sells of this PennyPost's market (derived from the market's seed). */
  private readonly tradeKey: Buffer;

  constructor(private readonly app: AppContext) {
    const seed = app.secrets.get('market-seed', 32);
    this.market = new Market(seed);
    this.tradeKey = createHmac('sha256', seed).update('pennypost: buys and sells of this market').digest();
  }

  // ------------------------------------------------------------------ plumbing

  private get goals(): RxCollection<GoalDoc> {
    return this.app.db.collection<GoalDoc>('goals');
  }
  private get trades(): RxCollection<TradeDoc> {
    return this.app.db.collection<TradeDoc>('trades');
  }
  private get achievements(): RxCollection<AchievementDoc> {
    return this.app.db.collection<AchievementDoc>('achievements');
  }
  private get records(): RxCollection<RecordDoc> | undefined {
    return this.app.db.rx.collections['records'] as RxCollection<RecordDoc> | undefined;
  }
  private get users(): RxCollection<UserDoc> {
    return this.app.db.collection<UserDoc>('users');
  }
  private now(): number {
    return this.app.clock.now();
  }

  /** Subscribes to the change streams: records (achievements), trades and goals written by sync. */
  start(): void {
    const records = this.records;
    if (records) {
      this.subscriptions.push(
        records.$.subscribe((event) => {
          const userId = (event.documentData as RecordDoc | undefined)?.userId ?? (event.previousDocumentData as RecordDoc | undefined)?.userId;
          if (!userId) return;
          // A new record only adds one to the count and maybe a day: update in place instead of
          // recounting every record of the user (100,000 of them in a big ledger).
          const stats = event.operation === 'INSERT' ? this.recordStatsCache.peek(userId) : undefined;
          if (stats?.calendar) {
            stats.count++;
            const day = stats.calendar.dayOf((event.documentData as RecordDoc).createdAt);
            let lo = 0;
            let hi = stats.days.length;
            while (lo < hi) {
              const mid = (lo + hi) >>> 1;
              if (stats.days[mid] < day) lo = mid + 1;
              else hi = mid;
            }
            if (stats.days[lo] !== day) stats.days.splice(lo, 0, day);
          } else {
            this.recordStatsCache.invalidate(userId);
          }
          this.scheduleEvaluation(userId);
        }),
      );
    }
    this.subscriptions.push(
      this.trades.$.subscribe((event) => {
        if (this.ownTrades.delete(event.documentId)) return;
        const userId = (event.documentData as TradeDoc | undefined)?.userId;
        if (userId) this.wallets.invalidate(userId);
      }),
      this.goals.$.subscribe((event) => {
        // A goal completed on another device earns its reward and achievements here too.
        const goal = event.documentData as GoalDoc | undefined;
        if (goal?.userId && goal.status === 'completed' && event.operation !== 'DELETE') this.scheduleEvaluation(goal.userId);
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
          if (await this.users.findOne(userId).exec()) await this.locks.run(userId, () => this.evaluateLocked(userId));
        } catch (error) {
          this.app.log.warn('savings: achievement evaluation failed', { ...describeError(error) });
        }
      } while (this.rerun.has(userId) && !this.stopped);
      this.scheduled.delete(userId);
    };
    this.scheduled.set(userId, run());
  }

  private calendar(timeZone: string): Calendar {
    let calendar = this.calendars.get(timeZone);
    if (!calendar) {
      calendar = new Calendar(timeZone);
      this.calendars.set(timeZone, calendar);
    }
    return calendar;
  }

  // ------------------------------------------------------------------ preferences

  async prefs(userId: string): Promise<SavingsPrefs> {
    const user = await this.users.findOne(userId).exec();
    const stored = ((user?.prefs as Record<string, unknown> | undefined)?.savings ?? {}) as Partial<SavingsPrefs>;
    return {
      leaderboardOptIn: stored.leaderboardOptIn === true,
      timeZone: typeof stored.timeZone === 'string' && Calendar.isValidZone(stored.timeZone) ? stored.timeZone : '',
    };
  }

  async preferences(userId: string): Promise<SavingsPrefs & { effectiveTimeZone: string }> {
    const prefs = await this.prefs(userId);
    return { ...prefs, effectiveTimeZone: this.calendar(prefs.timeZone).timeZone };
  }

  private async calendarOf(userId: string): Promise<Calendar> {
    return this.calendar((await this.prefs(userId)).timeZone);
  }

  async setPrefs(userId: string, patch: Partial<SavingsPrefs>): Promise<SavingsPrefs & { effectiveTimeZone: string }> {
    if (patch.timeZone !== undefined && !Calendar.isValidZone(patch.timeZone)) {
      throw new ApiError(ErrorCode.Validation, `Unknown time zone "${patch.timeZone}" (use an IANA name like "Asia/Shanghai", or "" for this computer's).`, {
        field: 'params.timeZone',
      });
    }
    const doc = await this.users.findOne(userId).exec();
    if (!doc) throw new ApiError(ErrorCode.UserNotFound, 'The account no longer exists.');
    await doc.incrementalModify((data) => {
      const current = ((data.prefs?.savings as Record<string, unknown> | undefined) ?? {}) as Record<string, unknown>;
      const next: Record<string, unknown> = { ...current };
      if (patch.leaderboardOptIn !== undefined) next.leaderboardOptIn = patch.leaderboardOptIn;
      if (patch.timeZone !== undefined) next.timeZone = patch.timeZone;
      data.prefs = { ...data.prefs, savings: next };
      data.updatedAt = this.now();
      return data;
    });
    if (patch.timeZone !== undefined) this.recordStatsCache.invalidate(userId);
    return this.preferences(userId);
  }

  // ------------------------------------------------------------------ wallet log

  private wallet(userId: string): Promise<WalletState> {
    return this.wallets.get(userId, async () => {
      const docs = await this.trades.find({ selector: { userId }, sort: [{ createdAt: 'asc' }, { id: 'asc' }] }).exec();
      return replay(docs.map((d) => d.toJSON() as TradeDoc));
    });
  }

  /** Appends an entry to the log (no-op returning null when its id is already there). */
  private async append(
    userId: string,
    wallet: WalletState,
    entry: Pick<TradeDoc, 'kind' | 'reason' | 'ref' | 'stockId' | 'quantity' | 'price' | 'cash' | 'note'> & { id?: string },
  ): Promise<TradeDoc | null> {
    const now = this.now();
    // Strictly increasing per user, so replay order is the order things happened.
    const createdAt = Math.max(now, wallet.lastCreatedAt + 1);
    const trade = entry.kind === 'buy' || entry.kind === 'sell';
    const id = entry.id ?? (trade ? this.signedTradeId(userId, { ...entry, createdAt }) : newId(now));
    if (wallet.ids.has(id)) return null;
    const doc: TradeDoc = {
      id,
      userId,
      kind: entry.kind,
      reason: entry.reason,
      ref: entry.ref,
      stockId: entry.stockId,
      quantity: entry.quantity,
      price: entry.price,
      cash: entry.cash,
      note: entry.note.slice(0, 200),
      createdAt,
    };
    this.ownTrades.add(id);
    const result = await this.trades.bulkInsert([doc]);
    if (result.error.length > 0) {
      this.ownTrades.delete(id);
      this.wallets.invalidate(userId);
      if (result.error[0].status === 409) return null;
      throw new Error(`trade write failed with status ${result.error[0].status}`);
    }
    applyTrade(wallet, doc);
    return doc;
  }

  /**
   * A buy's or sell's id: a fresh id, a dot, and a signature over it, the account and the
   * trade's values, keyed by this market's seed. Only a PennyPost that prices this market can
   * write a trade that passes isSignedTrade, so a trade cannot be made up in CouchDB (e.g. bought
   * in the past at a price known afterwards); this PennyPost's own trades, lost by a snapshot
   * restore and pulled back from CouchDB, still pass.
   */
  private signedTradeId(userId: string, trade: Pick<TradeDoc, 'kind' | 'stockId' | 'quantity' | 'price' | 'cash' | 'createdAt'>): string {
    const base = newId(trade.createdAt);
    return `${base}.${this.tradeSignature(base, userId, trade)}`;
  }

  private tradeSignature(base: string, userId: string, trade: Pick<TradeDoc, 'kind' | 'stockId' | 'quantity' | 'price' | 'cash' | 'createdAt'>): string {
    const text = [base, userId, trade.kind, trade.stockId, trade.quantity, trade.price, trade.cash, trade.createdAt].join('|');
    return createHmac('sha256', this.tradeKey).update(text).digest('base64url').slice(0, 22);
  }

  /** Whether this PennyPost made this buy or sell for this account (see signedTradeId). */
  isSignedTrade(userId: string, trade: TradeDoc): boolean {
    const dot = trade.id.lastIndexOf('.');
    if (dot <= 0) return false;
    return trade.id.slice(dot + 1) === this.tradeSignature(trade.id.slice(0, dot), userId, trade);
  }

  /** The replayed wallet log of an account (a shared cache: never change it). */
  walletSnapshot(userId: string): Promise<WalletState> {
    return this.wallet(userId);
  }

  /** Prices (coin cents) of a stock on this market during the steps that may have priced an entry dated `time`. */
  pricesAround(stock: StockDefinition, time: number): number[] {
    const prices: number[] = [];
    for (let step = stepAt(time - SYNC_CLOCK_SKEW_MS); step <= stepAt(time); step++) prices.push(this.market.priceAtStep(stock, step));
    return prices;
  }

  /**
   * Re-derives a grant or reward that arrived by sync: does this PennyPost's data call for exactly
   * this entry — its reason and what it is for, its amount, its time? The same constants and
   * formulas as the credits below (the reward rules of docs/savings-game.md). Whether it was
   * paid already does not matter: the wallet counts one reward per reason and ref.
   * `wallet` is the log as it stands with the entries of the pull so far.
   */
  async judgeReward(userId: string, entry: TradeDoc, wallet: WalletState): Promise<RewardJudgement> {
    const now = this.now();
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
        const goals = await this.goalsWithDeleted(userId);
        if (!goals.some((g) => g.createdAt <= to && g.peakAmount > 0 && g.lastContributionAt >= from)) {
          return { wait: `waiting for a goal saved into on ${entry.ref}: none is here (yet)`, on: ['goals'] };
        }
        return { ok: true };
      }
      case 'goal_completed': {
        if (entry.cash > MAX_COMPLETION_REWARD) return { never: `no goal pays more than ${coinsOf(MAX_COMPLETION_REWARD)} coins for its completion, not ${coinsOf(entry.cash)}` };
        const goal = (await this.goalsWithDeleted(userId, entry.ref))[0];
        if (!goal) return { wait: `waiting for the goal ${entry.ref}: it is not here (yet), and the reward is paid for a completed goal`, on: ['goals'] };
        if (goal.status !== 'completed') return { wait: `waiting for the goal ${entry.ref} to be completed here (it is ${goal.status})`, on: ['goals'] };
        if (entry.createdAt < goal.completedAt - SYNC_CLOCK_SKEW_MS) return { never: `it was credited before the goal was completed (${isoTime(goal.completedAt)})` };
        const cents = this.completionReward(goal);
        if (cents <= 0) return { never: 'this goal earns no completion reward (it took less than a day)' };
        return pays(cents, `completing "${goal.title}"`) ?? { ok: true };
      }
      case 'achievement': {
        const def = ACHIEVEMENTS.find((a) => a.id === entry.ref);
        if (!def) return { never: `there is no achievement "${entry.ref}"` };
        const wrong = pays(def.reward, `"${def.title}"`);
        if (wrong) return wrong;
        const stats = await this.stats(userId, wallet, await this.goalsOf(userId));
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

  /** An account's goals including deleted ones (or the one with `id`). */
  private async goalsWithDeleted(userId: string, id?: string): Promise<GoalDoc[]> {
    const storage = this.goals.storageInstance;
    if (id !== undefined) {
      const found = (await storage.findDocumentsById([id], true)) as unknown as GoalDoc[];
      return found.filter((g) => g.userId === userId);
    }
    const schema = this.goals.schema.jsonSchema;
    const query = prepareQuery(schema, normalizeMangoQuery(schema, { selector: { userId: { $eq: userId } } as any }));
    return (await storage.query(query)).documents as unknown as GoalDoc[];
  }

  private rewardId(userId: string, reason: RewardReason, ref: string): string {
    return `${userId}:${reason}:${ref}`;
  }

  private async credit(userId: string, wallet: WalletState, reason: Exclude<RewardReason, ''>, ref: string, cents: number, note: string): Promise<RewardView | null> {
    if (cents <= 0) return null;
    // Already paid to this person, possibly by their other PennyPost through sync.
    if (wallet.rewardKeys.has(`${reason}:${ref}`)) return null;
    const doc = await this.append(userId, wallet, {
      id: this.rewardId(userId, reason, ref),
      kind: reason === 'welcome' ? 'grant' : 'reward',
      reason,
      ref,
      stockId: '',
      quantity: 0,
      price: 0,
      cash: cents,
      note,
    });
    return doc ? { reason, ref, coins: coinsOf(cents), note } : null;
  }

  /** The wallet, with the welcome grant credited on first use. Call under the user's lock. */
  private async walletLocked(userId: string): Promise<WalletState> {
    const wallet = await this.wallet(userId);
    if (!this.welcomed.has(userId)) {
      await this.credit(userId, wallet, 'welcome', 'grant', WELCOME_GRANT, 'Welcome to the savings game');
      this.welcomed.add(userId);
    }
    return wallet;
  }

  private async walletOf(userId: string): Promise<WalletState> {
    if (this.welcomed.has(userId)) return this.wallet(userId);
    return this.locks.run(userId, () => this.walletLocked(userId));
  }

  // ------------------------------------------------------------------ goals

  private async defaultCurrency(userId: string): Promise<string> {
    const ledger = (this.app.services as { ledger?: { baseCurrency?(id: string): Promise<{ currency: string }> } }).ledger;
    if (ledger?.baseCurrency) {
      try {
        const { currency } = await ledger.baseCurrency(userId);
        if (isCurrencyCode(currency)) return currency;
      } catch {
        // fall through to the stored preference
      }
    }
    const user = await this.users.findOne(userId).exec();
    const stored = ((user?.prefs as Record<string, any> | undefined)?.ledger?.baseCurrency ?? '') as string;
    return isCurrencyCode(stored) ? stored : 'USD';
  }

  private async goalDoc(userId: string, goalId: string): Promise<GoalDoc> {
    const doc = await this.goals.findOne(goalId).exec();
    if (!doc || doc.userId !== userId) throw new ApiError(ErrorCode.GoalNotFound, GOAL_NOT_FOUND, { goalId });
    return doc.toJSON() as GoalDoc;
  }

  private refuseCompleted(goal: GoalDoc): void {
    if (goal.status === 'completed') {
      throw new ApiError(ErrorCode.GoalCompleted, 'This goal is completed and can no longer be changed.', { goalId: goal.id, completedAt: goal.completedAt });
    }
  }

  private async goalsOf(userId: string): Promise<GoalDoc[]> {
    const docs = await this.goals.find({ selector: { userId }, sort: [{ createdAt: 'desc' }, { id: 'desc' }] }).exec();
    return docs.map((d) => d.toJSON() as GoalDoc);
  }

  effectiveStatus(goal: GoalDoc, now = this.now()): GoalStatus {
    if ((goal.status === 'active' || goal.status === 'paused') && now >= goal.endDate) return 'expired';
    return goal.status;
  }

  goalView(goal: GoalDoc, now = this.now()) {
    const c = goal.currency;
    const completed = goal.status === 'completed';
    const span = Math.max(1, goal.endDate - goal.startDate);
    const elapsed = Math.min(1, Math.max(0, (now - goal.startDate) / span));
    const expected = Math.min(goal.targetAmount, Math.round(goal.targetAmount * elapsed));
    const remaining = Math.max(0, goal.targetAmount - goal.currentAmount);
    const daysLeft = completed ? 0 : Math.max(0, Math.ceil((goal.endDate - now) / DAY_MS));
    const onTrack = completed || goal.currentAmount >= expected;
    return {
      id: goal.id,
      title: goal.title,
      description: goal.description,
      currency: c,
      targetAmount: toMajor(goal.targetAmount, c),
      currentAmount: toMajor(goal.currentAmount, c),
      remainingAmount: toMajor(remaining, c),
      percent: round1((goal.currentAmount / goal.targetAmount) * 100),
      category: goal.category,
      priority: goal.priority,
      isPublic: goal.isPublic,
      status: this.effectiveStatus(goal, now),
      startDate: goal.startDate,
      endDate: goal.endDate,
      completedAt: goal.completedAt || null,
      daysLeft,
      expectedAmount: toMajor(expected, c),
      onTrack,
      pace: completed ? 'completed' : onTrack ? 'on_track' : 'behind',
      dailyNeeded: completed ? 0 : toMajor(Math.ceil(remaining / Math.max(1, daysLeft)), c),
      contributionCount: goal.contributionCount,
      lastContributionAt: goal.lastContributionAt || null,
      createdAt: goal.createdAt,
      updatedAt: goal.updatedAt,
    };
  }

  private completionReward(goal: GoalDoc): number {
    const days = Math.min(COMPLETION_REWARD_MAX_DAYS, Math.max(0, Math.floor((goal.completedAt - goal.createdAt) / DAY_MS)));
    const base = days * COMPLETION_REWARD_PER_DAY;
    return goal.completedAt < goal.endDate ? Math.floor((base * 3) / 2) : base;
  }

  private creditCompletion(userId: string, wallet: WalletState, goal: GoalDoc): Promise<RewardView | null> {
    return this.credit(userId, wallet, 'goal_completed', goal.id, this.completionReward(goal), `Goal completed: ${goal.title}`);
  }

  async createGoal(
    userId: string,
    input: {
      title: string;
      description?: string;
      targetAmount: number;
      currency?: string;
      startDate?: number;
      endDate: number;
      category?: GoalCategory;
      priority?: GoalPriority;
      isPublic?: boolean;
    },
  ) {
    const now = this.now();
    const currency = input.currency ?? (await this.defaultCurrency(userId));
    if (!isCurrencyCode(currency)) throw new ApiError(ErrorCode.Validation, `Unknown currency "${currency}".`, { field: 'params.currency' });
    const target = toMinor(input.targetAmount, currency, 'params.targetAmount');
    if (target <= 0) throw new ApiError(ErrorCode.InvalidAmount, 'targetAmount must be greater than 0.', { field: 'params.targetAmount' });
    const startDate = input.startDate ?? now;
    if (input.endDate <= startDate) throw new ApiError(ErrorCode.Validation, 'endDate must be after startDate.', { field: 'params.endDate' });
    if (input.endDate <= now) throw new ApiError(ErrorCode.Validation, 'endDate must be in the future.', { field: 'params.endDate' });
    const title = input.title.trim();
    if (!title) throw new ApiError(ErrorCode.Validation, 'params.title must not be blank', { field: 'params.title' });
    return this.locks.run(userId, async () => {
      const open = (await this.goalsOf(userId)).filter((g) => g.status === 'active' || g.status === 'paused').length;
      if (open >= MAX_OPEN_GOALS) {
        throw new ApiError(ErrorCode.Conflict, `You already have ${MAX_OPEN_GOALS} open goals; complete, cancel or delete one first.`, { limit: MAX_OPEN_GOALS });
      }
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
      await this.goals.insert(doc);
      const unlocked = await this.evaluateLocked(userId);
      return { ...this.goalView(doc, now), rewards: unlocked };
    });
  }

  async queryGoals(userId: string, filter: { status?: GoalStatus; category?: GoalCategory; page: number; pageSize: number }) {
    const now = this.now();
    let goals = await this.goalsOf(userId);
    if (filter.status) goals = goals.filter((g) => this.effectiveStatus(g, now) === filter.status);
    if (filter.category) goals = goals.filter((g) => g.category === filter.category);
    const start = (filter.page - 1) * filter.pageSize;
    return {
      list: goals.slice(start, start + filter.pageSize).map((g) => this.goalView(g, now)),
      total: goals.length,
      page: filter.page,
      pageSize: filter.pageSize,
    };
  }

  async getGoal(userId: string, goalId: string) {
    return this.goalView(await this.goalDoc(userId, goalId));
  }

  async updateProgress(userId: string, goalId: string, amount: number) {
    return this.locks.run(userId, async () => {
      const goal = await this.goalDoc(userId, goalId);
      this.refuseCompleted(goal);
      if (goal.status === 'cancelled' || goal.status === 'paused') {
        throw new ApiError(ErrorCode.Conflict, `This goal is ${goal.status}; set its status back to "active" (savings.updateGoal) before changing its progress.`, {
          goalId,
          status: goal.status,
        });
      }
      const delta = toMinor(amount, goal.currency);
      if (delta === 0) throw new ApiError(ErrorCode.InvalidAmount, 'amount must not be 0 (positive adds savings, negative withdraws).', { field: 'params.amount' });
      const next = goal.currentAmount + delta;
      if (next < 0) {
        throw new ApiError(ErrorCode.Conflict, `You can withdraw at most ${toMajor(goal.currentAmount, goal.currency)} ${goal.currency} from this goal.`, {
          currentAmount: toMajor(goal.currentAmount, goal.currency),
        });
      }
      if (next > 1e15) throw new ApiError(ErrorCode.Validation, 'params.amount is too large', { field: 'params.amount' });
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
      await this.writeGoal(updated);
      const wallet = await this.walletLocked(userId);
      const rewards: RewardView[] = [];
      if (next > previousPeak) {
        const calendar = await this.calendarOf(userId);
        const day = Calendar.isoDate(calendar.dayOf(now));
        const reward = await this.credit(userId, wallet, 'saving_day', day, SAVING_DAY_REWARD, `Saved on ${day}`);
        if (reward) rewards.push(reward);
      }
      if (completes) {
        const reward = await this.creditCompletion(userId, wallet, updated);
        if (reward) rewards.push(reward);
      }
      rewards.push(...(await this.evaluateLocked(userId)));
      return { ...this.goalView(updated, now), rewards };
    });
  }

  private async writeGoal(goal: GoalDoc): Promise<void> {
    const doc = await this.goals.findOne(goal.id).exec();
    if (!doc) throw new ApiError(ErrorCode.GoalNotFound, GOAL_NOT_FOUND, { goalId: goal.id });
    await doc.incrementalModify(() => goal);
  }

  async updateGoal(
    userId: string,
    goalId: string,
    patch: {
      title?: string;
      description?: string;
      targetAmount?: number;
      startDate?: number;
      endDate?: number;
      category?: GoalCategory;
      priority?: GoalPriority;
      isPublic?: boolean;
      status?: Exclude<StoredGoalStatus, 'completed'>;
    },
  ) {
    return this.locks.run(userId, async () => {
      const goal = await this.goalDoc(userId, goalId);
      this.refuseCompleted(goal);
      const now = this.now();
      const next: GoalDoc = { ...goal, updatedAt: now };
      if (patch.title !== undefined) {
        const title = patch.title.trim();
        if (!title) throw new ApiError(ErrorCode.Validation, 'params.title must not be blank', { field: 'params.title' });
        next.title = title;
      }
      if (patch.description !== undefined) next.description = patch.description;
      if (patch.category !== undefined) next.category = patch.category;
      if (patch.priority !== undefined) next.priority = patch.priority;
      if (patch.isPublic !== undefined) next.isPublic = patch.isPublic;
      if (patch.startDate !== undefined) next.startDate = patch.startDate;
      if (patch.endDate !== undefined) {
        if (patch.endDate <= now) throw new ApiError(ErrorCode.Validation, 'endDate must be in the future.', { field: 'params.endDate' });
        next.endDate = patch.endDate;
      }
      if (next.endDate <= next.startDate) throw new ApiError(ErrorCode.Validation, 'endDate must be after startDate.', { field: 'params.endDate' });
      if (patch.targetAmount !== undefined) {
        const target = toMinor(patch.targetAmount, goal.currency, 'params.targetAmount');
        if (target <= 0) throw new ApiError(ErrorCode.InvalidAmount, 'targetAmount must be greater than 0.', { field: 'params.targetAmount' });
        next.targetAmount = target;
      }
      if (patch.status !== undefined && patch.status !== goal.status) {
        if (patch.status !== 'cancelled' && goal.status === 'cancelled') {
          const open = (await this.goalsOf(userId)).filter((g) => g.status === 'active' || g.status === 'paused').length;
          if (open >= MAX_OPEN_GOALS) {
            throw new ApiError(ErrorCode.Conflict, `You already have ${MAX_OPEN_GOALS} open goals; complete, cancel or delete one first.`, { limit: MAX_OPEN_GOALS });
          }
        }
        next.status = patch.status;
      }
      const rewards: RewardView[] = [];
      // Lowering the target to what is already saved completes an open goal.
      if (next.status === 'active' && next.currentAmount >= next.targetAmount) {
        next.status = 'completed';
        next.completedAt = now;
      }
      await this.writeGoal(next);
      if (next.status === 'completed') {
        const wallet = await this.walletLocked(userId);
        const reward = await this.creditCompletion(userId, wallet, next);
        if (reward) rewards.push(reward);
        rewards.push(...(await this.evaluateLocked(userId)));
      }
      return { ...this.goalView(next, now), rewards };
    });
  }

  async deleteGoal(userId: string, goalId: string) {
    return this.locks.run(userId, async () => {
      const goal = await this.goalDoc(userId, goalId);
      this.refuseCompleted(goal);
      const doc = await this.goals.findOne(goalId).exec();
      await doc?.remove();
      return { deleted: true, id: goalId };
    });
  }

  // ------------------------------------------------------------------ market

  private stockOr404(stockId: string): StockDefinition {
    const stock = findStock(stockId);
    if (!stock) throw new ApiError(ErrorCode.NotFound, `No stock "${stockId}" on the market (see savings.getMarket).`, { stockId });
    return stock;
  }

  priceOf = (stockId: string, time = this.now()): number => {
    const stock = findStock(stockId);
    return stock ? this.market.priceAt(stock, time) : 0;
  };

  getMarket() {
    const now = this.now();
    const step = stepAt(now);
    const dayAgo = Math.max(0, step - DAY_MS / STEP_MS);
    return {
      asOf: stepStart(step),
      nextUpdateAt: stepStart(step + 1),
      stepMinutes: STEP_MS / 60_000,
      stocks: STOCKS.map((stock) => {
        const price = this.market.priceAtStep(stock, step);
        const previous = this.market.priceAtStep(stock, dayAgo);
        return {
          id: stock.id,
          name: stock.name,
          sector: stock.sector,
          description: stock.description,
          price: coinsOf(price),
          previousPrice: coinsOf(previous),
          change: coinsOf(price - previous),
          changePercent: round2(((price - previous) / previous) * 100),
        };
      }),
    };
  }

  getStockHistory(stockId: string, range: HistoryRange) {
    const stock = this.stockOr404(stockId);
    const steps = historySteps(range, this.now());
    const points = steps.map((step) => ({ time: stepStart(step), price: coinsOf(this.market.priceAtStep(stock, step)) }));
    const prices = points.map((p) => p.price);
    const open = prices[0];
    const close = prices[prices.length - 1];
    return {
      stockId: stock.id,
      name: stock.name,
      range,
      interval: HISTORY_RANGES[range].interval,
      points,
      open,
      close,
      high: Math.max(...prices),
      low: Math.min(...prices),
      change: round2(close - open),
      changePercent: round2(((close - open) / open) * 100),
    };
  }

  // ------------------------------------------------------------------ trading

  private tradeView(trade: TradeDoc, balance?: number) {
    return {
      id: trade.id,
      kind: trade.kind,
      reason: trade.reason,
      ref: trade.ref,
      stockId: trade.stockId,
      quantity: trade.quantity,
      price: coinsOf(trade.price),
      amount: coinsOf(trade.cash),
      ...(balance === undefined ? {} : { balance: coinsOf(balance) }),
      note: trade.note,
      createdAt: trade.createdAt,
    };
  }

  private positionView(p: PositionState, now: number, lostPrecision = false) {
    const stock = findStock(p.stockId);
    const price = this.priceOf(p.stockId, now);
    const marketValue = BigInt(p.quantity) * BigInt(price);
    const unrealized = marketValue - BigInt(p.costBasis);
    const out = new CoinWriter(lostPrecision);
    const view = {
      stockId: p.stockId,
      name: stock?.name ?? p.stockId,
      sector: stock?.sector ?? '',
      quantity: p.quantity,
      averageCost: p.quantity > 0 ? coinsOf(Math.round(p.costBasis / p.quantity)) : 0,
      costBasis: out.coins('costBasis', p.costBasis),
      price: coinsOf(price),
      marketValue: out.coins('marketValue', marketValue),
      unrealizedProfit: out.coins('unrealizedProfit', unrealized),
      unrealizedPercent: p.costBasis > 0 ? round2((Number(unrealized) / p.costBasis) * 100) : 0,
      realizedProfit: out.coins('realizedProfit', p.realized),
    };
    return out.inexact.length > 0 ? { ...view, inexact: out.inexact } : view;
  }

  async buy(userId: string, stockId: string, quantity: number) {
    const stock = this.stockOr404(stockId);
    return this.locks.run(userId, async () => {
      const wallet = await this.walletLocked(userId);
      const now = this.now();
      const price = this.market.priceAt(stock, now);
      const cost = price * quantity;
      if (cost > wallet.cash) {
        throw new ApiError(ErrorCode.InsufficientFunds, `Not enough coins: ${quantity} × ${coinsOf(price)} = ${coinsOf(cost)} coins, you have ${coinsOf(wallet.cash)}.`, {
          cash: coinsOf(wallet.cash),
          cost: coinsOf(cost),
          price: coinsOf(price),
          maxQuantity: Math.floor(wallet.cash / price),
        });
      }
      const trade = (await this.append(userId, wallet, {
        kind: 'buy',
        reason: '',
        ref: '',
        stockId: stock.id,
        quantity,
        price,
        cash: -cost,
        note: `Bought ${quantity} ${stock.id} at ${coinsOf(price)}`,
      }))!;
      const rewards = await this.evaluateLocked(userId);
      return {
        trade: this.tradeView(trade),
        cash: coinsOf(wallet.cash),
        position: this.positionView(wallet.positions.get(stock.id)!, now),
        rewards,
      };
    });
  }

  async sell(userId: string, stockId: string, quantity: number) {
    const stock = this.stockOr404(stockId);
    return this.locks.run(userId, async () => {
      const wallet = await this.walletLocked(userId);
      const held = wallet.positions.get(stock.id)?.quantity ?? 0;
      if (quantity > held) {
        throw new ApiError(ErrorCode.Conflict, `You hold ${held} ${stock.id}; you cannot sell ${quantity}.`, { held, stockId: stock.id });
      }
      const now = this.now();
      const price = this.market.priceAt(stock, now);
      const proceeds = price * quantity;
      // A trade's cash and the wallet's cash stay within the exact range (±10^15 cents).
      if (!inRange(BigInt(price) * BigInt(quantity)) || !inRange(BigInt(wallet.cash) + BigInt(price) * BigInt(quantity))) {
        throw new ApiError(
          ErrorCode.Validation,
          `Selling ${quantity} ${stock.id} at ${coinsOf(price)} would take your cash beyond ${COIN_LIMIT} coins, the largest amount PennyPost keeps exactly; sell fewer shares.`,
          { field: 'params.quantity', limit: MAX_MINOR / 100, maxQuantity: Math.max(0, Math.floor((MAX_MINOR - Math.max(0, wallet.cash)) / price)) },
        );
      }
      const trade = (await this.append(userId, wallet, {
        kind: 'sell',
        reason: '',
        ref: '',
        stockId: stock.id,
        quantity,
        price,
        cash: proceeds,
        note: `Sold ${quantity} ${stock.id} at ${coinsOf(price)}`,
      }))!;
      const rewards = await this.evaluateLocked(userId);
      return {
        trade: this.tradeView(trade),
        cash: coinsOf(wallet.cash),
        position: this.positionView(wallet.positions.get(stock.id)!, now),
        rewards,
      };
    });
  }

  async getWallet(userId: string, page: number, pageSize: number) {
    const wallet = await this.walletOf(userId);
    const now = this.now();
    const holdings = holdingsValue(wallet, (id) => this.priceOf(id, now));
    const total = wallet.entries.length;
    const list = [];
    for (let i = total - 1 - (page - 1) * pageSize; i >= 0 && list.length < pageSize; i--) {
      list.push(this.tradeView(wallet.entries[i], wallet.balances[i]));
    }
    let invested = 0n;
    for (const p of wallet.positions.values()) invested += BigInt(p.costBasis);
    const out = new CoinWriter(wallet.lostPrecision);
    return {
      unit: 'coins',
      cash: out.coins('cash', wallet.cash),
      invested: out.coins('invested', invested),
      holdingsValue: out.coins('holdingsValue', holdings),
      totalValue: out.coins('totalValue', BigInt(wallet.cash) + holdings),
      received: {
        total: out.coins('received.total', wallet.received),
        welcome: out.coins('received.welcome', wallet.receivedBy.welcome),
        savingDays: out.coins('received.savingDays', wallet.receivedBy.saving_day),
        goalsCompleted: out.coins('received.goalsCompleted', wallet.receivedBy.goal_completed),
        achievements: out.coins('received.achievements', wallet.receivedBy.achievement),
      },
      history: { list, total, page, pageSize },
      inexact: out.inexact,
    };
  }

  async getPositions(userId: string, includeClosed: boolean) {
    const wallet = await this.walletOf(userId);
    const now = this.now();
    const positions = [...wallet.positions.values()]
      .filter((p) => p.quantity > 0 || includeClosed)
      .sort((a, b) => (a.stockId < b.stockId ? -1 : a.stockId > b.stockId ? 1 : 0))
      .map((p) => this.positionView(p, now, wallet.lostPrecision));
    let costBasis = 0n;
    let marketValue = 0n;
    let realized = 0n;
    for (const p of wallet.positions.values()) {
      costBasis += BigInt(p.costBasis);
      marketValue += BigInt(p.quantity) * BigInt(this.priceOf(p.stockId, now));
      realized += BigInt(p.realized);
    }
    const out = new CoinWriter(wallet.lostPrecision);
    return {
      asOf: stepStart(stepAt(now)),
      positions,
      totals: {
        costBasis: out.coins('totals.costBasis', costBasis),
        marketValue: out.coins('totals.marketValue', marketValue),
        unrealizedProfit: out.coins('totals.unrealizedProfit', marketValue - costBasis),
        unrealizedPercent: costBasis > 0n ? round2((Number(marketValue - costBasis) / Number(costBasis)) * 100) : 0,
        realizedProfit: out.coins('totals.realizedProfit', realized),
        totalProfit: out.coins('totals.totalProfit', marketValue - costBasis + realized),
        cash: out.coins('totals.cash', wallet.cash),
        totalValue: out.coins('totals.totalValue', BigInt(wallet.cash) + marketValue),
      },
      inexact: out.inexact,
    };
  }

  // ------------------------------------------------------------------ achievements

  private async recordStats(userId: string): Promise<RecordStats> {
    return this.recordStatsCache.get(userId, async () => {
      const calendar = await this.calendarOf(userId);
      // The ledger keeps every record of the user in memory (fed by the change stream, sync
      // included); reading it here avoids loading all documents again on every new record.
      const ledger = (this.app.services as { ledger?: { views: { get(id: string): Promise<{ entries: Array<{ createdAt: number }> }> } } }).ledger;
      if (ledger) {
        const view = await ledger.views.get(userId);
        const days = new Set<number>();
        for (const entry of view.entries) days.add(calendar.dayOf(entry.createdAt));
        return { count: view.entries.length, days: [...days].sort((a, b) => a - b), calendar };
      }
      const records = this.records;
      if (!records) return { count: 0, days: [], calendar: null };
      const docs = await records.find({ selector: { userId } }).exec();
      const days = new Set<number>();
      for (const doc of docs) days.add(calendar.dayOf(doc.createdAt));
      return { count: docs.length, days: [...days].sort((a, b) => a - b), calendar };
    });
  }

  private async stats(userId: string, wallet: WalletState, goals: GoalDoc[]): Promise<AchievementStats> {
    const records = await this.recordStats(userId);
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
      portfolioProfit: portfolioProfit(wallet, (id) => this.priceOf(id)),
    };
  }

  /**
   * Unlocks every achievement whose target is reached and credits its reward; repairs what an
   * interrupted write left behind (a completed goal without its reward, a reward without its
   * unlock record). Idempotent: run it as often as you like. Call under the user's lock.
   */
  private async evaluateLocked(userId: string): Promise<RewardView[]> {
    const wallet = await this.walletLocked(userId);
    const goals = await this.goalsOf(userId);
    const rewards: RewardView[] = [];
    for (const goal of goals) {
      if (goal.status === 'completed' && !wallet.rewardKeys.has(`goal_completed:${goal.id}`)) {
        const reward = await this.creditCompletion(userId, wallet, goal);
        if (reward) rewards.push(reward);
      }
    }
    const stats = await this.stats(userId, wallet, goals);
    const unlocked = new Map((await this.achievements.find({ selector: { userId } }).exec()).map((d) => [d.achievementId, d]));
    for (const entry of wallet.entries) {
      if (entry.reason === 'achievement' && !unlocked.has(entry.ref)) {
        await this.insertUnlock(userId, entry.ref, entry.createdAt, entry.cash);
        unlocked.set(entry.ref, null as never);
      }
    }
    for (const def of ACHIEVEMENTS) {
      if (unlocked.has(def.id) || def.measure(stats) < def.target) continue;
      // The reward first: if the process stops in between, the unlock record is repaired above.
      const reward = await this.credit(userId, wallet, 'achievement', def.id, def.reward, `Achievement: ${def.title}`);
      const at = wallet.entries.find((e) => e.reason === 'achievement' && e.ref === def.id)?.createdAt ?? this.now();
      await this.insertUnlock(userId, def.id, at, def.reward);
      unlocked.set(def.id, null as never);
      if (reward) rewards.push(reward);
    }
    return rewards;
  }

  private async insertUnlock(userId: string, achievementId: string, at: number, reward: number): Promise<void> {
    const doc: AchievementDoc = { id: `${userId}:${achievementId}`, userId, achievementId, unlockedAt: at, reward, createdAt: at, updatedAt: at };
    const result = await this.achievements.bulkInsert([doc]);
    if (result.error.length > 0 && result.error[0].status !== 409) throw new Error(`achievement write failed with status ${result.error[0].status}`);
  }

  async getAchievements(userId: string, filter: { category?: AchievementCategory; completed?: boolean }) {
    await this.locks.run(userId, () => this.evaluateLocked(userId));
    const wallet = await this.wallet(userId);
    const stats = await this.stats(userId, wallet, await this.goalsOf(userId));
    const unlocked = new Map((await this.achievements.find({ selector: { userId } }).exec()).map((d) => [d.achievementId, d.toJSON() as AchievementDoc]));
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
    const records = await this.recordStats(userId);
    const calendar = await this.calendarOf(userId);
    return {
      list,
      summary: {
        unlocked: all.filter((a) => a.completed).length,
        total: all.length,
        coinsEarned: coinsOf(wallet.receivedBy.achievement),
        bookkeepingStreak: currentRun(records.days, calendar.dayOf(this.now())),
        longestBookkeepingStreak: longestRun(records.days),
      },
    };
  }

  // ------------------------------------------------------------------ leaderboard

  async getLeaderboard(userId: string, type: LeaderboardType, period: LeaderboardPeriod, limit: number) {
    const now = this.now();
    const calendar = await this.calendarOf(userId);
    const today = calendar.dayOf(now);
    const fromDay = period === 'week' ? Calendar.mondayOf(today) : period === 'month' ? Calendar.firstOfMonth(today) : null;
    const from = fromDay === null ? 0 : calendar.startOfDay(fromDay);
    const users = (await this.users.find().exec()).map((d) => d.toJSON() as UserDoc);
    const optedIn = (u: UserDoc) => ((u.prefs as Record<string, any> | undefined)?.savings?.leaderboardOptIn ?? false) === true;
    const me = users.find((u) => u.id === userId);
    const players = users.filter((u) => optedIn(u));
    const scored: Array<{ user: UserDoc; score: number }> = [];
    for (const user of players) scored.push({ user, score: await this.score(user.id, type, from, now) });
    scored.sort((a, b) => b.score - a.score || (a.user.username < b.user.username ? -1 : 1));
    const rankOf = (score: number) => 1 + scored.filter((s) => s.score > score).length;
    const myScore = me && optedIn(me) ? scored.find((s) => s.user.id === userId)!.score : await this.score(userId, type, from, now);
    const top = scored.slice(0, limit);
    const entries = [];
    for (const { user, score } of top) {
      const publicGoals = (await this.goalsOf(user.id))
        .filter((g) => g.isPublic && g.status !== 'cancelled')
        .map((g) => ({ title: g.title, percent: round1(Math.min(100, (g.currentAmount / g.targetAmount) * 100)), status: this.effectiveStatus(g, now) }));
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
        const wallet = await this.wallet(userId);
        let cents = 0;
        wallet.entries.forEach((e, i) => {
          if (e.createdAt >= from && (e.reason === 'saving_day' || e.reason === 'goal_completed')) cents += credited(wallet, i);
        });
        return coinsOf(cents);
      }
      case 'goals':
        return (await this.goalsOf(userId)).filter((g) => g.status === 'completed' && g.completedAt >= from).length;
      case 'achievements': {
        // One per achievement: two PennyPosts of the same person each write an unlock of it.
        const first = new Map<string, number>();
        for (const a of await this.achievements.find({ selector: { userId } }).exec()) {
          first.set(a.achievementId, Math.min(first.get(a.achievementId) ?? Infinity, a.unlockedAt));
        }
        return [...first.values()].filter((at) => at >= from).length;
      }
      case 'streak': {
        const calendar = await this.calendarOf(userId);
        const records = await this.recordStats(userId);
        return longestRun(records.days, from === 0 ? -Infinity : calendar.dayOf(from), calendar.dayOf(now));
      }
      case 'portfolio': {
        const wallet = await this.wallet(userId);
        if (wallet.entries.length === 0) return 0;
        const valueAt = (state: WalletState, time: number) => state.cash + Number(holdingsValue(state, (id) => this.priceOf(id, time)));
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

/**
 * What entry `i` of a replayed log moved the cash by: its cash, or 0 for a reward paid already
 * (the same reward credited by two PennyPosts of one person, or copied in CouchDB), which the
 * wallet does not count and so neither does the leaderboard.
 */
function credited(wallet: WalletState, i: number): number {
  return wallet.balances[i] - (i > 0 ? wallet.balances[i - 1] : 0);
}

export const LEADERBOARD_TYPES = ['savings', 'goals', 'portfolio', 'streak', 'achievements'] as const;
export type LeaderboardType = (typeof LEADERBOARD_TYPES)[number];
export const LEADERBOARD_PERIODS = ['week', 'month', 'all'] as const;
export type LeaderboardPeriod = (typeof LEADERBOARD_PERIODS)[number];
const LEADERBOARD_UNITS: Record<LeaderboardType, string> = {
  savings: 'saving coins',
  goals: 'goals completed',
  portfolio: '% return',
  streak: 'days in a row',
  achievements: 'achievements',
};
