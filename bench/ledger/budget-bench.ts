/**
 * Budgets over a big ledger (issue 21, goal: budget.query for one month p50 < 20 ms at 100,000
 * records). Called by ledger-bench.ts after it seeded the ledger (records up to 2026-01-01, so the
 * month measured is 2025-12). Four budgets: one for every expense, two for some categories, one
 * with rollover since 12 months before. Two numbers: the same query again (its figures are kept
 * until the ledger changes) and a query right after a record was written (figures recomputed).
 */
import { percentile } from '../lib';

export type BenchRow = [string, { p50: number; p95: number; p99: number }, number | null];

type Call = (action: string, params: unknown) => Promise<any>;
type Measure = (runs: number, fn: (i: number) => Promise<unknown>) => Promise<{ p50: number; p95: number; p99: number }>;

/**
 * `recompute` answers the same query in-process after dropping the ledger view's derived results
 * (what a write does), so the figures' own cost shows apart from HTTP and the write's aftermath.
 */
export async function budgetBench(call: Call, measure: Measure, runs: number, asset: string, recompute: (month: string) => Promise<unknown>): Promise<BenchRow[]> {
  const categories = (await call('category.list', { type: 'expense' })).list as Array<{ id: string; name: string }>;
  const id = (name: string) => {
    const category = categories.find((c) => c.name === name) ?? categories.at(0);
    if (!category) throw new Error('budget bench: the seeded ledger has no expense category');
    return category.id;
  };
  await call('budget.create', { name: 'Everything', categories: 'all', amount: 20_000, startMonth: '2025-01' });
  await call('budget.create', { name: 'Food', categories: [id('Food')], amount: 2_000, startMonth: '2025-01' });
  await call('budget.create', { name: 'Getting around', categories: [id('Transport'), id('Travel')], amount: 3_000, startMonth: '2025-06' });
  await call('budget.create', { name: 'Home', categories: [id('Housing'), id('Utilities')], amount: 4_000, startMonth: '2024-12', rollover: true });
  const query = { month: '2025-12', timeZone: 'UTC' };
  const rows: BenchRow[] = [];
  rows.push(['budget.query 1 month, 4 budgets (1 rollover over 12 months)', await measure(runs, () => call('budget.query', query)), 20]);
  const times: number[] = [];
  for (let i = 0; i < Math.min(runs, 100); i++) {
    await call('accounting.create', { type: 'expense', amount: 1.25, asset, category: 'Food', date: Date.UTC(2025, 11, 1 + (i % 28)) });
    const t0 = performance.now();
    await call('budget.query', query);
    times.push(performance.now() - t0);
  }
  const at = (p: number) => percentile(times, p);
  rows.push(['budget.query right after a record was written (figures recomputed)', { p50: at(50), p95: at(95), p99: at(99) }, 20]);
  rows.push(['budget.query figures recomputed in-process (no HTTP, no write)', await measure(runs, () => recompute(query.month)), 20]);
  return rows;
}
