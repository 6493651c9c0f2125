import type { RxCollection } from 'rxdb';
import { replicateCouchDB, type RxCouchDBReplicationState } from 'rxdb/plugins/replication-couchdb';
import type { Subscription } from 'rxjs';
import { optionalService, type AppContext } from '../app-context';
import type { SyncGate } from './gate';
import type { SyncLink } from './link';
import type { OutboundScope } from '../http/outbound-policy';
import { createReplicationFetch } from './replication-fetch';
import type { SyncedDoc } from '../arrival-checks';
import type { SyncedCollection } from './synced-collections';

/**
 * One collection's replication of one account with its CouchDB database `<prefix><collection>`
 * (server/sync/service.ts starts one per synced collection): RxDB's CouchDB replication through
 * the fetch of server/sync/replication-fetch.ts, and the state sync.status shows.
 */

export type SyncState = 'idle' | 'active' | 'paused' | 'error' | 'stopped';

export interface CollectionSync {
  name: SyncedCollection;
  replication: RxCouchDBReplicationState<SyncedDoc>;
  state: SyncState;
  lastError: string | null;
  lastPushedAt: number | null;
  lastPulledAt: number | null;
  pending: Set<string>;
  /** Arrival checks of incoming documents; what was ignored or waits (server/sync/gate.ts). */
  gate: SyncGate;
  subscriptions: Subscription[];
  /** Wall-clock time of the last failed attempt to reach the server (0: none since it worked). */
  lastNetworkErrorAt: number;
}

/** Where and how the account's ledger replicates (its sync configuration, without the sealed password). */
export interface ReplicationTarget {
  url: string;
  username: string;
  prefix: string;
  ownerId: string;
  live: boolean;
  /** A new generation starts from empty checkpoints. */
  generation: number;
}

export interface CollectionReplicationOptions {
  app: AppContext;
  /** The local account. */
  userId: string;
  name: SyncedCollection;
  collection: RxCollection<SyncedDoc>;
  gate: SyncGate;
  /** Credentials and reachability, shared by the account's collections (server/sync/link.ts). */
  link: SyncLink;
  config: ReplicationTarget;
  /** The CouchDB password, unsealed. */
  password: string;
  settings: { retrySeconds: number; requestTimeoutMs: number; batchSize: number };
  /** The outbound policy of the account, asked for every request (server/http/outbound-policy.ts). */
  outbound: () => Promise<OutboundScope>;
}

/** `_bulk_docs` requests of one collection's push that may be under way together (initial push). */
const PUSH_REQUESTS_IN_FLIGHT = 4;

/** Starts replicating one collection of an account; the entry follows its state. */
export function replicateCollection(options: CollectionReplicationOptions): CollectionSync {
  const { app, userId, name, collection, gate, link, config, password } = options;
  const { retrySeconds, requestTimeoutMs, batchSize } = options.settings;
  // The replication is created below, with a fetch that already reports to this entry.
  const entry: Omit<CollectionSync, 'replication'> & { replication?: CollectionSync['replication'] } = {
    name,
    state: 'active',
    lastError: null,
    lastPushedAt: null,
    lastPulledAt: null,
    pending: new Set(),
    gate,
    subscriptions: [],
    lastNetworkErrorAt: 0,
  };
  // Ids of the push batches under way that CouchDB cannot have (see the push handler below).
  const freshIds = new Set<string>();
  // Revisions this replication wrote, whose echo the live feed leaves out (replication-fetch.ts).
  const ownWrites = new Map<string, string>();
  const replicationFetch = createReplicationFetch({
    collection,
    username: config.username,
    password,
    ownerId: config.ownerId,
    localUserId: userId,
    timeoutMs: requestTimeoutMs,
    gate,
    link,
    freshIds,
    ownWrites,
    outbound: options.outbound,
    onAuthFailure: (message) => {
      entry.state = 'error';
      entry.lastError = message;
      // Stop at once: retrying what the server forbids would only hammer it.
      void entry.replication?.cancel();
    },
  });
  const replication = replicateCouchDB<SyncedDoc>({
    replicationIdentifier: `pennypost-${userId}-${name}-${config.generation}-${config.url}${config.prefix}`,
    collection,
    url: `${config.url}${config.prefix}${name}/`,
    fetch: replicationFetch,
    live: config.live,
    retryTime: retrySeconds * 1000,
    waitForLeadership: false,
    autoStart: true,
    pull: { batchSize, heartbeat: 10_000 },
    push: {
      // RxDB sends one batch at a time; the handler below splits it into requests of
      // `batchSize` documents that CouchDB works on together.
      batchSize: batchSize * PUSH_REQUESTS_IN_FLIGHT,
      // Only this account's documents go up (the fetch wrapper puts them under the owner id).
      modifier: (doc) => (doc.userId === userId ? doc : null),
    },
  });
  const started: CollectionSync = Object.assign(entry, { replication });
  skipPointlessPrechecks(replication, collection.schema.primaryPath, freshIds, ownWrites, batchSize);
  entry.subscriptions.push(
    replication.error$.subscribe((error) => {
      if (entry.state === 'error') return;
      const text = JSON.stringify((error as { parameters?: unknown }).parameters ?? error.message);
      const unreachable = /fetch failed|ECONNREFUSED|ECONNRESET|socket|network|timeout|TimeoutError|terminated|other side closed|HTTP 5\d\d/i.test(text);
      if (unreachable) {
        entry.lastNetworkErrorAt = Date.now();
        entry.lastError = `Cannot reach ${config.url}; retrying every ${retrySeconds} s.`;
      } else {
        entry.state = 'error';
        const [firstLine = ''] = (error as Error).message.split('\n');
        entry.lastError = `Sync failed: ${firstLine.slice(0, 300)}`;
      }
    }),
    replication.active$.subscribe((active) => {
      if (entry.state === 'error') return;
      entry.state = active ? 'active' : 'idle';
    }),
    replication.sent$.subscribe((doc) => {
      entry.lastPushedAt = app.clock.now();
      entry.lastNetworkErrorAt = 0;
      entry.pending.delete(doc[collection.schema.primaryPath] as string);
    }),
    replication.received$.subscribe(() => {
      entry.lastPulledAt = app.clock.now();
      entry.lastNetworkErrorAt = 0;
    }),
    // What a conflict resolution overwrote goes to the conflict log (server/sync/conflict-log.ts).
    replication.conflict$.subscribe((conflict) => {
      // The conflict log is published by the sync domain's start (index.ts); without it nothing is logged.
      void optionalService(app, 'syncConflicts')
        ?.record(userId, name, collection.schema.primaryPath, conflict.input)
        .catch((error: unknown) => app.log.warn('sync: recording a conflict failed', { collection: name, error: (error as Error).message }));
    }),
    collection.eventBulks$.subscribe((bulk) => {
      if (typeof bulk.context === 'string' && bulk.context.includes('replication')) return;
      for (const event of bulk.events) {
        const doc = (event.documentData ?? event.previousDocumentData) as SyncedDoc | undefined;
        if (doc?.userId === userId) entry.pending.add(event.documentId);
      }
    }),
  );
  return started;
}

/**
 * RxDB's CouchDB push first reads every pushed id from the server (`_all_docs`), to compare it
 * with the state it assumes there. A row without an assumed state, once the first pull is done,
 * is a document CouchDB did not have when it was read (the pull stores an assumed state for every
 * document it brings): a new document. The read is pointless for those; the fetch answers it
 * (server/sync/replication-fetch.ts), and should another device have written the same id since,
 * CouchDB answers the write with a conflict, which RxDB resolves as before. Deletions always ask.
 */
function skipPointlessPrechecks(
  replication: RxCouchDBReplicationState<SyncedDoc>,
  primaryPath: string,
  freshIds: Set<string>,
  ownWrites: Map<string, string>,
  requestSize: number,
): void {
  const push = replication.push;
  if (!push) return;
  const writeOne = push.handler.bind(push);
  // A batch goes up as requests of `requestSize` documents at once (different ids each: their
  // pre-checks and writes do not meet). Every request ends before the batch does, so a retry of
  // the batch after a failed request never overlaps one still under way.
  const write = async (rows: Parameters<typeof writeOne>[0]) => {
    if (rows.length <= requestSize) return writeOne(rows);
    const parts: Array<typeof rows> = [];
    for (let i = 0; i < rows.length; i += requestSize) parts.push(rows.slice(i, i + requestSize));
    const settled = await Promise.allSettled(parts.map((part) => writeOne(part)));
    const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.flatMap((result) => (result.status === 'fulfilled' ? result.value : []));
  };
  push.handler = async (rows) => {
    const pulled = replication.internalReplicationState?.firstSyncDone.down.getValue() === true;
    const fresh = pulled ? rows.filter((row) => !row.assumedMasterState && !row.newDocumentState._deleted).map((row) => row.newDocumentState[primaryPath] as string) : [];
    for (const id of fresh) freshIds.add(id);
    try {
      return await write(rows);
    } catch (error) {
      // RxDB stores nothing for a failed batch and tries it again: what did reach CouchDB comes
      // back through the feed like any change (an echo left out already is met by the retry as
      // a conflict, which stores the server's state too).
      for (const row of rows) ownWrites.delete(row.newDocumentState[primaryPath] as string);
      throw error;
    } finally {
      for (const id of fresh) freshIds.delete(id);
    }
  };
}
