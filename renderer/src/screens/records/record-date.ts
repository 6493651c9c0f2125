import { fromDateInput, startOfDay } from '../../lib/format';

/** A record's date: now for today (keeps the order of the day), local noon for another day. */
export function dateValue(input: string): number {
  const day = fromDateInput(input) ?? startOfDay(Date.now());
  if (day === startOfDay(Date.now())) return Date.now();
  return day + 12 * 3600_000;
}
