import type { AppContext } from '../app-context';
import { Calendar } from './calendar';
import { savingsErrors } from './errors';
import type { SavingsPrefsView } from './result-shapes';

export interface SavingsPrefs {
  leaderboardOptIn: boolean;
  /** IANA zone for days (streaks, saving days, leaderboard weeks); '' = this computer's zone. */
  timeZone: string;
}

export type { SavingsPrefsView } from './result-shapes';

/** A player's savings preferences from the `savings` namespace of their account's prefs (defaults for anything else). */
export function readSavingsPrefs(stored: unknown): SavingsPrefs {
  const fields: Partial<Record<string, unknown>> = typeof stored === 'object' && stored !== null ? stored : {};
  const timeZone = fields.timeZone;
  return {
    leaderboardOptIn: fields.leaderboardOptIn === true,
    timeZone: typeof timeZone === 'string' && Calendar.isValidZone(timeZone) ? timeZone : '',
  };
}

/**
 * The players' preferences (leaderboard opt-in, the time zone of their game days), kept in the
 * `savings` namespace of their account (the users service), and the calendars of those zones.
 */
export class PlayerPrefs {
  private readonly calendars = new Map<string, Calendar>();

  constructor(
    private readonly app: AppContext,
    /** Called after a player's time zone changed (their days are counted anew). */
    private readonly onTimeZoneChange: (userId: string) => void,
  ) {}

  calendar(timeZone: string): Calendar {
    let calendar = this.calendars.get(timeZone);
    if (!calendar) {
      calendar = new Calendar(timeZone);
      this.calendars.set(timeZone, calendar);
    }
    return calendar;
  }

  async of(userId: string): Promise<SavingsPrefs> {
    return readSavingsPrefs(await this.app.services.users.getPrefs(userId, 'savings'));
  }

  async view(userId: string): Promise<SavingsPrefsView> {
    const prefs = await this.of(userId);
    return { ...prefs, effectiveTimeZone: this.calendar(prefs.timeZone).timeZone };
  }

  async calendarOf(userId: string): Promise<Calendar> {
    return this.calendar((await this.of(userId)).timeZone);
  }

  async update(userId: string, patch: Partial<SavingsPrefs>): Promise<SavingsPrefsView> {
    if (patch.timeZone !== undefined && !Calendar.isValidZone(patch.timeZone)) throw savingsErrors.unknownTimeZone(patch.timeZone).at('timeZone');
    const changes: Partial<SavingsPrefs> = {};
    if (patch.leaderboardOptIn !== undefined) changes.leaderboardOptIn = patch.leaderboardOptIn;
    if (patch.timeZone !== undefined) changes.timeZone = patch.timeZone;
    await this.app.services.users.updatePrefs(userId, 'savings', changes);
    if (patch.timeZone !== undefined) this.onTimeZoneChange(userId);
    return this.view(userId);
  }
}
