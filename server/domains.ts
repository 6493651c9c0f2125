import type { Domain } from './domain';
import { ledgerDomain } from './ledger';
import { usersDomain } from './users';
import { filesDomain } from './files';
import { savingsDomain } from './savings';
import { pushDomain } from './push';

/**
 * Every domain of PennyPost, in start order (a domain may use the services of those before it).
 * Their collections together must stay within the schema budget (server/db/README.md).
 */
export function allDomains(): Domain[] {
  return [usersDomain(), ledgerDomain(), filesDomain(), savingsDomain(), pushDomain()];
}
