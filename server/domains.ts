import { appInfoDomain } from './app-info';
import { backupDomain } from './backup';
import type { Domain } from './domain';
import { filesDomain } from './files';
import { ledgerDomain } from './ledger';
import { linksDomain } from './links';
import { pushDomain } from './push';
import { savingsDomain } from './savings';
import { settingsDomain } from './settings';
import { syncDomain } from './sync';
import { usersDomain } from './users';

/**
 * Every domain of PennyPost, in start order (a domain may use the services of those before it).
 * Their collections together must stay within the schema budget (server/db/README.md).
 */
export function allDomains(): Domain[] {
  return [usersDomain(), ledgerDomain(), filesDomain(), linksDomain(), savingsDomain(), pushDomain(), settingsDomain(), syncDomain(), appInfoDomain(), backupDomain()];
}
