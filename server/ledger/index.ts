import type { Domain } from '../domain';
import { ledgerActions } from './actions';
import { ioActions } from './io-actions';
import { ledgerCollections } from './schema';
import { LedgerService } from './service';

/** Assets, records, categories, exchange rates, statistics, import/export. */
export function ledgerDomain(): Domain {
  return {
    name: 'ledger',
    collections: ledgerCollections,
    actions: [...ledgerActions, ...ioActions],
    start(app) {
      const ledger = new LedgerService(app);
      ledger.views.start();
      ledger.categories.start();
      app.services.ledger = ledger;
    },
    stop(app) {
      app.services.ledger?.views.stop();
      app.services.ledger?.categories.stop();
    },
  };
}
