import { captured, localDateTime } from '../formats/shared';

/**
 * When a forwarded payment notice says the payment happened. Notices write dates in many ways
 * (`2024年11月27日12:30`, `11月27日12时30分`, `27日12:30`, `2024-11-27 12:30:05`, `11/27 12:30`,
 * `Nov 27, 2024 at 3:45 PM`, `27 Nov`) and often without the year, the month or the date. A date
 * without a year is in the year of `now` in the person's time zone, unless that would put it more
 * than a day in the future: then it is the previous year (a December notice read in January).
 * A day without a month works the same way with the month. A time without a date is today.
 */

export interface NoticeContext {
  now: number;
  timeZone: string;
}

export interface FoundTime {
  time: number;
  fromText: boolean;
}

interface Stamp {
  year?: number;
  month?: number;
  day?: number;
  hour?: number;
  minute?: number;
  second?: number;
}

interface Candidate {
  index: number;
  length: number;
  stamp: Stamp;
}

const DAY_MS = 86_400_000;

const dayFormatters = new Map<string, Intl.DateTimeFormat>();

/** The calendar date of `ms` in `timeZone`. */
export function zonedDate(ms: number, timeZone: string): { year: number; month: number; day: number } {
  let f = dayFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric', day: 'numeric' });
    dayFormatters.set(timeZone, f);
  }
  const parts = f.formatToParts(new Date(ms));
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { year: part('year'), month: part('month'), day: part('day') };
}

/** `timeZone` when the runtime knows it, else UTC (a wrong zone must not make a notice unreadable). */
export function usableTimeZone(timeZone: string): string {
  try {
    zonedDate(0, timeZone);
    return timeZone;
  } catch {
    return 'UTC';
  }
}

/** ms for a stamp whose missing year/month/date are filled from `now` (see the file comment); null when impossible. */
function resolve(stamp: Stamp, ctx: NoticeContext): number | null {
  const { timeZone, now } = ctx;
  const today = zonedDate(now, timeZone);
  const h = stamp.hour ?? 0;
  const mi = stamp.minute ?? 0;
  const s = stamp.second ?? 0;
  const at = (y: number, mo: number, d: number) => localDateTime(y, mo, d, timeZone, h, mi, s);
  if (stamp.year !== undefined && stamp.month !== undefined && stamp.day !== undefined) return at(stamp.year, stamp.month, stamp.day);
  if (stamp.month !== undefined && stamp.day !== undefined) {
    const time = at(today.year, stamp.month, stamp.day);
    if (time !== null && time <= now + DAY_MS) return time;
    return at(today.year - 1, stamp.month, stamp.day);
  }
  if (stamp.day !== undefined) {
    const time = at(today.year, today.month, stamp.day);
    if (time !== null && time <= now + DAY_MS) return time;
    const previous = today.month === 1 ? { y: today.year - 1, m: 12 } : { y: today.year, m: today.month - 1 };
    return at(previous.y, previous.m, stamp.day);
  }
  if (stamp.hour !== undefined) return at(today.year, today.month, today.day);
  return null;
}

// A clock time after a date: `12:30`, `12:30:05`, `12时30分`, `19点37分59秒`, ` at 3:45 PM`, `T08:23`.
const CLOCK = String.raw`(\d{1,2})\s*(?::|时|点)\s*(\d{1,2})(?:\s*(?::|分)\s*(\d{1,2})\s*秒?|\s*分)?(?:\s*([ap])\.?m\.?(?![a-z]))?`;
const TIME_AFTER = String.raw`(?:(?:\s*,?\s*(?:at\s+)?|T)${CLOCK})?`;
const MONTHS = String.raw`(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?`;
const MONTH_INDEX = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

type Reader = (m: RegExpExecArray) => Stamp | null;

function num(value: string | undefined): number | undefined {
  return value === undefined || value === '' ? undefined : Number(value);
}

function fullYear(value: string | undefined): number | undefined {
  const y = num(value);
  if (y === undefined) return undefined;
  return y < 100 ? 2000 + y : y;
}

/** Hour/minute/second from the four CLOCK groups starting at `i` (with am/pm). */
function clock(m: RegExpExecArray, i: number): Stamp {
  let hour = num(m[i]);
  if (hour === undefined) return {};
  const meridiem = m.at(i + 3)?.toLowerCase();
  if (meridiem === 'p' && hour < 12) hour += 12;
  if (meridiem === 'a' && hour === 12) hour = 0;
  return { hour, minute: num(m[i + 1]), second: num(m[i + 2]) };
}

function monthOf(name: string): number {
  return MONTH_INDEX.indexOf(name.slice(0, 3).toLowerCase()) + 1;
}

/** Month/day from a numeric `a/b`: month first (US and Chinese use), day first when `a` cannot be a month. */
function monthDay(a: number, b: number): { month: number; day: number } {
  return a > 12 && b <= 12 ? { month: b, day: a } : { month: a, day: b };
}

const DATE_PATTERNS: readonly [RegExp, Reader][] = [
  // 2024-11-27 12:30:05, 2024/11/27, 2024.11.27
  [new RegExp(String.raw`(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)${TIME_AFTER}`, 'gi'), (m) => ({ year: num(m[1]), month: num(m[2]), day: num(m[3]), ...clock(m, 4) })],
  // 2024年11月27日 12:30, 24年10月09日15:54
  [
    new RegExp(String.raw`(?<!\d)(\d{4}|\d{2})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]${TIME_AFTER}`, 'gi'),
    (m) => ({ year: fullYear(m[1]), month: num(m[2]), day: num(m[3]), ...clock(m, 4) }),
  ],
  // 11月27日12:30, 11月27日 12时30分
  [new RegExp(String.raw`(?<![\d年])(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]${TIME_AFTER}`, 'gi'), (m) => ({ month: num(m[1]), day: num(m[2]), ...clock(m, 3) })],
  // 11/27 12:30, 11/27/2024, 26/11
  [
    new RegExp(String.raw`(?<![\d/.:])(\d{1,2})/(\d{1,2})(?:/(\d{4}|\d{2}))?(?![\d/])${TIME_AFTER}`, 'gi'),
    (m) => ({ ...monthDay(Number(m[1]), Number(m[2])), year: fullYear(m[3]), ...clock(m, 4) }),
  ],
  // Nov 27, 2024 at 3:45 PM
  [
    new RegExp(String.raw`\b${MONTHS}\s+(\d{1,2})(?:st|nd|rd|th)?(?!\d)(?:,?\s+(\d{4})(?!\d))?${TIME_AFTER}`, 'gi'),
    (m) => ({ month: monthOf(captured(m, 1)), day: num(m[2]), year: num(m[3]), ...clock(m, 4) }),
  ],
  // 27 Nov 2024
  [
    new RegExp(String.raw`(?<![\d$.,])(\d{1,2})(?:st|nd|rd|th)?\s+${MONTHS}(?![a-z])(?:,?\s+(\d{4})(?!\d))?${TIME_AFTER}`, 'gi'),
    (m) => ({ day: num(m[1]), month: monthOf(captured(m, 2)), year: num(m[3]), ...clock(m, 4) }),
  ],
  // 27日12:30, 01日19时09分 (the day of the current month)
  [new RegExp(String.raw`(?<![\d月/.\-])(\d{1,2})\s*[日号]\s*${CLOCK}`, 'gi'), (m) => ({ day: num(m[1]), ...clock(m, 2) })],
];

// A clock time alone: 14:09, 12时30分, 3:45 pm.
const TIME_ONLY = new RegExp(String.raw`(?<![\d:./\-])${CLOCK}(?![\d])`, 'gi');

function collect(text: string, patterns: readonly [RegExp, Reader][]): Candidate[] {
  const found: Candidate[] = [];
  for (const [re, read] of patterns) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const stamp = read(m);
      if (stamp) found.push({ index: m.index, length: m[0].length, stamp });
    }
  }
  return found.sort((a, b) => a.index - b.index || b.length - a.length);
}

function sameDay(a: number, b: number, timeZone: string): boolean {
  const x = zonedDate(a, timeZone);
  const y = zonedDate(b, timeZone);
  return x.year === y.year && x.month === y.month && x.day === y.day;
}

/**
 * The time a notice gives, or `now` (fromText false) when it gives none. Of several dates the first
 * one wins, except that a later mention of the same day with a clock time refines a date-only one
 * (Alipay's `04月27日 … 到账时间：2024-04-27 18:14`).
 */
export function findNoticeTime(text: string, ctx: NoticeContext): FoundTime {
  const dated: { time: number; hasClock: boolean }[] = [];
  for (const c of collect(text, DATE_PATTERNS)) {
    const time = resolve(c.stamp, ctx);
    if (time !== null) dated.push({ time, hasClock: c.stamp.hour !== undefined });
  }
  const first = dated.at(0);
  if (first) {
    if (!first.hasClock) {
      const refined = dated.find((d) => d.hasClock && sameDay(d.time, first.time, ctx.timeZone));
      if (refined) return { time: refined.time, fromText: true };
    }
    return { time: first.time, fromText: true };
  }
  TIME_ONLY.lastIndex = 0;
  for (let m = TIME_ONLY.exec(text); m; m = TIME_ONLY.exec(text)) {
    const time = resolve(clock(m, 1), ctx);
    if (time !== null) return { time, fromText: true };
  }
  return { time: ctx.now, fromText: false };
}

/**
 * A time field of a Shortcut/form: ms or seconds since the epoch (number or digits), an ISO
 * date-time with an offset, or a local date-time in any of the notice forms above. null when it
 * is none of these.
 */
export function parseTimeValue(value: unknown, ctx: NoticeContext): number | null {
  if (typeof value === 'number' || (typeof value === 'string' && /^\s*\d{9,13}(?:\.\d+)?\s*$/.test(value))) {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) return null;
    return n >= 1e11 ? Math.round(n) : Math.round(n * 1000);
  }
  if (typeof value !== 'string' || !value.trim()) return null;
  const text = value.normalize('NFKC').trim();
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i.test(text)) {
    const ms = Date.parse(text);
    return Number.isNaN(ms) ? null : ms;
  }
  const found = findNoticeTime(text, ctx);
  return found.fromText ? found.time : null;
}
