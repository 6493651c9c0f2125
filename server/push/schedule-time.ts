import { pushErrors } from './errors';
import { textField } from './send/answer';

/**
 * When a scheduled push is due: the /send fields `at` (a time) and `delay` (a wait), as every
 * /send form and the ntfy drop-in (its `At`, `In`, `Delay` headers) hand them in. docs/push.md
 * "Scheduled pushes" lists what is accepted.
 */

/** The furthest ahead a push may be scheduled. */
export const SCHEDULE_MAX_AHEAD_MS = 30 * 24 * 3600 * 1000;
/** A time at most this far in the past is "now" (a script's clock a little behind ours). */
export const SCHEDULE_PAST_GRACE_MS = 60 * 1000;

/** Numbers at or above this in `delay` are Unix timestamps in seconds (as ntfy reads them), not waits. */
const DELAY_TIMESTAMP_FROM = 1e9;
/** Numbers below this in `at` are Unix seconds, at or above it milliseconds (1e11 s is the year 5138). */
const AT_MS_FROM = 1e11;

const NUMBER = /^\d+(?:\.\d+)?$/;
const UNIT_MS = { s: 1000, sec: 1000, m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000 } as const;

function isUnit(unit: string | undefined): unit is keyof typeof UNIT_MS {
  return unit !== undefined && Object.hasOwn(UNIT_MS, unit);
}
const DURATION = /^(?:\d+(?:\.\d+)?\s*(?:s|sec|m|min|h|d)\s*)+$/;
const DURATION_PART = /(\d+(?:\.\d+)?)\s*(sec|min|s|m|h|d)/g;
/** ISO 8601 date and time with seconds optional and an explicit offset (`Z` or `±hh:mm`). */
const ISO = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

export interface Schedule {
  /** When the push is due (ms). */
  at: number;
  /** Which field it came from (for error locations). */
  field: 'at' | 'delay';
}

function durationMs(value: string): number | undefined {
  const compact = value.toLowerCase();
  if (!DURATION.test(compact)) return undefined;
  let total = 0;
  for (const [, amount, unit] of compact.matchAll(DURATION_PART)) {
    if (!isUnit(unit)) throw new Error('durationMs: DURATION_PART matched a unit that UNIT_MS does not have');
    total += Number(amount) * UNIT_MS[unit];
  }
  return total;
}

function isoMs(value: string): number | undefined {
  if (!ISO.test(value)) return undefined;
  // `+0800` → `+08:00`, a space → `T`: the forms Date.parse reads everywhere.
  const normal = value.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const ms = Date.parse(normal);
  return Number.isFinite(ms) ? ms : undefined;
}

/** Reads one of the two fields into a due time, or throws a 400 naming it. */
function dueTimeOf(field: 'at' | 'delay', raw: string, now: number): number {
  const value = raw.trim();
  if (NUMBER.test(value)) {
    const n = Number(value);
    if (field === 'delay') return n >= DELAY_TIMESTAMP_FROM ? Math.round(n * 1000) : now + Math.round(n * 1000);
    return n >= AT_MS_FROM ? Math.round(n) : Math.round(n * 1000);
  }
  const wait = durationMs(value);
  if (wait !== undefined) return now + Math.round(wait);
  const iso = isoMs(value);
  if (iso !== undefined) return iso;
  throw pushErrors.badScheduleTime(field, raw.slice(0, 40)).at(field);
}

/**
 * The schedule of a /send request: undefined to send now (no `at`/`delay`, empty ones, `delay` 0,
 * or a time within the grace in the past), else the due time. Throws a 400 for a value it cannot
 * read, both fields at once, a time further in the past, or beyond SCHEDULE_MAX_AHEAD_MS.
 */
export function scheduleOf(input: Record<string, unknown>, now: number): Schedule | undefined {
  const at = (textField(input, 'at') ?? '').trim();
  const delay = (textField(input, 'delay') ?? '').trim();
  if (at !== '' && delay !== '') throw pushErrors.atAndDelay().at('delay');
  if (at === '' && delay === '') return undefined;
  const field = at !== '' ? 'at' : 'delay';
  const due = dueTimeOf(field, at || delay, now);
  if (due < now - SCHEDULE_PAST_GRACE_MS) throw pushErrors.scheduleInPast(new Date(due).toISOString()).at(field);
  if (due > now + SCHEDULE_MAX_AHEAD_MS) throw pushErrors.scheduleTooFar(SCHEDULE_MAX_AHEAD_MS / 86_400_000).at(field);
  // Due within the next second (or just past): sent now, like a push without a schedule.
  if (due <= now + 1000) return undefined;
  return { at: due, field };
}
