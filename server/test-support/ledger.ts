import { afterAll, beforeAll } from 'vitest';
import { startTestServer, type registerUser, type TestServer } from './test-server';

/** Ledger helpers the ledger tests share: they go through /api like any client. */

type User = Awaited<ReturnType<typeof registerUser>>;

/** Creates an asset (a USD cash asset named "A" unless `params` says otherwise) and returns its id; a refusal throws. */
export async function createAsset(t: TestServer, user: User, params: Record<string, unknown>): Promise<string> {
  const answer = await t.api('asset.create', { name: 'A', type: 'cash', currency: 'USD', ...params }, user.token);
  if (answer.code !== 200) throw new Error(`${answer.code} ${answer.message}`);
  return answer.data.id as string;
}

/** An asset's balance as asset.detail reports it (major units). */
export async function assetBalance(t: TestServer, user: User, id: string): Promise<number> {
  return (await t.api('asset.detail', { id }, user.token)).data.balance as number;
}

/**
 * The one test server of a ledger test file — started before its tests, closed after them — and
 * the asset helpers bound to it. `t` stands for that server from beforeAll on.
 */
export function ledgerTestFile(): { t: TestServer; asset: (user: User, params: Record<string, unknown>) => Promise<string>; balance: (user: User, id: string) => Promise<number> } {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());
  const current = (): TestServer => {
    if (!server) throw new Error('the test server starts in beforeAll');
    return server;
  };
  const t = new Proxy({} as TestServer, {
    get: (_target, key) => {
      const value: unknown = Reflect.get(current(), key);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(current()) : value;
    },
  });
  return { t, asset: (user, params) => createAsset(current(), user, params), balance: (user, id) => assetBalance(current(), user, id) };
}
