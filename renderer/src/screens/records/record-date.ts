import { fromDateInput, startOfDay } from '../../lib/format';

/** A record's date: now for today (keeps the order of the day), local noon for another day. */
export function dateValue(input: string): number {
  const day = fromDateInput(input) ?? startOfDay(Date.now());
  if (day === startOfDay(Date.now())) return Date.now();
  return day + 12 * 3600_000;
}

/** How far a `YYYY-MM-DD` day is from today, in words of the UI language ("yesterday", "3 days ago", "in 2 days"). */
export function daysFromToday(locale: string, input: string, now = Date.now()): string {
  const day = fromDateInput(input);
  if (day === null) return input;
  const days = Math.round((day - startOfDay(now)) / 86_400_000);
  return new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }).format(days, 'day');
}
