import { COUCH_ADMIN, type CouchPeer } from './couch-peer/couch-peer';
import type { registerUser, TestServer } from './test-server';

/**
 * Helpers of the sync tests (sync.test.ts, arrival-checks.test.ts, phone.test.ts, …), which run against
 * the CouchDB peer of the test suite (PouchDB Server behind its CouchDB 3 front,
 * server/test-support/couch-peer/couch-peer.ts, one per test file).
 */

export type SyncUser = Awaited<ReturnType<typeof registerUser>>;

/** Sync settings that retry fast. */
export const FAST = { sync: { retrySeconds: 0.2, requestTimeoutMs: 3000 } } as never;

/** Starting the CouchDB peer (a child process) takes about a second; more on a loaded machine. */
export const COUCH_START_TIMEOUT = 30_000;

/** Polls `fn` until `accept` holds (the sync is asynchronous); fails with the last value. */
export async function eventually<T>(fn: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await fn();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms; last value: ${String((JSON.stringify(last) as string | undefined)?.slice(0, 500))}`);
    await new Promise((r) => setTimeout(r, 50));
    last = await fn();
  }
  return last;
}

/** sync.configure against the test CouchDB as its server admin (who may create the databases). */
export async function configureSync(t: TestServer, couch: Pick<CouchPeer, 'url'>, u: SyncUser, extra: Record<string, unknown> = {}) {
  return t.api('sync.configure', { url: couch.url, username: COUCH_ADMIN.username, password: COUCH_ADMIN.password, ...extra }, u.token);
}

let phones = 0;
/**
 * A plain CouchDB user (not an admin) who may read and write the given databases of a ledger
 * (their `_security` members), as a phone's account would be on a real server. Each call makes a
 * new user, so a test that sends wrong passwords never locks out another test's account (CouchDB
 * 3 — and the peer's front — locks an account for a few minutes after repeated failures).
 */
export async function phoneAccount(couch: CouchPeer, prefix: string, collections: readonly string[]): Promise<{ username: string; password: string }> {
  phones++;
  const account = { username: `phone_${process.pid}_${phones}`, password: `phone-secret-${phones}` };
  await couch.setUser(account.username, account.password, { members: collections.map((name) => `${prefix}${name}`) });
  return account;
}

export async function inSync(t: TestServer, u: SyncUser): Promise<void> {
  await t.server.app.services.sync.awaitInSync(u.id);
}

/**
 * Resolves once the re-checks of waiting documents that the writes so far asked for have run
 * (server/sync/user-gates.ts: a write starts a 20 ms timer, which queues the re-check). Reads the
 * sync service's per-account gates, which nothing else shows.
 */
export async function rechecksDone(t: TestServer, u: SyncUser): Promise<void> {
  const sync = t.server.app.services.sync as unknown as { users: Map<string, { gates: { idle(): Promise<void> } }> };
  // Past the 20 ms timer: Node fires timers in the order they are due.
  await new Promise((r) => setTimeout(r, 25));
  const gates = sync.users.get(u.id)?.gates;
  if (!gates) throw new Error('no sync running for this account');
  await gates.idle();
}

export async function balanceOf(t: TestServer, u: SyncUser, assetId: string): Promise<number> {
  return (await t.api('asset.detail', { id: assetId }, u.token)).data?.balance;
}

type Ignored = { id: string; reason: string; at: number };

/** One collection's part of sync.status. */
export async function statusOf(t: TestServer, u: SyncUser, collection: string): Promise<{ ignored: Ignored[]; ignoredCount: number; state: string; pending: number }> {
  const status = await t.api('sync.status', {}, u.token);
  return status.data.collections.find((c: { collection: string }) => c.collection === collection);
}

/** The reason sync.status gives for a document (undefined: not listed). */
export async function reasonFor(t: TestServer, u: SyncUser, collection: string, id: string): Promise<string | undefined> {
  return (await statusOf(t, u, collection)).ignored.find((i) => i.id === id)?.reason;
}

/** A ledger record with every field of the records schema (`id` as the server stores it), with `fields` on top. */
export function recordDoc(userId: string, id: string, fields: Record<string, unknown> = {}) {
  const now = Date.now();
  return {
    id,
    userId,
    type: 'expense',
    amount: 1234,
    asset: '',
    toAsset: '',
    toAmount: 0,
    fee: 0,
    category: 'Food',
    description: '',
    searchText: '',
    date: now,
    tags: [],
    attachments: [],
    importKey: '',
    createdAt: now,
    updatedAt: now,
    ...fields,
  };
}

/** A ledger record as a phone writes it into CouchDB (`_id`, every field of the records schema), with `fields` on top. */
export function couchRecord(userId: string, id: string, fields: Record<string, unknown>) {
  const { id: _id, ...rest } = recordDoc(userId, id, fields);
  return { _id, ...rest };
}

/**
 * Ends a test that took the CouchDB peer off the network: puts it back if it is still away (the
 * test failed before doing so), then closes the test server.
 */
export async function closeAfterOutage(t: TestServer, couch: CouchPeer): Promise<void> {
  const reachable = await fetch(couch.url).then(
    () => true,
    () => false,
  );
  if (!reachable) await couch.start();
  await t.close();
}
