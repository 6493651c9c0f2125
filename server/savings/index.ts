import type { Domain } from '../domain';
import { savingsActions } from './actions';
import { savingsCollections } from './schema';
import { SavingsService } from './service';

/** The savings game: goals, the virtual market and wallet, achievements, the leaderboard. */
export function savingsDomain(): Domain {
  let service: SavingsService | undefined;
  return {
    name: 'savings',
    collections: savingsCollections,
    actions: savingsActions,
    start(app) {
      service = new SavingsService(app);
      app.services.savings = service;
      service.start();
    },
    async stop() {
      await service?.stop();
    },
  };
}
