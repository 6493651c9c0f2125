import { describe, expect, it } from 'vitest';
import type { TradeDoc } from './schema';
import { replay } from './wallet';

const entry = (id: string, createdAt: number, fields: Partial<TradeDoc>): TradeDoc => ({
  id,
  userId: 'u',
  kind: 'reward',
  reason: 'achievement',
  ref: 'first_record',
  stockId: '',
  quantity: 0,
  price: 0,
  cash: 100,
  note: '',
  createdAt,
  ...fields,
});

describe('wallet replay across devices of one person', () => {
  it('pays a reward once even when both PennyPosts credited it before they synced', () => {
    const log = [
      entry('home-user:welcome:grant', 1, { kind: 'grant', reason: 'welcome', ref: 'grant', cash: 1_000_000 }),
      entry('laptop-user:welcome:grant', 2, { kind: 'grant', reason: 'welcome', ref: 'grant', cash: 1_000_000 }),
      entry('home-user:achievement:first_record', 3, {}),
      entry('laptop-user:achievement:first_record', 4, {}),
      entry('buy-1', 5, { kind: 'buy', reason: '', ref: '', stockId: 'ACME', quantity: 2, price: 500, cash: -1000 }),
    ];
    const wallet = replay(log);
    expect(wallet.cash).toBe(1_000_000 + 100 - 1000);
    expect(wallet.received).toBe(1_000_100);
    expect(wallet.entries).toHaveLength(5);
    // the same on every device, whatever order the entries arrived in
    expect(replay([...log].reverse()).cash).toBe(wallet.cash);
  });
});
