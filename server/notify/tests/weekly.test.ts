import { describe, expect, it } from 'vitest';
import type { BudgetFigure, PlanningQueries, UpcomingOccurrence } from '../planning-queries';
import { billReminder } from '../../planning/bill-reminder';
import { backupMessage, goalMessage, syncMessage } from '../messages';
import { composeWeeklySummary, dueWeek, isoWeek, localTime } from '../weekly';

const budget = (over: Partial<BudgetFigure>): BudgetFigure => ({
  id: 'b1',
  name: 'Food',
  amount: 40000,
  spent: 32000,
  remaining: 8000,
  carried: 0,
  progress: 0.8,
  currency: 'CNY',
  ...over,
});
const bill = (over: Partial<UpcomingOccurrence>): UpcomingOccurrence => ({
  id: 'r1',
  name: 'Rent',
  date: '2026-11-26',
  at: Date.UTC(2026, 10, 26),
  timeZone: 'UTC',
  mode: 'auto',
  type: 'expense',
  amount: 350000,
  currency: 'CNY',
  category: 'Housing',
  asset: 'a1',
  ...over,
});

/** A PlanningQueries that answers fixed figures and records what it was asked. */
function fakePlanning(budgets: BudgetFigure[], bills: UpcomingOccurrence[]) {
  const asked: unknown[] = [];
  const planning: PlanningQueries = {
    budgetFigures: (userId, month, timeZone) => {
      asked.push(['budgetFigures', userId, month, timeZone]);
      return Promise.resolve(budgets);
    },
    upcoming: (userId, days) => {
      asked.push(['upcoming', userId, days]);
      return Promise.resolve(bills);
    },
  };
  return { planning, asked };
}

describe('ISO weeks and the weekly schedule', () => {
  it('names ISO weeks, also across year ends', () => {
    expect(isoWeek(2026, 11, 23)).toBe('2026-W48');
    expect(isoWeek(2021, 1, 3)).toBe('2020-W53');
    expect(isoWeek(2024, 12, 30)).toBe('2025-W01');
    expect(isoWeek(2027, 1, 3)).toBe('2026-W53');
    expect(isoWeek(2026, 1, 1)).toBe('2026-W01');
  });

  it('is due on the weekday from the hour to the end of that local day', () => {
    const wanted = { weekday: 'WE', hour: 9 } as const;
    // Wednesday 2026-11-25 in Shanghai (UTC+8).
    expect(dueWeek(Date.UTC(2026, 10, 25, 0, 59), 'Asia/Shanghai', wanted)).toBeNull();
    expect(dueWeek(Date.UTC(2026, 10, 25, 1, 0), 'Asia/Shanghai', wanted)).toBe('2026-W48');
    expect(dueWeek(Date.UTC(2026, 10, 25, 15, 59), 'Asia/Shanghai', wanted)).toBe('2026-W48');
    expect(dueWeek(Date.UTC(2026, 10, 25, 16, 0), 'Asia/Shanghai', wanted)).toBeNull();
    expect(localTime(Date.UTC(2026, 10, 25, 16, 0), 'Asia/Shanghai').weekday).toBe('TH');
  });
});

describe('the weekly summary message', () => {
  it('lists spending against budgets and the coming bills as Markdown', async () => {
    const { planning, asked } = fakePlanning(
      [budget({}), budget({ id: 'b2', name: 'Fun *stuff*', amount: 10000, spent: 13050, remaining: -3050, progress: 1.305, currency: 'USD' })],
      [bill({}), bill({ id: 'r2', name: 'Salary', date: '2026-11-30', type: 'income', amount: 1200000, mode: 'confirm' })],
    );
    const message = await composeWeeklySummary(planning, 'u1', Date.UTC(2026, 10, 25, 9), 'UTC', '2026-W48');
    expect(asked).toEqual([
      ['budgetFigures', 'u1', '2026-11', 'UTC'],
      ['upcoming', 'u1', 7],
    ]);
    expect(message.title).toBe('Your week ahead (2026-W48)');
    expect(message.desp).toBe(
      [
        '**Budgets in November 2026**',
        '',
        '- Food: 320.00 CNY of 400.00 CNY (80 %), 80.00 CNY left',
        '- Fun \\*stuff\\*: 130.50 USD of 100.00 USD (131 %), **30.50 USD over**',
        '',
        'One budget is overspent.',
        '',
        '**Bills in the next 7 days**',
        '',
        '- Thu 26 Nov: Rent, 3500.00 CNY',
        '- Mon 30 Nov: Salary, +12000.00 CNY (to confirm)',
      ].join('\n'),
    );
  });

  it('reads well when there are no budgets and no bills', async () => {
    const { planning } = fakePlanning([], []);
    const message = await composeWeeklySummary(planning, 'u1', Date.UTC(2026, 0, 7, 9), 'UTC', '2026-W02');
    expect(message.desp).toBe(['**Budgets in January 2026**', '', 'No budgets yet.', '', '**Bills in the next 7 days**', '', 'Nothing due.'].join('\n'));
  });

  it('is written in Chinese for an account that reads Chinese, like the other reminders', async () => {
    const { planning } = fakePlanning(
      [budget({ id: 'b2', name: '娱乐', amount: 10000, spent: 13050, remaining: -3050, progress: 1.305, currency: 'USD' })],
      [bill({ mode: 'confirm' })],
    );
    const message = await composeWeeklySummary(planning, 'u1', Date.UTC(2026, 10, 25, 9), 'UTC', '2026-W48', 'zh-CN');
    expect(message.title).toBe('本周概览（2026-W48）');
    expect(message.desp).toBe(
      [
        '**2026年11月预算**',
        '',
        '- 娱乐：已花 130.50 USD，共 100.00 USD（131 %），**超支 30.50 USD**',
        '',
        '1 个预算已超支。',
        '',
        '**未来 7 天的账单**',
        '',
        '- 11月26日 周四: Rent, 3500.00 CNY（待确认）',
      ].join('\n'),
    );
    expect(goalMessage({ title: '去日本', targetAmount: 500000, currency: 'CNY' }, 'zh-CN').title).toBe('目标达成：去日本');
    expect(syncMessage({ collections: ['records'], error: true, since: '2026-11-25 09:00' }, 'zh-CN').title).toBe('同步因错误而停止');
    expect(backupMessage({ at: '2026-11-25 03:00' }, 'zh-CN').desp).toContain('每日快照失败');
    expect(billReminder(bill({}), 'zh-CN').title).toBe('Rent：2026-11-26 需付 3500.00 CNY');
    expect(billReminder(bill({}), 'en').title).toBe('Rent: 3500.00 CNY due on 2026-11-26');
  });

  it('does not list overdue dates as coming bills: it counts them once', async () => {
    const { planning } = fakePlanning([], [bill({ date: '2026-11-01', overdue: true }), bill({ date: '2026-11-02', overdue: true }), bill({})]);
    const message = await composeWeeklySummary(planning, 'u1', Date.UTC(2026, 10, 25, 9), 'UTC', '2026-W48');
    expect(message.desp.split('\n').slice(-4)).toEqual(['', '- Thu 26 Nov: Rent, 3500.00 CNY', '', '2 earlier dates are still waiting — open Recurring in PennyPost.']);
  });

  it('counts carried money as available', async () => {
    const { planning } = fakePlanning([budget({ amount: 10000, carried: 5000, spent: 7500, remaining: 7500 })], []);
    const message = await composeWeeklySummary(planning, 'u1', Date.UTC(2026, 10, 25, 9), 'UTC', '2026-W48');
    expect(message.desp).toContain('- Food: 75.00 CNY of 150.00 CNY (50 %), 75.00 CNY left');
  });
});
