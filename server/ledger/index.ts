import { defineDomain } from '../domain';
import { assetActions } from './asset-actions';
import { bulkActions } from './bulk-actions';
import { categoryActions } from './category-actions';
import { currencyActions } from './currency-actions';
import { ledgerErrors } from './errors';
import { ioActions } from './io-actions';
import { recordActions } from './record-actions';
import { ledgerCollections } from './schema';
import { LedgerService } from './service';
import { statsActions } from './stats-actions';
import { registerLedgerArrivalChecks } from './arrival-checks';

declare module '../app-context' {
  interface ServiceMap {
    ledger: LedgerService;
  }
}

/** Every action of the ledger, by name (docs/api.md lists them in this order). */
export const ledgerActions = { ...assetActions, ...recordActions, ...bulkActions, ...categoryActions, ...currencyActions, ...statsActions, ...ioActions };

/** Assets, records, categories, exchange rates, statistics, import/export. */
export function ledgerDomain() {
  let stopped = false;
  return defineDomain({
    name: 'ledger',
    needs: ['users'],
    uses: ['files', 'backup'],
    collections: ledgerCollections,
    errors: ledgerErrors,
    actions: ledgerActions,
    start(app) {
      const ledger = new LedgerService(app);
      ledger.views.start();
      ledger.categories.start();
      app.services.ledger = ledger;
      // What records and assets that arrive by sync must obey (server/arrival-checks.ts).
      registerLedgerArrivalChecks(app);
      // After the server is up, build the views of the people who are signed in, so their first
      // screen does not wait for a whole ledger to load (≈ 1 s per 100,000 records).
      setTimeout(() => {
        void (async () => {
          for (const userId of await app.services.users.sessions.activeUserIds()) {
            if (stopped) return;
            await ledger.views.get(userId);
          }
        })().catch((error: unknown) => {
          if (!stopped) app.log.warn('ledger: warming the views failed', { error: error instanceof Error ? error.message : String(error) });
        });
      }, 50).unref();
    },
    async forgetUser(app, userId) {
      // undo tokens hold copies of the account's records (server/ledger/undo.ts)
      app.services.ledger.bulk.undo.forgetUser(userId);
      await app.services.ledger.views.forget(userId);
    },
    async stop(app) {
      stopped = true;
      app.services.ledger.views.stop();
      app.services.ledger.categories.stop();
      // the next start restores the views from here instead of reading every record
      await app.services.ledger.views.flush();
    },
  });
}
