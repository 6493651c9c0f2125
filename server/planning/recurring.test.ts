import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../lib/clock';
import { createAsset } from '../test-support/ledger';
import { registerUser, startTestServer, type TestServer } from '../test-support/test-server';
import { zonedInstant } from './occurrences';
import { occurrenceRecordId } from './recurring-store';
import { ledgerErrors } from '../ledger/errors';
import { planningErrors } from './errors';
import { expectRefusal } from '../test-support/refusal';

const DAY = 86_400_000;
const clock = new ManualClock(Date.UTC(2026, 0, 10, 12));
let t: TestServer;
beforeAll(async () => {
  // The tests travel months through time; sessions must outlive that.
  t = await startTestServer({ clock, settings: { auth: { tokenLifetimeSeconds: 5 * 365 * 86_400 } } });
});
afterAll(() => t.close());

type User = Awaited<ReturnType<typeof registerUser>>;
async function ok(action: string, params: unknown, user: User) {
  const answer = await t.api(action, params, user.token);
  if (answer.code !== 200) throw new Error(`${action}: ${answer.code} ${answer.message}`);
  return answer.data;
}
const recordsOf = async (user: User) => (await ok('accounting.query', { pageSize: 200 }, user)).list as Array<Record<string, any>>;
const tick = () => t.server.app.services.recurring.tick();

/** Bill reminders with a stand-in notifier: only `user` wants billDue, `daysBefore` ahead; each emit is recorded as [userId, event, key, title]. */
async function withBillReminders(user: User, daysBefore: number, run: (sent: Array<[string, string, string, string]>, remind: () => Promise<void>) => Promise<void>) {
  const app = t.server.app;
  const real = app.services.notify;
  const sent: Array<[string, string, string, string]> = [];
  (app.services as { notify: unknown }).notify = {
    wants: (userId: string, event: string) => Promise.resolve(userId === user.id && event === 'billDue'),
    billDueDays: (userId: string) => Promise.resolve(userId === user.id ? daysBefore : null),
    emit: (userId: string, event: string, key: string, message: { title: string }) => {
      sent.push([userId, event, key, message.title]);
      return Promise.resolve('sent' as const);
    },
  };
  const remind = async () => {
    app.services.recurring.scheduler.remindSoon();
    await tick();
  };
  try {
    await run(sent, remind);
  } finally {
    (app.services as { notify: unknown }).notify = real;
  }
}

describe('recurring rules', () => {
  it('creates, lists, updates and deletes a rule; validates the template with the ledger', async () => {
    const u = await registerUser(t);
    const bank = await createAsset(t, u, { name: 'Bank', type: 'credit_card' });
    const start = clock.now() + 5 * DAY;
    const rule = await ok(
      'recurring.create',
      {
        template: { type: 'expense', amount: 12.5, category: 'Food', asset: bank, description: 'Gym' },
        rule: { freq: 'monthly' },
        startDate: start,
        timeZone: 'UTC',
        mode: 'auto',
      },
      u,
    );
    expect(rule).toMatchObject({ name: 'Gym', template: { amount: 12.5, currency: 'USD', category: 'Food' }, rule: { freq: 'monthly', interval: 1 }, mode: 'auto', endDate: null });
    expect(rule.next.date).toBe('2026-01-15');
    expect((await ok('recurring.query', {}, u)).total).toBe(1);
    const updated = await ok('recurring.update', { id: rule.id, name: 'Gym club', mode: 'confirm' }, u);
    expect(updated).toMatchObject({ name: 'Gym club', mode: 'confirm' });

    const other = await registerUser(t);
    expectRefusal(await t.api('recurring.update', { id: rule.id, name: 'x' }, other.token), planningErrors.rows.recurringNotFound);
    const base = { rule: { freq: 'monthly' }, startDate: start, mode: 'auto' };
    expectRefusal(await t.api('recurring.create', { ...base, template: { type: 'expense', amount: 1, asset: 'nope' } }, u.token), ledgerErrors.rows.assetNotFound);
    expect((await t.api('recurring.create', { ...base, template: { type: 'expense', amount: 1, asset: bank, category: 'Nope' } }, u.token)).data.reason).toBe(
      'ledger.unknownCategory',
    );
    expect((await t.api('recurring.create', { ...base, template: { type: 'transfer', amount: 1, asset: bank, toAsset: bank } }, u.token)).data.reason).toBe(
      'planning.recurringNeedsToAsset',
    );
    expect((await t.api('recurring.create', { ...base, template: { type: 'expense', amount: 1, asset: bank }, rule: { freq: 'daily', byMonthDay: 3 } }, u.token)).data.reason).toBe(
      'planning.recurringMonthDayNotMonthly',
    );
    expect((await t.api('recurring.create', { ...base, template: { type: 'expense', amount: 1, asset: bank }, timeZone: 'Mars/Base' }, u.token)).data.reason).toBe(
      'planning.recurringUnknownTimeZone',
    );
    expect(await ok('recurring.delete', { id: rule.id }, u)).toEqual({ deleted: true });
    expect((await ok('recurring.query', {}, u)).total).toBe(0);
  });

  it('auto writes each occurrence once on its date, with recurringId and occurrence; skipped dates are never written', async () => {
    const u = await registerUser(t);
    const card = await createAsset(t, u, { name: 'Card', type: 'credit_card' });
    const start = zonedInstant(2026, 1, 12, 8, 0, 0, 'Asia/Shanghai');
    const rule = await ok(
      'recurring.create',
      { template: { type: 'expense', amount: 3, category: 'Food', asset: card }, rule: { freq: 'daily' }, startDate: start, timeZone: 'Asia/Shanghai', mode: 'auto' },
      u,
    );
    await ok('recurring.skip', { id: rule.id, date: '2026-01-13' }, u);
    expect((await t.api('recurring.skip', { id: rule.id, date: '2025-01-13' }, u.token)).data.reason).toBe('planning.recurringNotAnOccurrence');
    clock.set(Date.UTC(2026, 0, 14, 1)); // 09:00 in Shanghai on the 14th
    await tick();
    await tick();
    const records = await recordsOf(u);
    expect(records.map((r) => r.occurrence).sort()).toEqual(['2026-01-12', '2026-01-14']);
    expect(records.every((r) => r.recurringId === rule.id)).toBe(true);
    expect(records.find((r) => r.occurrence === '2026-01-12')?.id).toBe(occurrenceRecordId(rule.id, '2026-01-12'));
    expect((await t.api('recurring.skip', { id: rule.id, date: '2026-01-12' }, u.token)).data.reason).toBe('planning.recurringAlreadyHandled');
    // A deleted occurrence record is not written again.
    await ok('accounting.delete', { id: occurrenceRecordId(rule.id, '2026-01-12') }, u);
    const doc = await t.server.app.db.collection('plans').findOne(rule.id).exec();
    await doc!.incrementalPatch({ doneThrough: '' });
    await tick();
    expect((await recordsOf(u)).map((r) => r.occurrence).sort()).toEqual(['2026-01-14']);
    expect((await ok('recurring.upcoming', { days: 2 }, u)).list.map((o: { date: string }) => o.date)).toEqual(['2026-01-15', '2026-01-16']);
  });

  it('confirm rules list overdue occurrences for one tap; confirm writes once, skip hides', async () => {
    clock.set(Date.UTC(2026, 1, 1, 12));
    const u = await registerUser(t);
    const cash = await createAsset(t, u, { name: 'Cash', balance: 1000 });
    const rule = await ok(
      'recurring.create',
      {
        name: 'Rent',
        template: { type: 'expense', amount: 500, category: 'Food', asset: cash },
        rule: { freq: 'monthly', byMonthDay: -1 },
        startDate: Date.UTC(2026, 0, 1, 9),
        timeZone: 'UTC',
        mode: 'confirm',
      },
      u,
    );
    await tick();
    expect(await recordsOf(u)).toEqual([]);
    const upcoming = (await ok('recurring.upcoming', { days: 30 }, u)).list;
    expect(upcoming.map((o: any) => [o.date, o.overdue, o.amount])).toEqual([
      ['2026-01-31', true, 500],
      ['2026-02-28', false, 500],
    ]);
    const record = await ok('recurring.confirm', { id: rule.id, date: '2026-01-31' }, u);
    expect(record).toMatchObject({ recurringId: rule.id, occurrence: '2026-01-31', amount: 500, date: Date.UTC(2026, 0, 31, 9) });
    // Written under the rule's name (its template has no description), so search finds it.
    expect(record.description).toBe('Rent');
    expect((await ok('accounting.query', { q: 'rent' }, u)).list.map((r: { id: string }) => r.id)).toEqual([record.id]);
    expect((await t.api('recurring.confirm', { id: rule.id, date: '2026-01-31' }, u.token)).data.reason).toBe('planning.recurringAlreadyHandled');
    // The balance rule applies to a tap: 500 are left, 600 more would take the cash below zero.
    await ok('recurring.update', { id: rule.id, template: { type: 'expense', amount: 600, category: 'Food', asset: cash } }, u);
    expectRefusal(await t.api('recurring.confirm', { id: rule.id, date: '2026-02-28' }, u.token), ledgerErrors.rows.insufficientBalance);
    await ok('recurring.skip', { id: rule.id, date: '2026-02-28' }, u);
    expect((await ok('recurring.upcoming', { days: 30 }, u)).list).toEqual([]);
    expect((await ok('recurring.query', {}, u)).list[0].doneThrough).toBe('2026-02-28');
  });

  it('reminds of bills within the notifier’s billDue days, keyed by rule and date', async () => {
    clock.set(Date.UTC(2026, 3, 1, 12));
    const u = await registerUser(t);
    const card = await createAsset(t, u, { name: 'Card', type: 'credit_card' });
    const rule = await ok(
      'recurring.create',
      {
        name: 'Water',
        template: { type: 'expense', amount: 40, category: 'Food', asset: card },
        rule: { freq: 'monthly', byMonthDay: 5 },
        startDate: Date.UTC(2026, 3, 1, 9),
        timeZone: 'UTC',
        mode: 'confirm',
      },
      u,
    );
    // Income is not a bill: a salary due in the same days is not announced.
    await ok(
      'recurring.create',
      {
        name: 'Salary',
        template: { type: 'income', amount: 900, category: 'Salary', asset: card },
        rule: { freq: 'monthly', byMonthDay: 4 },
        startDate: Date.UTC(2026, 3, 1, 9),
        timeZone: 'UTC',
        mode: 'auto',
      },
      u,
    );
    await withBillReminders(u, 3, async (sent, remind) => {
      await remind();
      expect(sent).toEqual([]); // April 5 is 4 days away
      clock.set(Date.UTC(2026, 3, 2, 12));
      await remind();
      expect(sent).toEqual([[u.id, 'billDue', `${rule.id}:2026-04-05`, 'Water: 40.00 USD due on 2026-04-05']]);
    });
  });

  it('a new schedule applies from now on: no burst of past records', async () => {
    clock.set(Date.UTC(2026, 5, 10, 12));
    const u = await registerUser(t);
    const card = await createAsset(t, u, { name: 'Card', type: 'credit_card' });
    const rule = await ok(
      'recurring.create',
      { template: { type: 'expense', amount: 2, category: 'Food', asset: card }, rule: { freq: 'monthly' }, startDate: Date.UTC(2026, 5, 20, 9), timeZone: 'UTC', mode: 'auto' },
      u,
    );
    const updated = await ok('recurring.update', { id: rule.id, rule: { freq: 'daily' }, startDate: Date.UTC(2026, 4, 1, 9) }, u);
    // 12:00 on June 10: today's 09:00 has passed under the new schedule, so it counts as done too.
    expect(updated.doneThrough).toBe('2026-06-10');
    expect(updated.next.date).toBe('2026-06-11');
    await tick();
    expect(await recordsOf(u)).toEqual([]);
    clock.advance(86_400_000);
    await tick();
    expect((await recordsOf(u)).map((r) => r.occurrence)).toEqual(['2026-06-11']);
  });

  it('never passes over an occurrence it cannot write: it waits, shows as overdue, and is written once the rule is fixed', async () => {
    clock.set(Date.UTC(2026, 7, 1, 12));
    const u = await registerUser(t);
    const card = await createAsset(t, u, { name: 'Card', type: 'credit_card' });
    const bank = await createAsset(t, u, { name: 'Bank', type: 'credit_card' });
    const rule = await ok(
      'recurring.create',
      {
        name: 'Gym',
        template: { type: 'expense', amount: 30, category: 'Food', asset: card },
        rule: { freq: 'monthly', byMonthDay: 5 },
        startDate: Date.UTC(2026, 7, 5, 9),
        timeZone: 'UTC',
        mode: 'auto',
      },
      u,
    );
    // The asset goes away before the first date (as a rule can arrive by sync before its asset).
    await ok('asset.delete', { id: card }, u);
    clock.set(Date.UTC(2026, 7, 5, 10));
    await tick();
    await tick();
    expect(await recordsOf(u)).toEqual([]);
    const waiting = (await ok('recurring.upcoming', { days: 30 }, u)).list as Array<Record<string, unknown>>;
    expect(waiting.filter((o) => o.id === rule.id).map((o) => [o.date, o.overdue])).toEqual([['2026-08-05', true]]);
    expect((await ok('recurring.query', {}, u)).list.find((r: { id: string }) => r.id === rule.id).doneThrough).toBe('');
    // A month later both dates wait, in order; fixing the asset writes each once.
    clock.set(Date.UTC(2026, 8, 5, 10));
    await tick();
    expect(await recordsOf(u)).toEqual([]);
    await ok('recurring.update', { id: rule.id, template: { type: 'expense', amount: 30, category: 'Food', asset: bank } }, u);
    await tick();
    clock.advance(20 * 60_000);
    await tick();
    expect((await recordsOf(u)).map((r) => r.occurrence).sort()).toEqual(['2026-08-05', '2026-09-05']);
  });

  it('templates follow a renamed category, so the rule keeps writing under the new name', async () => {
    clock.set(Date.UTC(2026, 9, 1, 12));
    const u = await registerUser(t);
    const card = await createAsset(t, u, { name: 'Card', type: 'credit_card' });
    const rule = await ok(
      'recurring.create',
      {
        name: 'Lunch',
        template: { type: 'expense', amount: 8, category: 'Food', asset: card },
        rule: { freq: 'daily' },
        startDate: Date.UTC(2026, 9, 2, 9),
        timeZone: 'UTC',
        mode: 'auto',
      },
      u,
    );
    const food = ((await ok('category.list', { type: 'expense' }, u)).list as Array<{ id: string; name: string }>).find((c) => c.name === 'Food')!;
    await ok('category.update', { id: food.id, name: 'Eating' }, u);
    expect((await ok('recurring.query', {}, u)).list.find((r: { id: string }) => r.id === rule.id).template.category).toBe('Eating');
    clock.set(Date.UTC(2026, 9, 4, 10));
    await tick();
    const written = await recordsOf(u);
    expect(written.map((r) => [r.occurrence, r.category]).sort()).toEqual([
      ['2026-10-02', 'Eating'],
      ['2026-10-03', 'Eating'],
      ['2026-10-04', 'Eating'],
    ]);
  });

  it('a bill reminder with daysBefore 0 goes out on the day, before the bill’s time', async () => {
    clock.set(Date.UTC(2026, 10, 9, 12));
    const u = await registerUser(t);
    const card = await createAsset(t, u, { name: 'Card', type: 'credit_card' });
    await ok(
      'recurring.create',
      {
        name: 'Phone',
        template: { type: 'expense', amount: 20, category: 'Food', asset: card },
        rule: { freq: 'monthly', byMonthDay: 10 },
        startDate: Date.UTC(2026, 10, 9, 18),
        timeZone: 'Asia/Shanghai',
        mode: 'confirm',
      },
      u,
    );
    await withBillReminders(u, 0, async (sent, remind) => {
      // 20:00 in Shanghai on November 9: the day before.
      await remind();
      expect(sent).toEqual([]);
      // 00:30 in Shanghai on November 10 (16:30 UTC on the 9th): the day itself, the bill at 02:00 Shanghai.
      clock.set(Date.UTC(2026, 10, 9, 16, 30));
      await remind();
      expect(sent).toHaveLength(1);
      expect(sent[0]?.[2]).toMatch(/:2026-11-10$/);
    });
  });

  it('refuses an auto rule that would write more than 400 past records at once, and changes nothing', async () => {
    clock.set(Date.UTC(2026, 10, 20, 12));
    const u = await registerUser(t);
    const card = await createAsset(t, u, { name: 'Card', type: 'credit_card' });
    const template = { type: 'expense', amount: 1, category: 'Food', asset: card };
    // A start date sent in seconds (January 1970) for a daily rule: ~20,000 records.
    const refused = await t.api('recurring.create', { template, rule: { freq: 'daily' }, startDate: 1_763_640_000, mode: 'auto' }, u.token);
    expect([refused.code, refused.data?.reason]).toEqual([400, 'planning.recurringTooManyPast']);
    // A confirm rule from years back is fine, but switching it to auto with its waiting dates is not.
    const waiting = await ok('recurring.create', { template, rule: { freq: 'daily' }, startDate: Date.UTC(2024, 0, 1, 9), mode: 'confirm' }, u);
    const switched = await t.api('recurring.update', { id: waiting.id, mode: 'auto' }, u.token);
    expectRefusal(switched, planningErrors.rows.recurringTooManyPast);
    expect((await ok('recurring.query', {}, u)).list.map((r: { mode: string }) => r.mode)).toEqual(['confirm']);
    expect(await recordsOf(u)).toEqual([]);
    // Three years of a monthly rent is written at once.
    await ok('recurring.create', { template, rule: { freq: 'monthly' }, startDate: Date.UTC(2023, 11, 1, 9), mode: 'auto' }, u);
    expect(await recordsOf(u)).toHaveLength(36);
    expect((await ok('recurring.query', {}, u)).total).toBe(2);
  });
});
