import { describe, expect, it } from 'vitest';
import type { LedgerRecord } from '../../lib/ledger';
import { balanceBefore, registerRows } from './register';

const record = (fields: Partial<LedgerRecord> & Pick<LedgerRecord, 'type' | 'amount'>): LedgerRecord => ({
  id: Math.random().toString(36),
  currency: 'CNY',
  category: '',
  asset: 'cash',
  assetName: 'Cash',
  description: '',
  date: 0,
  tags: [],
  attachments: [],
  createdAt: 0,
  updatedAt: 0,
  ...fields,
});

describe("an asset's register: each record with the balance after it (issue 36, finding 16)", () => {
  it('walks back from the current balance: income, expense, a transfer out with its fee, one in across currencies', () => {
    const records = [
      record({ type: 'transfer', amount: 10, currency: 'USD', asset: 'card', toAsset: 'cash', toAmount: 71, fee: 0 }),
      record({ type: 'transfer', amount: 30, asset: 'cash', toAsset: 'bank', toAmount: 30, fee: 1 }),
      record({ type: 'expense', amount: 20 }),
      record({ type: 'income', amount: 50 }),
    ];
    const rows = registerRows(records, 'cash', 'CNY', 170);
    expect(rows.map((row) => [row.change, row.balance])).toEqual([
      [71, 170],
      [-31, 99],
      [-20, 130],
      [50, 150],
    ]);
    expect(balanceBefore(rows, 'CNY')).toBe(100);
  });

  it('adds cents exactly (0.1 + 0.2) and keeps a currency without decimals whole', () => {
    const cents = registerRows([record({ type: 'income', amount: 0.1 }), record({ type: 'income', amount: 0.2 })], 'cash', 'CNY', 0.3);
    expect(cents.map((row) => row.balance)).toEqual([0.3, 0.2]);
    expect(balanceBefore(cents, 'CNY')).toBe(0);
    const yen = registerRows([record({ type: 'expense', amount: 1500, currency: 'JPY' })], 'cash', 'JPY', 8500);
    expect(balanceBefore(yen, 'JPY')).toBe(10000);
  });
});
