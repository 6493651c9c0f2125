import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../lib/clock';
import type { NotifyEvent, NotifyMessage } from '../notify/types';
import type { RecordDoc } from '../ledger/schema';
import { createAsset } from '../test-support/ledger';
import { seedSyntheticRecords } from '../test-support/synthetic-records';
import { registerUser, startTestServer, type TestServer } from '../test-support/test-server';
import { ALERT_DEBOUNCE_MS } from './budget-alerts';

/** Issue 21: budget alerts are emitted through app.services.notify with the budget-and-month key. */

const clock = new ManualClock(Date.UTC(2026, 2, 28, 12));
let t: TestServer;
const emitted: Array<{ userId: string; event: NotifyEvent; key: string; message: NotifyMessage }> = [];
let wanted = new Set<NotifyEvent>(['budget80', 'budget100']);

beforeAll(async () => {
  t = await startTestServer({ clock });
  // The notifier is built elsewhere; here a fake one records what budgets ask it to send.
  const fake = {
    emit: (userId: string, event: NotifyEvent, key: string, message: NotifyMessage) => {
      emitted.push({ userId, event, key, message });
      return Promise.resolve('sent' as const);
    },
    wants: (_userId: string, event: NotifyEvent) => Promise.resolve(wanted.has(event)),
  };
  Object.assign(t.server.app.services.notify, fake);
});
afterAll(() => t.close());

const keysOf = (userId: string) => emitted.filter((e) => e.userId === userId).map((e) => `${e.event} ${e.key}`);

describe('budget alerts', () => {
  it('emits budget80 and budget100 with `${budgetId}:${YYYY-MM}:80|100` when spending crosses 80 % and 100 %', async () => {
    const u = await registerUser(t);
    const cash = await createAsset(t, u, { balance: 1000 });
    const budget = (await t.api('budget.create', { name: 'Food', categories: 'all', amount: 100, startMonth: '2026-01' }, u.token)).data;
    const alerts = t.server.app.services.budgetAlerts;
    const spend = (amount: number, date = clock.now()) => t.api('accounting.create', { type: 'expense', amount, asset: cash, category: 'Food', date }, u.token);
    await spend(79.99);
    await alerts.tick();
    expect(keysOf(u.id)).toEqual([]);
    await spend(0.01);
    await alerts.tick();
    expect(keysOf(u.id)).toEqual([`budget80 ${budget.id}:2026-03:80`]);
    const alert = emitted.find((e) => e.userId === u.id)!;
    expect(alert.message.title).toBe('Budget "Food" is 80% used');
    expect(alert.message.desp).toContain('spent 80.00 USD of 100.00 USD');
    await spend(25);
    await alerts.tick();
    expect(keysOf(u.id)).toEqual([`budget80 ${budget.id}:2026-03:80`, `budget100 ${budget.id}:2026-03:100`]);
    expect(emitted.at(-1)!.message.desp).toContain('over by 5.00 USD');
    // Next month (sessions last 7 days: a short jump) the same budget starts again under new keys; last month's spending does not alert.
    clock.set(Date.UTC(2026, 3, 2, 12));
    await alerts.tick();
    expect(keysOf(u.id)).toHaveLength(2);
    await spend(90);
    await alerts.tick();
    expect(keysOf(u.id).at(-1)).toBe(`budget80 ${budget.id}:2026-04:80`);
    clock.set(Date.UTC(2026, 2, 28, 12));
  });

  it('checks after records change, without waiting for the tick, and asks nothing when the events are off', async () => {
    const u = await registerUser(t);
    const cash = await createAsset(t, u, { balance: 1000 });
    const budget = (await t.api('budget.create', { name: 'All', categories: 'all', amount: 10, startMonth: '2026-03' }, u.token)).data;
    await t.server.app.services.budgetAlerts.tick(); // the check the new budget scheduled is done: only the record can start the next
    await t.api('accounting.create', { type: 'expense', amount: 9, asset: cash, date: clock.now() }, u.token);
    // The check runs once the debounce (real time, not the clock) has passed: no tick asked for it.
    await expect.poll(() => keysOf(u.id), { timeout: ALERT_DEBOUNCE_MS + 10_000 }).toEqual([`budget80 ${budget.id}:2026-03:80`]);

    const off = await registerUser(t);
    const offCash = await createAsset(t, off, { balance: 1000 });
    await t.api('budget.create', { name: 'All', categories: 'all', amount: 10, startMonth: '2026-03' }, off.token);
    wanted = new Set(['budget80']);
    await t.api('accounting.create', { type: 'expense', amount: 20, asset: offCash, date: clock.now() }, off.token);
    await t.server.app.services.budgetAlerts.tick();
    // Straight past 100 % with only budget80 wanted: the 80 % warning still goes out (its key), the 100 % alert is off.
    const [offBudget] = (await t.api('budget.query', { month: '2026-03' }, off.token)).data.list as Array<{ id: string }>;
    expect(keysOf(off.id)).toEqual([`budget80 ${offBudget!.id}:2026-03:80`]);
    wanted = new Set();
    emitted.length = 0;
    await t.server.app.services.budgetAlerts.tick();
    expect(keysOf(off.id)).toEqual([]);
    wanted = new Set(['budget80', 'budget100']);
  });

  it('checks records that arrive by sync (written straight into the collection, not through an action)', async () => {
    const u = await registerUser(t);
    const cash = await createAsset(t, u, { balance: 1000 });
    const budget = (await t.api('budget.create', { name: 'All', categories: 'all', amount: 0.01, startMonth: '2026-03' }, u.token)).data;
    await t.server.app.services.budgetAlerts.tick();
    expect(keysOf(u.id)).toEqual([]);
    const records = t.server.app.db.collection<RecordDoc>('records');
    // 20 records of the last 12 hours (90 % expenses), as a replication would write them.
    await seedSyntheticRecords(records, { userId: u.id, assets: [cash], count: 20, years: 0.5 / 365, end: clock.now(), seed: 9 });
    await expect.poll(() => keysOf(u.id), { timeout: ALERT_DEBOUNCE_MS + 10_000 }).toEqual([`budget100 ${budget.id}:2026-03:100`]);
  });
});
