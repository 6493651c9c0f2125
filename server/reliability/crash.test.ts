/**
 * Crash safety of the whole server: a PennyPost process receives a stream of expenses, incomes,
 * transfers and /send pushes (webhook channel → a local receiver in this test process) from
 * several concurrent clients and is killed with SIGKILL at a random (seeded) moment; the same
 * data dir is restarted and checked, over several rounds:
 *
 * - every acknowledged record is there with what was acknowledged;
 * - nothing half-written: every visible record is whole, and each asset's balance equals a
 *   recomputation from the visible records (done here, independently) and `asset.checkBalances`;
 * - every acknowledged push is in the history as delivered, and every push the receiver got
 *   (acknowledged or not) has a history row: none is delivered without being recorded.
 *
 * The storage-level version of this test (documents only) is server/db/tests/crash.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { listenFake, sendJson, type FakeServer } from '../test-support/fakes/listen';
import { startChildServer, type ChildServer } from '../test-support/child-server';
import { withDeadline } from '../test-support/deadline';
import { api, newUser, ok, request, sleep } from './helpers';
import { seededRandom } from '../test-support/synthetic-records';

const ROUNDS = 5;
const WORKERS = 4;
const SETTINGS = { push: { sendPerAppKey: 1_000_000, sendPerAddress: 1_000_000 }, rateLimit: { apiPerToken: 1_000_000 } };

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pennypost-crash-'));
let receiver: FakeServer;
/** pushIds the receiver was handed (whether or not PennyPost answered before dying). */
const delivered = new Set<string>();
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Expected {
  type: 'income' | 'expense' | 'transfer';
  amount: number;
  asset: string;
  toAsset?: string;
}

const OPENING = { cash: 100_000, bank: 500_000, card: 0 };

function killed(server: ChildServer): Promise<void> {
  return new Promise((resolve) => {
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      resolve();
      return;
    }
    server.child.once('exit', () => resolve());
    server.child.kill('SIGKILL');
  });
}

it(`acknowledged writes and pushes survive kill -9 at random moments (${ROUNDS} rounds)`, { timeout: 170_000 }, async () => {
  receiver = await listenFake((req, res, body) => {
    try {
      const id = JSON.parse(body).pushId;
      if (typeof id === 'string') delivered.add(id);
    } catch {
      // not a push
    }
    sendJson(res, { ok: true });
  });
  cleanups.push(() => receiver.close());

  const rand = seededRandom(20261121);
  let server = await startChildServer(dataDir, SETTINGS);
  cleanups.push(() => killed(server));
  const user = await newUser(server.url, 'crash');
  const token = user.token;
  const assets = {
    cash: (await ok(server.url, 'asset.create', { name: 'Cash', type: 'cash', currency: 'USD', balance: OPENING.cash }, token)).id as string,
    bank: (await ok(server.url, 'asset.create', { name: 'Bank', type: 'debit_card', currency: 'USD', balance: OPENING.bank }, token)).id as string,
    card: (await ok(server.url, 'asset.create', { name: 'Card', type: 'credit_card', currency: 'USD', balance: OPENING.card }, token)).id as string,
  };
  const ids = Object.values(assets);
  const channel = await ok(server.url, 'push.createChannel', { name: 'Hook', type: 'webhook', config: { format: 'json', url: `${receiver.url}/hook` } }, token);
  const app = await ok(server.url, 'push.createApp', { name: 'Crash app', channelId: channel.id }, token);
  await ok(server.url, 'push.addRecipient', { appId: app.id, address: 'ci' }, token);

  const records = new Map<string, Expected>();
  const pushes = new Set<string>();
  let totalAcks = 0;

  for (let round = 0; round < ROUNDS; round++) {
    const base = server.url;
    const killAfterMs = 300 + Math.floor(rand() * 1200);
    let stop = false; // set once the server is killed
    const stopped = () => stop; // read anew after an await
    let firstAck: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (firstAck = resolve));
    const roundRand = seededRandom(round * 7919 + 17);
    const worker = async (w: number) => {
      for (let n = 0; !stop; n++) {
        const pick = roundRand();
        try {
          if (pick < 0.25) {
            const res = await request(`${base}/send/${app.appKey}`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ title: `r${round} w${w} n${n}`, desp: 'crash test' }),
            });
            if (res.status === 200 && res.code === 0) {
              pushes.add(res.data.pushId);
              totalAcks++;
              firstAck();
            }
            continue;
          }
          const amount = Math.floor(100 + roundRand() * 5000) / 100;
          const params: Record<string, unknown> =
            pick < 0.55
              ? { type: 'expense', amount, asset: ids[Math.floor(roundRand() * 3)], category: 'Food', description: `r${round}w${w}n${n}` }
              : pick < 0.7
                ? { type: 'income', amount, asset: ids[Math.floor(roundRand() * 3)], category: 'Salary' }
                : { type: 'transfer', amount, fromAsset: assets.bank, toAsset: roundRand() < 0.5 ? assets.cash : assets.card, description: `t${round}w${w}n${n}` };
          const res = await api(base, 'accounting.create', params, token);
          if (res.code === 200) {
            const p = params as { type: Expected['type']; amount: number; asset?: string; fromAsset?: string; toAsset?: string };
            records.set(res.data.id, { type: p.type, amount: p.amount, asset: (p.asset ?? p.fromAsset)!, ...(p.toAsset ? { toAsset: p.toAsset } : {}) });
            totalAcks++;
            firstAck();
          } else {
            throw new Error(`refused: ${res.code} ${res.message}`);
          }
        } catch (error) {
          if (stopped()) return; // the connection died with the server: not acknowledged
          throw error;
        }
      }
    };
    const failures: unknown[] = [];
    const workers = Array.from({ length: WORKERS }, (_, w) => worker(w).catch((error: unknown) => void failures.push(error)));
    await withDeadline(started, 30_000, 'no write was acknowledged in 30 s');
    await sleep(killAfterMs); // fixed-wait-ok: the kill at a random moment of the writes is what is tested
    stop = true;
    await killed(server);
    expect(server.child.signalCode).toBe('SIGKILL');
    await Promise.all(workers);
    expect(failures.map(String)).toEqual([]);

    server = await startChildServer(dataDir, SETTINGS);
    const now = server.url;

    // Every acknowledged record, as acknowledged.
    const visible = new Map<string, any>();
    for (let page = 1; ; page++) {
      const list = await ok(now, 'accounting.query', { page, pageSize: 200 }, token);
      for (const r of list.list) visible.set(r.id, r);
      if (list.list.length < 200) break;
    }
    const lost = [...records.keys()].filter((id) => !visible.has(id));
    expect(lost, `round ${round}: acknowledged records lost`).toEqual([]);
    for (const [id, want] of records) {
      const got = visible.get(id);
      expect({ type: got.type, amount: got.amount, asset: got.type === 'transfer' ? got.fromAsset : got.asset, toAsset: got.toAsset || undefined }, id).toEqual({
        ...want,
        toAsset: want.toAsset,
      });
    }

    // Nothing half-written: balances = opening + effects of the visible records, recomputed here.
    const cents = new Map([
      [assets.cash, OPENING.cash * 100],
      [assets.bank, OPENING.bank * 100],
      [assets.card, OPENING.card * 100],
    ]);
    const add = (asset: string, delta: number) => cents.set(asset, (cents.get(asset) ?? 0) + delta);
    for (const r of visible.values()) {
      const amount = Math.round(r.amount * 100);
      if (r.type === 'income') add(r.asset, amount);
      else if (r.type === 'expense') add(r.asset, -amount);
      else {
        add(r.fromAsset, -(amount + Math.round((r.fee ?? 0) * 100)));
        add(r.toAsset, Math.round((r.toAmount ?? r.amount) * 100));
      }
    }
    const balances = await ok(now, 'asset.query', {}, token);
    for (const a of balances.list) expect(Math.round(a.balance * 100), `round ${round}: balance of ${a.name}`).toBe(cents.get(a.id));
    const check = await ok(now, 'asset.checkBalances', {}, token);
    expect(check, `round ${round}`).toEqual({ ok: true, mismatches: [] });

    // Pushes: every acknowledged one delivered and recorded; every delivered one recorded.
    const history = new Map<string, any>();
    for (let page = 1; ; page++) {
      const list = await ok(now, 'push.queryMessages', { page, pageSize: 100 }, token);
      for (const m of list.list) history.set(m.id, m);
      if (list.list.length < 100) break;
    }
    for (const id of pushes) {
      expect(history.get(id)?.status, `round ${round}: acknowledged push ${id}`).toBe('success');
      expect(delivered.has(id)).toBe(true);
    }
    const unrecorded = [...delivered].filter((id) => !history.has(id));
    expect(unrecorded, `round ${round}: delivered without a history row`).toEqual([]);
    for (const m of history.values()) {
      expect(m.total, m.id).toBe((m.success as number) + (m.failed as number));
      expect(['success', 'failed']).toContain(m.status);
    }
    // The restarted server takes writes again.
    const probe = await ok(now, 'accounting.create', { type: 'income', amount: 1, asset: assets.cash, category: 'Salary' }, token);
    records.set(probe.id, { type: 'income', amount: 1, asset: assets.cash });
  }
  expect(totalAcks).toBeGreaterThan(ROUNDS * 10);
  expect(pushes.size).toBeGreaterThan(0);
});
