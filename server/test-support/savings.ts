import { ManualClock } from '../lib/clock';
import { newId } from '../lib/ids';
import type { RecordDoc } from '../ledger/schema';
import { registerUser, startTestServer, type TestServer } from './test-server';

export const DAY = 86_400_000;
/** Monday 2026-03-02 10:00 UTC. */
export const T0 = Date.UTC(2026, 2, 2, 10, 0, 0);

export interface Player {
  id: string;
  token: string;
  username: string;
}

export async function startGame(options: { dataDir?: string; clock?: ManualClock } = {}) {
  const clock = options.clock ?? new ManualClock(T0);
  // Tests travel months through time; sessions must outlive that.
  const settings = { auth: { tokenLifetimeSeconds: 5 * 365 * 86_400 } };
  const t = await startTestServer({ clock, settings, ...(options.dataDir ? { dataDir: options.dataDir } : {}) });
  return { t, clock };
}

/** A registered user whose game days follow UTC. */
export async function newPlayer(t: TestServer, timeZone = 'UTC'): Promise<Player> {
  const user = await registerUser(t);
  const prefs = await t.api('savings.setPreferences', { timeZone }, user.token);
  if (prefs.code !== 200) throw new Error(`setPreferences: ${prefs.code} ${prefs.message}`);
  return { id: user.id, token: user.token, username: user.username };
}

/** Calls an action and fails loudly unless it answers 200. */
export async function ok<T = any>(t: TestServer, action: string, params: unknown, token: string): Promise<T> {
  const answer = await t.api<T>(action, params, token);
  if (answer.code !== 200) throw new Error(`${action} → ${answer.code} ${answer.message}`);
  return answer.data as T;
}

/** Writes a ledger record straight into the collection, as replication from a phone would. */
export async function insertSyncedRecord(t: TestServer, userId: string, createdAt: number, overrides: Partial<RecordDoc> = {}): Promise<RecordDoc> {
  const doc: RecordDoc = {
    id: newId(createdAt),
    userId,
    type: 'expense',
    amount: 1250,
    asset: newId(createdAt),
    toAsset: '',
    toAmount: 0,
    fee: 0,
    category: 'food',
    description: 'lunch',
    searchText: 'lunch',
    date: createdAt,
    tags: [],
    attachments: [],
    importKey: '',
    createdAt,
    updatedAt: createdAt,
    ...overrides,
  };
  await t.server.app.db.collection<RecordDoc>('records').insert(doc);
  return doc;
}

export function goalParams(clock: ManualClock, overrides: Record<string, unknown> = {}) {
  return {
    title: 'Trip to Japan',
    description: 'Two weeks in spring',
    targetAmount: 1000,
    currency: 'USD',
    endDate: clock.now() + 60 * DAY,
    category: 'travel',
    priority: 'high',
    isPublic: false,
    ...overrides,
  };
}

export async function idle(t: TestServer): Promise<void> {
  await t.server.app.services.savings.idle();
}
