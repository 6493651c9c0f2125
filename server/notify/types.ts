/**
 * Reminders and alerts through the person's own push apps (docs/budgets.md, "Reminders").
 * Other domains emit events through app.services.notify; the notifier sends each (userId, event,
 * key) at most once, through the app chosen in notify.configure, when that event is turned on.
 */
export const NOTIFY_EVENTS = ['budget80', 'budget100', 'billDue', 'goalReached', 'weeklySummary', 'syncProblem', 'backupProblem'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

export interface NotifyMessage {
  title: string;
  /** Markdown body. */
  desp: string;
}

/** What happened to an emitted event. */
export type EmitOutcome = 'sent' | 'duplicate' | 'off' | 'failed';

export interface Notifier {
  /**
   * Sends `message` for `event` unless it is off for this person or was sent for `key` already
   * (keys name the occurrence: a budget and month, an item and date, a goal, an ISO week…).
   */
  emit(userId: string, event: NotifyEvent, key: string, message: NotifyMessage): Promise<EmitOutcome>;
  /** Whether `event` is on for this person (callers skip building messages nobody will get). */
  wants(userId: string, event: NotifyEvent): Promise<boolean>;
  /**
   * How many days before a bill (a recurring occurrence) its reminder goes out (billDue's
   * daysBefore), or null when billDue is off.
   */
  billDueDays(userId: string): Promise<number | null>;
}
