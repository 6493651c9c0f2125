import { createHmac } from 'node:crypto';
import type { RxCollection } from 'rxdb';
import type { Subscription } from 'rxjs';
import type { AppContext } from '../app-context';
import { newId } from '../lib/ids';
import type { KeyedMutex } from '../lib/keyed-mutex';
import { coinsOf } from './coins';
import { completionReward, WELCOME_GRANT } from './game-economy';
import type { GoalDoc, RewardReason, TradeDoc } from './schema';
import type { RewardView } from './result-shapes';
import { UserCache } from './user-cache';
import { applyTrade, replay, type WalletState } from './wallet';

/** A coin credit made by a call, as the answer lists it under `rewards`. */
export type { RewardView } from './result-shapes';

type TradeValues = Pick<TradeDoc, 'kind' | 'stockId' | 'quantity' | 'price' | 'cash' | 'createdAt'>;

/**
 * The wallets: each player's append-only log of grants, rewards, buys and sells (the `trades`
 * collection), replayed into a WalletState that is kept in memory and extended by this
 * PennyPost's own writes; an entry that arrives by sync drops it (replayed again on next use).
 */
export class WalletLog {
  private readonly cache = new UserCache<WalletState>();
  /** Trade ids this PennyPost wrote and has already applied to the cached wallet. */
  private readonly ownTrades = new Set<string>();
  private readonly welcomed = new Set<string>();
  private subscription: Subscription | undefined;

  constructor(
    private readonly app: AppContext,
    /** The players' locks, shared with the rest of the game. */
    private readonly locks: KeyedMutex,
    /** Signs the buys and sells of this PennyPost's market (derived from the market's seed). */
    private readonly tradeKey: Buffer,
  ) {}

  private get collection(): RxCollection<TradeDoc> {
    return this.app.db.collection<TradeDoc>('trades');
  }

  /** Drops a cached wallet when an entry arrives that this PennyPost did not write (sync). */
  start(): void {
    this.subscription = this.collection.$.subscribe((event) => {
      if (this.ownTrades.delete(event.documentId)) return;
      const userId = (event.documentData as TradeDoc | undefined)?.userId;
      if (userId) this.cache.invalidate(userId);
    });
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  /** Forgets a player's replayed wallet: the next read replays the log again. */
  invalidate(userId: string): void {
    this.cache.invalidate(userId);
  }

  /** The replayed wallet log of an account (a shared cache: never change it). */
  snapshot(userId: string): Promise<WalletState> {
    return this.cache.get(userId, async () => {
      const docs = await this.collection.find({ selector: { userId }, sort: [{ createdAt: 'asc' }, { id: 'asc' }] }).exec();
      return replay(docs.map((d) => d.toJSON() as TradeDoc));
    });
  }

  /** The wallet, with the welcome grant credited on first use. Call under the player's lock. */
  async locked(userId: string): Promise<WalletState> {
    const wallet = await this.snapshot(userId);
    if (!this.welcomed.has(userId)) {
      await this.credit(userId, wallet, 'welcome', 'grant', WELCOME_GRANT, 'Welcome to the savings game');
      this.welcomed.add(userId);
    }
    return wallet;
  }

  /** The wallet, with the welcome grant credited on first use (takes the player's lock for that). */
  async of(userId: string): Promise<WalletState> {
    if (this.welcomed.has(userId)) return this.snapshot(userId);
    return this.locks.run(userId, () => this.locked(userId));
  }

  /** Appends an entry to the log (no-op returning null when its id is already there). */
  async append(
    userId: string,
    wallet: WalletState,
    entry: Pick<TradeDoc, 'kind' | 'reason' | 'ref' | 'stockId' | 'quantity' | 'price' | 'cash' | 'note'> & { id?: string },
  ): Promise<TradeDoc | null> {
    const now = this.app.clock.now();
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
    const result = await this.collection.bulkInsert([doc]);
    const failure = result.error.at(0);
    if (failure) {
      this.ownTrades.delete(id);
      this.cache.invalidate(userId);
      if (failure.status === 409) return null;
      throw new Error(`trade write failed with status ${failure.status}`);
    }
    applyTrade(wallet, doc);
    return doc;
  }

  /**
   * Credits a grant or reward once per player (its id is `<userId>:<reason>:<ref>`); null when
   * there is nothing to pay or it was paid already, possibly by their other PennyPost through sync.
   */
  async credit(userId: string, wallet: WalletState, reason: Exclude<RewardReason, ''>, ref: string, cents: number, note: string): Promise<RewardView | null> {
    if (cents <= 0) return null;
    if (wallet.rewardKeys.has(`${reason}:${ref}`)) return null;
    const doc = await this.append(userId, wallet, {
      id: `${userId}:${reason}:${ref}`,
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

  /** Credits the completion reward of a completed goal (once). */
  creditCompletion(userId: string, wallet: WalletState, goal: GoalDoc): Promise<RewardView | null> {
    return this.credit(userId, wallet, 'goal_completed', goal.id, completionReward(goal), `Goal completed: ${goal.title}`);
  }

  /**
   * A buy's or sell's id: a fresh id, a dot, and a signature over it, the account and the
   * trade's values, keyed by this market's seed. Only a PennyPost that prices this market can
   * write a trade that passes isSignedTrade, so a trade cannot be made up in CouchDB (e.g. bought
   * in the past at a price known afterwards); this PennyPost's own trades, lost by a snapshot
   * restore and pulled back from CouchDB, still pass.
   */
  private signedTradeId(userId: string, trade: TradeValues): string {
    const base = newId(trade.createdAt);
    return `${base}.${this.tradeSignature(base, userId, trade)}`;
  }

  private tradeSignature(base: string, userId: string, trade: TradeValues): string {
    const text = [base, userId, trade.kind, trade.stockId, trade.quantity, trade.price, trade.cash, trade.createdAt].join('|');
    return createHmac('sha256', this.tradeKey).update(text).digest('base64url').slice(0, 22);
  }

  /** Whether this PennyPost made this buy or sell for this account (see signedTradeId). */
  isSignedTrade(userId: string, trade: TradeDoc): boolean {
    const dot = trade.id.lastIndexOf('.');
    if (dot <= 0) return false;
    return trade.id.slice(dot + 1) === this.tradeSignature(trade.id.slice(0, dot), userId, trade);
  }
}
