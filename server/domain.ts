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
