import type { AppContext } from '../app-context';
import type { UpcomingOccurrence } from './types';

/** Recurring rules: their documents in `plans` (kind 'recurring'), the scheduler and its catch-up. */
export class RecurringService {
  constructor(private readonly app: AppContext) {}

  start(): void {
    void this.app;
  }

  async stop(): Promise<void> {}

  upcoming(userId: string, days: number): Promise<UpcomingOccurrence[]> {
    void userId;
    void days;
    return Promise.resolve([]);
  }
}
