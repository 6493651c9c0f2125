import type { RxCollection } from 'rxdb';
import type { AppContext } from '../app-context';
import { accept, arrivalCheckOf, waitFor, type SyncedDoc, type ArrivalCheckContext, type SyncVerdict } from '../arrival-checks';
import { syncedCollections, type SyncedCollection } from './synced-collections';

/**
 * The door of one account's collection for documents that arrive from CouchDB (docs/sync.md,
 * "Arrival checks"). server/sync/replication-fetch.ts checks ownership and the schema, then asks
 * the gate, which runs the domain's arrival check (server/arrival-checks.ts) and decides:
 *
 * - passed: the document goes on to RxDB, which writes it; until it is written it is `pending`
 *   (rules that sum over a collection count it);
 * - broken: it is not imported and is reported in sync.status (`ignored`, with the reason);
 * - waiting (it refers to something that has not arrived yet, e.g. a record whose asset is still
 *   on its way): it is not imported now but kept — in the local store, so a restart does not lose
 *   it although the replication checkpoint has moved past it — reported as waiting, and checked
 *   again whenever a document of a collection it waits for changes for the account. When it
 *   passes, the replication is asked to pull again (RxDB reSync) and the fetch hands it over with
 *   that pull, through the same checks, as if CouchDB had just sent it.
 */

const HELD_PREFIX = 'sync-held:';
/** Documents one account's collection may keep waiting; beyond that they are ignored (resync brings them again). */
export const MAX_WAITING = 50_000;
/** Ignored documents remembered per collection for sync.status (the oldest are forgotten first). */
const MAX_IGNORED = 1_000;

/** A document as CouchDB sent it; the fetch checked that its `_id` is a string before the gate sees it. */
export type RemoteDoc = SyncedDoc & { _id: string };

interface Held {
  /** As CouchDB sent it (handed over again when it passes). */
  remote: RemoteDoc;
  /** In local terms (owner mapped, primary key), as the check sees it. */
  doc: SyncedDoc;
  deleted: boolean;
  reason: string;
  waitFor: SyncedCollection[];
  at: number;
}

export interface GateReport {
  /** Newest first. */
  list: Array<{ id: string; reason: string; at: number }>;
  count: number;
}

export type AdmitMode =
  /** From the changes feed: a waiting document is kept. */
  | 'feed'
  /** Looked up for a push conflict: a waiting document is just not taken (the feed brings it). */
  | 'lookup';

/** A pulled document RxDB has not written after this long was not going to be (it kept a newer local one). */
const PENDING_TTL_MS = 60_000;

export class SyncGate {
  readonly pending = new Map<string, SyncedDoc>();
  private readonly pendingSince = new Map<string, number>();
  private lastPrune = 0;
  readonly scratch = new Map<string, unknown>();
  private readonly held = new Map<string, Held>();
  /** Held documents that passed their re-check and wait to be handed over by the next pull. */
  private readonly released = new Set<string>();
  private readonly ignored = new Map<string, { reason: string; at: number }>();
  private writes: Array<{ type: 'put'; key: string; value: Held } | { type: 'del'; key: string }> = [];

  constructor(
    private readonly app: AppContext,
    readonly userId: string,
    readonly collection: SyncedCollection,
    private readonly rx: RxCollection<SyncedDoc>,
    private readonly onHold: (waitFor: readonly SyncedCollection[]) => void,
  ) {}

  private get primaryPath(): string {
    return this.rx.schema.primaryPath;
  }

  /** A document's id (its primary key, a string by the collection's schema). */
  private idOf(doc: SyncedDoc): string {
    return doc[this.primaryPath] as string;
  }

  private key(id: string): string {
    return `${heldPrefix(this.userId)}${this.collection}:${id}`;
  }

  /** Reads the documents kept waiting by an earlier run. */
  async load(): Promise<void> {
    for (const [, value] of await this.app.db.local.entries<Held>(`${heldPrefix(this.userId)}${this.collection}:`)) {
      this.held.set(this.idOf(value.doc), value);
    }
  }

  get waiting(): number {
    return this.held.size;
  }

  /** The local versions of documents (deleted ones included), by id. */
  async localDocs(ids: readonly string[]): Promise<Map<string, SyncedDoc>> {
    if (ids.length === 0) return new Map();
    const found: SyncedDoc[] = await this.rx.storageInstance.findDocumentsById([...new Set(ids)], true);
    return new Map(found.map((doc) => [this.idOf(doc), doc]));
  }

  private async check(doc: SyncedDoc, deleted: boolean, local: SyncedDoc | undefined): Promise<SyncVerdict> {
    const rule = arrivalCheckOf(this.app, this.collection);
    if (!rule) return accept;
    const ctx: ArrivalCheckContext = {
      app: this.app,
      userId: this.userId,
      collection: this.collection,
      deleted,
      local: local && !local._deleted ? local : undefined,
      pending: this.pending,
      scratch: this.scratch,
      now: this.app.clock.now(),
    };
    try {
      return await rule(doc, ctx);
    } catch (error) {
      // Not the document's fault (e.g. the disk): keep it and try again on the next change.
      this.app.log.warn('sync: an arrival check failed', { collection: this.collection, id: doc[this.primaryPath], error: (error as Error).message });
      return waitFor(`waiting: its rules could not be checked (${(error as Error).message.slice(0, 200)})`, syncedCollections(this.app));
    }
  }

  /**
   * The domain's verdict on a document that passed ownership and the schema. `doc` is in local
   * terms (owner mapped, primary key, no CouchDB fields); `remote` as CouchDB sent it. True: import it.
   */
  async admit(remote: RemoteDoc, doc: SyncedDoc, deleted: boolean, local: SyncedDoc | undefined, mode: AdmitMode): Promise<boolean> {
    const id = this.idOf(doc);
    const verdict = await this.check(doc, deleted, local);
    if (verdict.ok) {
      // An echo of what is here already (our own push coming back) is not written again.
      if (!local || local._deleted !== deleted || !sameFields(doc, local)) this.addPending(id, doc);
      this.forget(id);
      return true;
    }
    if (!verdict.waitFor) this.ignore(id, verdict.reason);
    else if (mode === 'feed') this.hold(id, { remote, doc, deleted, reason: verdict.reason, waitFor: [...verdict.waitFor], at: this.app.clock.now() });
    return false;
  }

  /**
   * The report entry of an ignored document (a new object each time it is ignored again): the fetch
   * compares it before and after a check to tell "ignored now" from "waiting".
   */
  ignoredMark(id: string): object | undefined {
    return this.ignored.get(id);
  }

  /** A document that is not imported: reported with the reason (and no longer waiting). */
  ignore(id: string, reason: string): void {
    this.unhold(id);
    this.ignored.delete(id);
    this.ignored.set(id, { reason, at: this.app.clock.now() });
    if (this.ignored.size > MAX_IGNORED) this.ignored.delete(this.ignored.keys().next().value as string);
    this.app.log.warn('sync ignored a remote document', { collection: this.collection, id, reason });
  }

  private hold(id: string, entry: Held): void {
    if (!this.held.has(id) && this.held.size >= MAX_WAITING) {
      this.ignore(id, `${entry.reason} — but ${MAX_WAITING} documents are waiting already, so it is ignored (sync.resync brings it again)`);
      return;
    }
    this.ignored.delete(id);
    const handedOver = this.released.delete(id);
    this.held.set(id, entry);
    this.writes.push({ type: 'put', key: this.key(id), value: entry });
    // Re-check soon as well: what it waits for may have been written while it was checked. (Not
    // when it was just handed over and failed again: then only a real change re-checks it.)
    if (!handedOver) this.onHold(entry.waitFor);
  }

  private unhold(id: string): void {
    this.released.delete(id);
    if (this.held.delete(id)) this.writes.push({ type: 'del', key: this.key(id) });
  }

  /** Nothing to report about a document any more (imported, or deleted on the server). */
  forget(id: string): void {
    this.ignored.delete(id);
    this.unhold(id);
  }

  /** Makes the kept documents durable; the fetch calls it before RxDB sees a response. */
  async flush(): Promise<void> {
    if (this.writes.length === 0) return;
    const ops = this.writes;
    this.writes = [];
    // A later put or delete of the same key wins (batch order).
    await this.app.db.local.batch(ops);
  }

  private addPending(id: string, doc: SyncedDoc): void {
    const now = Date.now();
    if (now - this.lastPrune > PENDING_TTL_MS / 6) {
      this.lastPrune = now;
      for (const [key, since] of this.pendingSince) {
        if (now - since < PENDING_TTL_MS) break; // insertion order = age order
        this.pending.delete(key);
        this.pendingSince.delete(key);
      }
    }
    this.pending.delete(id);
    this.pendingSince.delete(id);
    this.pending.set(id, doc);
    this.pendingSince.set(id, now);
  }

  /** Documents of the collection were written here: they are no longer pending. */
  written(ids: Iterable<string>): void {
    for (const id of ids) {
      this.pending.delete(id);
      this.pendingSince.delete(id);
    }
  }

  private due(changed: ReadonlySet<SyncedCollection> | 'all'): Held[] {
    const out: Held[] = [];
    for (const [id, entry] of this.held) {
      if (this.released.has(id)) continue;
      if (changed === 'all' || entry.waitFor.some((name) => changed.has(name))) out.push(entry);
    }
    return out;
  }

  /** Checks again the waiting documents that wait for a changed collection. True: some passed. */
  async recheck(changed: ReadonlySet<SyncedCollection> | 'all'): Promise<boolean> {
    const due = this.due(changed);
    if (due.length === 0) return false;
    const locals = await this.localDocs(due.map((entry) => this.idOf(entry.doc)));
    let passed = false;
    for (const entry of due) {
      const id = this.idOf(entry.doc);
      if (this.held.get(id) !== entry) continue; // replaced or imported meanwhile
      const verdict = await this.check(entry.doc, entry.deleted, locals.get(id));
      if (verdict.ok) {
        this.released.add(id);
        passed = true;
      } else if (verdict.waitFor) {
        entry.reason = verdict.reason;
        entry.waitFor = [...verdict.waitFor];
      } else {
        this.ignore(id, verdict.reason);
      }
    }
    await this.flush();
    return passed;
  }

  /**
   * Waiting documents that passed, as CouchDB sent them, for the next pull to hand over (they stay
   * kept until they are imported, so a failed pull hands them over again).
   */
  releasedDocs(): RemoteDoc[] {
    const out: RemoteDoc[] = [];
    for (const id of this.released) {
      const entry = this.held.get(id);
      if (entry) out.push(entry.remote);
    }
    return out;
  }

  /** What sync.status shows: documents ignored or waiting, newest first. */
  report(limit: number): GateReport {
    const all = [
      ...[...this.held.entries()].map(([id, entry]) => ({ id, reason: entry.reason, at: entry.at })),
      ...[...this.ignored.entries()].map(([id, entry]) => ({ id, reason: entry.reason, at: entry.at })),
    ];
    all.sort((a, b) => b.at - a.at);
    return { list: all.slice(0, limit), count: all.length };
  }
}

/** Whether every field of `doc` has the same value in `other` (plain JSON values). */
function sameFields(doc: SyncedDoc, other: SyncedDoc): boolean {
  for (const [key, value] of Object.entries(doc)) {
    const theirs = other[key];
    if (value === theirs) continue;
    if (typeof value !== 'object' || value === null || JSON.stringify(value) !== JSON.stringify(theirs)) return false;
  }
  return true;
}

function heldPrefix(userId: string): string {
  return `${HELD_PREFIX}${userId}:`;
}

/** Drops every document kept waiting for an account (a new configuration or a resync pulls everything again). */
export async function dropWaiting(app: AppContext, userId: string): Promise<void> {
  const entries = await app.db.local.entries<unknown>(heldPrefix(userId));
  if (entries.length > 0) await app.db.local.batch(entries.map(([key]) => ({ type: 'del' as const, key })));
}
