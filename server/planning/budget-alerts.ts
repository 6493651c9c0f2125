import type { AppContext } from '../app-context';
import { localTimeZone } from '../lib/calendar';
import { moneyText } from '../notify/public';
import { alertLevel } from './budget-figures';
import { monthOf } from './months';
import type { BudgetFigure } from '../notify/public';

/** How long record changes are gathered before a user's budgets are checked (an import writes thousands). */
export const ALERT_DEBOUNCE_MS = 2_000;
/** The periodic check (a month turns, records arrive while nobody watches). */
export const ALERT_TICK_MS = 15 * 60_000;

const TEXTS = {
  en: {
    title: (name: string, level: number) => (level >= 100 ? `Budget "${name}" is used up` : `Budget "${name}" is ${level}% used`),
    body: (spent: string, available: string, remaining: string, month: string) =>
      `**${month}**: spent ${spent} of ${available}; ${remaining.startsWith('-') ? `over by ${remaining.slice(1)}` : `${remaining} left`}.`,
  },
  'zh-CN': {
    title: (name: string, level: number) => (level >= 100 ? `预算「${name}」已用完` : `预算「${name}」已用 ${level}%`),
    body: (spent: string, available: string, remaining: string, month: string) =>
      `**${month}**：已花 ${spent}，共 ${available}；${remaining.startsWith('-') ? `超支 ${remaining.slice(1)}` : `剩余 ${remaining}`}。`,
  },
};

/**
 * Budget alerts (docs/budgets.md): after a user's records or budgets change (here or by sync),
 * debounced, and on a periodic tick, the current month's figures are checked and a budget that
 * reached 80 % or 100 % is reported through app.services.notify under the key
 * `${budgetId}:${YYYY-MM}:80|100` — the notifier sends each key at most once.
 */
export class BudgetAlerts {
  private readonly pending = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly subscriptions: Array<() => void> = [];
  private interval: ReturnType<typeof setInterval> | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly app: AppContext,
    private readonly timeZone: () => string = localTimeZone,
  ) {}

  start(): void {
    const records = this.app.services.ledger.watchRecords((change) => this.schedule(change.userId));
    this.subscriptions.push(() => records.unsubscribe());
    this.subscriptions.push(this.app.services.budgets.onChange((userId) => this.schedule(userId)));
    this.interval = setInterval(() => void this.tick(), ALERT_TICK_MS);
    this.interval.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const unsubscribe of this.subscriptions.splice(0)) unsubscribe();
    if (this.interval) clearInterval(this.interval);
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
    await this.running.catch(() => undefined);
  }

  /** Checks a user's budgets a moment after their last change. */
  private schedule(userId: string): void {
    if (this.stopped) return;
    const previous = this.pending.get(userId);
    if (previous) clearTimeout(previous);
    const timer = setTimeout(() => {
      this.pending.delete(userId);
      void this.checkUser(userId);
    }, ALERT_DEBOUNCE_MS);
    timer.unref();
    this.pending.set(userId, timer);
  }

  /** Checks every user with budgets now (and the pending ones); tests call it after moving the clock. */
  async tick(): Promise<void> {
    for (const timer of this.pending.values()) clearTimeout(timer);
    const users = new Set([...this.pending.keys(), ...(await this.app.services.budgets.owners())]);
    this.pending.clear();
    for (const userId of users) await this.checkUser(userId);
  }

  /** One user's check; serialized so two checks never emit side by side. */
  checkUser(userId: string): Promise<void> {
    const run = this.running.then(() => this.check(userId));
    this.running = run.catch(() => undefined);
    return run.catch((error: unknown) => {
      if (!this.stopped) this.app.log.warn('planning: budget alert check failed', { error: error instanceof Error ? error.message : String(error) });
    });
  }

  private async check(userId: string): Promise<void> {
    if (this.stopped) return;
    const notify = this.app.services.notify;
    const [wants80, wants100] = await Promise.all([notify.wants(userId, 'budget80'), notify.wants(userId, 'budget100')]);
    if (!wants80 && !wants100) return;
    const zone = this.timeZone();
    const month = monthOf(this.app.services.budgets.currentMonth(zone));
    const figures = await this.app.services.budgets.figures(userId, month, zone);
    const language = (await this.app.services.users.language(userId)) === 'zh-CN' ? 'zh-CN' : 'en';
    for (const figure of figures) {
      const level = alertLevel(figure);
      if (level === 100 && wants100) await notify.emit(userId, 'budget100', `${figure.id}:${month}:100`, message(figure, level, month, language));
      // Past 80 % (also straight past 100 % when only the 80 % warning is on): the 80 % warning.
      else if (level >= 80 && wants80) await notify.emit(userId, 'budget80', `${figure.id}:${month}:80`, message(figure, level, month, language));
    }
  }
}

function message(figure: BudgetFigure, level: number, month: string, language: 'en' | 'zh-CN') {
  const money = (minor: number) => moneyText(minor, figure.currency);
  const texts = TEXTS[language];
  return {
    title: texts.title(figure.name, level),
    desp: texts.body(money(figure.spent), money(figure.amount + figure.carried), money(figure.remaining), month),
  };
}
