import { addRxPlugin, createRxDatabase, type RxCollection, type RxDatabase } from 'rxdb/plugins/core';
import { RxDBMigrationSchemaPlugin } from 'rxdb/plugins/migration-schema';
import { replicateCouchDB, type RxCouchDBReplicationState } from 'rxdb/plugins/replication-couchdb';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { conflictHandlerOf } from '../../../server/db/conflict-merge';
import type { AssetDoc, CategoryDoc, RateDoc, RecordDoc } from '../../../server/ledger/schema';
import type { PlanDoc } from '../../../server/planning/schema';
import { PHONE_COLLECTIONS, type Pairing, type PhoneCollection } from '../../../server/sync/pairing-link';
import { PHONE_DEFS } from './collections';
import { basicAuth, couchFetch } from './couch-fetch';
import { saved } from './saved';

/**
 * The phone's copy of the ledger (docs/phone.md): RxDB on IndexedDB (the open-source Dexie
 * storage) with the desktop's collection definitions and conflict rule, replicating live, both
 * ways, with the ledger's CouchDB databases. What the phone writes waits in IndexedDB until the
 * network is back; `pending` counts it until CouchDB has it.
 */

addRxPlugin(RxDBMigrationSchemaPlugin);

export interface PhoneDocs {
  assets: RxCollection<AssetDoc>;
  records: RxCollection<RecordDoc>;
  categories: RxCollection<CategoryDoc>;
  rates: RxCollection<RateDoc>;
  plans: RxCollection<PlanDoc>;
}

export interface SyncState {
  online: boolean;
  /** Local changes CouchDB does not have yet. */
  pending: number;
  lastSyncAt: number | null;
  /** The phone was unpaired on the desktop: it keeps what it has, read-only. */
  revoked: boolean;
  /** The last sync error while CouchDB answers (sending or reading failed); cleared by the next answer. */
  error: 'push' | 'pull' | null;
}

type Listener = (state: SyncState) => void;

const DEVICE_EVERY_MS = 5 * 60_000;

export class PhoneLedger {
  readonly docs: PhoneDocs;
  private replications: RxCouchDBReplicationState<unknown>[] = [];
  private readonly listeners = new Set<Listener>();
  private readonly pendingIds: Set<string>;
  private state: SyncState;
  private deviceWrittenAt = 0;
  private syncTimer: ReturnType<typeof setTimeout> | undefined;

  private constructor(
    private readonly db: RxDatabase,
    readonly pairing: Pairing,
  ) {
    this.docs = db.collections as unknown as PhoneDocs;
    this.pendingIds = new Set(saved.pending.get());
    this.state = { online: navigator.onLine, pending: this.pendingIds.size, lastSyncAt: saved.lastSyncAt.get(), revoked: saved.revoked.get(), error: null };
  }

  static async open(pairing: Pairing): Promise<PhoneLedger> {
    const db = await createRxDatabase({
      name: `pennypost-phone-${pairing.prefix.replace(/[^a-z0-9]/g, '')}`,
      storage: getRxStorageDexie(),
      multiInstance: true,
      closeDuplicates: true,
    });
    await db.addCollections(
      Object.fromEntries(
        PHONE_COLLECTIONS.map((name) => {
          const def = PHONE_DEFS[name].definition;
          return [name, { schema: def.schema, migrationStrategies: def.migrationStrategies, conflictHandler: conflictHandlerOf(def), autoMigrate: true }];
        }),
      ),
    );
    const ledger = new PhoneLedger(db, pairing);
    ledger.watchNetwork();
    if (!ledger.state.revoked) ledger.startSync();
    return ledger;
  }

  get sync(): SyncState {
    return this.state;
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    listener(this.state);
    return () => this.listeners.delete(listener);
  }

  private set(next: Partial<SyncState>): void {
    this.state = { ...this.state, ...next };
    for (const listener of this.listeners) listener(this.state);
  }

  /** A write made here: counted as waiting until CouchDB has it. */
  noteWrite(collection: PhoneCollection, id: string): void {
    this.pendingIds.add(`${collection}:${id}`);
    saved.pending.set([...this.pendingIds]);
    this.set({ pending: this.pendingIds.size });
  }

  /** A change of this phone that CouchDB now has (or that a newer one there took over): no longer waiting. */
  private arrived(collection: PhoneCollection, id: unknown): void {
    if (!this.pendingIds.delete(`${collection}:${String(id)}`)) return;
    saved.pending.set([...this.pendingIds]);
    this.set({ pending: this.pendingIds.size });
  }

  private watchNetwork(): void {
    window.addEventListener('online', () => {
      this.set({ online: true });
      for (const replication of this.replications) replication.reSync();
    });
    window.addEventListener('offline', () => this.set({ online: false }));
    // The browser may believe it is online when CouchDB cannot be reached (a Wi-Fi without internet): the fetch says so (couch-fetch.ts).
  }

  private startSync(): void {
    const { pairing } = this;
    for (const name of PHONE_COLLECTIONS) {
      const collection = this.docs[name] as RxCollection;
      const replication = replicateCouchDB({
        replicationIdentifier: `pennypost-phone-${pairing.prefix}${name}`,
        collection,
        url: `${pairing.url}${pairing.prefix}${name}/`,
        live: true,
        retryTime: 3000,
        waitForLeadership: true,
        fetch: couchFetch({
          pairing,
          document: PHONE_DEFS[name].document,
          localCopy: async (id) => (await collection.storageInstance.findDocumentsById([id], true)).at(0) as Record<string, unknown> | undefined,
          onRefused: () => this.unpaired(),
          onAnswer: () => this.answered(),
          onUnreachable: () => this.set({ online: false }),
        }),
        pull: { batchSize: 500, heartbeat: 20_000 },
        push: { batchSize: 200 },
      });
      // One event per document CouchDB took.
      replication.sent$.subscribe((doc) => this.arrived(name, (doc as { id?: unknown }).id));
      // A change that met a newer one on CouchDB was merged by the conflict rule (conflict-merge.ts):
      // it does not wait any more (what the merge keeps of it goes up as a new change when it must).
      replication.conflict$.subscribe((conflict) => this.arrived(name, (conflict.input.newDocumentState as { id?: unknown }).id));
      replication.error$.subscribe((error) => {
        if (this.state.online && !this.state.revoked) this.set({ error: error.code === 'RC_PUSH' ? 'push' : 'pull' });
      });
      this.replications.push(replication);
    }
  }

  /** CouchDB answered: the phone is in touch. "Synced" once no request is running and nothing waits. */
  private answered(): void {
    if (!this.state.online) this.set({ online: true, error: null });
    clearTimeout(this.syncTimer);
    this.syncTimer = setTimeout(() => {
      if (this.state.revoked || !this.state.online || this.replications.some((r) => r.isStopped())) return;
      const now = Date.now();
      saved.lastSyncAt.set(now);
      this.set({ lastSyncAt: now, online: true, error: null, pending: this.pendingIds.size });
      if (now - this.deviceWrittenAt > DEVICE_EVERY_MS) void this.reportDevice(now);
    }, 400);
  }

  /** `<prefix>meta/device:<user>`: when this phone last synced, for the desktop's list of phones. */
  private async reportDevice(at: number): Promise<void> {
    this.deviceWrittenAt = at;
    const { pairing } = this;
    const url = `${pairing.url}${pairing.prefix}meta/${encodeURIComponent(`device:${pairing.user}`)}`;
    const headers = { authorization: basicAuth(pairing.user, pairing.pw), 'content-type': 'application/json' };
    try {
      const current = await fetch(url, { headers, credentials: 'omit', cache: 'no-store' });
      const rev = current.ok ? ((await current.json()) as { _rev?: string })._rev : undefined;
      await fetch(url, { method: 'PUT', headers, credentials: 'omit', body: JSON.stringify({ ...(rev ? { _rev: rev } : {}), lastSyncAt: at, label: pairing.label }) });
    } catch {
      this.deviceWrittenAt = 0; // tried again after the next sync
    }
  }

  private unpaired(): void {
    if (this.state.revoked) return;
    saved.revoked.set(true);
    this.set({ revoked: true, error: null });
    for (const replication of this.replications) void replication.cancel();
  }

  /** Waits until every collection has exchanged what it has (tests and the first open). */
  async awaitInSync(): Promise<void> {
    await Promise.all(this.replications.map((r) => r.awaitInSync()));
  }

  async close(): Promise<void> {
    for (const replication of this.replications) await replication.cancel();
    await this.db.close();
  }

  /** Forgets this ledger on the phone: the copy, the pairing and the waiting changes. */
  async forget(): Promise<void> {
    for (const replication of this.replications) await replication.cancel();
    await this.db.remove();
    saved.clear();
  }
}
