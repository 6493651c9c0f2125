import type { AppContext } from '../app-context';
import type { Calendar } from './calendar';
import type { PlayerPrefs } from './player-prefs';
import { UserCache } from './user-cache';

/** How a player keeps their books: what the bookkeeping achievements and the streak leaderboard measure. */
export interface BookkeepingDays {
  /** Ledger records of the player, however they arrived (typed, imported, synced). */
  count: number;
  /** Sorted distinct day numbers (player's zone) on which records were added. */
  days: number[];
  /** The zone the days were counted in (a new record's day is added with it). */
  calendar: Calendar;
}

/**
 * Each player's record count and bookkeeping days, from the ledger service (which keeps every
 * record of the player in memory, sync included), cached and kept current from its record changes.
 */
export class BookkeepingStats {
  private readonly cache = new UserCache<BookkeepingDays>();

  constructor(
    private readonly app: AppContext,
    private readonly prefs: PlayerPrefs,
  ) {}

  of(userId: string): Promise<BookkeepingDays> {
    return this.cache.get(userId, async () => {
      const calendar = await this.prefs.calendarOf(userId);
      const view = await this.app.services.ledger.views.get(userId);
      const days = new Set<number>();
      for (const entry of view.entries) days.add(calendar.dayOf(entry.createdAt));
      return { count: view.entries.length, days: [...days].sort((a, b) => a - b), calendar };
    });
  }

  /** Counts the days again on next use (the player's time zone changed). */
  invalidate(userId: string): void {
    this.cache.invalidate(userId);
  }

  /** A record of the player was written, changed or deleted. */
  recordChanged(userId: string, operation: 'INSERT' | 'UPDATE' | 'DELETE', createdAt: number): void {
    // A new record only adds one to the count and maybe a day: update in place instead of
    // recounting every record of the player (100,000 of them in a big ledger).
    const stats = operation === 'INSERT' ? this.cache.peek(userId) : undefined;
    if (!stats) {
      this.cache.invalidate(userId);
      return;
    }
    stats.count++;
    const day = stats.calendar.dayOf(createdAt);
    let lo = 0;
    let hi = stats.days.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const at = stats.days.at(mid);
      if (at === undefined) throw new Error('BookkeepingStats: the search left the days'); // lo <= mid < hi <= length
      if (at < day) lo = mid + 1;
      else hi = mid;
    }
    if (stats.days[lo] !== day) stats.days.splice(lo, 0, day);
  }
}
