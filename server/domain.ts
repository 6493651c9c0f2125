import type { Router } from 'express';
import type { AppContext } from './app-context';
import type { ActionMap, AnyAction } from './api/action';
import type { ErrorCatalogue, ErrorRow } from './lib/errors';
import type { CollectionDefinition } from './db/collections';

/**
 * One folder of server/ (users, ledger, push, …). The server opens the database with every
 * domain's collections, starts the domains in order (a domain may use services of the ones
 * before it), mounts their routes and actions, and stops them in reverse order.
 */
export interface Domain {
  name: string;
  /**
   * Domains whose services this one uses as `app.services.<name>`: they must be part of the server
   * and start before it (checked at start, `checkDomainOrder`).
   */
  needs?: readonly string[];
  /**
   * Domains whose services it uses when they are there, through `optionalService(app, name)`
   * (typed `| undefined`): they may be absent or start after it (a restore's snapshot, the weekly
   * summary's budgets). `server/domains.test.ts` proves that each domain reaches only the services
   * it declares here, and only the way it declares.
   */
  uses?: readonly string[];
  collections?: readonly CollectionDefinition[];
  /**
   * The domain's error catalogue (`<domain>/errors.ts`): one row per error it answers with. Typed
   * by its rows, which is all docs/api.md reads (a catalogue's factories cannot be typed by an
   * index signature next to `rows`).
   */
  errors?: Pick<ErrorCatalogue<Record<string, ErrorRow>>, 'rows'>;
  /** The domain's /api actions by name (`defineActions`). */
  actions?: ActionMap;
  /** Publishes services into app.services; runs after the database opened, before listening. */
  start?(app: AppContext): void | Promise<void>;
  /** HTTP routes outside /api (/send, /s/, /m/, file bytes…). */
  routes?(router: Router, app: AppContext): void;
  /**
   * An account is being deleted: drop what this domain keeps about it outside its collections
   * (files on disk, sync replications, caches). Documents with a `userId` field are removed by the
   * server afterwards, for every collection at once.
   */
  forgetUser?(app: AppContext, userId: string): Promise<void>;
  /** Runs after the HTTP server stopped accepting and finished in-flight requests. */
  stop?(app: AppContext): void | Promise<void>;
}

/** Every action of these domains, in domain order. */
export function actionsOf(domains: readonly Domain[]): AnyAction[] {
  return domains.flatMap((domain) => Object.values(domain.actions ?? {}));
}

/** Types a domain and keeps the literal type of its actions (the UI's client types read them). */
export function defineDomain<D extends Domain>(domain: D): D {
  return domain;
}

/** Every domain's error catalogue, by domain name (docs/api.md names the rows with it). */
export function cataloguesOf(domains: readonly Domain[]): Record<string, { rows: Record<string, ErrorRow> }> {
  return Object.fromEntries(domains.flatMap((d) => (d.errors ? [[d.name, d.errors] as const] : [])));
}

/**
 * Refuses a list of domains in which a domain needs one that is missing or starts after it, or
 * names itself: the server would fail later, at the first request that reaches the service.
 */
export function checkDomainOrder(domains: readonly Pick<Domain, 'name' | 'needs' | 'uses'>[]): void {
  const seen = new Set<string>();
  for (const domain of domains) {
    for (const name of [...(domain.needs ?? []), ...(domain.uses ?? [])]) {
      if (name === domain.name) throw new Error(`The ${domain.name} domain lists itself among the domains it needs or uses.`);
    }
    for (const name of domain.needs ?? []) {
      if (!seen.has(name)) {
        const later = domains.some((d) => d.name === name);
        throw new Error(`The ${domain.name} domain needs the ${name} domain, which ${later ? 'starts after it' : 'is not part of this server'}.`);
      }
    }
    seen.add(domain.name);
  }
}
