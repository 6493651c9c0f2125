import type { AppContext } from '../app-context';
import type { UpcomingOccurrence } from './types';

/** Recurring rules: their documents in `plans` (kind 'recurring'), the scheduler and its catch-up. */
export class RecurringService {
  constructor(readonly app: AppContext) {}

  start(): void {
    // the scheduler starts here
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  upcoming(_userId: string, _days: number): Promise<UpcomingOccurrence[]> {
    return Promise.resolve([]);
  }
}
