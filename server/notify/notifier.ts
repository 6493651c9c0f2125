import { optionalService, type AppContext } from '../app-context';
import { localTimeZone } from '../lib/calendar';
import { KeyedMutex } from '../lib/keyed-mutex';
import { describeError } from '../lib/logger';
import type { SendData } from '../push/public';
import { isOn, MARK_PREFIX, normalize, NotifyConfigs, type NotifyConfig, type NotifyInput } from './config';
import { messageLanguage } from './messages';
import { notifyErrors } from './errors';
import { EventSources } from './sources';
import type { EmitOutcome, Notifier, NotifyEvent, NotifyMessage } from './types';
import { composeWeeklySummary, dueWeek } from './weekly';
import type { NotifyView } from './result-shapes';

const DAY = 24 * 60 * 60 * 1000;
/** How long a sent-marker is kept: longer than any occurrence key can come back (keys carry their month, week or date). */
export const MARKER_DAYS = 400;
/** How often the real timer ticks (weekly summary, sync watch, marker pruning). */
const TICK_EVERY_MS = 60 * 1000;
/** What the push history shows as the caller of a reminder. */
export const REMINDER_CALLER = 'PennyPost reminders';

/** notify.get's answer. */
export type { NotifyView } from './result-shapes';

/** A sent-marker in the local store: written 'sending' before the push, then 'sent' or 'failed'. */
export interface SentMarker {
  state: 'sending' | 'sent' | 'failed';
  event: NotifyEvent;
  at: number;
  pushId?: string;
}

/**
 * Sends each reminder once through the person's chosen push app. Configuration and sent-markers
 * live in the local store (never synced): only the PennyPost where reminders were configured, which
 * holds the push app, sends them.
 *
 * At most once: the marker of (account, event, key) is written durably, as 'sending', BEFORE the
 * message is handed to the push app; whatever happens after (a crash mid-delivery, a restart, the
 * same event emitted again), the key is never sent a second time. A crash between the marker and
 * the delivery loses that one message rather than sending it twice.
 */
export class PushNotifier implements Notifier {
  private readonly configs: NotifyConfigs;
  private readonly locks = new KeyedMutex();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly sources: EventSources;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private lastPrune = 0;
  private stopped = false;
  /** The zone of the weekly summary's weekday and hour: the server's own (tests set it). */
  timeZone = localTimeZone();

  constructor(readonly app: AppContext) {
    this.configs = new NotifyConfigs(() => app.db.local);
    this.sources = new EventSources(app, this);
  }

  start(): void {
    this.stopped = false;
    this.sources.start();
    this.timer = setInterval(() => void this.tick(), TICK_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.sources.stop();
    await this.ticking;
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  // ---- configuration (notify.configure / notify.get) ----

  async configure(userId: string, input: NotifyInput): Promise<NotifyView> {
    const push = this.app.services.push;
    if (!push.ownsApp(userId, input.appId)) throw notifyErrors.appNotFound().at('appId');
    const config = normalize(input, this.app.clock.now());
    await this.configs.put(userId, config);
    return this.out(userId, config);
  }

  async get(userId: string): Promise<NotifyView> {
    return this.out(userId, await this.configs.get(userId));
  }

  private out(userId: string, config: NotifyConfig | undefined): NotifyView {
    if (!config) return { configured: false, appId: null, appName: null, events: {}, updatedAt: null };
    return { configured: true, appId: config.appId, appName: this.appName(userId, config), events: config.events, updatedAt: config.updatedAt };
  }

  private appName(userId: string, config: NotifyConfig): string | null {
    const push = this.app.services.push;
    return push.ownsApp(userId, config.appId) ? (push.targets.get(config.appId)?.name ?? null) : null;
  }

  // ---- Notifier ----

  async wants(userId: string, event: NotifyEvent): Promise<boolean> {
    return isOn(await this.configs.get(userId), event);
  }

  /** billDue's days of warning, or null when bill reminders are off (the recurring scheduler asks). */
  async billDueDays(userId: string): Promise<number | null> {
    return (await this.configs.get(userId))?.events.billDue?.daysBefore ?? null;
  }

  /** The accounts that have `event` on (sources that concern every account: backup problems). */
  async accountsWanting(event: NotifyEvent): Promise<string[]> {
    return (await this.configs.all()).filter((c) => isOn(c.config, event)).map((c) => c.userId);
  }

  emit(userId: string, event: NotifyEvent, key: string, message: NotifyMessage): Promise<EmitOutcome> {
    const run = this.locks.run(userId, () => this.emitNow(userId, event, key, message));
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run)).catch(() => undefined);
    return run;
  }

  private async emitNow(userId: string, event: NotifyEvent, key: string, message: NotifyMessage): Promise<EmitOutcome> {
    const config = await this.configs.get(userId);
    if (!config || !isOn(config, event)) return 'off';
    const local = this.app.db.local;
    const markKey = `${MARK_PREFIX}${userId}:${event}:${key}`;
    if (await local.get<SentMarker>(markKey)) return 'duplicate';
    const push = this.app.services.push;
    if (!push.ownsApp(userId, config.appId)) {
      // Nothing was sent, so nothing is marked: the reminder goes out if the app is chosen again in time.
      this.app.log.warn('notify: the reminder app was deleted; pick another in the reminder settings', { userId, event });
      return 'failed';
    }
    const marker: SentMarker = { state: 'sending', event, at: this.app.clock.now() };
    await local.put(markKey, marker);
    let outcome: EmitOutcome = 'failed';
    try {
      const answer = await push.sendAsApp(userId, config.appId, message, REMINDER_CALLER);
      const data = answer?.body.data as SendData | null | undefined;
      marker.pushId = data?.pushId;
      outcome = data && data.success > 0 ? 'sent' : 'failed';
      if (outcome === 'failed') this.app.log.warn('notify: a reminder was not delivered (see the push history)', { userId, event, pushId: data?.pushId });
    } catch (error) {
      this.app.log.error('notify: sending a reminder crashed', { userId, event, ...describeError(error) });
    }
    marker.state = outcome === 'sent' ? 'sent' : 'failed';
    await local.put(markKey, marker).catch((error: unknown) => this.app.log.warn('notify: could not update a sent-marker', describeError(error)));
    return outcome;
  }

  // ---- the timer ----

  /** One pass of the timer: weekly summaries that are due, sync problems, marker pruning. Tests call it after moving the clock. */
  tick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.ticking ??= this.tickNow().finally(() => (this.ticking = null));
    return this.ticking;
  }

  private async tickNow(): Promise<void> {
    try {
      const now = this.app.clock.now();
      for (const { userId, config } of await this.configs.all()) {
        if (this.stopped) return;
        const weekly = config.events.weeklySummary;
        if (weekly) {
          const week = dueWeek(now, this.timeZone, weekly);
          if (week) await this.sendWeekly(userId, week, now);
        }
        if (config.events.syncProblem) await this.sources.checkSync(userId, now);
        else await this.sources.forgetSync(userId);
      }
      if (now - this.lastPrune >= DAY) {
        this.lastPrune = now;
        await this.prune(now);
      }
    } catch (error) {
      this.app.log.warn('notify: the reminder timer failed', describeError(error));
    }
  }

  private async sendWeekly(userId: string, week: string, now: number): Promise<void> {
    if (await this.app.db.local.get(`${MARK_PREFIX}${userId}:weeklySummary:${week}`)) return;
    const planning = optionalService(this.app, 'planning'); // starts after notify; absent on servers without it
    const language = messageLanguage(await this.app.services.users.language(userId));
    const message = await composeWeeklySummary(planning, userId, now, this.timeZone, week, language);
    await this.emit(userId, 'weeklySummary', week, message);
  }

  /** The automatic daily snapshot failed (the backup service calls this). */
  backupFailed(failure: { id: string; at: number }): Promise<void> {
    return this.sources.backupFailed(failure).catch((error: unknown) => this.app.log.warn('notify: backup reminder failed', describeError(error)));
  }

  /** Drops sent-markers older than MARKER_DAYS. */
  async prune(now = this.app.clock.now()): Promise<number> {
    const local = this.app.db.local;
    const old = (await local.entries<SentMarker>(MARK_PREFIX)).filter(([, m]) => now - m.at > MARKER_DAYS * DAY).map(([key]) => ({ type: 'del' as const, key }));
    if (old.length > 0) await local.batch(old);
    return old.length;
  }

  /** An account is deleted: its settings, markers and sync episodes go with it. */
  async forgetUser(userId: string): Promise<void> {
    const local = this.app.db.local;
    const keys = [
      ...(await local.entries(MARK_PREFIX + userId + ':')).map(([key]) => key),
      ...(await this.sources.episodeKeys(userId)),
      ...((await this.configs.get(userId)) ? [this.configs.key(userId)] : []),
    ];
    if (keys.length > 0) await local.batch(keys.map((key) => ({ type: 'del' as const, key })));
  }
}
