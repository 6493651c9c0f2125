import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset } from '../test-support/ledger';
import { registerUser, startTestServer, type TestServer } from '../test-support/test-server';

/**
 * Issue 23: statistics are kept with the user's view until the ledger changes (stats-actions.ts
 * `remembered`). A kept answer must never outlive a change of records, assets, rates or the base
 * currency, and must not leak between users.
 */

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const RANGE = { startDate: Date.UTC(2025, 0, 1), endDate: Date.UTC(2026, 0, 1) };
const YEAR = { ...RANGE, groupBy: 'month', timeZone: 'UTC' };

describe('kept statistics', () => {
  it('answer again from the same ledger, and anew after every kind of change', async () => {
    const u = await registerUser(t);
    const cash = await createAsset(t, u, { currency: 'EUR', balance: 1000 });
    const ie = async () => (await t.api('stats.getIncomeExpense', YEAR, u.token)).data;
    const cats = async () => (await t.api('stats.getCategoryStats', { type: 'expense', ...RANGE }, u.token)).data;
    const trend = async () => (await t.api('stats.getTrend', { type: 'expense', ...YEAR }, u.token)).data;

    expect((await t.api('accounting.create', { type: 'expense', amount: 10, asset: cash, category: 'Food', date: Date.UTC(2025, 5, 1) }, u.token)).code).toBe(200);
    const first = await ie();
    expect(first.expense.total).toBe(10);
    expect(await ie()).toEqual(first);
    expect((await cats()).total).toBe(10);
    expect((await trend()).points[5].value).toBe(10);

    // a record
    await t.api('accounting.create', { type: 'expense', amount: 5, asset: cash, category: 'Housing', date: Date.UTC(2025, 5, 2) }, u.token);
    expect((await ie()).expense.total).toBe(15);
    expect((await cats()).categories).toHaveLength(2);
    expect((await trend()).points[5].value).toBe(15);

    // the base currency (no EUR→USD rate: the records are left out and reported)
    expect((await t.api('currency.setBase', { currency: 'USD' }, u.token)).code).toBe(200);
    const inUsd = await ie();
    expect(inUsd.currency).toBe('USD');
    expect(inUsd.expense.total).toBe(0);
    expect(inUsd.missingRates).toEqual([{ from: 'EUR', to: 'USD', records: 2 }]);

    // a rate
    expect((await t.api('currency.setRate', { from: 'EUR', to: 'USD', rate: 2, date: Date.UTC(2024, 0, 1) }, u.token)).code).toBe(200);
    expect((await ie()).expense.total).toBe(30);

    // records dated outside the period: the kept figures stay right, one moved out of it changes them
    const before = await ie();
    const later = await t.api('accounting.create', { type: 'expense', amount: 7, asset: cash, category: 'Food', date: Date.UTC(2026, 2, 1) }, u.token);
    expect(await ie()).toEqual(before);
    const june = (await t.api('accounting.query', { startDate: Date.UTC(2025, 5, 2), endDate: Date.UTC(2025, 5, 3) }, u.token)).data.list[0].id as string;
    expect((await cats()).categories).toHaveLength(2); // kept from here
    expect((await t.api('accounting.update', { id: june, date: Date.UTC(2024, 11, 31) }, u.token)).code).toBe(200);
    const moved = await ie();
    expect(moved.expense.total).toBe(20); // 10 EUR × 2 left in 2025
    expect(moved.expense.previousTotal).toBe(10); // 5 EUR × 2 now in 2024
    expect((await cats()).categories).toHaveLength(1);
    expect((await t.api('accounting.delete', { id: later.data.id }, u.token)).code).toBe(200);
    expect(await ie()).toEqual(moved);

    // another user with the same parameters gets their own (empty) figures
    const other = await registerUser(t);
    expect((await t.api('stats.getIncomeExpense', YEAR, other.token)).data.expense.total).toBe(0);
  });
});
