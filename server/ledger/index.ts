import type { Domain } from '../domain';
import { ledgerCollections } from './schema';

/** Assets, records, categories, exchange rates, statistics, import/export. */
export function ledgerDomain(): Domain {
  return {
    name: 'ledger',
    collections: ledgerCollections,
  };
}
