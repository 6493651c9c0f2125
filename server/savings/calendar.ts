/**
 * Calendar days in one time zone, as integers (days since 1970-01-01 in that zone), for streaks,
 * saving days and leaderboard periods. PennyPost runs on the user's own computer, so the default
 * zone is the computer's; settings `savings.timeZone` overrides it (tests use UTC).
 */
const DAY_MS = 86_400_000;
const BUCKET_MS = 15 * 60 * 1000;

export class Calendar {
  private readonly format: Intl.DateTimeFormat;
  /** UTC offset (ms) per 15-minute bucket: zone transitions happen on 15-minute boundaries. */
  private readonly offsets = new Map<number, number>();
  readonly timeZone: string;

  constructor(timeZone: string) {
    this.timeZone = timeZone || Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
    this.format = new Intl.DateTimeFormat('en-US', {
      timeZone: this.timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
  }

  static isValidZone(timeZone: string): boolean {
    if (timeZone === '') return true;
    try {
      new Intl.DateTimeFormat('en-US', { timeZone });
      return true;
    } catch {
      return false;
    }
  }

  /** Offset of the zone from UTC at `time`, ms (UTC+8 → 8 h). */
  offsetAt(time: number): number {
    const bucket = Math.floor(time / BUCKET_MS);
    let offset = this.offsets.get(bucket);
    if (offset === undefined) {
      const probe = bucket * BUCKET_MS;
      const parts = new Map<Intl.DateTimeFormatPartTypes, number>();
      for (const part of this.format.formatToParts(new Date(probe))) {
        if (part.type !== 'literal') parts.set(part.type, Number(part.value));
      }
      const part = (type: Intl.DateTimeFormatPartTypes): number => {
        const value = parts.get(type);
        if (value === undefined) throw new Error(`Calendar: the ${this.timeZone} format gave no ${type}`); // this.format asks for each
        return value;
      };
      const asUtc = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'));
      offset = asUtc - Math.floor(probe / 60_000) * 60_000;
      if (this.offsets.size > 100_000) this.offsets.clear();
      this.offsets.set(bucket, offset);
    }
    return offset;
  }

  /** Day number of a time in this zone. */
  dayOf(time: number): number {
    return Math.floor((time + this.offsetAt(time)) / DAY_MS);
  }

  /** First ms of a day number in this zone. */
  startOfDay(day: number): number {
    const guess = day * DAY_MS;
    let start = guess - this.offsetAt(guess);
    // One correction covers a zone whose offset differs between the guess and the real start.
    start = guess - this.offsetAt(start);
    return start;
  }

  /** Day number of the Monday of the week that contains `day` (1970-01-01 was a Thursday). */
  static mondayOf(day: number): number {
    return day - ((((day + 3) % 7) + 7) % 7);
  }

  /** Day number of the 1st of the month that contains `day`. */
  static firstOfMonth(day: number): number {
    const date = new Date(day * DAY_MS);
    return Math.floor(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / DAY_MS);
  }

  /** "2026-11-03" for a day number. */
  static isoDate(day: number): string {
    return new Date(day * DAY_MS).toISOString().slice(0, 10);
  }
}

/** Longest run of consecutive days in a sorted list of distinct day numbers, within [from, to]. */
export function longestRun(days: readonly number[], from = -Infinity, to = Infinity): number {
  let best = 0;
  let run = 0;
  let previous = NaN;
  for (const day of days) {
    if (day < from || day > to) continue;
    run = day === previous + 1 ? run + 1 : 1;
    previous = day;
    if (run > best) best = run;
  }
  return best;
}

/** The run of consecutive days that ends today, or yesterday (today not recorded yet). */
export function currentRun(days: readonly number[], today: number): number {
  const last = days.findLastIndex((day) => day <= today);
  let run = 0;
  let previous = today + 1;
  for (const day of days.slice(0, last + 1).reverse()) {
    if (run === 0 ? day < today - 1 : day !== previous - 1) break;
    run++;
    previous = day;
  }
  return run;
}
