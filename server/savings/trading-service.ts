import type { Clock } from '../lib/clock';
import type { KeyedMutex } from '../lib/keyed-mutex';
import { inRange, MAX_MINOR } from '../lib/money';
import type { AchievementsService } from './achievements-service';
import { COIN_LIMIT, CoinWriter, coinsOf, round2 } from './coins';
import { savingsErrors } from './errors';
import { findStock, stepAt, stepStart } from './market';
import type { MarketQuotes } from './market-quotes';
import type { TradeDoc } from './schema';
import { balanceAfter, holdingsValue, type PositionState, type WalletState } from './wallet';
import type { WalletLog } from './wallet-log';

function tradeView(trade: TradeDoc) {
  return {
    id: trade.id,
    kind: trade.kind,
    reason: trade.reason,
    ref: trade.ref,
    stockId: trade.stockId,
    quantity: trade.quantity,
    price: coinsOf(trade.price),
    amount: coinsOf(trade.cash),
    note: trade.note,
    createdAt: trade.createdAt,
  };
}

/**
 * The virtual market's trading: buying and selling whole shares with coins, the wallet (cash and
 * its history) and the positions. Every trade is an entry of the wallet log (wallet-log.ts).
 */
export class TradingService {
  constructor(
    private readonly clock: Clock,
    private readonly locks: KeyedMutex,
    private readonly wallets: WalletLog,
    private readonly quotes: MarketQuotes,
    private readonly achievements: AchievementsService,
  ) {}

  private positionView(p: PositionState, now: number, lostPrecision = false) {
    const stock = findStock(p.stockId);
    const price = this.quotes.priceOf(p.stockId, now);
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

  /** Writes a buy or sell at the current price and answers it with the position it leaves. */
  private async trade(userId: string, wallet: WalletState, kind: 'buy' | 'sell', stockId: string, quantity: number, price: number, now: number) {
    const total = price * quantity;
    const written = await this.wallets.append(userId, wallet, {
      kind,
      reason: '',
      ref: '',
      stockId,
      quantity,
      price,
      cash: kind === 'buy' ? -total : total,
      note: `${kind === 'buy' ? 'Bought' : 'Sold'} ${quantity} ${stockId} at ${coinsOf(price)}`,
    });
    const rewards = await this.achievements.evaluateLocked(userId);
    if (!written) throw new Error(`${kind} of ${stockId} not written: an entry with its id is already in the wallet log`);
    const position = wallet.positions.get(stockId);
    if (!position) throw new Error(`${kind} of ${stockId} written, but the wallet holds no position in it`);
    return {
      trade: tradeView(written),
      cash: coinsOf(wallet.cash),
      position: this.positionView(position, now),
      rewards,
    };
  }

  async buy(userId: string, stockId: string, quantity: number) {
    const stock = this.quotes.stock(stockId);
    return this.locks.run(userId, async () => {
      const wallet = await this.wallets.locked(userId);
      const now = this.clock.now();
      const price = this.quotes.market.priceAt(stock, now);
      const cost = price * quantity;
      if (cost > wallet.cash) {
        throw savingsErrors.insufficientFunds(quantity, coinsOf(price), coinsOf(cost), coinsOf(wallet.cash)).with({
          cash: coinsOf(wallet.cash),
          cost: coinsOf(cost),
          price: coinsOf(price),
          maxQuantity: Math.floor(wallet.cash / price),
        });
      }
      return this.trade(userId, wallet, 'buy', stock.id, quantity, price, now);
    });
  }

  async sell(userId: string, stockId: string, quantity: number) {
    const stock = this.quotes.stock(stockId);
    return this.locks.run(userId, async () => {
      const wallet = await this.wallets.locked(userId);
      const held = wallet.positions.get(stock.id)?.quantity ?? 0;
      if (quantity > held) throw savingsErrors.notEnoughShares(held, stock.id, quantity).with({ held, stockId: stock.id });
      const now = this.clock.now();
      const price = this.quotes.market.priceAt(stock, now);
      // A trade's cash and the wallet's cash stay within the exact range (±10^15 cents).
      if (!inRange(BigInt(price) * BigInt(quantity)) || !inRange(BigInt(wallet.cash) + BigInt(price) * BigInt(quantity))) {
        throw savingsErrors
          .cashBeyondExactRange(quantity, stock.id, coinsOf(price), COIN_LIMIT)
          .at('quantity')
          .with({ limit: MAX_MINOR / 100, maxQuantity: Math.max(0, Math.floor((MAX_MINOR - Math.max(0, wallet.cash)) / price)) });
      }
      return this.trade(userId, wallet, 'sell', stock.id, quantity, price, now);
    });
  }

  /** Cash, where the coins came from, and the wallet history, newest first (savings.getWallet). */
  async wallet(userId: string, page: number, pageSize: number) {
    const wallet = await this.wallets.of(userId);
    const now = this.clock.now();
    const holdings = holdingsValue(wallet, (id) => this.quotes.priceOf(id, now));
    const total = wallet.entries.length;
    // Newest first: page 1 ends with the last entry.
    const end = Math.max(0, total - (page - 1) * pageSize);
    const from = Math.max(0, end - pageSize);
    const list = wallet.entries
      .slice(from, end)
      .map((entry, k) => ({ ...tradeView(entry), balance: coinsOf(balanceAfter(wallet, from + k)) }))
      .reverse();
    let invested = 0n;
    for (const p of wallet.positions.values()) invested += BigInt(p.costBasis);
    const out = new CoinWriter(wallet.lostPrecision);
    return {
      unit: 'coins' as const,
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

  /** The player's shares with their cost, value and profit, and totals (savings.getPositions). */
  async positions(userId: string, includeClosed: boolean) {
    const wallet = await this.wallets.of(userId);
    const now = this.clock.now();
    const positions = [...wallet.positions.values()]
      .filter((p) => p.quantity > 0 || includeClosed)
      .sort((a, b) => (a.stockId < b.stockId ? -1 : a.stockId > b.stockId ? 1 : 0))
      .map((p) => this.positionView(p, now, wallet.lostPrecision));
    let costBasis = 0n;
    let marketValue = 0n;
    let realized = 0n;
    for (const p of wallet.positions.values()) {
      costBasis += BigInt(p.costBasis);
      marketValue += BigInt(p.quantity) * BigInt(this.quotes.priceOf(p.stockId, now));
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
}
