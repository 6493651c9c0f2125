import { zonedMidnight } from '../lib/calendar';
import { planningErrors } from './errors';

/** Months as 'YYYY-MM' strings, counted as an index (year × 12 + month − 1) for arithmetic. */

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** The index of a 'YYYY-MM' month, or a 400 blaming `field`. Years 1970–2200 (a rollover never spans more than 231 years of months). */
export function monthIndex(value: string, field: string): number {
  const match = MONTH.exec(value);
  if (!match || Number(match[1]) < 1970 || Number(match[1]) > 2200) throw planningErrors.invalidMonth(value).at(field);
  return Number(match[1]) * 12 + Number(match[2]) - 1;
}

export function monthOf(index: number): string {
  const year = Math.floor(index / 12);
  return `${String(year).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** The instant the month `index` starts in `timeZone` (local midnight of its first day). */
export function monthStart(index: number, timeZone: string): number {
  return zonedMidnight(Math.floor(index / 12), (index % 12) + 1, 1, timeZone);
}

/** Local date parts of an instant in a zone. */
const dateFormats = new Map<string, Intl.DateTimeFormat>();

export function localDate(ms: number, timeZone: string): { year: number; month: number; day: number } {
  let format = dateFormats.get(timeZone);
  if (!format) dateFormats.set(timeZone, (format = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric', day: 'numeric' })));
  const parts = format.formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { year: get('year'), month: get('month'), day: get('day') };
}

/** The month index of an instant in a zone. */
export function monthIndexAt(ms: number, timeZone: string): number {
  const { year, month } = localDate(ms, timeZone);
  return year * 12 + month - 1;
}
