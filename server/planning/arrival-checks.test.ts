import { describe, expect, it } from 'vitest';
import type { ArrivalCheckContext } from '../arrival-checks';
import { EMPTY_SCHEDULE, EMPTY_TEMPLATE, type PlanDoc } from './schema';
import { validateSyncedPlan } from './arrival-checks';

const ctx = (deleted = false) => ({ deleted }) as unknown as ArrivalCheckContext;

const base = { id: 'p1', userId: 'u1', name: 'x', createdAt: 1, updatedAt: 1 };
const budget: PlanDoc = {
  ...base,
  kind: 'budget',
  categories: ['Food'],
  allCategories: false,
  amount: 50000,
  currency: 'CNY',
  startMonth: '2026-01',
  rollover: true,
  template: EMPTY_TEMPLATE,
  rule: EMPTY_SCHEDULE,
  startDate: 0,
  endDate: 0,
  timeZone: '',
  mode: '',
  skipped: [],
  doneThrough: '',
};
const recurring: PlanDoc = {
  ...base,
  kind: 'recurring',
  categories: [],
  allCategories: false,
  amount: 0,
  currency: '',
  startMonth: '',
  rollover: false,
  template: { ...EMPTY_TEMPLATE, type: 'expense', amount: 300000, category: 'Housing', asset: 'a1' },
  rule: { freq: 'monthly', interval: 1, byMonthDay: -1, byWeekday: [] },
  startDate: Date.UTC(2026, 0, 31),
  endDate: 0,
  timeZone: 'Asia/Shanghai',
  mode: 'auto',
  skipped: ['2026-02-28'],
  doneThrough: '2026-01-31',
};

describe('plans that arrive by sync', () => {
  it('accepts well-formed budgets and recurring rules, and any delete', () => {
    expect(validateSyncedPlan(budget, ctx())).toEqual({ ok: true });
    expect(validateSyncedPlan({ ...budget, categories: [], allCategories: true }, ctx())).toEqual({ ok: true });
    expect(validateSyncedPlan(recurring, ctx())).toEqual({ ok: true });
    expect(validateSyncedPlan({ ...recurring, rule: { ...recurring.rule, interval: 0 } }, ctx(true))).toEqual({ ok: true });
  });

  it.each<[string, Partial<PlanDoc>, RegExp]>([
    ['a zero budget', { amount: 0 }, /budget amount 0/],
    ['an unknown currency', { currency: 'XYZ' }, /currency "XYZ"/],
    ['a month that is not one', { startMonth: '2026-13' }, /first month/],
    ['a budget counting nothing', { categories: [] }, /at least one category/],
    ['a budget with a rule', { rule: { ...EMPTY_SCHEDULE, freq: 'daily' } }, /no recurring template/],
  ])('refuses a budget with %s', (_what, change, reason) => {
    const verdict = validateSyncedPlan({ ...budget, ...change }, ctx());
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.reason).toMatch(reason);
  });

  it.each<[string, Partial<PlanDoc>, RegExp]>([
    ['an unknown frequency', { rule: { ...recurring.rule, freq: '' } }, /frequency/],
    ['interval 0', { rule: { ...recurring.rule, interval: 0 } }, /interval 0/],
    ['day 32', { rule: { ...recurring.rule, byMonthDay: 32 } }, /day of the month 32/],
    ['a bad weekday', { rule: { ...recurring.rule, byWeekday: ['XX' as 'MO'] } }, /weekday/],
    ['no record type', { template: { ...recurring.template, type: '' } }, /record type/],
    ['a zero amount', { template: { ...recurring.template, amount: 0 } }, /amount 0/],
    ['no asset', { template: { ...recurring.template, asset: '' } }, /needs its asset/],
    ['a transfer to itself', { template: { ...recurring.template, type: 'transfer', toAsset: 'a1' } }, /two different assets/],
    ['an unknown zone', { timeZone: 'Mars/Olympus' }, /time zone/],
    ['an unknown mode', { mode: '' }, /mode/],
    ['an end before its start', { endDate: 5 }, /ends before it starts/],
    ['a start at the end of time', { startDate: 8.64e15 }, /after 2200/],
    ['a bad doneThrough', { doneThrough: '2026-1-31' }, /not a date/],
    ['a bad skipped date', { skipped: ['tomorrow'] }, /skipped occurrence/],
  ])('refuses a recurring rule with %s', (_what, change, reason) => {
    const verdict = validateSyncedPlan({ ...recurring, ...change }, ctx());
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.reason).toMatch(reason);
  });
});
