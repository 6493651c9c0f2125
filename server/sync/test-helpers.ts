import type { CouchStandin } from '../test-support/fakes/couchdb-standin';
import type { registerUser, TestServer } from '../test-support/test-server';

/** Helpers of the sync tests (sync.test.ts, sync-rules.test.ts). */

export type SyncUser = Awaited<ReturnType<typeof registerUser>>;

/** Sync settings that retry fast. */
export const FAST = { sync: { retrySeconds: 0.2, requestTimeoutMs: 3000 } } as never;

/** Polls `fn` until `accept` holds (the sync is asynchronous); fails with the last value. */
export async function eventually<T>(fn: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await fn();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms; last value: ${JSON.stringify(last)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 50));
    last = await fn();
  }
  return last;
}

/** sync.configure against the stand-in as its admin. */
export async function configureSync(t: TestServer, couch: CouchStandin, u: SyncUser, extra: Record<string, unknown> = {}) {
  return t.api('sync.configure', { url: couch.url, username: 'admin', password: 'admin-secret', ...extra }, u.token);
}

export async function inSync(t: TestServer, u: SyncUser): Promise<void> {
  await t.server.app.services.sync.awaitInSync(u.id);
}

export async function balanceOf(t: TestServer, u: SyncUser, assetId: string): Promise<number> {
  return (await t.api('asset.detail', { id: assetId }, u.token)).data?.balance;
}
