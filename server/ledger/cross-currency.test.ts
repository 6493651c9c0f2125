import { describe, expect, it } from 'vitest';
import { registerUser } from '../test-support/test-server';
import { ledgerTestFile } from '../test-support/ledger';
import { commonErrors } from '../lib/errors';
import { ledgerErrors } from './errors';
import { expectRefusal } from '../test-support/refusal';

/** Issue 19: transfers across currencies shown and edited completely; text never cut silently. */

const { t, asset, balance } = ledgerTestFile();

describe('currency.convert', () => {
  it('converts as a transfer without toAmount would, and names the stored rate it used', async () => {
    const u = await registerUser(t);
    expect((await t.api('currency.convert', { amount: 100, from: 'USD', to: 'CNY' }, u.token)).data).toMatchObject({ amount: null, rate: null, inverse: false });

    await t.api('currency.setRate', { from: 'USD', to: 'CNY', rate: '7.0', date: 0 }, u.token);
    await t.api('currency.setRate', { from: 'USD', to: 'CNY', rate: '7.1', date: Date.UTC(2026, 0, 1) }, u.token);
    const now = await t.api('currency.convert', { amount: 100, from: 'USD', to: 'CNY' }, u.token);
    expect(now.data).toMatchObject({ amount: 710, from: 'USD', to: 'CNY', rate: { from: 'USD', to: 'CNY', rate: '7.1', date: Date.UTC(2026, 0, 1) }, inverse: false });
    const before = await t.api('currency.convert', { amount: 100, from: 'USD', to: 'CNY', date: Date.UTC(2025, 5, 1) }, u.token);
    expect(before.data).toMatchObject({ amount: 700, rate: { rate: '7.0' } });
    const back = await t.api('currency.convert', { amount: 71, from: 'CNY', to: 'USD' }, u.token);
    expect(back.data).toMatchObject({ amount: 10, inverse: true, rate: { from: 'USD', to: 'CNY', rate: '7.1' } });
    expect((await t.api('currency.convert', { amount: 5, from: 'USD', to: 'USD' }, u.token)).data).toMatchObject({ amount: 5, rate: null });

    // The same number a transfer records when the amount received is left out.
    const usd = await asset(u, { balance: 1000 });
    const cny = await asset(u, { name: 'CNY', currency: 'CNY' });
    const suggested = await t.api('currency.convert', { amount: 12.34, from: 'USD', to: 'CNY' }, u.token);
    const saved = await t.api('accounting.create', { type: 'transfer', amount: 12.34, fromAsset: usd, toAsset: cny }, u.token);
    expect(saved.data.toAmount).toBe(suggested.data.amount);
    expect(suggested.data.amount).toBe(87.61); // 12.34 × 7.1 = 87.614

    expectRefusal(await t.api('currency.convert', { amount: 1.999, from: 'USD', to: 'CNY' }, u.token), commonErrors.rows.invalid);
    expectRefusal(await t.api('currency.convert', { amount: 0, from: 'USD', to: 'CNY' }, u.token), ledgerErrors.rows.invalidAmount);
    const unknown = await t.api('currency.convert', { amount: 1, from: 'USD', to: 'XYZ' }, u.token);
    expectRefusal(unknown, ledgerErrors.rows.unknownCurrency);
    expect(unknown.data).toMatchObject({ field: 'params.to' });
    expectRefusal(await t.api('currency.convert', { amount: 1, from: 'USD', to: 'CNY' }), commonErrors.rows.unauthorized);
  });
});

describe('accounting.update of a transfer across currencies', () => {
  it('changes the amount received, keeps it when only the assets of the same currencies change, converts anew when a currency changes', async () => {
    const u = await registerUser(t);
    const usd = await asset(u, { name: 'USD bank', balance: 1000 });
    const usd2 = await asset(u, { name: 'USD cash', balance: 1000 });
    const jpy = await asset(u, { name: 'Yen', currency: 'JPY', balance: 100000 });
    const cny = await asset(u, { name: 'Alipay', currency: 'CNY' });
    const cny2 = await asset(u, { name: 'WeChat', currency: 'CNY' });
    await t.api('currency.setRate', { from: 'USD', to: 'CNY', rate: '7.1', date: 0 }, u.token);
    await t.api('currency.setRate', { from: 'JPY', to: 'CNY', rate: '0.05', date: 0 }, u.token);
    const created = await t.api('accounting.create', { type: 'transfer', amount: 100, fromAsset: usd, toAsset: cny, toAmount: 705 }, u.token);
    const id = created.data.id as string;
    expect(created.data).toMatchObject({ amount: 100, currency: 'USD', toAmount: 705, toCurrency: 'CNY' });

    const edited = await t.api('accounting.update', { id, toAmount: 712.5 }, u.token);
    expect(edited.data).toMatchObject({ amount: 100, toAmount: 712.5, toCurrency: 'CNY' });
    expect(await balance(u, cny)).toBe(712.5);

    // Other assets, same currencies: the amount received stays what the person entered.
    const moved = await t.api('accounting.update', { id, fromAsset: usd2, toAsset: cny2 }, u.token);
    expect(moved.data).toMatchObject({ fromAsset: usd2, toAsset: cny2, amount: 100, toAmount: 712.5 });
    expect(await balance(u, cny)).toBe(0);
    expect(await balance(u, cny2)).toBe(712.5);
    expect(await balance(u, usd)).toBe(1000);

    // The source moves to yen: the amount keeps its value in the new currency's decimals and the amount received follows the rate.
    const fromYen = await t.api('accounting.update', { id, fromAsset: jpy }, u.token);
    expect(fromYen.data).toMatchObject({ currency: 'JPY', amount: 100, toAmount: 5 });
    expect(await balance(u, jpy)).toBe(99900);
    expect(await balance(u, usd2)).toBe(1000);

    // Everything at once, as the UI's edit dialog sends it.
    const full = await t.api('accounting.update', { id, amount: 20, fromAsset: usd, toAsset: cny, toAmount: 140, fee: 1 }, u.token);
    expect(full.data).toMatchObject({ amount: 20, currency: 'USD', toAmount: 140, toCurrency: 'CNY', fee: 1 });
    expect(await balance(u, usd)).toBe(979);
    expect(await balance(u, cny)).toBe(140);

    const wrong = await t.api('accounting.update', { id, toAmount: 1.234 }, u.token);
    expectRefusal(wrong, commonErrors.rows.invalid);
    expect(wrong.data).toMatchObject({ field: 'params.toAmount' });
    expect((await t.api('accounting.get', { id }, u.token)).data.toAmount).toBe(140);
  });
});

describe('text limits', () => {
  it('refuses text over the limit with the field named, counting characters (an emoji is one)', async () => {
    const u = await registerUser(t);
    const cash = await asset(u, { balance: 10 });
    const emoji = '😀'.repeat(1000);
    const fits = await t.api('accounting.create', { type: 'expense', amount: 1, asset: cash, description: emoji }, u.token);
    expect(fits.code).toBe(200);
    expect(fits.data.description).toBe(emoji);
    const long = await t.api('accounting.create', { type: 'expense', amount: 1, asset: cash, description: `${emoji}x` }, u.token);
    expectRefusal(long, commonErrors.rows.invalid);
    expect(long.data).toMatchObject({ field: 'params.description' });
    expect((await t.api('asset.create', { name: 'n'.repeat(101), type: 'cash', currency: 'USD' }, u.token)).data).toMatchObject({ field: 'params.name' });
  });

  it('a CSV row with a description or tag over the limit is a problem of the row, never cut', async () => {
    const u = await registerUser(t);
    await asset(u, { name: 'Cash', balance: 10 });
    const long = 'd'.repeat(1001);
    const csv = [
      'date,type,amount,asset,category,tags,description',
      `2026-01-01,expense,1,Cash,Food,,${long}`,
      `2026-01-02,expense,1,Cash,Food,${'t'.repeat(33)},ok`,
      `2026-01-03,expense,1,Cash,Food,${Array.from({ length: 21 }, (_, i) => `t${i}`).join(';')},ok`,
      `2026-01-04,expense,1,Cash,Food,a;b,${'d'.repeat(1000)}`,
    ].join('\n');
    const preview = await t.api('accounting.importCsv', { csv, dryRun: true }, u.token);
    expect(preview.data.summary).toMatchObject({ rows: 4, create: 1, invalid: 3 });
    const reasons = preview.data.invalid.map((r: { errors: string[] }) => r.errors.join());
    expect(reasons[0]).toMatch(/description has 1001 characters, at most 1000/);
    expect(reasons[1]).toMatch(/has 33 characters, at most 32/);
    expect(reasons[2]).toMatch(/21 tags, at most 20/);
    const real = await t.api('accounting.importCsv', { csv, dryRun: false }, u.token);
    expect(real.data.summary).toMatchObject({ create: 1, invalid: 3 });
    const list = (await t.api('accounting.query', {}, u.token)).data.list;
    expect(list.map((r: { description: string }) => r.description.length)).toEqual([1000]);
  });
});
