import type { AppContext } from '../app-context';
import { pushErrors } from './errors';
import type { HistoryStore } from './history';
import type { Priority } from './message-options';

/**
 * Scheduled pushes (docs/push.md "Scheduled pushes"): kept in the local store (`app.db.local`,
 * fsynced, never synced), one record per push, and an index of them in memory. One timer waits for
 * the earliest due push; it is re-armed after every run, on start, on add and on cancel.
 *
 * Sent once: a push is durably marked `sending` before it is handed to the sender (which journals
 * and records it like an immediate push) and its record is removed after its history row is written.
 * A record still marked `sending` at start was interrupted: if its history row exists it is just
 * dropped, otherwise a failed row says the outcome is unknown. It is never sent again.
 */

/** A scheduled push as stored. */
export interface ScheduledEntry {
  /** The push id: also the id of its history row once sent (newId of its due time). */
  id: string;
  userId: string;
  appId: string;
  appName: string;
  title: string;
  desp: string;
  priority: Priority;
  group: string;
  caller: string;
  /** When it was scheduled (ms). */
  createdAt: number;
  /** When it is due (ms). */
  at: number;
  state: 'waiting' | 'sending';
}

/** What the index keeps in memory (everything but the text). */
export type ScheduledSummary = Omit<ScheduledEntry, 'desp'>;

const PREFIX = 'push-scheduled:';
/** The most pushes waiting per account. */
export const SCHEDULED_PER_USER = 1000;
/** A push found more than this late (the server was stopped at its time) is recorded as missed, not sent. */
export const LATE_LIMIT_MS = 24 * 3600 * 1000;
/** The timer never waits longer than this before looking again (a wall clock that jumped, a long sleep). */
const MAX_TIMER_MS = 60 * 1000;
/** How many due pushes are delivered at once. */
const CONCURRENCY = 4;

export interface ScheduledDeps {
  app: AppContext;
  history: HistoryStore;
  /** Sends a due push (its record is already marked `sending`) and records it in the history. */
  send(entry: ScheduledEntry): Promise<void>;
  /** Records a push that is not sent, as a failed history row with this summary. */
  fail(entry: ScheduledEntry, summary: string): Promise<void>;
  /** The most pushes waiting per account (default SCHEDULED_PER_USER; tests lower it). */
  perUser?: number;
}

export class ScheduledPushes {
  private readonly index = new Map<string, ScheduledSummary>();
  /** Pushes being stored, per user: they count against the limit before their write, so concurrent adds cannot pass it. */
  private readonly reserved = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly deps: ScheduledDeps) {}

  private get local() {
    return this.deps.app.db.local;
  }

  private now(): number {
    return this.deps.app.clock.now();
  }

  /** Loads the records, settles the interrupted ones, and arms the timer (due ones are sent right after the start). */
  async start(): Promise<{ interrupted: number; waiting: number }> {
    const records = await this.local.entries<ScheduledEntry | null>(PREFIX);
    let interrupted = 0;
    for (const [key, entry] of records) {
      // Left by an earlier run: a record that is not one is dropped.
      if (!entry || typeof entry.id !== 'string' || typeof entry.at !== 'number' || key !== PREFIX + entry.id) {
        await this.local.del(key);
        continue;
      }
      if (entry.state === 'sending') {
        interrupted++;
        if (!(await this.deps.history.get(entry.id))) {
          await this.deps.fail(entry, 'PennyPost stopped while this scheduled push was being sent; whether it arrived is unknown. It was not sent again.');
        }
        await this.local.del(key);
        continue;
      }
      this.index.set(entry.id, summaryOf(entry));
    }
    this.arm();
    return { interrupted, waiting: this.index.size };
  }

  /** Durably stores a push to send at `entry.at`. */
  async add(entry: Omit<ScheduledEntry, 'state'>): Promise<void> {
    const { userId } = entry;
    const limit = this.deps.perUser ?? SCHEDULED_PER_USER;
    // Counted and reserved before the first await: the check and the reservation are one step.
    let count = this.reserved.get(userId) ?? 0;
    for (const item of this.index.values()) if (item.userId === userId) count++;
    if (count >= limit) throw pushErrors.tooManyScheduled(limit);
    this.reserved.set(userId, (this.reserved.get(userId) ?? 0) + 1);
    const record: ScheduledEntry = { ...entry, state: 'waiting' };
    try {
      await this.local.put(PREFIX + entry.id, record);
      this.index.set(entry.id, summaryOf(record));
    } finally {
      // Stored: counted by the index from now on; failed: the slot is free again.
      const left = (this.reserved.get(userId) ?? 1) - 1;
      if (left > 0) this.reserved.set(userId, left);
      else this.reserved.delete(userId);
    }
    this.arm();
  }

  /** The user's pending pushes, soonest first. */
  list(userId: string): ScheduledSummary[] {
    return [...this.index.values()].filter((e) => e.userId === userId).sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1));
  }

  /** Cancels a pending push of the user: 404 for none of theirs, 409 once it is being sent or was sent. */
  async cancel(userId: string, id: string): Promise<ScheduledSummary> {
    const entry = this.index.get(id);
    if (!entry || entry.userId !== userId) {
      const sent = await this.deps.history.get(id);
      if (sent && sent.userId === userId) throw pushErrors.scheduledAlreadySent();
      throw pushErrors.scheduledNotFound();
    }
    if (entry.state === 'sending') throw pushErrors.scheduledAlreadySent();
    // Out of the index before the first await, so the timer cannot pick it up meanwhile.
    this.index.delete(id);
    try {
      await this.local.del(PREFIX + id);
    } catch (error) {
      this.index.set(id, entry);
      throw error;
    }
    this.arm();
    return entry;
  }

  /**
   * An app's key was reset (it may have leaked): the pushes scheduled with the old key are not
   * sent — each is recorded as a failed push saying why — and the count dropped is answered.
   */
  async dropApp(userId: string, appId: string): Promise<number> {
    let dropped = 0;
    for (const summary of this.list(userId)) {
      if (summary.appId !== appId || summary.state !== 'waiting') continue;
      // Out of the index before the first await, so the timer cannot pick it up meanwhile.
      this.index.delete(summary.id);
      const entry = (await this.local.get<ScheduledEntry>(PREFIX + summary.id)) ?? { ...summary, desp: '' };
      await this.deps.fail(entry, 'Not sent: the app key this push was scheduled with was reset (push.resetAppKey) before its time.');
      await this.local.del(PREFIX + summary.id);
      dropped++;
    }
    this.arm();
    return dropped;
  }

  /** An account is being deleted: its pushes are dropped unsent. */
  async forgetUser(userId: string): Promise<void> {
    for (const entry of this.list(userId)) {
      if (entry.state === 'sending') continue;
      this.index.delete(entry.id);
      await this.local.del(PREFIX + entry.id);
    }
    this.arm();
  }

  /** Sends every push that is due now (the timer's work; tests call it after moving their clock). */
  runDue(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.running ??= this.sendDue().finally(() => {
      this.running = undefined;
      // A push still due after a run could not be marked (a disk error): looked at again a second later, not in a loop.
      this.arm(1000);
    });
    return this.running;
  }

  private async sendDue(): Promise<void> {
    // Each push is tried once per run: one that could not even be marked waits for the next run.
    const tried = new Set<string>();
    for (;;) {
      const now = this.now();
      const due = [...this.index.values()].filter((e) => e.state === 'waiting' && e.at <= now && !tried.has(e.id)).sort((a, b) => a.at - b.at);
      for (const entry of due) tried.add(entry.id);
      if (due.length === 0 || this.stopped) return;
      for (let i = 0; i < due.length && !this.halted(); i += CONCURRENCY) {
        await Promise.all(due.slice(i, i + CONCURRENCY).map((entry) => this.sendOne(entry.id, now)));
      }
    }
  }

  /** Read through a call: stop() may set it while a run awaits. */
  private halted(): boolean {
    return this.stopped;
  }

  private async sendOne(id: string, now: number): Promise<void> {
    const { app } = this.deps;
    const key = PREFIX + id;
    const summary = this.index.get(id);
    if (summary?.state !== 'waiting') return;
    // Claimed before the first await: a cancel from here on answers 409.
    summary.state = 'sending';
    let entry: ScheduledEntry;
    try {
      const stored = await this.local.get<ScheduledEntry>(key);
      if (!stored) {
        this.index.delete(id);
        return;
      }
      // Durably "being sent" before anything leaves: a crash from here on never sends it again.
      entry = { ...stored, state: 'sending' };
      await this.local.put(key, entry);
    } catch (error) {
      // Not marked, so nothing left: it waits for the next run.
      summary.state = 'waiting';
      app.log.error('push: could not mark a scheduled push as being sent', { pushId: id, error: (error as Error | null | undefined)?.message });
      return;
    }
    try {
      const late = now - entry.at;
      if (late > LATE_LIMIT_MS) {
        const hours = Math.round(late / 3_600_000);
        await this.deps.fail(entry, `Missed: PennyPost was not running when this push was due (${hours} hours ago), so it was not sent.`);
      } else {
        await this.deps.send(entry);
      }
      await this.local.del(key);
      this.index.delete(id);
    } catch (error) {
      // Left marked `sending`: the next start records it as interrupted (it is not retried, so never sent twice).
      app.log.error('push: scheduled push failed', { pushId: id, error: (error as Error | null | undefined)?.message });
    }
  }

  /** (Re-)arms the one timer for the earliest waiting push. */
  private arm(floorMs = 0): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped) return;
    let earliest = Infinity;
    for (const entry of this.index.values()) if (entry.state === 'waiting' && entry.at < earliest) earliest = entry.at;
    if (earliest === Infinity) return;
    const wait = Math.min(MAX_TIMER_MS, Math.max(floorMs, earliest - this.now()));
    this.timer = setTimeout(() => void this.runDue(), wait);
    this.timer.unref();
  }

  /** Stops the timer and waits for the pushes being sent. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}

function summaryOf(entry: ScheduledEntry): ScheduledSummary {
  const { desp: _desp, ...summary } = entry;
  return summary;
}
