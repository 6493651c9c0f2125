import type { AppContext } from '../app-context';
import { isCurrencyCode } from '../lib/money';
import { accept, registerArrivalCheck, reject, SYNC_CLOCK_SKEW_MS, waitFor, type ArrivalCheckContext, type SyncVerdict } from '../arrival-checks';
import { ACHIEVEMENTS } from './catalogue';
import { findStock } from './market';
import type { AchievementDoc, GoalDoc, TradeDoc } from './schema';
import { coinsOf } from './coins';
import { MAX_TRADE_QUANTITY } from './game-economy';
import type { SavingsService } from './service';
import { applyTrade, compareTrades, firstShortfall, replay, sortsLast, type WalletState } from './wallet';

/**
 * The savings game's checks of documents that arrive by sync (docs/savings-game.md, "Sync: what
 * a synced document must prove"). Coins never come from a document alone:
 *
 * - A grant or reward is re-derived: it is taken only if this PennyPost's own reward formulas
 *   (game-economy.ts) call for exactly that entry — the same reason and ref (goal, achievement,
 *   day), the same amount, its cause here (the completed goal, the goal saved into that day, the achievement reached).
 *   The formulas are the same on every PennyPost and their causes sync too, so two PennyPosts of
 *   the same person agree without sharing any key. A cause that has not arrived yet makes the
 *   reward wait, not fail. Paid already (by the person's other PennyPost) is fine: the wallet
 *   counts one reward per reason and ref.
 * - A buy or sell is checked for consistency (a listed stock, 1 to 1,000,000 shares, cash =
 *   ∓ price × shares, the price of this market at its time) and must carry this PennyPost's
 *   signature (WalletLog.isSignedTrade): prices come from a market whose seed only this
 *   PennyPost has, so nobody else can write a buy or sell on it — in particular not one dated in
 *   the past at a price known afterwards. It must also not leave the wallet short of coins or
 *   shares at any point of the log (it waits if the entries that pay for it are not here yet).
 * - Entries of the log are never changed or deleted; a completed goal and an unlock are final.
 * - Goals must be consistent (a completed goal reached its target, after it was created, …):
 *   a completed goal arriving by sync earns its completion reward here.
 * - An unlock needs its reward in the wallet log (the reward is written first); it waits for it.
 */

export function registerSavingsArrivalChecks(app: AppContext, savings: SavingsService): void {
  registerArrivalCheck<TradeDoc>(app, 'trades', (doc, ctx) => validateSyncedTrade(savings, doc, ctx));
  registerArrivalCheck<GoalDoc>(app, 'goals', validateSyncedGoal);
  registerArrivalCheck<AchievementDoc>(app, 'achievements', (doc, ctx) => validateSyncedUnlock(savings, doc, ctx));
}

const iso = (time: number) => new Date(time).toISOString();

function same<T extends object>(a: T, b: T, keys: readonly (keyof T)[]): boolean {
  return keys.every((key) => JSON.stringify(a[key]) === JSON.stringify(b[key]));
}

const TRADE_FIELDS = ['kind', 'reason', 'ref', 'stockId', 'quantity', 'price', 'cash', 'note', 'createdAt'] as const;

interface Working {
  base: WalletState;
  baseLength: number;
  /** base itself until a pending entry is added (the service's cache is never changed). */
  state: WalletState;
  applied: Set<string>;
}

/**
 * The wallet log as it stands for the check: what is written here plus the entries this pull
 * took before (pending). Kept in the rule's scratch and extended entry by entry, so a pull of a
 * long log costs one replay per written batch, not one per entry.
 */
async function workingWallet(savings: SavingsService, ctx: ArrivalCheckContext): Promise<WalletState> {
  const base = await savings.wallets.snapshot(ctx.userId);
  let working = ctx.scratch.get('wallet') as Working | undefined;
  if (!working || working.base !== base || working.baseLength !== base.entries.length) {
    working = { base, baseLength: base.entries.length, state: base, applied: new Set() };
    ctx.scratch.set('wallet', working);
  }
  for (const doc of ctx.pending.values()) {
    const entry = doc as TradeDoc;
    if (base.ids.has(entry.id) || working.applied.has(entry.id)) continue;
    working.applied.add(entry.id);
    if (working.state !== base && sortsLast(working.state, entry)) applyTrade(working.state, entry);
    else working.state = replay([...working.state.entries, entry]);
  }
  return working.state;
}

export async function validateSyncedTrade(savings: SavingsService, doc: TradeDoc, ctx: ArrivalCheckContext): Promise<SyncVerdict> {
  if (ctx.deleted) return reject('entries of the wallet log are never deleted');
  if (ctx.local) {
    return same(ctx.local as TradeDoc, doc, TRADE_FIELDS) ? accept : reject('entries of the wallet log never change (this entry is here with other values)');
  }
  if (doc.createdAt > ctx.now + SYNC_CLOCK_SKEW_MS) return reject(`it is dated in the future (${iso(doc.createdAt)})`);

  if (doc.kind === 'grant' || doc.kind === 'reward') {
    if (doc.reason === '' || (doc.kind === 'grant') !== (doc.reason === 'welcome')) {
      return reject('its kind and reason do not match (the welcome grant is the only grant; every other credit is a reward with its reason)');
    }
    if (doc.stockId !== '' || doc.quantity !== 0 || doc.price !== 0) return reject('a grant or reward carries no stock, shares or price');
    const judgement = await savings.rewards.judge(ctx.userId, doc, await workingWallet(savings, ctx));
    if ('never' in judgement) return reject(judgement.never);
    if ('wait' in judgement) return waitFor(`${judgement.wait}; the reward is kept and counted once it is`, judgement.on);
    return accept;
  }

  // A buy or a sell.
  if (doc.reason !== '' || doc.ref !== '') return reject('a buy or sell has no reason or ref');
  const stock = findStock(doc.stockId);
  if (!stock) return reject(`there is no stock "${doc.stockId}" on the market`);
  if (!Number.isSafeInteger(doc.quantity) || doc.quantity < 1 || doc.quantity > MAX_TRADE_QUANTITY) {
    return reject(`${doc.quantity} is not a number of shares from 1 to ${MAX_TRADE_QUANTITY.toLocaleString('en-US')}`);
  }
  const total = BigInt(doc.price) * BigInt(doc.quantity);
  if (BigInt(doc.cash) !== (doc.kind === 'buy' ? -total : total)) {
    return reject(`its cash (${coinsOf(doc.cash)}) is not ${doc.kind === 'buy' ? '−' : '+'}price × shares (${coinsOf(Number(total))} coins)`);
  }
  const prices = savings.quotes.pricesAround(stock, doc.createdAt);
  if (!prices.includes(doc.price)) {
    return reject(
      `${stock.id} cost ${coinsOf(savings.quotes.priceOf(stock.id, doc.createdAt))} coins on this PennyPost's market at ${iso(doc.createdAt)}, not ${coinsOf(doc.price)}: ` +
        'every PennyPost has its own market, so trades are played on the PennyPost that made them',
    );
  }
  if (!savings.wallets.isSignedTrade(ctx.userId, doc)) {
    return reject('this PennyPost did not make this trade: only the PennyPost whose market priced a buy or sell can vouch for it (its id carries that signature)');
  }
  const wallet = await workingWallet(savings, ctx);
  let shortfall: { entry: TradeDoc; cash: number; held: number } | null;
  if (sortsLast(wallet, doc)) {
    const held = wallet.positions.get(doc.stockId)?.quantity ?? 0;
    shortfall = (doc.kind === 'buy' && wallet.cash + doc.cash < 0) || (doc.kind === 'sell' && doc.quantity > held) ? { entry: doc, cash: wallet.cash + doc.cash, held } : null;
  } else {
    const entries = [...wallet.entries, doc].sort(compareTrades);
    shortfall = firstShortfall(entries, entries.indexOf(doc));
  }
  if (shortfall) {
    const at = shortfall.entry === doc ? 'at its time' : `at ${iso(shortfall.entry.createdAt)}`;
    const what =
      shortfall.entry.kind === 'sell' && shortfall.entry.quantity > shortfall.held
        ? `it leaves ${shortfall.held} ${shortfall.entry.stockId} to sell ${shortfall.entry.quantity} ${at}`
        : `it leaves the wallet ${coinsOf(-shortfall.cash)} coins short ${at}`;
    return waitFor(`waiting for the entries that cover it: ${what}`, ['trades']);
  }
  return accept;
}

const GOAL_FIELDS = [
  'title',
  'description',
  'currency',
  'targetAmount',
  'currentAmount',
  'peakAmount',
  'category',
  'priority',
  'isPublic',
  'status',
  'startDate',
  'endDate',
  'completedAt',
  'contributionCount',
  'lastContributionAt',
  'createdAt',
  'updatedAt',
] as const;

export function validateSyncedGoal(doc: GoalDoc, ctx: ArrivalCheckContext): SyncVerdict {
  const local = ctx.local as GoalDoc | undefined;
  if (local?.status === 'completed') {
    if (ctx.deleted) return reject('a completed goal is final: it cannot be deleted');
    return same(local, doc, GOAL_FIELDS) ? accept : reject('a completed goal is final: it cannot change');
  }
  if (ctx.deleted) return accept;
  const late = ctx.now + SYNC_CLOCK_SKEW_MS;
  if (!isCurrencyCode(doc.currency)) return reject(`"${doc.currency}" is not a currency PennyPost knows (ISO 4217 code)`);
  if (doc.endDate <= doc.startDate) return reject('its end date is not after its start date');
  if (Math.max(doc.createdAt, doc.lastContributionAt, doc.completedAt) > late) return reject('it is dated in the future');
  if (doc.currentAmount > doc.peakAmount) return reject('it holds more than its highest amount ever (peakAmount)');
  if (doc.contributionCount === 0 && (doc.peakAmount > 0 || doc.lastContributionAt !== 0)) return reject('it holds money without a single contribution');
  if (doc.status === 'completed') {
    if (doc.currentAmount < doc.targetAmount) return reject('it is completed below its target');
    if (doc.completedAt === 0 || doc.completedAt < doc.createdAt - SYNC_CLOCK_SKEW_MS) return reject('its completion time is not after its creation');
  } else if (doc.completedAt !== 0) {
    return reject(`it has a completion time but is ${doc.status}`);
  }
  return accept;
}

export async function validateSyncedUnlock(savings: SavingsService, doc: AchievementDoc, ctx: ArrivalCheckContext): Promise<SyncVerdict> {
  if (ctx.deleted) return reject('an unlocked achievement is permanent');
  if (ctx.local) {
    return same(ctx.local as AchievementDoc, doc, ['achievementId', 'unlockedAt', 'reward']) ? accept : reject('an unlock never changes');
  }
  const def = ACHIEVEMENTS.find((a) => a.id === doc.achievementId);
  if (!def) return reject(`there is no achievement "${doc.achievementId}"`);
  if (doc.reward !== def.reward) return reject(`"${def.title}" pays ${coinsOf(def.reward)} coins, not ${coinsOf(doc.reward)}`);
  if (doc.unlockedAt > ctx.now + SYNC_CLOCK_SKEW_MS) return reject('it is dated in the future');
  const wallet = await savings.wallets.snapshot(ctx.userId);
  if (!wallet.rewardKeys.has(`achievement:${def.id}`)) {
    return waitFor(`waiting for the reward of "${def.title}" in the wallet log: an achievement is unlocked with its reward, which is not here (yet)`, ['trades']);
  }
  return accept;
}
