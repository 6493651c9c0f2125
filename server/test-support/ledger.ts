import type { registerUser, TestServer } from './test-server';

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
