import { appInfoDomain } from './app-info';
import { backupDomain } from './backup';
import { cataloguesOf, type Domain } from './domain';
import { apiErrors } from './api/errors';
import { commonErrors } from './lib/errors';
import { filesDomain } from './files';
import { importsDomain } from './imports';
import { ledgerDomain } from './ledger';
import { linksDomain } from './links';
import { notifyDomain } from './notify';
import { planningDomain } from './planning';
import { pushDomain } from './push';
import { savingsDomain } from './savings';
import { settingsDomain } from './settings';
import { syncDomain } from './sync';
import { usersDomain } from './users';

/**
 * Every domain of PennyPost, in start order (a domain may use the services of those before it).
 * Their collections together must stay within the schema budget (server/db/README.md).
 */
const DOMAINS = [
  usersDomain,
  filesDomain,
  ledgerDomain,
  linksDomain,
  savingsDomain,
  pushDomain,
  notifyDomain,
  planningDomain,
  importsDomain,
  settingsDomain,
  syncDomain,
  appInfoDomain,
  backupDomain,
] as const;

export function allDomains(): Domain[] {
  return DOMAINS.map((create) => create());
}

/**
 * Every error catalogue by name: the shared rows, the /api wrapper's, and each domain's. docs/api.md
 * names rows with it; the tests take each code's HTTP status from it.
 */
export function allErrorCatalogues(domains: readonly Domain[] = allDomains()) {
  return { common: commonErrors, api: apiErrors, ...cataloguesOf(domains) };
}

type ActionsOf<D> = D extends { actions: infer A } ? A : unknown;
type Intersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/**
 * Every /api action by name → its definition (params schema, auth, handler), straight from the
 * domains' action maps. The UI's typed client (renderer/src/api/client.ts) reads params and
 * results from it, so a call with a wrong param is a compile error and nothing is generated.
 */
export type ActionDeclarations = Intersection<ActionsOf<ReturnType<(typeof DOMAINS)[number]>>>;
