import { digestId } from '../lib/ids';
import type { RxCollection } from 'rxdb';
import type { AppContext } from '../app-context';
import { nextOccurrence, type Occurrence, type RecurrenceSpec } from './occurrences';
import type { PlanDoc } from './schema';

/**
 * Recurring items as stored in `plans` (kind 'recurring') and as the actions show them, and the
 * names an occurrence's record gets: a deterministic id and importKey from (item id, date), so the
 * same occurrence written twice — after a restart, by a second synced PennyPost, after a clock
 * change — is the same document.
 */

export const SKIPPED_MAX = 1000;

/** The record id of an occurrence: 'rc' + 22 base62 characters of SHA-256(recurringId ':' date) (24 ≤ 40 characters). */
export function occurrenceRecordId(recurringId: string, date: string): string {
  return digestId('rc', `${recurringId}:${date}`);
}

/** The importKey of an occurrence's record (the record presenter reads recurringId and occurrence back from it). */
export const occurrenceImportKey = (recurringId: string, date: string) => `recurring:${recurringId}:${date}`;

export function specOf(doc: Pick<PlanDoc, 'rule' | 'startDate' | 'endDate' | 'timeZone'>): RecurrenceSpec {
  return {
    freq: doc.rule.freq || 'daily',
    interval: doc.rule.interval || 1,
    byMonthDay: doc.rule.byMonthDay,
    byWeekday: doc.rule.byWeekday,
    startDate: doc.startDate,
    endDate: doc.endDate,
    timeZone: doc.timeZone || 'UTC',
  };
}

/** The first occurrence after doneThrough that is not skipped, or null when the item has ended. */
export function nextPending(doc: Pick<PlanDoc, 'rule' | 'startDate' | 'endDate' | 'timeZone' | 'doneThrough' | 'skipped'>): Occurrence | null {
  const spec = specOf(doc);
  const skipped = new Set(doc.skipped);
  let after = doc.doneThrough;
  for (let i = 0; i < SKIPPED_MAX + 1; i++) {
    const next = nextOccurrence(spec, after);
    if (!next || !skipped.has(next.date)) return next;
    after = next.date;
  }
  return null;
}

/** A recurring item as the actions answer it (amounts in major units of the asset's currency). */
export type { RecurringView } from './result-shapes';

export function plans(app: AppContext): RxCollection<PlanDoc> {
  return app.db.collection<PlanDoc>('plans');
}
