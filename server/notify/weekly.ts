import type { BudgetFigure, PlanningQueries, UpcomingOccurrence } from './planning-queries';
import { WEEKDAYS, type Weekday } from './config';
import { escapeMd, moneyText, type MessageLanguage } from './messages';
import type { NotifyMessage } from './types';

/** How far ahead the weekly summary lists bills. */
export const SUMMARY_BILL_DAYS = 7;

export interface LocalTime {
  year: number;
  /** 1–12 */
  month: number;
  day: number;
  hour: number;
  weekday: Weekday;
}

const partFormatters = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock date, hour and weekday of `ms` in `timeZone`. */
export function localTime(ms: number, timeZone: string): LocalTime {
  let f = partFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric' });
    partFormatters.set(timeZone, f);
  }
  const parts = f.formatToParts(new Date(ms));
  const part = (type: 'year' | 'month' | 'day' | 'hour'): number => {
    const found = parts.find((p) => p.type === type);
    if (!found) throw new Error(`localTime: the ${timeZone} date has no ${type}`);
    return Number(found.value);
  };
  const [year, month, day, hour] = [part('year'), part('month'), part('day'), part('hour')];
  return { year, month, day, hour, weekday: weekdayOf(year, month, day) };
}

/** The weekday of a calendar date. */
function weekdayOf(year: number, month: number, day: number): Weekday {
  const weekday = WEEKDAYS.at((new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 6) % 7);
  if (weekday === undefined) throw new Error(`weekly: ${year}-${month}-${day} is not a date`);
  return weekday;
}

/** ISO 8601 week of a calendar date: 'YYYY-Www' (weeks start on Monday; week 1 holds the first Thursday). */
export function isoWeek(year: number, month: number, day: number): string {
  const date = new Date(Date.UTC(year, month - 1, day));
  const weekday = (date.getUTCDay() + 6) % 7; // Monday 0
  date.setUTCDate(date.getUTCDate() - weekday + 3); // the Thursday of this week decides the year
  const weekYear = date.getUTCFullYear();
  const jan4 = new Date(Date.UTC(weekYear, 0, 4));
  const firstThursday = jan4.getTime() + (3 - ((jan4.getUTCDay() + 6) % 7)) * 86_400_000;
  const week = 1 + Math.round((date.getTime() - firstThursday) / (7 * 86_400_000));
  return `${weekYear}-W${String(week).padStart(2, '0')}`;
}

/**
 * The ISO week whose summary is due at `now`, or null: due on the configured weekday, from the
 * configured hour to the end of that day (local time). A day the server was off is not caught up
 * later — an old summary is not worth a message.
 */
export function dueWeek(now: number, timeZone: string, wanted: { weekday: Weekday; hour: number }): string | null {
  const local = localTime(now, timeZone);
  if (local.weekday !== wanted.weekday || local.hour < wanted.hour) return null;
  return isoWeek(local.year, local.month, local.day);
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** The English name of month 1–12. */
function monthName(month: number): string {
  const name = MONTHS.at(month - 1);
  if (month < 1 || name === undefined) throw new Error(`weekly: ${month} is not a month`);
  return name;
}

/** The summary's words in each language. */
const WORDS = {
  en: {
    weekday: { MO: 'Mon', TU: 'Tue', WE: 'Wed', TH: 'Thu', FR: 'Fri', SA: 'Sat', SU: 'Sun' } as Record<Weekday, string>,
    budgetsIn: (year: number, month: number) => `Budgets in ${monthName(month)} ${year}`,
    noBudgets: 'No budgets yet.',
    over: (amount: string) => `**${amount} over**`,
    left: (amount: string) => `${amount} left`,
    budgetLine: (name: string, spent: string, available: string, percent: number, state: string) => `- ${name}: ${spent} of ${available} (${percent} %), ${state}`,
    overspent: (count: number) => (count === 1 ? 'One budget is overspent.' : `${count} budgets are overspent.`),
    billsIn: (days: number) => `Bills in the next ${days} days`,
    nothingDue: 'Nothing due.',
    toConfirm: ' (to confirm)',
    overdue: (count: number) =>
      count === 1 ? 'One earlier date is still waiting — open Recurring in PennyPost.' : `${count} earlier dates are still waiting — open Recurring in PennyPost.`,
    date: (weekday: string, month: number, day: number) => `${weekday} ${day} ${monthName(month).slice(0, 3)}`,
    title: (week: string) => `Your week ahead (${week})`,
  },
  'zh-CN': {
    weekday: { MO: '周一', TU: '周二', WE: '周三', TH: '周四', FR: '周五', SA: '周六', SU: '周日' } as Record<Weekday, string>,
    budgetsIn: (year: number, month: number) => `${year}年${month}月预算`,
    noBudgets: '还没有预算。',
    over: (amount: string) => `**超支 ${amount}**`,
    left: (amount: string) => `剩余 ${amount}`,
    budgetLine: (name: string, spent: string, available: string, percent: number, state: string) => `- ${name}：已花 ${spent}，共 ${available}（${percent} %），${state}`,
    overspent: (count: number) => `${count} 个预算已超支。`,
    billsIn: (days: number) => `未来 ${days} 天的账单`,
    nothingDue: '没有到期的账单。',
    toConfirm: '（待确认）',
    overdue: (count: number) => `还有 ${count} 个较早的日期在等待处理，请在 PennyPost 的“周期记账”中查看。`,
    date: (weekday: string, month: number, day: number) => `${month}月${day}日 ${weekday}`,
    title: (week: string) => `本周概览（${week}）`,
  },
} as const;

/** Part `index` of a date written with dashes as a number: 0 the year, 1 the month, 2 the day ('2024-05-31'). */
function datePart(text: string, index: 0 | 1 | 2): number {
  const part = text.split('-').at(index);
  if (part === undefined) throw new Error(`weekly: "${text}" has no ${(['year', 'month', 'day'] as const)[index]}`);
  return Number(part);
}

function budgetLine(b: BudgetFigure, language: MessageLanguage): string {
  const words = WORDS[language];
  const available = b.amount + b.carried;
  const percent = available > 0 ? Math.round((b.spent / available) * 100) : b.spent > 0 ? 100 : 0;
  const state = b.remaining < 0 ? words.over(moneyText(-b.remaining, b.currency)) : words.left(moneyText(b.remaining, b.currency));
  return words.budgetLine(escapeMd(b.name), moneyText(b.spent, b.currency), moneyText(available, b.currency), percent, state);
}

function billLine(o: UpcomingOccurrence, language: MessageLanguage): string {
  const words = WORDS[language];
  const [y, m, d] = [datePart(o.date, 0), datePart(o.date, 1), datePart(o.date, 2)];
  const weekday = words.weekday[weekdayOf(y, m, d)];
  const sign = o.type === 'income' ? '+' : '';
  const confirm = o.mode === 'confirm' ? words.toConfirm : '';
  return `- ${words.date(weekday, m, d)}: ${escapeMd(o.name)}, ${sign}${moneyText(o.amount, o.currency)}${confirm}`;
}

/** The weekly summary: this month's budgets (spent against amount) and the bills of the coming days. */
export function weeklySummaryMessage(
  input: { week: string; month: string; budgets: BudgetFigure[]; bills: UpcomingOccurrence[] },
  language: MessageLanguage = 'en',
): NotifyMessage {
  const words = WORDS[language];
  const [year, month] = [datePart(input.month, 0), datePart(input.month, 1)];
  const lines: string[] = [`**${words.budgetsIn(year, month)}**`, ''];
  if (input.budgets.length === 0) lines.push(words.noBudgets);
  else {
    for (const b of input.budgets) lines.push(budgetLine(b, language));
    const over = input.budgets.filter((b) => b.remaining < 0).length;
    if (over > 0) lines.push('', words.overspent(over));
  }
  lines.push('', `**${words.billsIn(SUMMARY_BILL_DAYS)}**`, '');
  // Overdue dates (confirm items not yet tapped, auto ones waiting) are not "coming": counted once.
  const coming = input.bills.filter((o) => !o.overdue);
  const overdue = input.bills.length - coming.length;
  if (coming.length === 0) lines.push(words.nothingDue);
  else for (const o of coming) lines.push(billLine(o, language));
  if (overdue > 0) lines.push('', words.overdue(overdue));
  return { title: words.title(input.week), desp: lines.join('\n') };
}

/** Reads the figures and composes the summary for one account. */
export async function composeWeeklySummary(
  planning: PlanningQueries | undefined,
  userId: string,
  now: number,
  timeZone: string,
  week: string,
  language: MessageLanguage = 'en',
): Promise<NotifyMessage> {
  const local = localTime(now, timeZone);
  const month = `${local.year}-${String(local.month).padStart(2, '0')}`;
  const [budgets, bills] = planning ? await Promise.all([planning.budgetFigures(userId, month, timeZone), planning.upcoming(userId, SUMMARY_BILL_DAYS)]) : [[], []];
  return weeklySummaryMessage({ week, month, budgets, bills }, language);
}
