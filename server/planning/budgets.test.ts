import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../lib/clock';
import { createAsset } from '../test-support/ledger';
import { registerUser, startTestServer, type TestServer } from '../test-support/test-server';
import { commonErrors } from '../lib/errors';
import { planningErrors } from './errors';
import { expectRefusal } from '../test-support/refusal';

/** Issue 21: budgets — CRUD, validation, isolation, dated conversion, rollover, time zones. */

type User = Awaited<ReturnType<typeof registerUser>>;

const clock = new ManualClock(Date.UTC(2026, 2, 15, 12));
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ clock });
});
afterAll(() => t.close());

const at = (month: number, day: number, hour = 12) => Date.UTC(2026, month - 1, day, hour);

async function categoryIds(u: User): Promise<Record<string, string>> {
  const answer = await t.api('category.list', { type: 'expense' }, u.token);
  return Object.fromEntries((answer.data.list as Array<{ id: string; name: string }>).map((c) => [c.name, c.id]));
}

async function spend(u: User, asset: string, amount: number, category: string, date: number, type = 'expense') {
  const answer = await t.api('accounting.create', { type, amount, asset, category, date }, u.token);
  if (answer.code !== 200) throw new Error(`${answer.code} ${answer.message}`);
  return answer.data.id as string;
}

async function query(u: User, month: string, timeZone = 'UTC') {
  const answer = await t.api('budget.query', { month, timeZone }, u.token);
  if (answer.code !== 200) throw new Error(`${answer.code} ${answer.message}`);
  return answer.data as { list: Array<Record<string, any>>; missingRates: unknown[] };
}

describe('budget.create / query / update / delete', () => {
  it('stores a budget by category ids, shows its figures, changes it and deletes it', async () => {
    const u = await registerUser(t);
    const cash = await createAsset(t, u, { balance: 1000 });
    const ids = await categoryIds(u);
    const created = await t.api('budget.create', { name: ' Eating ', categories: [ids.Food, ids.Shopping], amount: 200, startMonth: '2026-01' }, u.token);
    expect(created.code).toBe(200);
    expect(created.data).toMatchObject({
      name: 'Eating',
      categories: [ids.Food, ids.Shopping],
      categoryNames: ['Food', 'Shopping'],
      allCategories: false,
      amount: 200,
      currency: 'USD',
      period: 'month',
      startMonth: '2026-01',
      rollover: false,
    });
    const id = created.data.id as string;
    await spend(u, cash, 30.5, 'Food', at(3, 2));
    await spend(u, cash, 20, 'Shopping', at(3, 15, 9));
    await spend(u, cash, 99, 'Travel', at(3, 3));
    await spend(u, cash, 50, 'Salary', at(3, 3), 'income');
    await spend(u, cash, 7, 'Food', at(2, 28));
    const march = await query(u, '2026-03');
    expect(march.list).toHaveLength(1);
    expect(march.list[0]).toMatchObject({ id, spent: 50.5, remaining: 149.5, carried: 0, progress: 0.2525, spentToday: 20 });
    expect((await query(u, '2026-02')).list[0]).toMatchObject({ spent: 7, spentToday: 0 });
    expect((await query(u, '2025-12')).list).toEqual([]);

    const updated = await t.api('budget.update', { id, categories: 'all', amount: 100, rollover: true }, u.token);
    expect(updated.data).toMatchObject({ categories: [], allCategories: true, amount: 100, rollover: true, name: 'Eating' });
    expect(updated.data.updatedAt).toBeGreaterThan(created.data.updatedAt);
    // all expenses: Jan 0, Feb 7, Mar 149.5 (income is not spending); rollover from January: 100 + 93
    expect((await query(u, '2026-03')).list[0]).toMatchObject({ spent: 149.5, carried: 193, remaining: 143.5 });

    expect((await t.api('budget.delete', { id }, u.token)).data).toEqual({ deleted: true });
    expect((await query(u, '2026-03')).list).toEqual([]);
    expectRefusal(await t.api('budget.delete', { id }, u.token), planningErrors.rows.budgetNotFound);
    expectRefusal(await t.api('budget.update', { id, name: 'x' }, u.token), planningErrors.rows.budgetNotFound);
  });

  it('refuses invalid budgets with their reasons and changes nothing', async () => {
    const u = await registerUser(t);
    const other = await registerUser(t);
    const ids = await categoryIds(u);
    const theirs = await categoryIds(other);
    const incomeId = ((await t.api('category.list', { type: 'income' }, u.token)).data.list as Array<{ id: string }>)[0]!.id;
    const good = { name: 'Food', categories: [ids.Food], amount: 100, startMonth: '2026-03' };
    const kept = await t.api('budget.create', good, u.token);
    const before = await query(u, '2026-03');
    const cases: Array<[Record<string, unknown>, number, string | undefined]> = [
      [{ name: '   ' }, 400, 'planning.blankBudgetName'],
      [{ amount: 0 }, 3003, 'planning.budgetAmountNotPositive'],
      [{ amount: -5 }, 3003, 'planning.budgetAmountNotPositive'],
      [{ amount: 1.234 }, 400, undefined],
      [{ startMonth: '2026-13' }, 400, 'planning.invalidMonth'],
      [{ startMonth: '26-03-1' }, 400, 'planning.invalidMonth'],
      [{ startMonth: '1969-12' }, 400, 'planning.invalidMonth'],
      [{ startMonth: '2201-01' }, 400, 'planning.invalidMonth'],
      [{ categories: ['nope'] }, 400, 'planning.unknownBudgetCategory'],
      [{ categories: [theirs.Food] }, 400, 'planning.unknownBudgetCategory'],
      [{ categories: [incomeId] }, 400, 'planning.unknownBudgetCategory'],
      [{ categories: [] }, 400, undefined],
      [{ period: 'week' }, 400, undefined],
    ];
    for (const [change, code, reason] of cases) {
      for (const action of ['budget.create', 'budget.update'] as const) {
        if (action === 'budget.update' && 'period' in change) continue;
        const params = action === 'budget.create' ? { ...good, ...change } : { id: kept.data.id, ...change };
        const answer = await t.api(action, params, u.token);
        expect(`${action} ${JSON.stringify(change)} → ${answer.code}`).toBe(`${action} ${JSON.stringify(change)} → ${code}`);
        if (reason) expect(answer.data).toMatchObject({ reason });
      }
    }
    expect((await t.api('budget.query', { month: '2026-00' }, u.token)).data).toMatchObject({ reason: 'planning.invalidMonth' });
    expect((await t.api('budget.query', { month: '2026-03', timeZone: 'Mars/Base' }, u.token)).data).toMatchObject({ reason: 'planning.unknownPlanningTimeZone' });
    expect(await query(u, '2026-03')).toEqual(before);
    expect((await t.server.app.services.budgets.list(u.id)).length).toBe(1);
  });

  it('follows a category that is renamed or deleted into another', async () => {
    const u = await registerUser(t);
    const cash = await createAsset(t, u, { balance: 1000 });
    const ids = await categoryIds(u);
    const budget = (await t.api('budget.create', { name: 'Eat', categories: [ids.Food, ids.Shopping], amount: 100, startMonth: '2026-03' }, u.token)).data;
    await spend(u, cash, 10, 'Food', at(3, 2));
    await spend(u, cash, 5, 'Shopping', at(3, 2));
    expect((await t.api('category.update', { id: ids.Food, name: 'Groceries' }, u.token)).code).toBe(200);
    expect((await query(u, '2026-03')).list[0]).toMatchObject({ categories: [ids.Food, ids.Shopping], categoryNames: ['Groceries', 'Shopping'], spent: 15 });
    expect((await t.api('category.delete', { id: ids.Shopping, moveTo: 'Groceries' }, u.token)).code).toBe(200);
    expect((await query(u, '2026-03')).list[0]).toMatchObject({ id: budget.id, categories: [ids.Food], categoryNames: ['Groceries'], spent: 15 });
  });

  it("never shows or changes another user's budget", async () => {
    const alice = await registerUser(t);
    const mallory = await registerUser(t);
    const ids = await categoryIds(alice);
    const budget = (await t.api('budget.create', { name: 'Secret', categories: 'all', amount: 10, startMonth: '2026-01' }, alice.token)).data;
    expect(budget.allCategories).toBe(true);
    expect((await query(mallory, '2026-03')).list).toEqual([]);
    expectRefusal(await t.api('budget.update', { id: budget.id, amount: 1 }, mallory.token), planningErrors.rows.budgetNotFound);
    expectRefusal(await t.api('budget.update', { id: budget.id, categories: [ids.Food] }, mallory.token), planningErrors.rows.budgetNotFound);
    expectRefusal(await t.api('budget.delete', { id: budget.id }, mallory.token), planningErrors.rows.budgetNotFound);
    expect((await query(alice, '2026-03')).list[0]).toMatchObject({ id: budget.id, amount: 10, name: 'Secret' });
    expectRefusal(await t.api('budget.query', { month: '2026-03' }), commonErrors.rows.unauthorized);
  });
});

describe('budget figures', () => {
  it('converts records in other currencies with the rate of their date and reports missing rates', async () => {
    const u = await registerUser(t);
    const usd = await createAsset(t, u, { balance: 1000 });
    const eur = await createAsset(t, u, { name: 'Euro', currency: 'EUR', balance: 1000 });
    const yen = await createAsset(t, u, { name: 'Yen', currency: 'JPY', balance: 100000 });
    await t.api('currency.setRate', { from: 'EUR', to: 'USD', rate: '1.1', date: 0 }, u.token);
    await t.api('currency.setRate', { from: 'EUR', to: 'USD', rate: '1.2', date: at(3, 10, 0) }, u.token);
    const b = (await t.api('budget.create', { name: 'All', categories: 'all', amount: 100, startMonth: '2026-03' }, u.token)).data;
    expect(b.currency).toBe('USD');
    await spend(u, eur, 10, 'Food', at(3, 5));
    await spend(u, eur, 10, 'Food', at(3, 12));
    await spend(u, usd, 5, 'Food', at(3, 1));
    await spend(u, yen, 500, 'Food', at(3, 1));
    const march = await query(u, '2026-03');
    expect(march.list[0]).toMatchObject({ spent: 28, remaining: 72, progress: 0.28 });
    expect(march.missingRates).toEqual([{ from: 'JPY', to: 'USD', records: 1 }]);
    // A later change of the base currency leaves the budget's currency as it was made.
    await t.api('currency.setBase', { currency: 'EUR' }, u.token);
    expect((await query(u, '2026-03')).list[0]).toMatchObject({ currency: 'USD', spent: 28 });
    const eurBudget = (await t.api('budget.create', { name: 'E', categories: 'all', amount: 50, startMonth: '2026-03' }, u.token)).data;
    expect(eurBudget.currency).toBe('EUR');
    // 5 USD before Mar 10 at 1/1.1, 20 EUR: 4.545454… + 20 → 24.55 EUR
    expect((await query(u, '2026-03')).list.find((f) => f.id === eurBudget.id)).toMatchObject({ spent: 24.55 });
  });

  it('rolls what is left or overspent over the months since its start, and counts months in the time zone', async () => {
    const u = await registerUser(t);
    const cash = await createAsset(t, u, { balance: 10000 });
    const ids = await categoryIds(u);
    const roll = (await t.api('budget.create', { name: 'Food', categories: [ids.Food], amount: 100, startMonth: '2025-12', rollover: true }, u.token)).data;
    const plain = (await t.api('budget.create', { name: 'Food plain', categories: [ids.Food], amount: 100, startMonth: '2025-12' }, u.token)).data;
    // December nothing, January 80, February 250, March 10 (+ one at the edge of March/April).
    await spend(u, cash, 80, 'Food', at(1, 10));
    await spend(u, cash, 250, 'Food', at(2, 10));
    await spend(u, cash, 10, 'Food', at(3, 10));
    await spend(u, cash, 40, 'Food', Date.UTC(2026, 2, 31, 20)); // Apr 1, 04:00 in Shanghai
    const figures = async (month: string, zone = 'UTC') => Object.fromEntries((await query(u, month, zone)).list.map((f) => [f.id, f]));
    expect((await figures('2025-11'))[roll.id]).toBeUndefined();
    expect((await figures('2025-12'))[roll.id]).toMatchObject({ spent: 0, carried: 0, remaining: 100, progress: 0 });
    expect((await figures('2026-01'))[roll.id]).toMatchObject({ spent: 80, carried: 100, remaining: 120 });
    expect((await figures('2026-02'))[roll.id]).toMatchObject({ spent: 250, carried: 120, remaining: -30, progress: 1.1364 });
    expect((await figures('2026-03'))[roll.id]).toMatchObject({ spent: 50, carried: -30, remaining: 20, progress: 0.7143 });
    expect((await figures('2026-03'))[plain.id]).toMatchObject({ spent: 50, carried: 0, remaining: 50, progress: 0.5 });
    expect((await figures('2026-03', 'Asia/Shanghai'))[roll.id]).toMatchObject({ spent: 10, carried: -30, remaining: 60 });
    expect((await figures('2026-04', 'Asia/Shanghai'))[roll.id]).toMatchObject({ spent: 40, carried: 60, remaining: 120 });
    // A debt as large as the amount: nothing available, used up.
    await spend(u, cash, 200, 'Food', at(3, 11));
    expect((await figures('2026-04'))[roll.id]).toMatchObject({ spent: 0, carried: -180, remaining: -80, progress: 1 });
    // The figures service (reminders) answers minor units.
    const minor = await t.server.app.services.budgets.figures(u.id, '2026-03', 'UTC');
    expect(minor.find((f) => f.id === roll.id)).toMatchObject({ amount: 10000, spent: 25000, carried: -3000, remaining: -18000, currency: 'USD' });
  });
});
