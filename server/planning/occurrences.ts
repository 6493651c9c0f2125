import type { RecurringFreq, Weekday } from './schema';

/**
 * When a recurring item occurs (docs/budgets.md, "Recurring records"): pure date math, no I/O.
 *
 * Dates are calendar dates 'YYYY-MM-DD' in the item's time zone; each occurrence happens at the
 * local time of day of `startDate` on its date. The rules, a subset of RFC 5545:
 * - daily: every `interval` days from the start date.
 * - weekly: weeks start on Monday; every `interval` weeks (counted from the start date's week) on
 *   each day of `byWeekday` (default: the start date's weekday), never before the start date.
 * - monthly: every `interval` months from the start month, on day `byMonthDay` (default: the start
 *   date's day). −1 is the last day of the month; a day the month does not have (31 in April, 30
 *   in February) is that month's last day, as rent and salaries are paid.
 * - yearly: every `interval` years on the start date's month and day (or `byMonthDay` of that
 *   month); February 29 falls on February 28 in other years.
 * - A time of day that does not exist on a date (a spring-forward gap: 02:30 in New York on the
 *   second Sunday of March) moves forward by the gap (03:30); a time that exists twice (fall back)
 *   is the first of the two.
 * - `endDate` (0 = none) is the last instant an occurrence may fall on.
 */

export interface RecurrenceSpec {
  freq: RecurringFreq;
  /** ≥ 1. */
  interval: number;
  /** 1–31, −1 = last day; 0 = the start date's day (monthly, yearly). */
  byMonthDay: number;
  /** weekly: the days of the week (empty = the start date's weekday). */
  byWeekday: readonly Weekday[];
  startDate: number;
  /** 0 = no end. */
  endDate: number;
  timeZone: string;
}

export interface Occurrence {
  date: string;
  /** The instant (ms) of the occurrence. */
  at: number;
}

const WEEKDAY_INDEX: Record<Weekday, number> = { MO: 0, TU: 1, WE: 2, TH: 3, FR: 4, SA: 5, SU: 6 };
const DAY_MS = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(timeZone, f);
  }
  return f;
}

interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The local calendar date and time of `ms` in the zone. */
export function localParts(ms: number, timeZone: string): LocalParts {
  const out: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(ms))) if (part.type !== 'literal') out[part.type] = Number(part.value);
  return out as unknown as LocalParts;
}

function offsetAt(ms: number, timeZone: string): number {
  const p = localParts(ms, timeZone);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(ms / 1000) * 1000;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** 'YYYY-MM-DD' of a day number (days since 1970-01-01). */
export function dateOfDay(dayNumber: number): string {
  const d = new Date(dayNumber * DAY_MS);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** Day number of 'YYYY-MM-DD' (NaN when it is not a real date). */
export function dayOfDate(date: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return NaN;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return NaN;
  return ms / DAY_MS;
}

export const isDate = (date: string): boolean => !Number.isNaN(dayOfDate(date));

/** The local date 'YYYY-MM-DD' of `ms` in the zone. */
export function localDate(ms: number, timeZone: string): string {
  const p = localParts(ms, timeZone);
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`;
}

/**
 * The instant of a local date and time in the zone. A time in a spring-forward gap moves forward
 * by the gap; a time that occurs twice is the earlier instant.
 */
export function zonedInstant(year: number, month: number, day: number, hour: number, minute: number, second: number, timeZone: string): number {
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  const before = offsetAt(wall - DAY_MS, timeZone);
  const after = offsetAt(wall + DAY_MS, timeZone);
  const candidates = [wall - before, wall - after].filter((t) => offsetAt(t, timeZone) === wall - t).sort((a, b) => a - b);
  const [earliest] = candidates;
  if (earliest !== undefined) return earliest;
  // In a gap: read the wall time with the offset before the change, which lands after the gap.
  return wall - before;
}

/** Items live between 1970 and the end of 2200 (start, end and every occurrence); later dates are never generated. */
export const RECURRING_TIME_MIN = 0;
export const RECURRING_TIME_MAX = Date.UTC(2200, 11, 31, 23, 59, 59, 999);
const LAST_DAY = Math.floor(RECURRING_TIME_MAX / DAY_MS);
/** A day number the generator may yield (a finite date up to the end of 2200). */
const inRange = (day: number) => Number.isFinite(day) && day <= LAST_DAY;

const daysInMonth = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** The item's start: its local date (day number), time of day and weekday (Monday = 0). */
function startOf(spec: RecurrenceSpec) {
  const p = localParts(spec.startDate, spec.timeZone);
  const day = Date.UTC(p.year, p.month - 1, p.day) / DAY_MS;
  return { ...p, dayNumber: day, weekday: (((day + 3) % 7) + 7) % 7 };
}

/** Month index (year * 12 + month − 1) and day → day number, with the short-month and last-day rules. */
function monthDay(monthIndex: number, wanted: number): number {
  const year = Math.floor(monthIndex / 12);
  const month = (monthIndex % 12) + 1;
  const last = daysInMonth(year, month);
  const day = wanted === -1 ? last : Math.min(wanted, last);
  return Date.UTC(year, month - 1, day) / DAY_MS;
}

/**
 * The occurrence dates (day numbers) of the item from the period containing `fromDay` on, in
 * order, without end (the caller stops). Dates before the start date are left out.
 */
function* dayNumbers(spec: RecurrenceSpec, fromDay: number): Generator<number> {
  const s = startOf(spec);
  const interval = Math.max(1, Math.floor(spec.interval));
  const from = Math.max(fromDay, s.dayNumber);
  switch (spec.freq) {
    case 'daily': {
      let k = Math.max(0, Math.ceil((from - s.dayNumber) / interval));
      for (;;) {
        const day = s.dayNumber + k++ * interval;
        if (!inRange(day)) return;
        yield day;
      }
    }
    case 'weekly': {
      const days = [...new Set((spec.byWeekday.length > 0 ? spec.byWeekday : [null]).map((w) => (w === null ? s.weekday : WEEKDAY_INDEX[w])))].sort((a, b) => a - b);
      const startMonday = s.dayNumber - s.weekday;
      const fromWeek = Math.floor((from - startMonday) / 7);
      let k = Math.max(0, Math.floor(fromWeek / interval));
      for (;;) {
        const monday = startMonday + k++ * interval * 7;
        if (!inRange(monday)) return;
        for (const d of days) if (monday + d >= from && inRange(monday + d)) yield monday + d;
      }
    }
    case 'monthly': {
      const startMonth = s.year * 12 + s.month - 1;
      const f = new Date(from * DAY_MS);
      const fromMonth = f.getUTCFullYear() * 12 + f.getUTCMonth();
      const wanted = spec.byMonthDay || s.day;
      let k = Math.max(0, Math.floor((fromMonth - startMonth) / interval));
      for (;;) {
        const day = monthDay(startMonth + k++ * interval, wanted);
        if (!inRange(day)) return;
        if (day >= from) yield day;
      }
    }
    case 'yearly': {
      const f = new Date(from * DAY_MS);
      const wanted = spec.byMonthDay || s.day;
      let k = Math.max(0, Math.floor((f.getUTCFullYear() - s.year) / interval));
      for (;;) {
        const day = monthDay((s.year + k++ * interval) * 12 + s.month - 1, wanted);
        if (!inRange(day)) return;
        if (day >= from) yield day;
      }
    }
  }
}

/** The instant of the occurrence on `dayNumber` (the start's local time of day in the zone). */
function instantOf(spec: RecurrenceSpec, dayNumber: number, s = startOf(spec)): number {
  const d = new Date(dayNumber * DAY_MS);
  return zonedInstant(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), s.hour, s.minute, s.second, spec.timeZone);
}

/**
 * Occurrences in order from `fromDate` ('YYYY-MM-DD', inclusive; default the start) while `at ≤
 * untilMs` and at most `limit` of them; none after `endDate`.
 */
export function occurrences(spec: RecurrenceSpec, options: { fromDate?: string; untilMs?: number; limit?: number } = {}): Occurrence[] {
  const s = startOf(spec);
  const out: Occurrence[] = [];
  const limit = options.limit ?? 1000;
  const until = Math.min(options.untilMs ?? Infinity, spec.endDate > 0 ? spec.endDate : Infinity);
  const from = options.fromDate ? dayOfDate(options.fromDate) : s.dayNumber;
  if (Number.isNaN(from) || limit <= 0) return out;
  for (const day of dayNumbers(spec, from)) {
    const at = instantOf(spec, day, s);
    if (at > until) break;
    out.push({ date: dateOfDay(day), at });
    if (out.length >= limit) break;
  }
  return out;
}

/** The first occurrence after `date` ('' = from the start), or null when the item has ended. */
export function nextOccurrence(spec: RecurrenceSpec, afterDate: string): Occurrence | null {
  const from = afterDate ? dateOfDay(dayOfDate(afterDate) + 1) : undefined;
  return occurrences(spec, { fromDate: from, limit: 1 }).at(0) ?? null;
}

/** The occurrence on `date`, or null when the item does not occur that day. */
export function occurrenceOn(spec: RecurrenceSpec, date: string): Occurrence | null {
  if (!isDate(date)) return null;
  const found = occurrences(spec, { fromDate: date, limit: 1 }).at(0);
  return found?.date === date ? found : null;
}

/** The last occurrence at or before `ms`, or null. Walks from `fromDate` (a known earlier point) when given. */
export function lastOccurrenceBy(spec: RecurrenceSpec, ms: number, fromDate?: string): Occurrence | null {
  let last: Occurrence | null = null;
  let from = fromDate;
  for (;;) {
    const batch = occurrences(spec, { fromDate: from, untilMs: ms, limit: 500 });
    const newest = batch.at(-1);
    if (newest === undefined) return last;
    last = newest;
    if (batch.length < 500) return last;
    from = dateOfDay(dayOfDate(last.date) + 1);
  }
}
