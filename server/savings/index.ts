import { defineDomain } from '../domain';
import { savingsActions } from './actions';
import { savingsErrors } from './errors';
import { savingsCollections } from './schema';
import { SavingsService } from './service';
import { registerSavingsArrivalChecks } from './arrival-checks';

/** The savings game: goals, the virtual market and wallet, achievements, the leaderboard. */
export function savingsDomain() {
  let service: SavingsService | undefined;
  return defineDomain({
    name: 'savings',
    needs: ['users', 'ledger'],
    collections: savingsCollections,
    errors: savingsErrors,
    actions: savingsActions,
    start(app) {
      service = new SavingsService(app);
      app.services.savings = service;
      service.start();
      // What wallet entries, goals and unlocks that arrive by sync must prove (server/arrival-checks.ts).
      registerSavingsArrivalChecks(app, service);
    },
    async stop() {
      await service?.stop();
    },
  });
}
