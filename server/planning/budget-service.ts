import type { RxCollection } from 'rxdb';
import type { AppContext } from '../app-context';
import { isTimeZone, localTimeZone, zonedMidnight } from '../lib/calendar';
import { newId } from '../lib/ids';
import { toMinor } from '../lib/money';
import type { CategoryRename } from '../ledger/public';
import type { MissingRate } from '../ledger/public';
import type { PeriodExpenses } from '../ledger/public';
import { figureOf, spentOf } from './budget-figures';
import { budgetView, figureView, type BudgetFigureView, type BudgetView } from './budget-view';
import { planningErrors } from './errors';
import { localDate, monthIndex, monthIndexAt, monthStart } from './months';
import { EMPTY_SCHEDULE, EMPTY_TEMPLATE, type PlanDoc } from './schema';
import type { BudgetFigure } from '../notify/public';

export interface BudgetInput {
  name: string;
  categories: string[] | 'all';
  amount: number;
  period?: 'month';
  startMonth: string;
  rollover?: boolean;
}

export type BudgetPatch = Partial<BudgetInput> & { id: string };

/** What one month of a user's budgets comes to (minor units), with what the answer needs besides. */
interface MonthFigures {
  /** Each budget that counts in the month with its figure, in the budgets' own order. */
  budgets: Array<{ doc: PlanDoc; figure: BudgetFigure }>;
  /** Spent today per budget id, when today is in the month. */
  today: Map<string, number>;
  missingRates: MissingRate[];
}

/** Budgets: their documents in `plans` (kind 'budget') and their monthly figures. */
export class BudgetService {
  /** Per-user budget documents, dropped whenever `plans` changes for that user (sync included). */
  private readonly cache = new Map<string, PlanDoc[]>();
  private subscription: { unsubscribe(): void } | undefined;
  private readonly listeners = new Set<(userId: string) => void>();
  private stopRenames: (() => void) | undefined;

  constructor(readonly app: AppContext) {}

  start(): void {
    this.stopRenames = this.app.services.ledger.categories.onRenamed((change) => this.categoryRenamed(change));
    this.subscription = this.collection.eventBulks$.subscribe((bulk) => {
      for (const event of bulk.events) {
        const doc = (event.documentData ?? event.previousDocumentData) as PlanDoc | undefined;
        if (!doc) continue;
        this.cache.delete(doc.userId);
        if (doc.kind === 'budget') for (const listener of this.listeners) listener(doc.userId);
      }
    });
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.stopRenames?.();
  }

  /** Budgets name categories as records do; when records move to another name, the budgets follow. */
  private async categoryRenamed(change: CategoryRename): Promise<void> {
    if (change.type !== 'expense') return;
    for (const budget of await this.list(change.userId)) {
      if (!budget.categories.includes(change.from)) continue;
      const categories = [...new Set(budget.categories.map((name) => (name === change.from ? change.to : name)))];
      const doc = await this.collection.findOne(budget.id).exec();
      await doc?.incrementalPatch({ categories, updatedAt: Math.max(this.app.clock.now(), budget.updatedAt + 1) });
    }
    this.cache.delete(change.userId);
  }

  /** Calls `listener` with the owner whenever one of their budgets is written or deleted (here or by sync). */
  onChange(listener: (userId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private get collection(): RxCollection<PlanDoc> {
    return this.app.db.collection<PlanDoc>('plans');
  }

  /** The user's budgets, oldest first. */
  async list(userId: string): Promise<PlanDoc[]> {
    const cached = this.cache.get(userId);
    if (cached) return cached;
    const docs = await this.collection.find({ selector: { userId, kind: 'budget' }, sort: [{ createdAt: 'asc' }] }).exec();
    const list = docs.map((d) => d.toJSON() as PlanDoc).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
    this.cache.set(userId, list);
    return list;
  }

  /** The users who have at least one budget (the periodic alert check visits them). */
  async owners(): Promise<string[]> {
    const docs = await this.collection.find({ selector: { kind: 'budget' } }).exec();
    return [...new Set(docs.map((d) => d.userId))];
  }

  private async own(userId: string, id: string): Promise<PlanDoc> {
    const found = (await this.list(userId)).find((d) => d.id === id);
    if (!found) throw planningErrors.budgetNotFound();
    return found;
  }

  private async expenseCategories(userId: string) {
    return this.app.services.ledger.categories.list(userId, 'expense');
  }

  /** Category ids → the names records carry; 'all' → every expense. */
  private async categoryNames(userId: string, categories: string[] | 'all'): Promise<{ categories: string[]; allCategories: boolean }> {
    if (categories === 'all') return { categories: [], allCategories: true };
    if (categories.length === 0) throw planningErrors.noBudgetCategories().at('categories');
    const byId = new Map((await this.expenseCategories(userId)).map((c) => [c.id, c.name]));
    const names: string[] = [];
    for (const id of categories) {
      const name = byId.get(id);
      if (name === undefined) throw planningErrors.unknownBudgetCategory(id).at('categories');
      if (!names.includes(name)) names.push(name);
    }
    return { categories: names, allCategories: false };
  }

  private checkName(name: string): string {
    const trimmed = name.trim();
    if (!trimmed) throw planningErrors.blankBudgetName().at('name');
    return trimmed;
  }

  private checkAmount(amount: number, currency: string): number {
    const minor = toMinor(amount, currency, 'amount');
    if (minor <= 0) throw planningErrors.budgetAmountNotPositive().at('amount');
    return minor;
  }

  private async present(userId: string, doc: PlanDoc): Promise<BudgetView> {
    return budgetView(doc, await this.expenseCategories(userId));
  }

  async create(userId: string, input: BudgetInput): Promise<BudgetView> {
    const name = this.checkName(input.name);
    monthIndex(input.startMonth, 'startMonth');
    const { currency } = await this.app.services.ledger.baseCurrency(userId);
    const amount = this.checkAmount(input.amount, currency);
    const categories = await this.categoryNames(userId, input.categories);
    const now = this.app.clock.now();
    const doc: PlanDoc = {
      id: newId(now),
      userId,
      kind: 'budget',
      name,
      ...categories,
      amount,
      currency,
      startMonth: input.startMonth,
      rollover: input.rollover ?? false,
      template: EMPTY_TEMPLATE,
      rule: EMPTY_SCHEDULE,
      startDate: 0,
      endDate: 0,
      timeZone: '',
      mode: '',
      skipped: [],
      doneThrough: '',
      createdAt: now,
      updatedAt: now,
    };
    await this.collection.insert(doc);
    this.cache.delete(userId);
    return this.present(userId, doc);
  }

  async get(userId: string, id: string): Promise<BudgetView> {
    return this.present(userId, await this.own(userId, id));
  }

  async update(userId: string, patch: BudgetPatch): Promise<BudgetView> {
    const current = await this.own(userId, patch.id);
    const changes: Partial<PlanDoc> = {};
    if (patch.name !== undefined) changes.name = this.checkName(patch.name);
    if (patch.startMonth !== undefined) {
      monthIndex(patch.startMonth, 'startMonth');
      changes.startMonth = patch.startMonth;
    }
    if (patch.amount !== undefined) changes.amount = this.checkAmount(patch.amount, current.currency);
    if (patch.categories !== undefined) Object.assign(changes, await this.categoryNames(userId, patch.categories));
    if (patch.rollover !== undefined) changes.rollover = patch.rollover;
    changes.updatedAt = Math.max(this.app.clock.now(), current.updatedAt + 1);
    const doc = await this.collection.findOne(current.id).exec();
    if (!doc) throw planningErrors.budgetNotFound();
    const updated = await doc.incrementalPatch(changes);
    this.cache.delete(userId);
    return this.present(userId, updated.toJSON() as PlanDoc);
  }

  async delete(userId: string, id: string): Promise<{ deleted: true }> {
    const current = await this.own(userId, id);
    const doc = await this.collection.findOne(current.id).exec();
    if (!doc) throw planningErrors.budgetNotFound();
    await doc.remove();
    this.cache.delete(userId);
    return { deleted: true };
  }

  /** budget.query: the budgets that count in `month`, with their figures in major units. */
  async query(userId: string, month: string, timeZone?: string): Promise<{ month: string; timeZone: string; list: BudgetFigureView[]; missingRates: MissingRate[] }> {
    const index = monthIndex(month, 'month');
    const zone = zoneOf(timeZone);
    const result = await this.compute(userId, index, zone);
    const categories = await this.expenseCategories(userId);
    const list = result.budgets.map(({ doc, figure }) => figureView(figure, doc, categories, result.today.get(figure.id) ?? 0));
    return { month, timeZone: zone, list, missingRates: result.missingRates };
  }

  /** Figures of `month` ('YYYY-MM') counted in `timeZone`, minor units (reminders read them). */
  async figures(userId: string, month: string, timeZone: string): Promise<BudgetFigure[]> {
    return (await this.compute(userId, monthIndex(month, 'month'), zoneOf(timeZone))).budgets.map(({ figure }) => figure);
  }

  private async compute(userId: string, month: number, timeZone: string): Promise<MonthFigures> {
    const docs = (await this.list(userId)).filter((d) => monthIndex(d.startMonth, 'startMonth') <= month);
    const ledger = this.app.services.ledger;
    const figures: BudgetFigure[] = [];
    const today = new Map<string, number>();
    const missing = new Map<string, MissingRate>();
    const now = localDate(this.app.clock.now(), timeZone);
    const todayInMonth = now.year * 12 + now.month - 1 === month;
    for (const currency of new Set(docs.map((d) => d.currency))) {
      const group = docs.filter((d) => d.currency === currency);
      const first = Math.min(...group.map((d) => (d.rollover ? monthIndex(d.startMonth, 'startMonth') : month)));
      const bounds: number[] = [];
      for (let m = first; m <= month + 1; m++) bounds.push(monthStart(m, timeZone));
      const { periods, missingRates } = await ledger.expensesByPeriod(userId, currency, bounds);
      for (const rate of missingRates) {
        const key = `${rate.from}>${rate.to}`;
        const entry = missing.get(key) ?? { ...rate, records: 0 };
        entry.records += rate.records;
        missing.set(key, entry);
      }
      let todays: PeriodExpenses | undefined;
      if (todayInMonth) {
        const start = zonedMidnight(now.year, now.month, now.day, timeZone);
        todays = (await ledger.expensesByPeriod(userId, currency, [start, zonedMidnight(now.year, now.month, now.day + 1, timeZone)])).periods[0];
      }
      for (const doc of group) {
        const from = doc.rollover ? monthIndex(doc.startMonth, 'startMonth') - first : month - first;
        figures.push(figureOf(doc, periods.slice(from)));
        if (todays) today.set(doc.id, spentOf(doc, todays));
      }
    }
    const byId = new Map(figures.map((f) => [f.id, f]));
    // In the budgets' own order (figures were made per currency), each budget beside its own figure.
    const budgets = docs.flatMap((doc) => {
      const figure = byId.get(doc.id);
      return figure ? [{ doc, figure }] : [];
    });
    return { budgets, today, missingRates: [...missing.values()] };
  }

  /** The index of the current month in a zone (months.ts). */
  currentMonth(timeZone: string): number {
    return monthIndexAt(this.app.clock.now(), timeZone);
  }
}

function zoneOf(timeZone: string | undefined): string {
  if (timeZone === undefined || timeZone === '') return localTimeZone();
  if (!isTimeZone(timeZone)) throw planningErrors.unknownPlanningTimeZone(timeZone).at('timeZone');
  return timeZone;
}
