import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { registerUser } from '../test-support/test-server';
import { ledgerTestFile } from '../test-support/ledger';
import { commonErrors } from '../lib/errors';
import { ledgerErrors } from './errors';
import { expectRefusal } from '../test-support/refusal';

const { t, asset, balance } = ledgerTestFile();

describe('assets', () => {
  it('creates, lists with live balances, details, updates and soft-deletes', async () => {
    const u = await registerUser(t);
    const cash = await asset(u, { name: 'Wallet', balance: 20.5, icon: 'wallet', description: 'pocket' });
    const bank = await asset(u, { name: 'Bank', type: 'debit_card', balance: 1000 });
    const list = await t.api('asset.query', {}, u.token);
    expect(list.data).toMatchObject({ total: 2, page: 1, pageSize: 20, baseCurrency: 'USD' });
    const wallet = list.data.list[0];
    expect(Object.keys(wallet).sort()).toEqual(
      ['_id', 'balance', 'createdAt', 'currency', 'delFlag', 'description', 'icon', 'id', 'isDefault', 'name', 'openingBalance', 'status', 'type', 'updatedAt'].sort(),
    );
    expect(wallet).toMatchObject({ _id: cash, name: 'Wallet', balance: 20.5, isDefault: true, status: 'normal', delFlag: false, icon: 'wallet' });

    await t.api('accounting.create', { type: 'expense', amount: 5.25, asset: cash, category: 'Food' }, u.token);
    const detail = await t.api('asset.detail', { id: cash }, u.token);
    expect(detail.data).toMatchObject({ balance: 15.25, recordCount: 1 });

    const updated = await t.api('asset.update', { id: bank, name: 'Main bank', isDefault: true, status: 'archived' }, u.token);
    expect(updated.data).toMatchObject({ name: 'Main bank', isDefault: true, status: 'archived' });
    expect((await t.api('asset.detail', { id: cash }, u.token)).data.isDefault).toBe(false);
    expect((await t.api('asset.query', { status: 'archived' }, u.token)).data.total).toBe(1);

    expect((await t.api('asset.delete', { id: cash }, u.token)).data).toEqual({ deleted: true });
    expect((await t.api('asset.query', {}, u.token)).data.total).toBe(1);
    expectRefusal(await t.api('asset.detail', { id: cash }, u.token), ledgerErrors.rows.assetNotFound);
    expectRefusal(await t.api('asset.delete', { id: cash }, u.token), ledgerErrors.rows.assetNotFound);
    // the records stay, still shown with the deleted asset's name
    const records = await t.api('accounting.query', {}, u.token);
    expect(records.data.list[0]).toMatchObject({ assetName: 'Wallet', amount: 5.25 });
    // and records can no longer be written to it
    expectRefusal(await t.api('accounting.create', { type: 'income', amount: 1, asset: cash }, u.token), ledgerErrors.rows.assetNotFound);
  });

  it('validates types, statuses, currencies, decimals and pages', async () => {
    const u = await registerUser(t);
    const badType = await t.api('asset.create', { name: 'X', type: 'piggybank' }, u.token);
    expectRefusal(badType, ledgerErrors.rows.invalidAssetType);
    expectRefusal(await t.api('asset.create', { name: 'X', type: 'cash', currency: 'usd' }, u.token), commonErrors.rows.invalid);
    expectRefusal(await t.api('asset.create', { name: 'X', type: 'cash', currency: 'ZZZ' }, u.token), ledgerErrors.rows.unknownCurrency);
    expect((await t.api('asset.create', { name: 'X', type: 'cash', currency: 'JPY', balance: 10.5 }, u.token)).message).toMatch(/JPY allows \(0\)/);
    expectRefusal(await t.api('asset.create', { name: 'X', type: 'cash', balance: -1 }, u.token), ledgerErrors.rows.negativeOpeningBalance);
    expect((await t.api('asset.create', { name: 'Visa', type: 'credit_card', balance: -250 }, u.token)).code).toBe(200);
    expectRefusal(await t.api('asset.query', { type: 'piggybank' }, u.token), ledgerErrors.rows.invalidAssetType);
    expectRefusal(await t.api('asset.query', { status: 'gone' }, u.token), ledgerErrors.rows.unknownAssetStatusFilter);
    expectRefusal(await t.api('asset.query', { pageSize: 201 }, u.token), commonErrors.rows.invalid);
    expectRefusal(await t.api('asset.query', { page: 0 }, u.token), commonErrors.rows.invalid);
    const paged = await t.api('asset.query', { page: 2, pageSize: 1 }, u.token);
    expect(paged.data).toMatchObject({ total: 1, page: 2, pageSize: 1, list: [] });
  });

  it('keeps one default asset per user', async () => {
    const u = await registerUser(t);
    const a = await asset(u, { name: 'A' });
    const b = await asset(u, { name: 'B', isDefault: true });
    const c = await asset(u, { name: 'C' });
    const list = (await t.api('asset.query', {}, u.token)).data.list as Array<{ id: string; isDefault: boolean }>;
    expect(list.filter((x) => x.isDefault).map((x) => x.id)).toEqual([b]);
    expect(list[0]?.id).toBe(b);
    await t.api('asset.update', { id: c, isDefault: true }, u.token);
    const after = (await t.api('asset.query', {}, u.token)).data.list as Array<{ id: string; isDefault: boolean }>;
    expect(after.filter((x) => x.isDefault).map((x) => x.id)).toEqual([c]);
    expect(a).toBeTruthy();
  });

  it('answers 409 to a stale expectedUpdatedAt and refuses a currency change with records', async () => {
    const u = await registerUser(t);
    const a = await asset(u, { balance: 10 });
    const loaded = (await t.api('asset.detail', { id: a }, u.token)).data;
    expect((await t.api('asset.update', { id: a, name: 'First', expectedUpdatedAt: loaded.updatedAt }, u.token)).code).toBe(200);
    const stale = await t.api('asset.update', { id: a, name: 'Second', expectedUpdatedAt: loaded.updatedAt }, u.token);
    expectRefusal(stale, ledgerErrors.rows.changedElsewhere);
    expect((await t.api('asset.update', { id: a, currency: 'EUR' }, u.token)).code).toBe(200);
    await t.api('accounting.create', { type: 'expense', amount: 1, asset: a }, u.token);
    expectRefusal(await t.api('asset.update', { id: a, currency: 'GBP' }, u.token), ledgerErrors.rows.currencyLocked);
  });
});

describe('records', () => {
  it('creates income, expense and transfer exactly as the seed lists and moves balances', async () => {
    const u = await registerUser(t);
    const cash = await asset(u, { name: 'Cash', balance: 100 });
    const card = await asset(u, { name: 'Card', type: 'credit_card' });
    const income = await t.api(
      'accounting.create',
      { type: 'income', amount: 2500, category: 'Salary', asset: cash, description: 'November pay', date: Date.UTC(2026, 10, 1), tags: ['work'] },
      u.token,
    );
    expect(income.data).toMatchObject({ type: 'income', amount: 2500, category: 'Salary', asset: cash, description: 'November pay', tags: ['work'] });
    const transfer = await t.api(
      'accounting.create',
      { type: 'transfer', amount: 300, fromAsset: cash, toAsset: card, fee: 2.5, description: 'pay card', date: Date.UTC(2026, 10, 2) },
      u.token,
    );
    expect(transfer.data).toMatchObject({ type: 'transfer', fromAsset: cash, toAsset: card, fee: 2.5, toAmount: 300, category: '' });
    await t.api('accounting.create', { type: 'expense', amount: 42.1, asset: card, category: 'Food' }, u.token);
    expect(await balance(u, cash)).toBe(100 + 2500 - 302.5);
    expect(await balance(u, card)).toBe(257.9);
  });

  it('answers the documented codes for bad records', async () => {
    const u = await registerUser(t);
    const cash = await asset(u, { balance: 10 });
    const other = await asset(u, { name: 'B', balance: 0 });
    const expect400 = async (params: Record<string, unknown>, code: number, message?: RegExp) => {
      const answer = await t.api('accounting.create', params, u.token);
      expect(answer.code, JSON.stringify(params)).toBe(code);
      if (message) expect(answer.message).toMatch(message);
    };
    await expect400({ type: 'refund', amount: 1, asset: cash }, 3002);
    await expect400({ type: 'expense', amount: 0, asset: cash }, 3003);
    await expect400({ type: 'expense', amount: -5, asset: cash }, 3003);
    await expect400({ type: 'expense', amount: 1.234, asset: cash }, 400, /more decimals/);
    await expect400({ type: 'expense', amount: '1', asset: cash }, 400, /params.amount must be number/);
    await expect400({ type: 'expense', amount: 1, asset: 'nope' }, 2001);
    await expect400({ type: 'expense', amount: 1, asset: cash, category: 'Yachts' }, 400, /Unknown expense category/);
    await expect400({ type: 'expense', amount: 11, asset: cash }, 2002, /Not enough money/);
    await expect400({ type: 'transfer', amount: 1, fromAsset: cash, toAsset: cash }, 400, /two different assets/);
    await expect400({ type: 'transfer', amount: 1, fromAsset: cash, toAsset: other, fee: -1 }, 400, /fee/);
    await expect400({ type: 'transfer', amount: 10, fromAsset: cash, toAsset: other, fee: 0.01 }, 2002);
    await expect400({ type: 'transfer', amount: 1, fromAsset: cash }, 400, /toAsset is required/);
    await expect400({ type: 'income', amount: 1, asset: cash, toAsset: other }, 400, /transfers only/);
    await expect400({ type: 'income', amount: 1, asset: cash, unknown: 1 }, 400, /unknown parameter/);
    expect(await balance(u, cash)).toBe(10); // nothing changed
    expect((await t.api('accounting.query', {}, u.token)).data.total).toBe(0);
  });

  it('allows credit and loan assets to go negative', async () => {
    const u = await registerUser(t);
    const card = await asset(u, { type: 'credit_card' });
    const loan = await asset(u, { type: 'loan', name: 'Mortgage' });
    expect((await t.api('accounting.create', { type: 'expense', amount: 99.99, asset: card }, u.token)).code).toBe(200);
    expect((await t.api('accounting.create', { type: 'transfer', amount: 500, fromAsset: loan, toAsset: card }, u.token)).code).toBe(200);
    expect(await balance(u, card)).toBe(400.01);
    expect(await balance(u, loan)).toBe(-500);
  });

  it('transfers across currencies with toAmount, or with a rate', async () => {
    const u = await registerUser(t);
    const usd = await asset(u, { name: 'USD', balance: 100 });
    const jpy = await asset(u, { name: 'JPY', currency: 'JPY' });
    const noRate = await t.api('accounting.create', { type: 'transfer', amount: 10, fromAsset: usd, toAsset: jpy }, u.token);
    expectRefusal(noRate, ledgerErrors.rows.toAmountNeeded);
    expect(noRate.message).toMatch(/toAmount is required.*USD to JPY/);
    expect((await t.api('accounting.create', { type: 'transfer', amount: 10, fromAsset: usd, toAsset: jpy, toAmount: 1500.5 }, u.token)).message).toMatch(/JPY/);
    const withAmount = await t.api('accounting.create', { type: 'transfer', amount: 10, fromAsset: usd, toAsset: jpy, toAmount: 1498 }, u.token);
    expect(withAmount.data).toMatchObject({ amount: 10, currency: 'USD', toAmount: 1498, toCurrency: 'JPY' });
    await t.api('currency.setRate', { from: 'USD', to: 'JPY', rate: '151.37', date: 0 }, u.token);
    const viaRate = await t.api('accounting.create', { type: 'transfer', amount: 20.01, fromAsset: usd, toAsset: jpy }, u.token);
    expect(viaRate.data.toAmount).toBe(3029); // 20.01 × 151.37 = 3028.9137 → 3029 yen
    expect(await balance(u, jpy)).toBe(1498 + 3029);
    expect(await balance(u, usd)).toBe(69.99);
  });

  it('does exact decimal arithmetic (0.1 + 0.2, JPY and 3-decimal currencies)', async () => {
    const u = await registerUser(t);
    const usd = await asset(u, { balance: 0.3 });
    await t.api('accounting.create', { type: 'expense', amount: 0.1, asset: usd }, u.token);
    await t.api('accounting.create', { type: 'expense', amount: 0.2, asset: usd }, u.token);
    expect(await balance(u, usd)).toBe(0);
    const kwd = await asset(u, { currency: 'KWD', balance: 1.005 });
    await t.api('accounting.create', { type: 'income', amount: 0.001, asset: kwd }, u.token);
    expect(await balance(u, kwd)).toBe(1.006);
    expectRefusal(await t.api('accounting.create', { type: 'income', amount: 0.0001, asset: kwd }, u.token), commonErrors.rows.invalid);
    const jpy = await asset(u, { currency: 'JPY', balance: 1000 });
    await t.api('accounting.create', { type: 'expense', amount: 333, asset: jpy }, u.token);
    expect(await balance(u, jpy)).toBe(667);
    const many = await asset(u, { balance: 0 });
    for (let i = 0; i < 10; i++) await t.api('accounting.create', { type: 'income', amount: 0.1, asset: many }, u.token);
    expect(await balance(u, many)).toBe(1);
  });

  it('queries newest first with filters, text search, pages and totals of the filtered set', async () => {
    const u = await registerUser(t);
    const cash = await asset(u, { balance: 1000 });
    const bank = await asset(u, { name: 'Bank', balance: 1000 });
    const day = (d: number) => Date.UTC(2026, 0, d, 12);
    await t.api('accounting.create', { type: 'expense', amount: 10, asset: cash, category: 'Food', date: day(1), description: 'Coffee beans', tags: ['home'] }, u.token);
    await t.api('accounting.create', { type: 'expense', amount: 20, asset: bank, category: 'Transport', date: day(2), description: 'Train' }, u.token);
    await t.api('accounting.create', { type: 'income', amount: 100, asset: bank, category: 'Salary', date: day(3), description: 'Pay' }, u.token);
    await t.api('accounting.create', { type: 'expense', amount: 5, asset: cash, category: 'Food', date: day(4), description: 'COFFEE to go', tags: ['work'] }, u.token);
    await t.api('accounting.create', { type: 'transfer', amount: 50, fromAsset: bank, toAsset: cash, date: day(5) }, u.token);

    const all = await t.api('accounting.query', {}, u.token);
    expect(all.data.total).toBe(5);
    expect(all.data.list.map((r: { date: number }) => r.date)).toEqual([day(5), day(4), day(3), day(2), day(1)]);
    expect(all.data.totals).toMatchObject({ currency: 'USD', income: 100, expense: 35, net: 65, transfers: 1 });

    const food = await t.api('accounting.query', { category: 'food' }, u.token);
    expect(food.data.total).toBe(2);
    expect(food.data.totals.expense).toBe(15);
    expect((await t.api('accounting.query', { text: 'coffee' }, u.token)).data.total).toBe(2);
    expect((await t.api('accounting.query', { tag: 'work' }, u.token)).data.total).toBe(1);
    expect((await t.api('accounting.query', { type: 'income' }, u.token)).data.total).toBe(1);
    expectRefusal(await t.api('accounting.query', { type: 'bogus' }, u.token), ledgerErrors.rows.unknownRecordTypeFilter);
    expect((await t.api('accounting.query', { asset: cash }, u.token)).data.total).toBe(3); // incl. transfer target
    const range = await t.api('accounting.query', { startDate: day(2), endDate: day(4) }, u.token);
    expect(range.data.list.map((r: { date: number }) => r.date)).toEqual([day(3), day(2)]);
    expectRefusal(await t.api('accounting.query', { startDate: day(4), endDate: day(2) }, u.token), ledgerErrors.rows.endBeforeStart);
    const page2 = await t.api('accounting.query', { page: 2, pageSize: 2 }, u.token);
    expect(page2.data.list.map((r: { date: number }) => r.date)).toEqual([day(3), day(2)]);
    expect(page2.data.total).toBe(5);
  });

  it('never serves a stale list: writes, edits, deletes and new rates show up in the next query', async () => {
    const u = await registerUser(t);
    const cash = await asset(u, { balance: 100 });
    const euro = await asset(u, { name: 'Euro', currency: 'EUR', balance: 100 });
    await t.api('accounting.create', { type: 'expense', amount: 1, asset: cash, category: 'Food' }, u.token);
    const first = await t.api('accounting.query', { pageSize: 1 }, u.token);
    expect(first.data.total).toBe(1);
    const second = (await t.api('accounting.create', { type: 'expense', amount: 2, asset: cash, category: 'Food', date: Date.now() + 1000 }, u.token)).data;
    const afterCreate = await t.api('accounting.query', { pageSize: 1 }, u.token);
    expect(afterCreate.data.total).toBe(2);
    expect(afterCreate.data.list[0].id).toBe(second.id);
    expect(afterCreate.data.totals.expense).toBe(3);
    expect((await t.api('accounting.query', { category: 'Health' }, u.token)).data.total).toBe(0);
    await t.api('accounting.update', { id: second.id, category: 'Health' }, u.token);
    expect((await t.api('accounting.query', { category: 'Health' }, u.token)).data.total).toBe(1);
    await t.api('accounting.delete', { id: second.id }, u.token);
    expect((await t.api('accounting.query', {}, u.token)).data.total).toBe(1);
    await t.api('accounting.create', { type: 'expense', amount: 10, asset: euro, category: 'Food' }, u.token);
    expect((await t.api('accounting.query', {}, u.token)).data.totals.missingRates).toEqual([{ from: 'EUR', to: 'USD', records: 1 }]);
    await t.api('currency.setRate', { from: 'EUR', to: 'USD', rate: '2', date: 0 }, u.token);
    const withRate = await t.api('accounting.query', {}, u.token);
    expect(withRate.data.totals).toMatchObject({ expense: 21, missingRates: [] });
  });

  it('updates and deletes records with balances following, 409 on stale versions', async () => {
    const u = await registerUser(t);
    const cash = await asset(u, { balance: 100 });
    const bank = await asset(u, { name: 'Bank', balance: 0 });
    const created = (await t.api('accounting.create', { type: 'expense', amount: 30, asset: cash, category: 'Food' }, u.token)).data;
    const updated = await t.api(
      'accounting.update',
      { id: created.id, amount: 40, category: 'Health', description: 'pharmacy', tags: ['a'], expectedUpdatedAt: created.updatedAt },
      u.token,
    );
    expect(updated.data).toMatchObject({ amount: 40, category: 'Health', description: 'pharmacy', tags: ['a'] });
    expect(await balance(u, cash)).toBe(60);
    const stale = await t.api('accounting.update', { id: created.id, amount: 50, expectedUpdatedAt: created.updatedAt }, u.token);
    expectRefusal(stale, ledgerErrors.rows.changedElsewhere);
    expect(await balance(u, cash)).toBe(60);
    expectRefusal(await t.api('accounting.update', { id: created.id, asset: bank }, u.token), ledgerErrors.rows.insufficientBalance); // bank has 0
    expectRefusal(await t.api('accounting.update', { id: created.id, amount: 0 }, u.token), ledgerErrors.rows.invalidAmount);
    expectRefusal(await t.api('accounting.update', { id: created.id, fee: 1 }, u.token), ledgerErrors.rows.transferFieldsOnly);
    expect((await t.api('accounting.delete', { id: created.id }, u.token)).data).toMatchObject({ deleted: true, undoToken: expect.any(String) });
    expect(await balance(u, cash)).toBe(100);
    expectRefusal(await t.api('accounting.delete', { id: created.id }, u.token), ledgerErrors.rows.recordNotFound);
    expectRefusal(await t.api('accounting.update', { id: 'nope', amount: 1 }, u.token), ledgerErrors.rows.recordNotFound);
  });

  it("keeps users apart: another user's ids answer not-found and change nothing", async () => {
    const alice = await registerUser(t);
    const bob = await registerUser(t);
    const aliceCash = await asset(alice, { balance: 100 });
    const record = (await t.api('accounting.create', { type: 'expense', amount: 10, asset: aliceCash }, alice.token)).data;
    const bobCash = await asset(bob, { balance: 100 });
    expectRefusal(await t.api('asset.detail', { id: aliceCash }, bob.token), ledgerErrors.rows.assetNotFound);
    expectRefusal(await t.api('asset.update', { id: aliceCash, name: 'mine' }, bob.token), ledgerErrors.rows.assetNotFound);
    expectRefusal(await t.api('asset.delete', { id: aliceCash }, bob.token), ledgerErrors.rows.assetNotFound);
    expectRefusal(await t.api('accounting.create', { type: 'expense', amount: 1, asset: aliceCash }, bob.token), ledgerErrors.rows.assetNotFound);
    expectRefusal(await t.api('accounting.create', { type: 'transfer', amount: 1, fromAsset: bobCash, toAsset: aliceCash }, bob.token), ledgerErrors.rows.assetNotFound);
    expectRefusal(await t.api('accounting.get', { id: record.id }, bob.token), ledgerErrors.rows.recordNotFound);
    expectRefusal(await t.api('accounting.update', { id: record.id, amount: 1 }, bob.token), ledgerErrors.rows.recordNotFound);
    expectRefusal(await t.api('accounting.delete', { id: record.id }, bob.token), ledgerErrors.rows.recordNotFound);
    expect((await t.api('accounting.query', { asset: aliceCash }, bob.token)).data.total).toBe(0);
    expect((await t.api('asset.query', {}, bob.token)).data.list.map((a: { id: string }) => a.id)).toEqual([bobCash]);
    expect(await balance(alice, aliceCash)).toBe(90);
  });

  it('serialises concurrent spending: never below zero, no lost updates', async () => {
    const u = await registerUser(t);
    const cash = await asset(u, { balance: 100 });
    const answers = await Promise.all(Array.from({ length: 30 }, () => t.api('accounting.create', { type: 'expense', amount: 7, asset: cash }, u.token)));
    expect(answers.filter((a) => a.code === 200)).toHaveLength(14);
    expect(answers.filter((a) => a.code === 2002)).toHaveLength(16);
    expect(await balance(u, cash)).toBe(2);
    expect((await t.api('asset.checkBalances', {}, u.token)).data).toEqual({ ok: true, mismatches: [] });
  });
});

describe('records that arrive by sync', () => {
  it('count in balances at once and are never refused', async () => {
    const u = await registerUser(t);
    const cash = await asset(u, { balance: 5 });
    await t.api('asset.detail', { id: cash }, u.token); // the view is loaded
    const now = Date.now();
    await t.server.app.db.collection('records').insert({
      id: `sync-${now}`,
      userId: u.id,
      type: 'expense',
      amount: 2000,
      asset: cash,
      toAsset: '',
      toAmount: 0,
      fee: 0,
      category: 'Food',
      description: 'from phone',
      searchText: 'from phone',
      date: now,
      tags: [],
      attachments: [],
      importKey: '',
      createdAt: now,
      updatedAt: now,
    });
    expect(await balance(u, cash)).toBe(-15);
    expect((await t.api('asset.checkBalances', {}, u.token)).data.ok).toBe(true);
  });
});

describe('categories', () => {
  it('starts with defaults, creates, renames (records follow) and deletes with moveTo', async () => {
    const u = await registerUser(t);
    const cash = await asset(u, { balance: 100 });
    const list = await t.api('category.list', { type: 'expense' }, u.token);
    expect(list.data.list.map((c: { name: string }) => c.name)).toContain('Food');
    const pets = (await t.api('category.create', { type: 'expense', name: 'Pets' }, u.token)).data;
    expectRefusal(await t.api('category.create', { type: 'expense', name: 'pets' }, u.token), ledgerErrors.rows.categoryExists);
    await t.api('accounting.create', { type: 'expense', amount: 3, asset: cash, category: 'pets' }, u.token);
    const renamed = await t.api('category.update', { id: pets.id, name: 'Animals' }, u.token);
    expect(renamed.data.name).toBe('Animals');
    expect((await t.api('accounting.query', {}, u.token)).data.list[0].category).toBe('Animals');
    expectRefusal(await t.api('category.delete', { id: pets.id }, u.token), ledgerErrors.rows.categoryInUse);
    expect((await t.api('category.delete', { id: pets.id, moveTo: 'Other' }, u.token)).data).toEqual({ deleted: true, movedRecords: 1 });
    expect((await t.api('accounting.query', {}, u.token)).data.list[0].category).toBe('Other');
    const other = await registerUser(t);
    const foodOfU = (await t.api('category.list', { type: 'expense' }, u.token)).data.list[0];
    expectRefusal(await t.api('category.delete', { id: foodOfU.id }, other.token), ledgerErrors.rows.categoryNotFound);
  });
});

describe('currencies and statistics', () => {
  it('computes income/expense with trends and series, category shares, net worth and trends', async () => {
    const u = await registerUser(t);
    const cash = await asset(u, { balance: 1000 });
    const eur = await asset(u, { name: 'Euro', currency: 'EUR', balance: 100 });
    const card = await asset(u, { name: 'Card', type: 'credit_card' });
    const jan = (d: number) => Date.UTC(2026, 0, d, 12);
    const dec = (d: number) => Date.UTC(2025, 11, d, 12);
    await t.api('accounting.create', { type: 'expense', amount: 100, asset: cash, category: 'Food', date: dec(10) }, u.token);
    await t.api('accounting.create', { type: 'income', amount: 500, asset: cash, category: 'Salary', date: jan(2) }, u.token);
    await t.api('accounting.create', { type: 'expense', amount: 60, asset: cash, category: 'Food', date: jan(3) }, u.token);
    await t.api('accounting.create', { type: 'expense', amount: 30, asset: cash, category: 'Transport', date: jan(10) }, u.token);
    await t.api('accounting.create', { type: 'expense', amount: 10, asset: card, category: 'Health', date: jan(20) }, u.token);
    await t.api('accounting.create', { type: 'expense', amount: 10, asset: eur, category: 'Travel', date: jan(21) }, u.token);

    const range = { startDate: Date.UTC(2026, 0, 1), endDate: Date.UTC(2026, 1, 1) };
    const noRate = await t.api('stats.getIncomeExpense', { ...range, groupBy: 'week', timeZone: 'UTC' }, u.token);
    expect(noRate.data.missingRates).toEqual([{ from: 'EUR', to: 'USD', records: 1 }]);
    expect(noRate.data.expense.total).toBe(100);

    await t.api('currency.setRate', { from: 'EUR', to: 'USD', rate: '1.1', date: 0 }, u.token);
    const stats = await t.api('stats.getIncomeExpense', { ...range, groupBy: 'week', timeZone: 'UTC' }, u.token);
    expect(stats.data).toMatchObject({
      income: { total: 500, count: 1, average: 500, trend: 'up' },
      expense: { total: 111, count: 4, average: 27.75, trend: 'up', previousTotal: 100 },
      netIncome: 389,
      period: range,
      currency: 'USD',
      missingRates: [],
    });
    const weeks = stats.data.series as Array<{ label: string; income: number; expense: number }>;
    expect(weeks[0]?.label).toBe('2026-W01');
    expect(weeks.reduce((s, w) => s + w.expense, 0)).toBe(111);

    const cats = await t.api('stats.getCategoryStats', { type: 'expense', ...range, limit: 2 }, u.token);
    expect(cats.data.total).toBe(111);
    expect(cats.data.categories).toEqual([
      { category: 'Food', amount: 60, count: 1, share: 0.5405 },
      { category: 'Transport', amount: 30, count: 1, share: 0.2703 },
    ]);
    expect(cats.data.other).toEqual({ categories: 2, amount: 21, count: 2, share: 0.1892 });

    const worth = await t.api('stats.getAssetStats', {}, u.token);
    // cash 1000 - 100 + 500 - 60 - 30 = 1310; euro 90 → 99 USD; card -10
    expect(worth.data).toMatchObject({ currency: 'USD', assets: 1409, liabilities: 10, netWorth: 1399 });
    expect(worth.data.byCurrency).toEqual(
      expect.arrayContaining([
        { currency: 'USD', balance: 1300, converted: 1300, count: 2 },
        { currency: 'EUR', balance: 90, converted: 99, count: 1 },
      ]),
    );

    const trend = await t.api('stats.getTrend', { type: 'balance', startDate: Date.UTC(2025, 11, 1), endDate: Date.UTC(2026, 1, 1), groupBy: 'month', timeZone: 'UTC' }, u.token);
    expect(trend.data.points.map((p: { label: string; value: number }) => [p.label, p.value])).toEqual([
      ['2025-12', 1000 + 110 - 100],
      ['2026-01', 1399],
    ]);
    const expenseTrend = await t.api('stats.getTrend', { type: 'expense', ...range, groupBy: 'month', timeZone: 'UTC' }, u.token);
    expect(expenseTrend.data.points).toEqual([{ label: '2026-01', startDate: range.startDate, endDate: range.endDate, value: 111 }]);
    expectRefusal(await t.api('stats.getTrend', { type: 'balance', startDate: 10, endDate: 5 }, u.token), ledgerErrors.rows.endBeforeStart);
    expectRefusal(await t.api('stats.getIncomeExpense', { ...range, timeZone: 'Mars/Olympus' }, u.token), ledgerErrors.rows.unknownTimeZone);
    expectRefusal(await t.api('stats.getIncomeExpense', { ...range, groupBy: 'decade' }, u.token), commonErrors.rows.invalid);
  });

  it('derives the base currency from the first asset until one is set', async () => {
    const u = await registerUser(t);
    expect((await t.api('currency.get', {}, u.token)).data).toEqual({ baseCurrency: 'USD', explicit: false });
    await asset(u, { currency: 'CNY' });
    expect((await t.api('currency.get', {}, u.token)).data).toEqual({ baseCurrency: 'CNY', explicit: false });
    expect((await t.api('currency.setBase', { currency: 'EUR' }, u.token)).data).toEqual({ baseCurrency: 'EUR' });
    expect((await t.api('currency.get', {}, u.token)).data).toEqual({ baseCurrency: 'EUR', explicit: true });
    expectRefusal(await t.api('currency.setBase', { currency: 'XYZ' }, u.token), ledgerErrors.rows.unknownCurrency);
    expectRefusal(await t.api('currency.setRate', { from: 'EUR', to: 'EUR', rate: 1 }, u.token), ledgerErrors.rows.sameCurrencyRate);
    expectRefusal(await t.api('currency.setRate', { from: 'EUR', to: 'CNY', rate: '-1' }, u.token), ledgerErrors.rows.invalidRate);
    const set = await t.api('currency.setRate', { from: 'EUR', to: 'CNY', rate: 7.81, date: 1000 }, u.token);
    expect(set.data).toMatchObject({ from: 'EUR', to: 'CNY', rate: '7.81', date: 1000 });
    await t.api('currency.setRate', { from: 'EUR', to: 'CNY', rate: '7.9', date: 1000 }, u.token);
    const rates = (await t.api('currency.listRates', {}, u.token)).data.list;
    expect(rates).toHaveLength(1);
    expect(rates[0].rate).toBe('7.9');
    expect((await t.api('currency.deleteRate', { id: rates[0].id }, u.token)).data).toEqual({ deleted: true });
  });
});

describe('property: balances always equal a recomputation from scratch', () => {
  it('after any sequence of creates, updates and deletes', async () => {
    const u = await registerUser(t);
    const assets = [await asset(u, { balance: 500 }), await asset(u, { name: 'B', balance: 50 }), await asset(u, { name: 'C', type: 'credit_card' })];
    const created: string[] = [];
    const op = fc.oneof(
      fc.record({ kind: fc.constant('income' as const), amount: fc.integer({ min: 1, max: 10_000 }), a: fc.nat(2) }),
      fc.record({ kind: fc.constant('expense' as const), amount: fc.integer({ min: 1, max: 10_000 }), a: fc.nat(2) }),
      fc.record({ kind: fc.constant('transfer' as const), amount: fc.integer({ min: 1, max: 10_000 }), a: fc.nat(2), b: fc.nat(2), fee: fc.integer({ min: 0, max: 100 }) }),
      fc.record({ kind: fc.constant('update' as const), amount: fc.integer({ min: 1, max: 10_000 }), pick: fc.nat() }),
      fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 25 }), async (ops) => {
        for (const o of ops) {
          if (o.kind === 'income' || o.kind === 'expense') {
            const r = await t.api('accounting.create', { type: o.kind, amount: o.amount / 100, asset: assets[o.a] }, u.token);
            if (r.code === 200) created.push(r.data.id);
          } else if (o.kind === 'transfer') {
            const r = await t.api('accounting.create', { type: 'transfer', amount: o.amount / 100, fromAsset: assets[o.a], toAsset: assets[o.b], fee: o.fee / 100 }, u.token);
            if (r.code === 200) created.push(r.data.id);
          } else if (created.length > 0) {
            const id = created[o.pick % created.length]!;
            if (o.kind === 'update') await t.api('accounting.update', { id, amount: o.amount / 100 }, u.token);
            else if ((await t.api('accounting.delete', { id }, u.token)).code === 200) created.splice(created.indexOf(id), 1);
          }
        }
        const check = await t.api('asset.checkBalances', {}, u.token);
        expect(check.data).toEqual({ ok: true, mismatches: [] });
        for (const id of assets.slice(0, 2)) expect(await balance(u, id)).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 15, seed: 4242 },
    );
  }, 60_000);
});
