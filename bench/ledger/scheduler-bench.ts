/**
 * The recurring records' scheduler (issue 21): 1,000 `auto` rules of one user, loaded at start;
 * RecurringService.tick() timed when nothing is due (the goal: < 5 ms) and when a few rules are due
 * at each tick (each writes its record through the ledger). The clock is a ManualClock; the rules
 * are daily, spread over the day (one due every 86.4 s), so a tick 10 minutes later finds ~7 due.
 * Run alone with `npx tsx bench/ledger/scheduler-bench.ts`; bench:ledger runs it after its table.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startServer, type RunningServer } from '../../server/server';
import { createLogger } from '../../server/lib/logger';
import { ManualClock } from '../../server/lib/clock';
import { newId } from '../../server/lib/ids';
import { EMPTY_TEMPLATE, type PlanDoc } from '../../server/planning/schema';
import { percentile } from '../lib';

const RULES = Number(process.env.BENCH_RULES ?? 1000);
const DAY = 86_400_000;

export interface SchedulerRow {
  name: string;
  p50: number;
  p95: number;
  p99: number;
  /** Goal for p50 in ms, or null. */
  goal: number | null;
}

function percentiles(samples: number[]): { p50: number; p95: number; p99: number } {
  return { p50: percentile(samples, 50), p95: percentile(samples, 95), p99: percentile(samples, 99) };
}

/** Starts a PennyPost with RULES rules, times tick(); answers the table rows. */
export async function schedulerBench(): Promise<{ rows: SchedulerRow[]; startMs: number; rules: number }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pennypost-scheduler-bench-'));
  const base = Date.UTC(2026, 0, 1);
  const clock = new ManualClock(base);
  const settings = { rateLimit: { apiPerToken: 10_000_000, authPerAddress: 1000 }, backup: { automatic: false } };
  let server: RunningServer = await startServer({ dataDir, port: 0, logger: createLogger('warn'), settings, clock });
  try {
    const reg = await fetch(`${server.url}/api`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'user.register', params: { username: 'sched', email: 'sched@example.com', password: 'bench-password' } }),
    }).then((r) => r.json() as Promise<{ data: { token: string; id: string } }>);
    const userId = reg.data.id;
    const card = (await server.app.services.ledger.createAsset(userId, { name: 'Card', type: 'credit_card', currency: 'USD' })).id;
    // The rules go straight into the collection (as sync would bring them), first occurrence tomorrow.
    const docs: PlanDoc[] = Array.from({ length: RULES }, (_, i) => ({
      id: newId(base + i),
      userId,
      kind: 'recurring',
      name: `Rule ${i}`,
      categories: [],
      allCategories: false,
      amount: 0,
      currency: '',
      startMonth: '',
      rollover: false,
      template: { ...EMPTY_TEMPLATE, type: 'expense', amount: 100 + i, category: 'Food', asset: card },
      rule: { freq: 'daily', interval: 1, byMonthDay: 0, byWeekday: [] },
      startDate: base + DAY + Math.floor((i * DAY) / RULES),
      endDate: 0,
      timeZone: 'UTC',
      mode: 'auto',
      skipped: [],
      doneThrough: '',
      createdAt: base,
      updatedAt: base,
    }));
    await server.app.db.collection<PlanDoc>('plans').bulkInsert(docs);
    await server.close();
    const s0 = performance.now();
    server = await startServer({ dataDir, port: 0, logger: createLogger('warn'), settings, clock });
    const startMs = performance.now() - s0;
    const recurring = server.app.services.recurring;
    await recurring.tick(); // the reminder pass of the first tick
    const time = async (runs: number, before: () => void) => {
      const samples: number[] = [];
      for (let i = 0; i < runs; i++) {
        before();
        const t0 = performance.now();
        await recurring.tick();
        samples.push(performance.now() - t0);
      }
      return samples;
    };
    const rows: SchedulerRow[] = [];
    // Nothing due: the clock moves a second per tick and stays before the first occurrence.
    rows.push({ name: `recurring tick, ${RULES} rules, nothing due`, ...percentiles(await time(2000, () => clock.advance(1000))), goal: 5 });
    // Some due: 10 minutes per tick from the first occurrence on (about 7 rules due, each writes a record).
    clock.set(base + DAY);
    await recurring.tick();
    rows.push({ name: `recurring tick, ${RULES} rules, ~7 due (writes their records)`, ...percentiles(await time(140, () => clock.advance(10 * 60_000))), goal: null });
    return { rows, startMs, rules: RULES };
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Prints the rows as bench:ledger's table does. */
export function printSchedulerRows(result: Awaited<ReturnType<typeof schedulerBench>>): void {
  const pad = (s: string, n: number) => s.padEnd(n);
  const num = (n: number) => n.toFixed(3).padStart(9);
  console.log(`\nRecurring scheduler: ${result.rules.toLocaleString('en')} daily auto rules; start with them (loads the timetable): ${result.startMs.toFixed(0)} ms`);
  console.log(`${pad('operation', 72)}  p50 ms    p95 ms    p99 ms   goal p50   met`);
  for (const r of result.rows) {
    console.log(
      `${pad(r.name, 72)}${num(r.p50)} ${num(r.p95)} ${num(r.p99)}   ${r.goal === null ? '      -' : `< ${String(r.goal).padStart(3)} ms`}   ${r.goal === null ? '-' : r.p50 < r.goal ? 'yes' : 'NO'}`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  schedulerBench()
    .then(printSchedulerRows)
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
