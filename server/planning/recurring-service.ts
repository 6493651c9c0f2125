import type { AppContext } from '../app-context';
import type { CategoryRename } from '../ledger/public';
import { isTimeZone, localTimeZone, zonedMidnight } from '../lib/calendar';
import { newId } from '../lib/ids';
import { toMajor, toMinor } from '../lib/money';
import { planningErrors } from './errors';
import { dateOfDay, dayOfDate, lastOccurrenceBy, occurrenceOn, occurrences, type Occurrence } from './occurrences';
import { RecurringScheduler } from './recurring-scheduler';
import { nextPending, occurrenceImportKey, occurrenceRecordId, plans, SKIPPED_MAX, specOf, type RecurringView } from './recurring-store';
import { EMPTY_TEMPLATE, type PlanDoc, type ScheduleDoc, type RecurringFreq, type RecurringMode, type RecurringTemplateDoc, type Weekday } from './schema';
import { messageLanguage } from '../notify/public';
import type { Notifier } from '../notify/public';
import { billReminder } from './bill-reminder';
import type { UpcomingOccurrence } from '../notify/public';

const DAY_MS = 86_400_000;
/** How far back recurring.upcoming looks for `confirm` occurrences nobody confirmed or skipped. */
const OVERDUE_DAYS = 366;
/** At most this many past dates are written when an item is created (or switched to auto). */
const MAX_BACKFILL = 400;
/** An occurrence that could not be written is tried again this much later. */
const RETRY_MS = 15 * 60_000;
/** Skipped dates are kept this long behind doneThrough. */
const SKIPPED_KEEP_DAYS = 400;

export interface TemplateInput {
  type: 'income' | 'expense' | 'transfer';
  amount: number;
  category?: string;
  asset: string;
  toAsset?: string;
  description?: string;
  tags?: string[];
}

export interface ScheduleInput {
  freq: RecurringFreq;
  interval?: number;
  byMonthDay?: number;
  byWeekday?: Weekday[];
}

export interface RecurringInput {
  name?: string;
  template: TemplateInput;
  rule: ScheduleInput;
  startDate: number;
  endDate?: number | null;
  timeZone?: string;
  mode: RecurringMode;
}

/** Recurring items: their documents in `plans` (kind 'recurring'), the scheduler and its catch-up (docs/budgets.md). */
export class RecurringService {
  readonly scheduler: RecurringScheduler;

  constructor(readonly app: AppContext) {
    this.scheduler = new RecurringScheduler({ app, run: (id) => this.runDue(id), remind: (users) => this.remind(users) });
  }

  start(): Promise<void> {
    this.stopRenames = this.ledger.categories.onRenamed((change) => this.categoryRenamed(change));
    return this.scheduler.start();
  }

  stop(): Promise<void> {
    this.stopRenames?.();
    return this.scheduler.stop();
  }

  /** Writes what is due (the timer calls it; tests call it after moving the clock). */
  tick(): Promise<void> {
    return this.scheduler.tick();
  }

  private get ledger() {
    return this.app.services.ledger;
  }

  // ---------------------------------------------------------------- checks

  private checkSchedule(schedule: ScheduleInput): ScheduleDoc {
    const interval = schedule.interval ?? 1;
    if (!Number.isInteger(interval) || interval < 1 || interval > 1000) throw planningErrors.recurringBadInterval().at('rule.interval');
    const byMonthDay = schedule.byMonthDay ?? 0;
    if (byMonthDay !== 0 && !(Number.isInteger(byMonthDay) && (byMonthDay === -1 || (byMonthDay >= 1 && byMonthDay <= 31)))) {
      throw planningErrors.recurringBadMonthDay().at('rule.byMonthDay');
    }
    if (byMonthDay !== 0 && schedule.freq !== 'monthly' && schedule.freq !== 'yearly') throw planningErrors.recurringMonthDayNotMonthly().at('rule.byMonthDay');
    const byWeekday = [...new Set(schedule.byWeekday ?? [])];
    if (byWeekday.length > 0 && schedule.freq !== 'weekly') throw planningErrors.recurringWeekdaysNotWeekly().at('rule.byWeekday');
    return { freq: schedule.freq, interval, byMonthDay, byWeekday };
  }

  /** The template in minor units, once the ledger knows its asset(s) and category as this user's. */
  private async checkTemplate(userId: string, t: TemplateInput): Promise<RecurringTemplateDoc> {
    const view = await this.ledger.views.get(userId);
    const asset = this.ledger.liveAsset(view, t.asset, 'template.asset');
    if (!(t.amount > 0)) throw planningErrors.recurringBadAmount().at('template.amount');
    const amount = toMinor(t.amount, asset.currency, 'template.amount');
    let category = '';
    let toAsset = '';
    if (t.type === 'transfer') {
      if (!t.toAsset || t.toAsset === t.asset) throw planningErrors.recurringNeedsToAsset().at('template.toAsset');
      toAsset = this.ledger.liveAsset(view, t.toAsset, 'template.toAsset').id;
    } else {
      category = t.category ? await this.ledger.categories.resolve(userId, t.type, t.category) : await this.ledger.categories.fallbackName(userId, t.type);
    }
    return { ...EMPTY_TEMPLATE, type: t.type, amount, category, asset: asset.id, toAsset, description: t.description ?? '', tags: [...new Set(t.tags ?? [])] };
  }

  private checkZone(timeZone: string | undefined): string {
    const zone = timeZone ?? localTimeZone();
    if (!isTimeZone(zone)) throw planningErrors.recurringUnknownTimeZone(zone).at('timeZone');
    return zone;
  }

  private async own(userId: string, id: string) {
    const doc = await plans(this.app).findOne(id).exec();
    if (!doc || doc.userId !== userId || doc.kind !== 'recurring') throw planningErrors.recurringNotFound();
    return doc;
  }

  // ---------------------------------------------------------------- views

  async view(doc: PlanDoc): Promise<RecurringView> {
    const view = await this.ledger.views.get(doc.userId);
    const currency = view.assets.get(doc.template.asset)?.currency ?? 'USD';
    // A recurring item's type, frequency and mode are never '' (recurring.create and its arrival checks refuse that).
    const schedule: RecurringView['rule'] = { freq: doc.rule.freq as RecurringFreq, interval: doc.rule.interval };
    if (doc.rule.byMonthDay !== 0) schedule.byMonthDay = doc.rule.byMonthDay;
    if (doc.rule.byWeekday.length > 0) schedule.byWeekday = [...doc.rule.byWeekday];
    const t = doc.template;
    return {
      id: doc.id,
      name: doc.name,
      template: {
        type: t.type as TemplateInput['type'],
        amount: toMajor(t.amount, currency),
        currency,
        category: t.category,
        asset: t.asset,
        toAsset: t.toAsset,
        description: t.description,
        tags: [...t.tags],
      },
      rule: schedule,
      startDate: doc.startDate,
      endDate: doc.endDate || null,
      timeZone: doc.timeZone,
      mode: doc.mode as RecurringMode,
      skipped: [...doc.skipped],
      doneThrough: doc.doneThrough,
      next: nextPending(doc),
      createdAt: doc.createdAt,
      updatedAt: doc.updatedAt,
    };
  }

  private stopRenames: (() => void) | undefined;

  /**
   * Templates name their category as records do. When records move to another name (a rename, a
   * language switch renaming the default categories, a delete with moveTo), the templates follow:
   * otherwise every later occurrence would wait for a category that no longer exists.
   */
  private async categoryRenamed(change: CategoryRename): Promise<void> {
    const docs = await plans(this.app)
      .find({ selector: { userId: change.userId, kind: 'recurring' } })
      .exec();
    for (const doc of docs) {
      const t = doc.template;
      if (t.type !== change.type || t.category !== change.from) continue;
      await doc.incrementalModify((data) =>
        data.template.category === change.from
          ? { ...data, template: { ...data.template, category: change.to }, updatedAt: Math.max(this.app.clock.now(), data.updatedAt + 1) }
          : data,
      );
    }
  }

  // ---------------------------------------------------------------- actions

  async create(userId: string, input: RecurringInput): Promise<RecurringView> {
    const schedule = this.checkSchedule(input.rule);
    const timeZone = this.checkZone(input.timeZone);
    const endDate = input.endDate ?? 0;
    if (endDate && endDate <= input.startDate) throw planningErrors.recurringEndBeforeStart().at('endDate');
    const template = await this.checkTemplate(userId, input.template);
    const now = this.app.clock.now();
    const doc: PlanDoc = {
      id: newId(now),
      userId,
      kind: 'recurring',
      name: (input.name ?? '').trim() || template.description || template.category || 'Recurring',
      categories: [],
      allCategories: false,
      amount: 0,
      currency: '',
      startMonth: '',
      rollover: false,
      template,
      rule: schedule,
      startDate: input.startDate,
      endDate,
      timeZone,
      mode: input.mode,
      skipped: [],
      doneThrough: '',
      createdAt: now,
      updatedAt: now,
    };
    this.checkBackfill(doc);
    await plans(this.app).insert(doc);
    this.scheduler.update(doc);
    this.scheduler.remindSoon();
    if (doc.mode === 'auto') await this.tick();
    return this.view((await this.own(userId, doc.id)).toJSON() as PlanDoc);
  }

  async query(userId: string, page: number, pageSize: number): Promise<{ list: RecurringView[]; total: number; page: number; pageSize: number }> {
    const docs = await plans(this.app)
      .find({ selector: { userId, kind: 'recurring' }, sort: [{ createdAt: 'asc' }] })
      .exec();
    const slice = docs.slice((page - 1) * pageSize, page * pageSize);
    const list = await Promise.all(slice.map((d) => this.view(d.toJSON() as PlanDoc)));
    return { list, total: docs.length, page, pageSize };
  }

  async get(userId: string, id: string): Promise<RecurringView> {
    return this.view((await this.own(userId, id)).toJSON() as PlanDoc);
  }

  /**
   * Changes an item. A new schedule (item, start, end or zone) applies from now on: occurrences it
   * has up to now count as done (no burst of past records); the template applies to the records
   * written from now on.
   */
  async update(userId: string, input: { id: string } & Partial<RecurringInput>): Promise<RecurringView> {
    const doc = await this.own(userId, input.id);
    const current = doc.toJSON() as PlanDoc;
    const patch: Partial<PlanDoc> = {};
    if (input.name !== undefined) patch.name = input.name.trim() || current.name;
    if (input.rule !== undefined) patch.rule = this.checkSchedule(input.rule);
    if (input.timeZone !== undefined) patch.timeZone = this.checkZone(input.timeZone);
    if (input.startDate !== undefined) patch.startDate = input.startDate;
    if (input.endDate !== undefined) patch.endDate = input.endDate ?? 0;
    if (input.mode !== undefined) patch.mode = input.mode;
    if (input.template !== undefined) patch.template = await this.checkTemplate(userId, input.template);
    const next = { ...current, ...patch };
    if (next.mode === 'auto' && current.mode !== 'auto') this.checkBackfill(next);
    if (next.endDate && next.endDate <= next.startDate) throw planningErrors.recurringEndBeforeStart().at('endDate');
    // The end alone is not a new schedule: dates still waiting (overdue, or not written yet) stay.
    const scheduleKeys = ['rule', 'timeZone', 'startDate'] as const;
    const rescheduled = scheduleKeys.some((k) => patch[k] !== undefined && JSON.stringify(patch[k]) !== JSON.stringify(current[k]));
    if (rescheduled) {
      const last = lastOccurrenceBy(specOf(next), this.app.clock.now(), next.doneThrough ? dateOfDay(dayOfDate(next.doneThrough) + 1) : undefined);
      if (last && last.date > next.doneThrough) patch.doneThrough = last.date;
    }
    patch.updatedAt = Math.max(this.app.clock.now(), current.updatedAt + 1);
    await doc.incrementalModify((data) => ({ ...data, ...patch, doneThrough: maxDate(data.doneThrough, patch.doneThrough ?? '') }));
    const saved = (await this.own(userId, input.id)).toJSON() as PlanDoc;
    this.scheduler.update(saved);
    this.scheduler.remindSoon();
    return this.view(saved);
  }

  /**
   * An `auto` item writes its waiting past dates at once; more than MAX_BACKFILL of them is
   * refused (a daily item from years back, a start date in seconds), with nothing changed.
   */
  private checkBackfill(doc: PlanDoc): void {
    if (doc.mode !== 'auto') return;
    const from = doc.doneThrough ? dateOfDay(dayOfDate(doc.doneThrough) + 1) : undefined;
    const past = occurrences(specOf(doc), { fromDate: from, untilMs: this.app.clock.now(), limit: MAX_BACKFILL + 1 });
    if (past.length > MAX_BACKFILL) throw planningErrors.recurringTooManyPast(MAX_BACKFILL).at('startDate');
  }

  /** Deletes the item; the records it wrote stay. */
  async delete(userId: string, id: string): Promise<{ deleted: true }> {
    const doc = await this.own(userId, id);
    await doc.remove();
    this.scheduler.forget(id);
    return { deleted: true };
  }

  /** Skips one occurrence (it is never written); refused when it is written already. */
  async skip(userId: string, id: string, date: string): Promise<RecurringView> {
    const doc = await this.own(userId, id);
    const current = doc.toJSON() as PlanDoc;
    if (!occurrenceOn(specOf(current), date)) throw planningErrors.recurringNotAnOccurrence(date).at('date');
    if (current.skipped.includes(date)) return this.view(current);
    if (date <= current.doneThrough || (await this.ledger.recordIdTaken(occurrenceRecordId(id, date)))) throw planningErrors.recurringAlreadyHandled(date).at('date');
    if (current.skipped.length >= SKIPPED_MAX) throw planningErrors.recurringTooManySkips(SKIPPED_MAX);
    await doc.incrementalModify((data) => ({ ...data, skipped: [...new Set([...data.skipped, date])].sort(), updatedAt: Math.max(this.app.clock.now(), data.updatedAt + 1) }));
    return this.view(await this.settle(userId, id));
  }

  /**
   * Writes the record of one occurrence now (the one tap of a `confirm` item; on an `auto` item it
   * writes an occurrence early). The record is the one the scheduler would write (same id): it is
   * never written twice. The balance check applies.
   */
  async confirm(userId: string, id: string, date: string) {
    const current = (await this.own(userId, id)).toJSON() as PlanDoc;
    const occurrence = occurrenceOn(specOf(current), date);
    if (!occurrence) throw planningErrors.recurringNotAnOccurrence(date).at('date');
    if (current.skipped.includes(date)) throw planningErrors.recurringAlreadyHandled(date).at('date');
    const record = await this.write(current, occurrence, true);
    if (!record) throw planningErrors.recurringAlreadyHandled(date).at('date');
    await this.settle(userId, id);
    return record;
  }

  /** Writes one occurrence's record through the ledger (null when its id exists already, even deleted). */
  private async write(doc: PlanDoc, occurrence: Occurrence, checkBalance: boolean) {
    const t = doc.template;
    const view = await this.ledger.views.get(doc.userId);
    const currency = view.assets.get(t.asset)?.currency ?? 'USD';
    // An item without a description writes its name ("Netflix"): the record says what it is and search finds it.
    const common = { amount: toMajor(t.amount, currency), description: t.description || doc.name, tags: t.tags, date: occurrence.at };
    const input =
      t.type === 'transfer' ? { ...common, type: 'transfer', fromAsset: t.asset, toAsset: t.toAsset } : { ...common, type: t.type, asset: t.asset, category: t.category };
    return this.ledger.createRecordOnce(doc.userId, input, {
      id: occurrenceRecordId(doc.id, occurrence.date),
      importKey: occurrenceImportKey(doc.id, occurrence.date),
      checkBalance,
    });
  }

  /** Moves doneThrough over the handled occurrences that follow it (written or skipped), up to now. */
  private async settle(userId: string, id: string): Promise<PlanDoc> {
    const doc = await this.own(userId, id);
    const current = doc.toJSON() as PlanDoc;
    const skipped = new Set(current.skipped);
    const from = current.doneThrough ? dateOfDay(dayOfDate(current.doneThrough) + 1) : undefined;
    const ahead = occurrences(specOf(current), { fromDate: from, limit: 200 });
    const taken = await this.ledger.recordIdsTaken(ahead.map((o) => occurrenceRecordId(id, o.date)));
    let through = current.doneThrough;
    for (const o of ahead) {
      if (!skipped.has(o.date) && !taken.has(occurrenceRecordId(id, o.date))) break;
      through = o.date;
    }
    if (through !== current.doneThrough) await this.advance(id, through);
    const saved = (await this.own(userId, id)).toJSON() as PlanDoc;
    this.scheduler.update(saved);
    return saved;
  }

  /**
   * Sets doneThrough to at least `date`. Skipped dates stay listed (a doneThrough that a sync
   * conflict set back must not bring them back) until they are more than a year behind it.
   */
  private async advance(id: string, date: string): Promise<void> {
    const doc = await plans(this.app).findOne(id).exec();
    if (!doc) return;
    await doc.incrementalModify((data) => {
      const through = maxDate(data.doneThrough, date);
      const keepFrom = dateOfDay(dayOfDate(through) - SKIPPED_KEEP_DAYS);
      return { ...data, doneThrough: through, skipped: data.skipped.filter((d) => d >= keepFrom) };
    });
  }

  /** The scheduler's run: writes every pending occurrence of an `auto` item up to now, in order. */
  private async runDue(id: string): Promise<void> {
    for (let i = 0; i < 100_000 && !this.scheduler.isStopped; i++) {
      const doc = await plans(this.app).findOne(id).exec();
      if (!doc) {
        this.scheduler.forget(id);
        return;
      }
      const current = doc.toJSON() as PlanDoc;
      const next = current.mode === 'auto' ? nextPending(current) : null;
      if (!next || next.at > this.app.clock.now()) {
        this.scheduler.update(current);
        return;
      }
      try {
        await this.write(current, next, false);
      } catch (error) {
        // Never passed over: its asset may not have arrived by sync yet, the person may fix the
        // item, the disk may be full for a moment. The occurrence waits (listed as overdue by
        // recurring.upcoming) and is tried again later; the ones after it wait behind it, in order.
        this.app.log.warn('recurring: an occurrence could not be written; it is tried again later', { recurringId: id, date: next.date, error: String(error) });
        this.scheduler.postpone(id, this.app.clock.now() + RETRY_MS);
        return;
      }
      await this.advance(id, next.date);
    }
  }

  // ---------------------------------------------------------------- upcoming

  /**
   * Occurrences not yet handled from now to now + days, and before them the `confirm` ones that
   * are due and neither confirmed nor skipped (overdue). Amounts in minor units.
   */
  async upcoming(userId: string, days: number): Promise<UpcomingOccurrence[]> {
    const now = this.app.clock.now();
    const until = now + days * DAY_MS;
    const docs = await plans(this.app)
      .find({ selector: { userId, kind: 'recurring' } })
      .exec();
    const view = await this.ledger.views.get(userId);
    const out: UpcomingOccurrence[] = [];
    for (const d of docs) {
      const doc = d.toJSON() as PlanDoc;
      const spec = specOf(doc);
      const skipped = new Set(doc.skipped);
      // From a year back: overdue `confirm` occurrences, and `auto` ones that could not be written yet (they wait, see runDue).
      const floor = dateOfDay(Math.floor(now / DAY_MS) - OVERDUE_DAYS);
      const afterDone = doc.doneThrough ? dateOfDay(dayOfDate(doc.doneThrough) + 1) : '';
      const from = afterDone > floor ? afterDone : floor;
      const list = occurrences(spec, { fromDate: from, untilMs: until, limit: 400 }).filter((o) => !skipped.has(o.date));
      const taken = await this.ledger.recordIdsTaken(list.map((o) => occurrenceRecordId(doc.id, o.date)));
      const currency = view.assets.get(doc.template.asset)?.currency ?? 'USD';
      for (const o of list) {
        if (taken.has(occurrenceRecordId(doc.id, o.date))) continue;
        const t = doc.template;
        out.push({
          id: doc.id,
          name: doc.name,
          date: o.date,
          at: o.at,
          timeZone: spec.timeZone,
          mode: doc.mode as RecurringMode,
          type: t.type || 'expense',
          amount: t.amount,
          currency,
          category: t.category,
          asset: t.asset,
          overdue: o.at <= now,
        });
      }
    }
    return out.sort((a, b) => Number(b.overdue) - Number(a.overdue) || a.at - b.at || (a.id < b.id ? -1 : 1));
  }

  /** Reminds of the bills within each person's billDue days (once per item and date; the notifier keeps the markers). */
  private async remind(userIds: string[]): Promise<void> {
    const notify = this.app.services.notify as Notifier | undefined;
    if (!notify) return;
    for (const userId of userIds) {
      // null: billDue is off for this person.
      const days = await notify.billDueDays(userId);
      if (days === null) continue;
      // Announced from the start of the day `days` days before its date, in the item's zone (0: on the day).
      const list = await this.upcoming(userId, days + 1);
      const language = messageLanguage(await this.app.services.users.language(userId));
      const now = this.app.clock.now();
      for (const o of list) {
        // A bill is money going out: income (salary) is not announced.
        if (o.overdue || o.type === 'income') continue;
        const [year, month, day] = o.date.split('-').map(Number);
        if (year === undefined || month === undefined || day === undefined) throw new Error(`bill reminders: the occurrence date "${o.date}" is not YYYY-MM-DD`);
        if (now < zonedMidnight(year, month, day - days, o.timeZone)) continue;
        await notify.emit(userId, 'billDue', `${o.id}:${o.date}`, billReminder(o, language));
      }
    }
  }
}

const maxDate = (a: string, b: string) => (a >= b ? a : b);
