import type { LocalStore } from '../db/local-store';
import type { NotifyEvent } from './types';

/** Weekdays as recurring items name them (byWeekday), Monday first like ISO weeks. */
export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** One account's reminder settings: the app they go through and the events that are on. */
export interface NotifyConfig {
  appId: string;
  /** Only the events that are on (what notify.get answers). */
  events: {
    budget80?: true;
    budget100?: true;
    billDue?: { daysBefore: number };
    goalReached?: true;
    weeklySummary?: { weekday: Weekday; hour: number };
    syncProblem?: true;
    backupProblem?: true;
  };
  updatedAt: number;
}

/** What notify.configure accepts: booleans turn events on, an absent event is off. */
export interface NotifyInput {
  appId: string;
  events: { [K in keyof NotifyConfig['events']]?: NotifyConfig['events'][K] | false };
}

/**
 * Keys in the LOCAL store (never synced): push apps live only on this machine, so only the
 * PennyPost where reminders were configured sends them, and only it remembers what it sent.
 */
export const CONFIG_PREFIX = 'notify:config:';
export const MARK_PREFIX = 'notify:mark:';
export const EPISODE_PREFIX = 'notify:sync-episode:';

/** Whether an event is on in a configuration. */
export function isOn(config: NotifyConfig | undefined, event: NotifyEvent): boolean {
  if (!config) return false;
  const value: unknown = config.events[event];
  return value !== undefined && value !== false;
}

/** Stores only what is on (false and absent are the same: off). */
export function normalize(input: NotifyInput, now: number): NotifyConfig {
  const e = input.events;
  const events: NotifyConfig['events'] = {};
  for (const flag of ['budget80', 'budget100', 'goalReached', 'syncProblem', 'backupProblem'] as const) if (e[flag] === true) events[flag] = true;
  if (e.billDue) events.billDue = { daysBefore: e.billDue.daysBefore };
  if (e.weeklySummary) events.weeklySummary = { weekday: e.weeklySummary.weekday, hour: e.weeklySummary.hour };
  return { appId: input.appId, events, updatedAt: now };
}

/** The reminder settings of the accounts on this machine, in the local store. */
export class NotifyConfigs {
  constructor(private readonly local: () => LocalStore) {}

  key(userId: string): string {
    return CONFIG_PREFIX + userId;
  }

  get(userId: string): Promise<NotifyConfig | undefined> {
    return this.local().get<NotifyConfig>(CONFIG_PREFIX + userId);
  }

  put(userId: string, config: NotifyConfig): Promise<void> {
    return this.local().put(CONFIG_PREFIX + userId, config);
  }

  /** Every configured account, with its settings. */
  async all(): Promise<Array<{ userId: string; config: NotifyConfig }>> {
    const rows = await this.local().entries<NotifyConfig>(CONFIG_PREFIX);
    return rows.map(([key, config]) => ({ userId: key.slice(CONFIG_PREFIX.length), config }));
  }
}
