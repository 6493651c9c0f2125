import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listRecords } from './record-list';
import type { AssetDoc, RecordDoc } from './schema';
import { Converter } from './stats';
import { UserLedgerView } from './views';

/**
 * Issue 23: the unfiltered record list takes its totals from the view's running sums per asset
 * (UserLedgerView.flows) instead of a pass over every record. Through any mix of writes, they must
 * equal the sums over the records.
 */

const asset = (id: string, currency: string): AssetDoc => ({
  id,
  userId: 'u',
  name: id,
  type: 'debit_card',
  currency,
  openingBalance: 0,
  description: '',
  icon: '',
  status: 'normal',
  isDefault: false,
  delFlag: false,
  createdAt: 0,
  updatedAt: 0,
});

let n = 0;
const record = (type: RecordDoc['type'], assetId: string, amount: number): RecordDoc => {
  n++;
  return {
    id: `r${String(n).padStart(6, '0')}`,
    userId: 'u',
    type,
    amount,
    asset: assetId,
    toAsset: type === 'transfer' ? 'b' : '',
    toAmount: 0,
    fee: 0,
    category: type === 'transfer' ? '' : 'Food',
    description: '',
    searchText: '',
    date: Date.UTC(2025, 0, 1) + n * 3_600_000,
    tags: [],
    attachments: [],
    importKey: '',
    createdAt: 0,
    updatedAt: 0,
  };
};

/** The totals as a pass over every record computes them. */
function summed(view: UserLedgerView, base: string) {
  const converter = new Converter(view, base);
  let income = 0;
  let expense = 0;
  let transfers = 0;
  for (const e of view.entries) {
    if (e.type === 'transfer') transfers++;
    else if (e.type === 'income') income += Number(converter.amountOf(e));
    else expense += Number(converter.amountOf(e));
  }
  return { income: income / 100, expense: expense / 100, transfers };
}

describe('record list totals from running sums', () => {
  it('equal the sums over the records after any writes', () => {
    const op = fc.oneof(
      fc.record({
        put: fc.constantFrom<RecordDoc['type']>('income', 'expense', 'transfer'),
        asset: fc.constantFrom('a', 'b', 'gone'),
        amount: fc.integer({ min: 1, max: 10 ** 9 }),
      }),
      fc.record({ remove: fc.nat() }),
      fc.record({ change: fc.nat(), amount: fc.integer({ min: 1, max: 10 ** 9 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const view = new UserLedgerView('u');
        view.load([record('income', 'a', 500)], [asset('a', 'USD'), asset('b', 'USD')], []);
        for (const o of ops) {
          const ids = view.entries.map((e) => e.id);
          if ('put' in o) view.putRecord(record(o.put, o.asset, o.amount));
          else if ('remove' in o) {
            if (ids.length > 0) view.removeRecord(ids[o.remove % ids.length]!);
          } else if (ids.length > 0) {
            const e = view.byId.get(ids[o.change % ids.length]!)!;
            view.putRecord({ ...record(e.type, e.asset, o.amount), id: e.id, date: e.date });
          }
          const page = listRecords(view, 'USD', {}, 1, 20);
          const expected = summed(view, 'USD');
          expect(page.total).toBe(view.entries.length);
          expect({ income: page.totals.income, expense: page.totals.expense, transfers: page.totals.transfers }).toEqual(expected);
          expect(page.ids).toEqual(
            [...view.entries]
              .reverse()
              .slice(0, 20)
              .map((e) => e.id),
          );
        }
      }),
      { numRuns: 60, seed: 23 },
    );
  });

  it('fall back to a pass over the records when an asset is kept in another currency', () => {
    const view = new UserLedgerView('u');
    view.load([record('expense', 'a', 1000), record('expense', 'e', 1000)], [asset('a', 'USD'), asset('e', 'EUR')], []);
    const page = listRecords(view, 'USD', {}, 1, 20);
    expect(page.totals.expense).toBe(10); // the EUR record has no rate: left out and reported
    expect(page.totals.missingRates).toEqual([{ from: 'EUR', to: 'USD', records: 1 }]);
  });
});
