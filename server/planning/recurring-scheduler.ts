import type { Subscription } from 'rxjs';
import type { AppContext } from '../app-context';
import { nextPending, plans } from './recurring-store';
import type { PlanDoc } from './schema';

/**
 * The timetable of `auto` items: an index in memory of each item's next pending occurrence,
 * loaded at start and kept current by the `plans` change stream (so items that arrive by sync
 * count too). `tick()` compares the clock with the earliest due instant and returns at once when
 * nothing is due; otherwise it hands the due items to `run` one after the other.
 */

interface Entry {
  userId: string;
  /** The next pending occurrence's instant (ms); Infinity when the item has ended or is `confirm`. */
  at: number;
}

/** The timer never sleeps longer than this (a wall clock that jumped, an item that arrived by sync). */
const MAX_SLEEP_MS = 60_000;
const MIN_SLEEP_MS = 1_000;
/** Reminders of coming bills are looked for this often (and at start). */
export const REMIND_EVERY_MS = 15 * 60_000;

export interface SchedulerDeps {
  app: AppContext;
  /** Writes every due occurrence of one item (up to now) and advances its doneThrough. */
  run(recurringId: string): Promise<void>;
  /** Sends the reminders of coming bills (each at most once, the notifier keeps the markers). */
  remind(userIds: string[]): Promise<void>;
}

export class RecurringScheduler {
  private readonly index = new Map<string, Entry>();
  private earliest = Infinity;
  private earliestStale = false;
  private nextRemind = 0;
  private subscription: Subscription | undefined;
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly deps: SchedulerDeps) {}

  /** Loads the items, follows their changes, catches up what was missed and arms the timer. */
  async start(): Promise<void> {
    const docs = await plans(this.deps.app)
      .find({ selector: { kind: 'recurring' } })
      .exec();
    for (const doc of docs) this.update(doc.toJSON() as PlanDoc);
    this.subscription = plans(this.deps.app).$.subscribe((event) => {
      const data = (event as { documentData?: PlanDoc }).documentData ?? (event as { previousDocumentData?: PlanDoc }).previousDocumentData;
      if (!data || data.kind !== 'recurring') return;
      if (event.operation === 'DELETE') this.forget(data.id);
      else this.update(data);
    });
    void this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.subscription?.unsubscribe();
    await this.chain.catch(() => undefined);
  }

  /** Puts an item's next pending occurrence in the index (or takes it out). */
  update(doc: PlanDoc): void {
    if (doc.kind !== 'recurring') return;
    let at = Infinity;
    try {
      const next = doc.mode === 'auto' ? nextPending(doc) : null;
      if (next) at = next.at;
    } catch (error) {
      // One item PennyPost cannot compute (damaged by hand) must not stop the others, nor the start.
      this.deps.app.log.warn('recurring: a rule could not be scheduled', { recurringId: doc.id, error: String(error) });
    }
    this.index.set(doc.id, { userId: doc.userId, at });
    if (at < this.earliest) this.earliest = at;
    else this.earliestStale = true;
    this.arm();
  }

  /** An item whose due occurrence could not be written is tried again at `until` (or when it changes). */
  postpone(id: string, until: number): void {
    const entry = this.index.get(id);
    if (!entry) return;
    entry.at = Math.max(entry.at, until);
    this.earliestStale = true;
    this.arm();
  }

  forget(id: string): void {
    if (this.index.delete(id)) this.earliestStale = true;
  }

  /** The earliest due instant (ms) of every item (Infinity when none). */
  earliestDue(): number {
    if (this.earliestStale) {
      let min = Infinity;
      for (const entry of this.index.values()) if (entry.at < min) min = entry.at;
      this.earliest = min;
      this.earliestStale = false;
    }
    return this.earliest;
  }

  /** Whether stop() was called (a long catch-up stops between two occurrences). */
  get isStopped(): boolean {
    return this.stopped;
  }

  get size(): number {
    return this.index.size;
  }

  /**
   * Writes what is due. Cheap when nothing is: one comparison with the earliest due instant (a
   * scan of the index only after it changed). Runs one after the other (a tick during a tick waits).
   */
  tick(): Promise<void> {
    const now = this.deps.app.clock.now();
    const remind = now >= this.nextRemind;
    if (!remind && now < this.earliestDue() && !this.busy) return this.chain;
    this.busy = true;
    const run = this.chain.then(async () => {
      try {
        await this.runDue();
        if (this.deps.app.clock.now() >= this.nextRemind) {
          this.nextRemind = this.deps.app.clock.now() + REMIND_EVERY_MS;
          await this.deps.remind([...new Set([...this.index.values()].map((e) => e.userId))]);
        }
      } catch (error) {
        this.deps.app.log.warn('recurring: a tick failed', { error: String(error) });
      } finally {
        this.busy = false;
        this.arm();
      }
    });
    this.chain = run;
    return run;
  }
  private busy = false;

  /** Reminders are looked for at the next tick (an item or the reminder settings changed). */
  remindSoon(): void {
    this.nextRemind = 0;
  }

  private async runDue(): Promise<void> {
    // Items written by a run move on (the change stream updates the index); loop until none is due.
    for (let round = 0; round < 1000; round++) {
      const now = this.deps.app.clock.now();
      if (now < this.earliestDue()) return;
      const due = [...this.index.entries()].filter(([, e]) => e.at <= now).map(([id]) => id);
      for (const id of due) {
        if (this.stopped) return;
        await this.deps.run(id);
      }
    }
  }

  private arm(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    const wait = Math.min(MAX_SLEEP_MS, Math.max(MIN_SLEEP_MS, Math.min(this.earliestDue(), this.nextRemind) - this.deps.app.clock.now()));
    this.timer = setTimeout(() => void this.tick(), wait);
    this.timer.unref();
  }
}
