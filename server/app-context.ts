import type { AppDatabase } from './db/database';
import type { SettingsStore } from './config/settings';
import type { Clock } from './lib/clock';
import type { Logger } from './lib/logger';
import type { SecretStore } from './config/secrets';

/**
 * Services that domains publish for each other (ledger balances, push delivery, …).
 * Each domain adds its entry with declaration merging:
 *   declare module '../app-context' { interface ServiceMap { users: UserService } }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- empty on purpose: each domain adds its entry by declaration merging
export interface ServiceMap {}

/** Where the server ended up listening; set once the socket is bound. */
export interface ListenInfo {
  host: string;
  port: number;
  url: string;
}

/** Everything a handler or a domain service may use. One per running server. */
export interface AppContext {
  readonly dataDir: string;
  readonly db: AppDatabase;
  readonly settings: SettingsStore;
  readonly secrets: SecretStore;
  readonly clock: Clock;
  readonly log: Logger;
  readonly services: ServiceMap;
  listening: ListenInfo | null;
  /**
   * Set by startServer: removes every document of an account from every collection (each domain's
   * forgetUser first, in reverse start order). Used when the owner deletes a member.
   */
  forgetUser?: (userId: string) => Promise<void>;
  /**
   * Set by startServer: stops the domains, closes the database, runs `replace` (which swaps the
   * database folder), reopens and restarts them — each with a new service — while HTTP requests
   * get 503. When the new database does not open, `rollback` puts the old folder back before it is
   * reopened. Used by snapshot restores (server/backup/). `ownRequests`: requests of the caller
   * still running. Whatever was mounted once must reach services through `liveService`.
   */
  replaceDatabase?: (replace: () => Promise<void>, options: { ownRequests: number; rollback: () => Promise<void> }) => Promise<void>;
}

/**
 * A domain's service as it is at each use. A snapshot restore (replaceDatabase) restarts every
 * domain with a new service over the new database; routes are mounted once, at the first start,
 * so a route that kept the first service would serve the old database's indexes (app keys,
 * pages…) for the rest of the process. Routes and other long-lived holders take services
 * through this.
 */
export function liveService<K extends keyof ServiceMap>(app: AppContext, name: K): ServiceMap[K] {
  return new Proxy({} as ServiceMap[K] & object, {
    get(_target, property) {
      const service = app.services[name] as object;
      const value: unknown = Reflect.get(service, property, service);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(service) : value;
    },
  });
}

/**
 * A service of a domain this one declares in `uses` (server/domain.ts): `undefined` when that
 * domain is not part of this server (a test server may run a few domains) or has not started yet
 * (it starts after the caller). The one place where the map is read as partial; domains never cast
 * `app.services` themselves.
 */
export function optionalService<K extends keyof ServiceMap>(app: Pick<AppContext, 'services'>, name: K): ServiceMap[K] | undefined {
  return (app.services as Partial<ServiceMap>)[name];
}
