import { Type, type Static } from '@sinclair/typebox';
import { defineCollection } from '../db/collections';
import { ID_MAX_LENGTH } from '../lib/ids';
import { Bool, EnumOf, IdField, Int, Ms, Str } from '../db/schema-fields';

/**
 * The planning domain's one collection, `plans`: budgets and recurring items, told apart by
 * `kind` (the schema budget of server/db/README.md has no slot for two). Every document has the
 * same shape; the fields of the other kind hold their empty values ('' / [] / false / 0 / the
 * empty template and schedule). Synced like the ledger (docs/sync.md), so fields are only ever added
 * with a version bump and a migration.
 */

export const PLAN_KINDS = ['budget', 'recurring'] as const;

export const RECURRING_FREQS = ['daily', 'weekly', 'monthly', 'yearly'] as const;
export type RecurringFreq = (typeof RECURRING_FREQS)[number];
export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export const RECURRING_MODES = ['auto', 'confirm'] as const;
export type RecurringMode = (typeof RECURRING_MODES)[number];
export const TEMPLATE_TYPES = ['income', 'expense', 'transfer'] as const;

/** The record a recurring item writes on each occurrence (amounts in minor units of the asset's currency). */
export const RecurringTemplate = Type.Object({
  type: EnumOf([...TEMPLATE_TYPES, ''] as const, 10),
  amount: Int(0, 1e15),
  category: Str(64),
  asset: Str(ID_MAX_LENGTH),
  toAsset: Str(ID_MAX_LENGTH),
  /** Transfer across currencies: what the target receives, minor units; 0 = same as amount. */
  toAmount: Int(0, 1e15),
  fee: Int(0, 1e15),
  description: Str(1000),
  tags: Type.Array(Str(32), { maxItems: 20 }),
});
export type RecurringTemplateDoc = Static<typeof RecurringTemplate>;

/** When a recurring item occurs (an RFC 5545 subset). */
export const RecurrenceSchedule = Type.Object({
  freq: EnumOf([...RECURRING_FREQS, ''] as const, 10),
  interval: Int(0, 1000),
  /** 1–31, or −1 for the last day of the month; 0 = the start date's day. */
  byMonthDay: Int(-1, 31),
  byWeekday: Type.Array(EnumOf(WEEKDAYS, 2), { maxItems: 7 }),
});
export type ScheduleDoc = Static<typeof RecurrenceSchedule>;

export const PlanDocument = Type.Object({
  id: IdField(),
  userId: IdField(),
  kind: EnumOf(PLAN_KINDS, 10),
  name: Str(100),
  // — budget —
  /** Category names the budget counts; [] with `allCategories` = every expense. */
  categories: Type.Array(Str(64), { maxItems: 200 }),
  allCategories: Bool(),
  /** Budget: the monthly amount, minor units of `currency` (the base currency when it was made). */
  amount: Int(0, 1e15),
  currency: Str(3),
  /** 'YYYY-MM' (budget) — the first month it counts. */
  startMonth: Str(7),
  rollover: Bool(),
  // — recurring —
  template: RecurringTemplate,
  rule: RecurrenceSchedule,
  /** First occurrence's local date and time of day come from this instant in `timeZone`. */
  startDate: Ms(),
  /** Last instant an occurrence may fall on; 0 = no end. */
  endDate: Ms(),
  /** IANA zone the item's dates are counted in. */
  timeZone: Str(64),
  mode: EnumOf([...RECURRING_MODES, ''] as const, 10),
  /** Occurrence dates ('YYYY-MM-DD') the person skipped. */
  skipped: Type.Array(Str(10), { maxItems: 1000 }),
  /** The last occurrence date ('YYYY-MM-DD') already handled (created, confirmed or skipped); '' = none. */
  doneThrough: Str(10),
  createdAt: Ms(),
  updatedAt: Ms(),
});
export type PlanDoc = Static<typeof PlanDocument>;

export const EMPTY_TEMPLATE: RecurringTemplateDoc = { type: '', amount: 0, category: '', asset: '', toAsset: '', toAmount: 0, fee: 0, description: '', tags: [] };
export const EMPTY_SCHEDULE: ScheduleDoc = { freq: '', interval: 0, byMonthDay: 0, byWeekday: [] };

export const plansCollection = defineCollection({
  name: 'plans',
  version: 0,
  primaryKey: 'id',
  document: PlanDocument,
  indexes: [['userId', 'kind', 'createdAt']],
  sync: true,
});

export const planningCollections = [plansCollection];
