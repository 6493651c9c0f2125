import type { RxCollection } from 'rxdb';
import type { AppContext } from '../app-context';
import { newId } from '../lib/ids';
import { checkInRange, isCurrencyCode, toMajor } from '../lib/money';
import { ledgerErrors } from './errors';
import { isValidRate } from './rate-book';
import { positiveMinor } from './record-checks';
import type { RateDoc } from './schema';
import type { LedgerViews } from './ledger-views';
import type { ConversionView, RateView } from './result-shapes';

export type { ConversionView, RateView } from './result-shapes';

/** Runs a read-check-write of one user's ledger without interleaving with their other writes. */
export type LedgerLock = <T>(userId: string, task: () => Promise<T>) => Promise<T>;

/**
 * A user's exchange rates (the `rates` collection; conversions read them through the ledger
 * views' RateBook). Rates are exact decimal text; one rate per pair and date.
 */
export class RateService {
  constructor(
    private readonly app: AppContext,
    private readonly views: LedgerViews,
    private readonly exclusive: LedgerLock,
  ) {}

  private get collection(): RxCollection<RateDoc> {
    return this.app.db.collection<RateDoc>('rates');
  }

  /** Sets the rate of a pair from a date on (default now), replacing the one of the same pair and date. */
  async set(userId: string, input: { from: string; to: string; rate: string | number; date?: number }): Promise<RateView> {
    const rate = typeof input.rate === 'number' ? String(input.rate) : input.rate.trim();
    const { from, to } = input;
    if (!isCurrencyCode(from) || !isCurrencyCode(to)) throw ledgerErrors.unknownRateCurrency();
    if (from === to) throw ledgerErrors.sameCurrencyRate().at('to');
    if (!isValidRate(rate)) throw ledgerErrors.invalidRate('rate').at('rate');
    const date = input.date ?? this.app.clock.now();
    return this.exclusive(userId, async () => {
      const existing = await this.collection.findOne({ selector: { userId, from, to, date } }).exec();
      const now = this.app.clock.now();
      if (existing) {
        await existing.incrementalPatch({ rate, updatedAt: now });
        return { id: existing.id, from, to, rate, date };
      }
      const doc: RateDoc = { id: newId(now), userId, from, to, rate, date, createdAt: now, updatedAt: now };
      await this.collection.insert(doc);
      return { id: doc.id, from: doc.from, to: doc.to, rate, date };
    });
  }

  /**
   * What `amount` of `from` is in `to` on `date` (default now), as a transfer between the two
   * would record it when the amount received is left out, with the stored rate it used
   * (`inverse`: the reverse pair, used as 1 / rate). No rate: `{amount: null, rate: null}`.
   */
  async convert(userId: string, input: { amount: number; from: string; to: string; date?: number }): Promise<ConversionView> {
    const { from, to } = input;
    if (!isCurrencyCode(from)) throw ledgerErrors.unknownCurrency(from).at('from');
    if (!isCurrencyCode(to)) throw ledgerErrors.unknownCurrency(to).at('to');
    const minor = positiveMinor(input.amount, from, 'amount');
    const date = input.date ?? this.app.clock.now();
    const view = await this.views.get(userId);
    if (from === to) return { amount: input.amount, from, to, date, rate: null, inverse: false };
    const used = view.rates.rateFor(from, to, date);
    const exact = view.rates.convertExact(minor, from, to, date);
    if (!used || exact === undefined) return { amount: null, from, to, date, rate: null, inverse: false };
    checkInRange(exact, to, 'amount', 'The converted amount');
    const { rate } = used;
    return { amount: toMajor(Number(exact), to), from, to, date, rate: { from: rate.from, to: rate.to, rate: rate.rate, date: rate.date }, inverse: used.inverse };
  }

  /** The user's rates, newest first; with `currency`, those that convert from or to it. */
  async list(userId: string, currency?: string): Promise<RateView[]> {
    const docs = await this.views.scan<RateDoc>('rates', userId);
    return docs
      .filter((d) => !currency || d.from === currency || d.to === currency)
      .sort((a, b) => b.date - a.date || (a.from + a.to < b.from + b.to ? -1 : 1))
      .map((d) => ({ id: d.id, from: d.from, to: d.to, rate: d.rate, date: d.date }));
  }

  /** Deletes one of the user's rates (404 for another user's or an unknown one). */
  async delete(userId: string, id: string): Promise<{ deleted: true }> {
    const doc = await this.collection.findOne(id).exec();
    if (!doc || doc.userId !== userId) throw ledgerErrors.rateNotFound();
    await doc.remove();
    return { deleted: true };
  }
}
