import type { AppContext } from '../app-context';
import { isTimeZone } from '../lib/calendar';
import { isCurrencyCode, MAX_MINOR } from '../lib/money';
import { accept, registerArrivalCheck, reject, type ArrivalCheckContext, type SyncVerdict } from '../arrival-checks';
import { RECURRING_TIME_MAX } from './occurrences';
import { RECURRING_FREQS, RECURRING_MODES, TEMPLATE_TYPES, WEEKDAYS, type PlanDoc } from './schema';

/**
 * What a budget or recurring item that arrives by sync must prove (docs/sync.md, "Arrival checks"):
 * the same rules budget.create and recurring.create apply, as far as they decide what PennyPost
 * counts or writes on its own. A recurring item writes records by itself on every PennyPost of
 * the person, so a malformed one must never get in: an unknown frequency, a zero interval or a
 * zone this machine does not know would make the scheduler guess. Whether its assets exist is
 * checked when an occurrence is written (the ledger refuses a record whose asset is not here, and
 * the occurrence waits until it is). Deleting a plan is always allowed.
 */
export function registerPlanningArrivalChecks(app: AppContext): void {
  registerArrivalCheck<PlanDoc>(app, 'plans', validateSyncedPlan);
}

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
const DAY = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const minor = (value: number, min: number) => Number.isSafeInteger(value) && value >= min && value <= MAX_MINOR;

export function validateSyncedPlan(doc: PlanDoc, ctx: ArrivalCheckContext): SyncVerdict {
  if (ctx.deleted) return accept;
  return doc.kind === 'budget' ? validateBudget(doc) : validateRecurring(doc);
}

function validateBudget(doc: PlanDoc): SyncVerdict {
  if (!minor(doc.amount, 1)) return reject(`the budget amount ${doc.amount} is not a whole number of minor units from 1 to 10^15`);
  if (!isCurrencyCode(doc.currency)) return reject(`the budget currency "${doc.currency}" is not one PennyPost knows`);
  if (!MONTH.test(doc.startMonth)) return reject(`the budget's first month "${doc.startMonth}" is not a month (YYYY-MM)`);
  if (!doc.allCategories && doc.categories.length === 0) return reject('a budget counts all spending or at least one category');
  if (doc.template.type !== '' || doc.rule.freq !== '') return reject('a budget carries no recurring template or rule');
  return accept;
}

function validateRecurring(doc: PlanDoc): SyncVerdict {
  const { template, rule } = doc;
  if (!(RECURRING_FREQS as readonly string[]).includes(rule.freq)) return reject(`the repeat frequency "${rule.freq}" is not daily, weekly, monthly or yearly`);
  if (!Number.isSafeInteger(rule.interval) || rule.interval < 1) return reject(`the repeat interval ${rule.interval} is not a whole number ≥ 1`);
  if (rule.byMonthDay < -1 || rule.byMonthDay > 31) return reject(`the day of the month ${rule.byMonthDay} is not 1–31 or −1 (the last day)`);
  if (rule.byWeekday.some((day) => !(WEEKDAYS as readonly string[]).includes(day))) return reject('a weekday of the rule is not MO, TU, WE, TH, FR, SA or SU');
  if (!(TEMPLATE_TYPES as readonly string[]).includes(template.type)) return reject(`the record type "${template.type}" is not income, expense or transfer`);
  if (!minor(template.amount, 1)) return reject(`the amount ${template.amount} is not a whole number of minor units from 1 to 10^15`);
  if (!template.asset) return reject('a recurring record needs its asset');
  if (template.type === 'transfer' && (!template.toAsset || template.toAsset === template.asset)) return reject('a recurring transfer needs two different assets');
  if (!isTimeZone(doc.timeZone)) return reject(`the time zone "${doc.timeZone}" is not one this machine knows`);
  if (!(RECURRING_MODES as readonly string[]).includes(doc.mode)) return reject(`the mode "${doc.mode}" is not auto or confirm`);
  if (doc.startDate > RECURRING_TIME_MAX || doc.endDate > RECURRING_TIME_MAX) return reject('the rule starts or ends after 2200');
  if (doc.endDate !== 0 && doc.endDate < doc.startDate) return reject('the rule ends before it starts');
  if (doc.doneThrough !== '' && !DAY.test(doc.doneThrough)) return reject(`"${doc.doneThrough}" is not a date (YYYY-MM-DD)`);
  if (doc.skipped.some((day) => !DAY.test(day))) return reject('a skipped occurrence is not a date (YYYY-MM-DD)');
  return accept;
}
