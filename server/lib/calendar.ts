/**
 * Calendar periods in a time zone (IANA name), as ms boundaries. Statistics bucket records by
 * the user's local day, ISO week (Monday first), month or year; the boundaries are computed once
 * per period with Intl, then records are assigned by comparison, which keeps grouping fast.
 */
export type GroupBy = 'day' | 'week' | 'month' | 'year';
export const GROUP_BY = ['day', 'week', 'month', 'year'] as const;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

export function isTimeZone(name: string): boolean {
  try {
    formatter(name);
    return true;
  } catch {
    return false;
  }
}

/** The server's own zone (the desktop user's zone in the desktop app). */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

interface Parts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function partsAt(ms: number, timeZone: string): Parts {
  const out: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(ms))) {
    if (part.type !== 'literal') out[part.type] = Number(part.value);
  }
  return out as unknown as Parts;
}

/** Offset of the zone from UTC at `ms`, in ms. */
function offsetAt(ms: number, timeZone: string): number {
  const p = partsAt(ms, timeZone);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(ms / 1000) * 1000;
}

/** The instant of local midnight of year/month/day (month 1–12, overflow allowed) in the zone. */
export function zonedMidnight(year: number, month: number, day: number, timeZone: string): number {
  const guess = Date.UTC(year, month - 1, day);
  const first = guess - offsetAt(guess, timeZone);
  const second = guess - offsetAt(first, timeZone);
  return second;
}

/**
 * The instant of a local wall-clock time in the zone (month 1–12). A time that a DST change skips
 * (02:30 on a spring-forward night) moves forward by the gap; one that occurs twice takes the first.
 */
export function zonedTime(year: number, month: number, day: number, hour: number, minute: number, second: number, timeZone: string): number {
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  const before = wall - offsetAt(wall - 86_400_000, timeZone);
  const after = wall - offsetAt(wall + 86_400_000, timeZone);
  // Away from a change both offsets agree. Near one, take the first candidate that reads back as
  // the wall time; in a gap neither does, and the later offset moves it forward.
  for (const candidate of before <= after ? [before, after] : [after, before]) {
    if (candidate + offsetAt(candidate, timeZone) === wall) return candidate;
  }
  return wall - offsetAt(wall - 86_400_000, timeZone);
}

export interface Period {
  start: number;
  /** Exclusive. */
  end: number;
  label: string;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** Start of the period (of kind `groupBy`) that contains `ms`. */
function periodStart(ms: number, groupBy: GroupBy, timeZone: string): { start: number; y: number; m: number; d: number } {
  const p = partsAt(ms, timeZone);
  switch (groupBy) {
    case 'day':
      return { start: zonedMidnight(p.year, p.month, p.day, timeZone), y: p.year, m: p.month, d: p.day };
    case 'week': {
      const weekday = (new Date(Date.UTC(p.year, p.month - 1, p.day)).getUTCDay() + 6) % 7; // Monday = 0
      const date = new Date(Date.UTC(p.year, p.month - 1, p.day - weekday));
      const y = date.getUTCFullYear();
      const m = date.getUTCMonth() + 1;
      const d = date.getUTCDate();
      return { start: zonedMidnight(y, m, d, timeZone), y, m, d };
    }
    case 'month':
      return { start: zonedMidnight(p.year, p.month, 1, timeZone), y: p.year, m: p.month, d: 1 };
    case 'year':
      return { start: zonedMidnight(p.year, 1, 1, timeZone), y: p.year, m: 1, d: 1 };
  }
}

function isoWeekLabel(y: number, m: number, d: number): string {
  // The ISO week of a Monday y-m-d belongs to the year of its Thursday.
  const thursday = new Date(Date.UTC(y, m - 1, d + 3));
  const weekYear = thursday.getUTCFullYear();
  const week = Math.floor((thursday.getTime() - Date.UTC(weekYear, 0, 1)) / 86_400_000 / 7) + 1;
  return `${weekYear}-W${pad(week)}`;
}

/** The consecutive periods covering [from, to), the first starting at the period containing `from`. */
export function periodsBetween(from: number, to: number, groupBy: GroupBy, timeZone: string, maxPeriods = 5000): Period[] {
  const periods: Period[] = [];
  let { start, y, m, d } = periodStart(from, groupBy, timeZone);
  while (start < to) {
    if (periods.length >= maxPeriods) throw new RangeError(`more than ${maxPeriods} periods`);
    let ny = y;
    let nm = m;
    let nd = d;
    let label: string;
    switch (groupBy) {
      case 'day':
        label = `${y}-${pad(m)}-${pad(d)}`;
        nd = d + 1;
        break;
      case 'week':
        label = isoWeekLabel(y, m, d);
        nd = d + 7;
        break;
      case 'month':
        label = `${y}-${pad(m)}`;
        nm = m + 1;
        break;
      case 'year':
        label = String(y);
        ny = y + 1;
        break;
    }
    const normalized = new Date(Date.UTC(ny, nm - 1, nd));
    y = normalized.getUTCFullYear();
    m = normalized.getUTCMonth() + 1;
    d = normalized.getUTCDate();
    const end = zonedMidnight(y, m, d, timeZone);
    periods.push({ start, end, label });
    start = end;
  }
  return periods;
}
