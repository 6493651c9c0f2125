import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../lib/clock';
import { createAsset } from '../test-support/ledger';
import { registerUser, startTestServer, type TestServer } from '../test-support/test-server';

/**
 * Issue 21: budget figures equal a straightforward recomputation from the records, whatever the
 * records (types, currencies, categories, dates near month ends in the zone) and budgets are.
 */

const clock = new ManualClock(Date.UTC(2026, 4, 10));
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ clock });
});
afterAll(() => t.close());

const ZONE = 'Asia/Tokyo'; // UTC+9, no DST
const MONTHS = ['2026-01', '2026-02', '2026-03', '2026-04'];
const CATEGORIES = ['Food', 'Shopping', 'Travel'];
const RATE_CHANGE = Date.UTC(2026, 1, 15);
/** EUR→USD: 2 before RATE_CHANGE, 3 from it (whole numbers, so no rounding to model). */
const eurToUsd = (date: number) => (date >= RATE_CHANGE ? 3 : 2);
/** The local month of an instant in Tokyo, as an index into MONTHS (−1 / 4 outside). */
const localMonth = (date: number) => {
  const d = new Date(date + 9 * 3_600_000);
  return (d.getUTCFullYear() - 2026) * 12 + d.getUTCMonth();
};

const recordArb = fc.record({
  type: fc.constantFrom('expense', 'expense', 'expense', 'income', 'transfer'),
  eur: fc.boolean(),
  category: fc.constantFrom(...CATEGORIES),
  cents: fc.integer({ min: 1, max: 50_000 }),
  month: fc.integer({ min: 0, max: 3 }),
  day: fc.integer({ min: 1, max: 31 }),
  hour: fc.integer({ min: 0, max: 23 }),
});
const budgetArb = fc.record({
  categories: fc.oneof(fc.constant('all' as const), fc.subarray(CATEGORIES, { minLength: 1 })),
  cents: fc.integer({ min: 1, max: 200_000 }),
  start: fc.integer({ min: 0, max: 3 }),
  rollover: fc.boolean(),
});

describe('budget figures (property)', () => {
  it('equal a recomputation from the records for every month', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(recordArb, { maxLength: 14 }), fc.array(budgetArb, { minLength: 1, maxLength: 3 }), async (records, budgets) => {
        const u = await registerUser(t);
        const usd = await createAsset(t, u, { balance: 1_000_000 });
        const eur = await createAsset(t, u, { name: 'EUR', currency: 'EUR', balance: 1_000_000 });
        await t.api('currency.setRate', { from: 'EUR', to: 'USD', rate: '2', date: 0 }, u.token);
        await t.api('currency.setRate', { from: 'EUR', to: 'USD', rate: '3', date: RATE_CHANGE }, u.token);
        const ids = Object.fromEntries(((await t.api('category.list', { type: 'expense' }, u.token)).data.list as Array<{ id: string; name: string }>).map((c) => [c.name, c.id]));
        // Day 29–31 of a short month runs into the next one (April's into May, outside every budget month).
        const stored = records.map((r) => ({ ...r, date: Date.UTC(2026, r.month, 1, r.hour) + (r.day - 1) * 86_400_000 }));
        for (const r of stored) {
          const asset = r.eur ? eur : usd;
          const params =
            r.type === 'transfer'
              ? { type: 'transfer', amount: r.cents / 100, fromAsset: asset, toAsset: r.eur ? usd : eur, date: r.date }
              : { type: r.type, amount: r.cents / 100, asset, category: r.type === 'income' ? 'Salary' : r.category, date: r.date };
          const answer = await t.api('accounting.create', params, u.token);
          expect(answer.code, answer.message).toBe(200);
        }
        const made: Array<{ id: string; spec: (typeof budgets)[number] }> = [];
        for (const spec of budgets) {
          const categories = spec.categories === 'all' ? 'all' : spec.categories.map((name) => ids[name]);
          const answer = await t.api('budget.create', { name: 'B', categories, amount: spec.cents / 100, startMonth: MONTHS[spec.start], rollover: spec.rollover }, u.token);
          expect(answer.code, answer.message).toBe(200);
          made.push({ id: answer.data.id as string, spec });
        }
        // The recomputation: cents of USD spent by a budget in month m.
        const spent = (spec: (typeof budgets)[number], m: number) =>
          stored
            .filter((r) => r.type === 'expense' && localMonth(r.date) === m && (spec.categories === 'all' || spec.categories.includes(r.category)))
            .reduce((sum, r) => sum + (r.eur ? r.cents * eurToUsd(r.date) : r.cents), 0);
        for (let m = 0; m < MONTHS.length; m++) {
          const answer = await t.api('budget.query', { month: MONTHS[m], timeZone: ZONE }, u.token);
          const expected = made
            .filter(({ spec }) => spec.start <= m)
            .map(({ id, spec }) => {
              let carried = 0;
              if (spec.rollover) for (let k = spec.start; k < m; k++) carried += spec.cents - spent(spec, k);
              const s = spent(spec, m);
              const available = spec.cents + carried;
              const progress = available > 0 ? Math.round((s / available) * 10_000) / 10_000 : s > 0 || available < 0 ? 1 : 0;
              return { id, spent: s / 100, carried: carried / 100, remaining: (available - s) / 100, amount: spec.cents / 100, progress };
            });
          const got = (answer.data.list as Array<Record<string, number | string>>).map((f) => ({
            id: f.id,
            spent: f.spent,
            carried: f.carried,
            remaining: f.remaining,
            amount: f.amount,
            progress: f.progress,
          }));
          const byId = (a: { id: unknown }, b: { id: unknown }) => (String(a.id) < String(b.id) ? -1 : 1);
          expect(got.sort(byId)).toEqual(expected.sort(byId));
        }
      }),
      { numRuns: 12, seed: 2121 },
    );
  });
});
