import { cachedLocalDateTime, captured } from './shared';
import { DATE_FORMATS, readCell, type DateFormat } from './csv-columns';
import type { CsvMapping } from './types';

/** Dates of the generic CSV format: a cell read in the mapping's date format, and the format guessed from a sample. */

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** 'Jan', 'Sept', 'December' → 1–12; 0 when not an English month name. */
function monthNumber(name: string): number {
  const lower = name.toLowerCase();
  if (lower.length < 3) return 0;
  const index = MONTHS.findIndex((month) => month.startsWith(lower) || (lower === 'sept' && month === 'september'));
  return index + 1;
}

function fullYear(text: string): number {
  const year = Number(text);
  if (text.length !== 2) return year;
  return year < 70 ? 2000 + year : 1900 + year;
}

const TIME = /^(?:[T\s]+(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?(?:\s*([ap])\.?m\.?)?(?:\s*(Z|[+-]\d{2}(?::?\d{2})?))?)?\s*$/i;

/** Year, month, day (by the format) and the rest of the cell, or null when the date part does not match the format. */
function dateParts(text: string, format: DateFormat): { y: number; m: number; d: number; rest: string } | null {
  let match: RegExpExecArray | null;
  const done = (y: number, m: number, d: number) => ({ y, m, d, rest: text.slice(match?.[0].length ?? 0) });
  switch (format) {
    case 'YYYY-MM-DD':
      if ((match = /^(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?!\d)/.exec(text))) return done(Number(match[1]), Number(match[3]), Number(match[4]));
      if ((match = /^(\d{4})(\d{2})(\d{2})(?!\d)/.exec(text))) return done(Number(match[1]), Number(match[2]), Number(match[3]));
      if ((match = /^(\d{4})年(\d{1,2})月(\d{1,2})日?/.exec(text))) return done(Number(match[1]), Number(match[2]), Number(match[3]));
      return null;
    case 'DD.MM.YYYY':
      if ((match = /^(\d{1,2})\.(\d{1,2})\.(\d{4}|\d{2})(?!\d)/.exec(text))) return done(fullYear(captured(match, 3)), Number(match[2]), Number(match[1]));
      return null;
    case 'DD/MM/YYYY':
      if ((match = /^(\d{1,2})([/-])(\d{1,2})\2(\d{4}|\d{2})(?!\d)/.exec(text))) return done(fullYear(captured(match, 4)), Number(match[3]), Number(match[1]));
      // '13 Jun 2025', '13-Jun-25' (UK exports)
      if ((match = /^(\d{1,2})[\s-]([A-Za-z]{3,9})\.?[\s-](\d{4}|\d{2})(?!\d)/.exec(text)))
        return done(fullYear(captured(match, 3)), monthNumber(captured(match, 2)), Number(match[1]));
      return null;
    case 'MM/DD/YYYY':
      if ((match = /^(\d{1,2})([/-])(\d{1,2})\2(\d{4}|\d{2})(?!\d)/.exec(text))) return done(fullYear(captured(match, 4)), Number(match[1]), Number(match[3]));
      // 'Jun 13, 2025'
      if ((match = /^([A-Za-z]{3,9})\.?\s(\d{1,2}),?\s(\d{4})(?!\d)/.exec(text))) return done(Number(match[3]), monthNumber(captured(match, 1)), Number(match[2]));
      return null;
  }
}

/** A date cell in `format`, optionally followed by a time (24-hour or am/pm) and a UTC offset → ms, or null. */
export function parseCsvDate(cell: string, format: DateFormat, timeZone: string): number | null {
  const text = cell.trim();
  const parts = dateParts(text, format);
  if (!parts) return null;
  const time = TIME.exec(parts.rest);
  if (!time) return null;
  let hour = Number(time[1] || 0);
  if (time[4]) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (time[4].toLowerCase() === 'p' ? 12 : 0);
  }
  const minute = Number(time[2] || 0);
  const second = Number(time[3] || 0);
  const zone = time[5];
  if (!zone) return cachedLocalDateTime(parts.y, parts.m, parts.d, timeZone, hour, minute, second);
  const utc = cachedLocalDateTime(parts.y, parts.m, parts.d, 'UTC', hour, minute, second);
  if (utc === null) return null;
  if (zone.toUpperCase() === 'Z') return utc;
  const offset = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (!offset) return null;
  const minutes = Number(offset[2]) * 60 + Number(offset[3] || 0);
  return utc - (offset[1] === '-' ? -minutes : minutes) * 60_000;
}

/**
 * The date format that reads the most of `samples` (the date column's first cells, e.g. from
 * describeCsv), or undefined when none reads them or the day-first and month-first readings tie
 * ('05/01/2024' alone could be either: the person has to choose).
 */
export function guessDateFormat(samples: string[]): CsvMapping['dateFormat'] {
  const cells = samples.map((s) => readCell(s)).filter((s) => s !== '');
  let best: DateFormat[] = [];
  let bestCount = 0;
  for (const format of DATE_FORMATS) {
    const count = cells.filter((cell) => parseCsvDate(cell, format, 'UTC') !== null).length;
    if (count > bestCount) [best, bestCount] = [[format], count];
    else if (count === bestCount && count > 0) best.push(format);
  }
  return best.length === 1 ? best[0] : undefined;
}
