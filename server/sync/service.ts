import type { RxCollection } from 'rxdb';
import { optionalService, type AppContext } from '../app-context';
import { endpointOfUrl, OutboundPolicy } from '../http/outbound-policy';
import { KeyedMutex } from '../lib/keyed-mutex';
import { couchFetch, CouchError, ensureDatabase, toDomainError, type CouchTarget } from './couch-client';
import { seal, unseal, type SealedSecret } from './credentials';
import { syncErrors } from './errors';
import { dropWaiting } from './gate';
import { SyncLink } from './link';
import { replicateCollection, type CollectionSync, type SyncState } from './replication';
import type { SyncedDoc } from '../arrival-checks';
import { UserGates } from './user-gates';
import { syncedCollections, type SyncedCollection } from './synced-collections';
import { PASSWORD_PLACEHOLDER, type SyncStatusView } from './result-shapes';

/** Stored per user in the local store (never synced): `sync:<userId>`. */
export interface SyncConfig {
  url: string;
  username: string;
  password: SealedSecret;
  live: boolean;
  collections: SyncedCollection[];
  prefix: string;
  ownerId: string;
  /** Bumped by sync.resync: a new generation starts from empty checkpoints (re-pulls everything). */
  generation: number;
  enabled: boolean;
  configuredAt: number;
}

interface UserSync {
  config: SyncConfig;
  collections: Map<SyncedCollection, CollectionSync>;
  gates: UserGates;
  /** Credentials and reachability of the user's CouchDB, shared by all collections (link.ts). */
  link: SyncLink;
}

export const OWNER_DOC_ID = 'ledger-owner';
const CONFIG_PREFIX = 'sync:';
const IGNORED_SHOWN = 10;

/** A valid CouchDB database name prefix derived from the CouchDB user name. */
export function defaultPrefix(username: string): string {
  const cleaned = username
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .replace(/^[^a-z]+/, '');
  return `pennypost_${cleaned || 'user'}_`.slice(0, 100);
}

export const PREFIX_PATTERN = '^[a-z][a-z0-9_$()+-]{0,99}$';

export { PASSWORD_PLACEHOLDER };

/** How long stopping a user's sync waits for the requests in flight before answering. */
const STOP_WAIT_MS = 5_000;

function normalizeUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw syncErrors.urlNotAnAddress().at('url');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw syncErrors.urlNotHttp().at('url');
  }
  if (parsed.username || parsed.password) {
    throw syncErrors.credentialsInUrl().at('url');
  }
  parsed.search = '';
  parsed.hash = '';
  return parsed.href.endsWith('/') ? parsed.href : parsed.href + '/';
}

/** Two-way CouchDB replication of each user's ledger (docs/sync.md). Published as app.services.sync. */
export class SyncService {
  private readonly users = new Map<string, UserSync>();
  private readonly lock = new KeyedMutex();
  /** Where each account's CouchDB requests may go (server/http/outbound-policy.ts). */
  private readonly outbound: OutboundPolicy;

  constructor(private readonly app: AppContext) {
    this.outbound = new OutboundPolicy(app, { roleOf: async (userId) => (await optionalService(app, 'users')?.findById(userId))?.role ?? null });
  }

  private settings() {
    return this.app.settings.get().sync;
  }

  private available(): SyncedCollection[] {
    return syncedCollections(this.app).filter((name) => (this.app.db.rx.collections[name] as RxCollection | undefined) !== undefined);
  }

  /** Resumes the sync of every user that had it enabled (at server start). */
  async resumeAll(): Promise<void> {
    for (const [key, config] of await this.app.db.local.entries<SyncConfig>(CONFIG_PREFIX)) {
      if (!config.enabled) continue;
      const userId = key.slice(CONFIG_PREFIX.length);
      await this.startReplications(userId, config).catch((error: unknown) => this.app.log.warn('sync resume failed', { userId, error: (error as Error).message }));
    }
  }

  async configure(userId: string, input: { url: string; username: string; password: string; live?: boolean; collections?: string[]; prefix?: string }) {
    const url = normalizeUrl(input.url);
    if (input.password === PASSWORD_PLACEHOLDER) await this.refusePlaceholder(userId, url, input.username);
    const available = this.available();
    const collections = (input.collections ?? available) as SyncedCollection[];
    for (const name of collections) {
      if (!available.includes(name)) throw syncErrors.notSyncable(name, available).at('collections');
    }
    const prefix = input.prefix ?? defaultPrefix(input.username);
    // The address must be one this account may send to (400 for this server, 403 for the local network).
    await this.outbound.check(
      userId,
      [endpointOfUrl('url', url)].filter((e) => e !== null),
    );
    const target: CouchTarget = {
      url,
      username: input.username,
      password: input.password,
      timeoutMs: this.settings().requestTimeoutMs,
      scope: await this.outbound.scopeFor(userId),
    };
    return this.lock.run(userId, async () => {
      let ownerId: string;
      try {
        const hello = await couchFetch(target, '');
        if (hello.status !== 200 || (typeof hello.body?.couchdb !== 'string' && typeof hello.body?.['express-pouchdb'] !== 'string')) {
          throw new CouchError(`${url} does not look like a CouchDB server.`, 'other', hello.status);
        }
        const metaDb = `${prefix}meta`;
        await ensureDatabase(target, metaDb);
        const owner = await couchFetch(target, `${metaDb}/${OWNER_DOC_ID}`);
        if (owner.status === 200 && typeof owner.body?.ownerId === 'string') {
          ownerId = owner.body.ownerId;
        } else {
          ownerId = userId;
          const created = await couchFetch(target, `${metaDb}/${OWNER_DOC_ID}`, {
            method: 'PUT',
            body: { ownerId, app: 'pennypost', createdAt: this.app.clock.now() },
          });
          if (created.status === 409) {
            // Another device stored it meanwhile: its owner document is read again, and must name an owner.
            const stored = await couchFetch(target, `${metaDb}/${OWNER_DOC_ID}`);
            if (stored.status !== 200 || typeof stored.body?.ownerId !== 'string' || stored.body.ownerId === '') {
              throw new CouchError(
                `CouchDB has a ledger owner document that PennyPost cannot read (HTTP ${stored.status}); check ${metaDb}/${OWNER_DOC_ID}.`,
                'other',
                stored.status,
              );
            }
            ownerId = stored.body.ownerId;
          } else if (created.status !== 201 && created.status !== 202) {
            throw new CouchError(`CouchDB could not store the ledger owner (HTTP ${created.status}).`, 'other', created.status);
          }
        }
        for (const name of collections) await ensureDatabase(target, `${prefix}${name}`);
      } catch (error) {
        throw toDomainError(error);
      }
      await this.stopUser(userId);
      // Everything is pulled again (new checkpoints): what waited is checked again as it comes.
      await dropWaiting(this.app, userId);
      const previous = await this.app.db.local.get<SyncConfig>(CONFIG_PREFIX + userId);
      const config: SyncConfig = {
        url,
        username: input.username,
        password: seal(this.app.secrets, input.password),
        live: input.live ?? true,
        collections,
        prefix,
        ownerId,
        generation: (previous?.generation ?? 0) + 1,
        enabled: true,
        configuredAt: this.app.clock.now(),
      };
      await this.app.db.local.put(CONFIG_PREFIX + userId, config);
      await this.startReplications(userId, config);
      return this.status(userId);
    });
  }

  /**
   * The stored password is bound to the server URL and the CouchDB user it was entered for: only
   * sync.start, sync.resync and the resume at server start use it, always with that url and user.
   * sync.configure never reuses it, and the placeholder that sync.status hands out is refused here
   * instead of being sent anywhere as a password.
   */
  private async refusePlaceholder(userId: string, url: string, username: string): Promise<never> {
    const previous = await this.app.db.local.get<SyncConfig>(CONFIG_PREFIX + userId);
    const moved = !!previous && (previous.url !== url || previous.username !== username);
    throw (moved ? syncErrors.passwordForOtherServer() : syncErrors.passwordPlaceholder(PASSWORD_PLACEHOLDER)).at('password');
  }

  private async startReplications(userId: string, config: SyncConfig): Promise<void> {
    const password = unseal(this.app.secrets, config.password);
    const gates = new UserGates(this.app, userId, (name) => {
      // Documents that waited (e.g. for their asset) pass now: pull again, the fetch hands them over.
      userSync.collections.get(name)?.replication.reSync();
    });
    const { retrySeconds, requestTimeoutMs, batchSize } = this.settings();
    const link = new SyncLink({
      retryMs: retrySeconds * 1000,
      // The first refusal stops every collection at once: CouchDB locks the user out after a few.
      onAuthFailure: (message) => {
        for (const entry of userSync.collections.values()) {
          entry.state = 'error';
          entry.lastError = message;
          void entry.replication.cancel();
        }
      },
      // The server answers again: no collection stays "paused" until its own next try, and each
      // one pulls what changed meanwhile (a long-poll that never returned before the outage asks
      // for changes "since now" and would skip them).
      onReachable: (afterOutage) => {
        for (const entry of userSync.collections.values()) {
          entry.lastNetworkErrorAt = 0;
          if (afterOutage && entry.state !== 'error') entry.replication.reSync();
        }
      },
    });
    const userSync: UserSync = { config, collections: new Map(), gates, link };
    this.users.set(userId, userSync);
    await gates.open(config.collections);
    for (const name of config.collections) {
      const collection = this.app.db.rx.collections[name] as RxCollection<SyncedDoc> | undefined;
      const gate = gates.get(name);
      if (!collection || !gate) continue;
      const entry = replicateCollection({
        app: this.app,
        userId,
        name,
        collection,
        gate,
        link,
        config,
        password,
        settings: { retrySeconds, requestTimeoutMs, batchSize },
        outbound: () => this.outbound.scopeFor(userId),
      });
      userSync.collections.set(name, entry);
    }
  }

  private async stopUser(userId: string): Promise<void> {
    const current = this.users.get(userId);
    if (!current) return;
    this.users.delete(userId);
    // Cancelled with the link still open: RxDB finishes the pull or push in flight first (it retries
    // a failing one until the cancel completes), so closing the link first would make it wait for
    // ever. When the server cannot be reached, the cancel completes in the background once it can.
    const cancels = Promise.all(
      [...current.collections.values()].map((entry) => {
        for (const subscription of entry.subscriptions) subscription.unsubscribe();
        return entry.replication.cancel();
      }),
    );
    const finish = () => {
      current.link.close();
      current.gates.close();
    };
    const done = await Promise.race([cancels.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), STOP_WAIT_MS).unref())]);
    if (done) finish();
    else {
      this.app.log.warn('sync: stopped while the server cannot be reached; the last requests end when it answers', { userId });
      void cancels.then(finish, finish);
    }
  }

  /**
   * The configured CouchDB of an account with its stored credentials, for the calls that pair a
   * phone (phones.ts). The password stays inside the server: it is used for these requests only.
   */
  async couchAccess(userId: string): Promise<{ target: CouchTarget; prefix: string; ownerId: string; collections: readonly SyncedCollection[] }> {
    const config = await this.app.db.local.get<SyncConfig>(CONFIG_PREFIX + userId);
    if (!config) throw syncErrors.notConfigured();
    const target: CouchTarget = {
      url: config.url,
      username: config.username,
      password: unseal(this.app.secrets, config.password),
      timeoutMs: this.settings().requestTimeoutMs,
      scope: await this.outbound.scopeFor(userId),
    };
    return { target, prefix: config.prefix, ownerId: config.ownerId, collections: config.collections };
  }

  async start(userId: string) {
    return this.lock.run(userId, async () => {
      const config = await this.app.db.local.get<SyncConfig>(CONFIG_PREFIX + userId);
      if (!config) throw syncErrors.notConfiguredToStart();
      await this.stopUser(userId);
      config.enabled = true;
      await this.app.db.local.put(CONFIG_PREFIX + userId, config);
      await this.startReplications(userId, config);
      return this.status(userId);
    });
  }

  async stop(userId: string) {
    return this.lock.run(userId, async () => {
      const config = await this.app.db.local.get<SyncConfig>(CONFIG_PREFIX + userId);
      if (!config) throw syncErrors.notConfigured();
      await this.stopUser(userId);
      config.enabled = false;
      await this.app.db.local.put(CONFIG_PREFIX + userId, config);
      return this.status(userId);
    });
  }

  /** Forgets the checkpoints and pulls and pushes everything again (no duplicates: ids are stable). */
  async resync(userId: string) {
    return this.lock.run(userId, async () => {
      const config = await this.app.db.local.get<SyncConfig>(CONFIG_PREFIX + userId);
      if (!config) throw syncErrors.notConfigured();
      await this.stopUser(userId);
      // Everything is pulled again (new checkpoints): what waited is checked again as it comes.
      await dropWaiting(this.app, userId);
      config.generation += 1;
      config.enabled = true;
      await this.app.db.local.put(CONFIG_PREFIX + userId, config);
      await this.startReplications(userId, config);
      return this.status(userId);
    });
  }

  /** Stops syncing and forgets the configuration and credentials (remote data stays). */
  async remove(userId: string) {
    return this.lock.run(userId, async () => {
      await this.stopUser(userId);
      // What waited for this server is not kept for another one.
      await dropWaiting(this.app, userId);
      await this.app.db.local.del(CONFIG_PREFIX + userId);
      return { configured: false as const };
    });
  }

  async status(userId: string): Promise<SyncStatusView | { configured: false }> {
    const config = await this.app.db.local.get<SyncConfig>(CONFIG_PREFIX + userId);
    if (!config) return { configured: false as const };
    const running = this.users.get(userId);
    // Paused = the server failed to answer within the last few retry periods. Retries keep
    // failing while it is away, so this turns back by itself once it answers again.
    const pausedWindow = Math.max(3 * this.settings().retrySeconds * 1000, 2000);
    const unreachable = running?.link.unreachable === true;
    const collections = config.collections.map((name) => {
      const entry = running?.collections.get(name);
      const paused = entry !== undefined && entry.state !== 'error' && (unreachable || (entry.lastNetworkErrorAt > 0 && Date.now() - entry.lastNetworkErrorAt < pausedWindow));
      if (paused && unreachable) entry.lastError = `Cannot reach ${config.url}; retrying every ${this.settings().retrySeconds} s.`;
      const problems = entry?.gate.report(IGNORED_SHOWN);
      const state: SyncState = !entry ? 'stopped' : paused ? 'paused' : entry.state;
      return {
        collection: name,
        remoteDatabase: `${config.prefix}${name}`,
        state,
        lastError: state === 'paused' || state === 'error' ? (entry?.lastError ?? null) : null,
        lastPushedAt: entry?.lastPushedAt ?? null,
        lastPulledAt: entry?.lastPulledAt ?? null,
        pending: entry?.pending.size ?? 0,
        ignored: problems?.list ?? [],
        ignoredCount: problems?.count ?? 0,
      };
    });
    return {
      configured: true as const,
      enabled: config.enabled,
      url: config.url,
      username: config.username,
      password: PASSWORD_PLACEHOLDER,
      live: config.live,
      prefix: config.prefix,
      ownerId: config.ownerId,
      joined: config.ownerId !== userId,
      collections,
    };
  }

  /** Resolves when every running replication of the user has nothing left to do (tests, benchmarks). */
  async awaitInSync(userId: string): Promise<void> {
    const running = this.users.get(userId);
    if (!running) return;
    await Promise.all([...running.collections.values()].map((entry) => entry.replication.awaitInSync()));
  }

  async stopAll(): Promise<void> {
    for (const userId of [...this.users.keys()]) await this.stopUser(userId);
    this.outbound.close();
  }
}
