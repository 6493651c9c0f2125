import type { TradeDoc } from './schema';

/**
 * The wallet is never stored: cash, positions, average costs and realised profit are the result
 * of replaying the append-only trade log in (createdAt, id) order. `replay` is the one definition
 * of that meaning; the wallet log (wallet-log.ts) keeps a replayed state per user in memory,
 * extends it entry by entry with `applyTrade` (the same code), and drops it when a synced entry
 * arrives.
 */

export interface PositionState {
  stockId: string;
  quantity: number;
  /** Cost of the shares still held, coin cents (average-cost method). */
  costBasis: number;
  /** Profit of everything sold so far, coin cents. */
  realized: number;
  boughtQuantity: number;
  soldQuantity: number;
}

export interface WalletState {
  /** Coin cents available to buy with. */
  cash: number;
  /** Every grant and reward ever credited, coin cents. */
  received: number;
  receivedBy: Record<'welcome' | 'saving_day' | 'goal_completed' | 'achievement', number>;
  entries: TradeDoc[];
  /** Cash after each entry, same order as `entries`. */
  balances: number[];
  ids: Set<string>;
  /**
   * `reason:ref` of every grant and reward counted. A reward is paid once per person: when two
   * PennyPosts of the same person (one synced ledger, a different local account on each) both
   * credit it before they sync, the later entry counts zero on every device.
   */
  rewardKeys: Set<string>;
  positions: Map<string, PositionState>;
  lastCreatedAt: number;
  buys: number;
  sells: number;
  /** Sells that realised a profit. */
  profitableSells: number;
  /** Most different stocks held at the same time. */
  maxDistinctHeld: number;
  savingDays: number;
  /**
   * Set when a running sum (cash, received, a position's cost or profit) ever left the safe
   * integers while replaying: only a synced log can get there (the API refuses such trades), and
   * from then on those sums are the nearest numbers, so every answer marks them inexact.
   */
  lostPrecision: boolean;
}

export function compareTrades(a: TradeDoc, b: TradeDoc): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export function emptyWallet(): WalletState {
  return {
    cash: 0,
    received: 0,
    receivedBy: { welcome: 0, saving_day: 0, goal_completed: 0, achievement: 0 },
    entries: [],
    balances: [],
    ids: new Set(),
    rewardKeys: new Set(),
    positions: new Map(),
    lastCreatedAt: 0,
    buys: 0,
    sells: 0,
    profitableSells: 0,
    maxDistinctHeld: 0,
    savingDays: 0,
    lostPrecision: false,
  };
}

/** Cost of `sold` of `held` shares whose total cost is `basis` (floor; all shares → all cost). */
export function costOfSold(basis: number, sold: number, held: number): number {
  if (sold >= held) return basis;
  return Number((BigInt(basis) * BigInt(sold)) / BigInt(held));
}

function distinctHeld(positions: Map<string, PositionState>): number {
  let n = 0;
  for (const p of positions.values()) if (p.quantity > 0) n++;
  return n;
}

/** Extends a replayed state with the next entry of the log (mutates and returns it). */
export function applyTrade(state: WalletState, trade: TradeDoc): WalletState {
  if (state.ids.has(trade.id)) return state;
  state.ids.add(trade.id);
  state.entries.push(trade);
  const isReward = trade.kind === 'grant' || trade.kind === 'reward';
  const rewardKey = `${trade.reason}:${trade.ref}`;
  const duplicateReward = isReward && state.rewardKeys.has(rewardKey);
  state.cash += duplicateReward ? 0 : trade.cash;
  state.balances.push(state.cash);
  if (trade.createdAt > state.lastCreatedAt) state.lastCreatedAt = trade.createdAt;
  if (isReward) {
    if (duplicateReward) return state;
    state.rewardKeys.add(rewardKey);
    state.received += trade.cash;
    if (trade.reason && trade.reason in state.receivedBy) state.receivedBy[trade.reason] += trade.cash;
    if (trade.reason === 'saving_day') state.savingDays++;
    checkPrecision(state);
    return state;
  }
  let position = state.positions.get(trade.stockId);
  if (!position) {
    position = { stockId: trade.stockId, quantity: 0, costBasis: 0, realized: 0, boughtQuantity: 0, soldQuantity: 0 };
    state.positions.set(trade.stockId, position);
  }
  if (trade.kind === 'buy') {
    state.buys++;
    position.quantity += trade.quantity;
    position.boughtQuantity += trade.quantity;
    position.costBasis += -trade.cash;
    state.maxDistinctHeld = Math.max(state.maxDistinctHeld, distinctHeld(state.positions));
  } else {
    state.sells++;
    // A synced log could in theory sell more than it holds; count only what was held.
    const sold = Math.min(trade.quantity, position.quantity);
    const removed = costOfSold(position.costBasis, sold, position.quantity);
    const profit = trade.cash - removed;
    position.quantity -= sold;
    position.soldQuantity += trade.quantity;
    position.costBasis -= removed;
    position.realized += profit;
    if (profit > 0) state.profitableSells++;
  }
  checkPrecision(state, position);
  return state;
}

function checkPrecision(state: WalletState, position?: PositionState): void {
  if (state.lostPrecision) return;
  const values = [state.cash, state.received];
  if (position) values.push(position.quantity, position.costBasis, position.realized);
  if (values.some((v) => !Number.isSafeInteger(v))) state.lostPrecision = true;
}

/** Replays a log (any order given; sorted here) into a fresh state. */
export function replay(trades: readonly TradeDoc[], until = Infinity): WalletState {
  const state = emptyWallet();
  for (const trade of [...trades].sort(compareTrades)) {
    if (trade.createdAt > until) break;
    applyTrade(state, trade);
  }
  return state;
}

/** The cash after entry `index` of the replayed log: applyTrade adds an entry and its balance together. */
export function balanceAfter(state: WalletState, index: number): number {
  const balance = index >= 0 ? state.balances.at(index) : undefined;
  if (balance === undefined) throw new Error(`The wallet has no entry ${index} (it has ${state.entries.length}).`);
  return balance;
}

/** Whether appending `trade` keeps the log in (createdAt, id) order. */
export function sortsLast(state: WalletState, trade: TradeDoc): boolean {
  const last = state.entries.at(-1);
  return !last || compareTrades(last, trade) < 0;
}

/**
 * Replays a log sorted by compareTrades and returns the first entry, at index `from` or later,
 * after which the wallet has spent coins it did not have, or that sells shares it did not hold
 * (null: none). The arrival check of buys and sells (server/savings/arrival-checks.ts) uses it.
 */
export function firstShortfall(entries: readonly TradeDoc[], from = 0): { entry: TradeDoc; cash: number; held: number } | null {
  const state = emptyWallet();
  for (const [i, entry] of entries.entries()) {
    const held = state.positions.get(entry.stockId)?.quantity ?? 0;
    applyTrade(state, entry);
    if (i < from) continue;
    if ((entry.kind === 'sell' && entry.quantity > held) || state.cash < 0) return { entry, cash: state.cash, held };
  }
  return null;
}

/** Market value of the held shares, coin cents, given a price per stock: exact (bigint). */
export function holdingsValue(state: WalletState, priceOf: (stockId: string) => number): bigint {
  let value = 0n;
  for (const p of state.positions.values()) if (p.quantity > 0) value += BigInt(p.quantity) * BigInt(priceOf(p.stockId));
  return value;
}

/** Realised + unrealised profit of the whole portfolio, coin cents. */
export function portfolioProfit(state: WalletState, priceOf: (stockId: string) => number): number {
  let profit = 0n;
  for (const p of state.positions.values()) {
    profit += BigInt(p.realized);
    if (p.quantity > 0) profit += BigInt(p.quantity) * BigInt(priceOf(p.stockId)) - BigInt(p.costBasis);
  }
  return Number(profit);
}
