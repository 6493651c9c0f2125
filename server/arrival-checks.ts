import type { AppContext } from './app-context';

/**
 * The arrival checks of synced documents (docs/sync.md, "Arrival checks"). The schema says what a
 * document looks like; a domain's arrival check says whether it may be true: a record's assets exist, a
 * reward is what the reward rules pay, a trade was priced on this PennyPost's market. Every
 * document that arrives from CouchDB passes ownership, then the schema, then the arrival check of its
 * collection, in one place (server/sync/gate.ts); a document that fails is not imported, so
 * nothing derived from it (balances, wallets, the leaderboard) can move, and sync.status lists
 * it with the reason.
 *
 * Domains register one check per collection when they start (before sync starts):
 *   registerArrivalCheck(app, 'records', validateSyncedRecord)
 */

/** A document as the sync sees it: plain JSON fields (each collection's schema says which). */
export type SyncedDoc = Record<string, unknown>;

/**
 * The collections that sync to CouchDB, as a type, so that a check names a collection that exists
 * (server/sync/synced-collections.test.ts checks it is exactly the definitions marked `sync`).
 */
export type SyncedCollection = 'assets' | 'records' | 'categories' | 'rates' | 'goals' | 'trades' | 'achievements' | 'links' | 'files' | 'plans';

/** What an arrival check says about one incoming document. */
export type SyncVerdict =
  | { ok: true }
  /**
   * Not imported. With `waitFor`, the document is not wrong but depends on something that has not
   * arrived yet (documents of different collections replicate independently, in any order): it is
   * kept, shown as waiting, and checked again whenever a document of one of those collections
   * changes for the same account; once it passes it is imported like any other.
   */
  | { ok: false; reason: string; waitFor?: readonly SyncedCollection[] };

export const accept: SyncVerdict = { ok: true };

/** The document fails its check: ignored and reported with `reason`. */
export function reject(reason: string): SyncVerdict {
  return { ok: false, reason };
}

/** The document depends on documents of `collections` that are not here yet. */
export function waitFor(reason: string, collections: readonly SyncedCollection[]): SyncVerdict {
  return { ok: false, reason, waitFor: collections };
}

export interface ArrivalCheckContext {
  readonly app: AppContext;
  /** The local account the document is for (its `userId` is already this id). */
  readonly userId: string;
  readonly collection: SyncedCollection;
  /** The document is a deletion. */
  readonly deleted: boolean;
  /** The version of the document that is here now (undefined: none, or deleted here). */
  readonly local: SyncedDoc | undefined;
  /**
   * Documents of this collection and account that passed the checks but may not be written here
   * yet (RxDB writes a pulled batch while it fetches the next), by id. A check that sums over the
   * collection (the wallet log) counts them as if they were written.
   */
  readonly pending: ReadonlyMap<string, SyncedDoc>;
  /**
   * A check's own cache for this account and collection; emptied whenever a document of another
   * collection of the account changes (and on every restart of the sync).
   */
  readonly scratch: Map<string, unknown>;
  /** The time of the check (app clock). */
  readonly now: number;
}

export type ValidateSynced<T = SyncedDoc> = (doc: T, ctx: ArrivalCheckContext) => SyncVerdict | Promise<SyncVerdict>;

const registries = new WeakMap<AppContext, Map<SyncedCollection, ValidateSynced>>();

/** A domain's check for the documents of `collection` that arrive by sync (replaces an earlier one). */
export function registerArrivalCheck<T>(app: AppContext, collection: SyncedCollection, validate: ValidateSynced<T>): void {
  let rules = registries.get(app);
  if (!rules) registries.set(app, (rules = new Map<SyncedCollection, ValidateSynced>()));
  rules.set(collection, validate as unknown as ValidateSynced);
}

export function arrivalCheckOf(app: AppContext, collection: SyncedCollection): ValidateSynced | undefined {
  return registries.get(app)?.get(collection);
}

/**
 * How far in the future a synced document's own time may be (clock differences between devices).
 * Later than that, it was not written now by a device with a working clock.
 */
export const SYNC_CLOCK_SKEW_MS = 10 * 60 * 1000;
