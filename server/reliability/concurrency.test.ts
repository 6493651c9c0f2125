/**
 * Concurrency: many simultaneous writes on the same assets and the same record, through HTTP.
 * No lost update (balances equal a recomputation from the records; the final state of an edited
 * record equals one of the writes, whole; partial edits of different fields all survive), and
 * 409 for a client that sent a stale `expectedUpdatedAt`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../test-support/test-server';
import { api, newUser, ok, request, sleep } from './helpers';
import { ledgerErrors } from '../ledger/errors';
import { expectRefusal } from '../test-support/refusal';

let t: TestServer;
let base: string;
let token: string;

beforeAll(async () => {
  t = await startTestServer({ settings: { rateLimit: { apiPerToken: 1_000_000 }, push: { sendPerAppKey: 1_000_000, sendPerAddress: 1_000_000 } } });
  base = t.url;
  token = (await newUser(base, 'conc')).token;
});
afterAll(() => t.close());

const cents = (major: number) => Math.round(major * 100);

async function balances(): Promise<Record<string, number>> {
  const list = await ok(base, 'asset.query', { pageSize: 200 }, token);
  return Object.fromEntries(list.list.map((a: any) => [a.id, cents(a.balance)]));
}

async function allRecords(asset?: string): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; ; page++) {
    const list = await ok(base, 'accounting.query', { page, pageSize: 200, ...(asset ? { asset } : {}) }, token);
    out.push(...list.list);
    if (list.list.length < 200) return out;
  }
}

describe('200 concurrent transfers between the same assets', () => {
  it('all land, in both directions, and balances equal the opening balances plus the transfers', async () => {
    const a = (await ok(base, 'asset.create', { name: 'A', type: 'debit_card', currency: 'USD', balance: 10_000 }, token)).id;
    const b = (await ok(base, 'asset.create', { name: 'B', type: 'savings', currency: 'USD', balance: 10_000 }, token)).id;
    const jobs = Array.from({ length: 200 }, (_, i) => {
      const forward = i % 3 !== 0;
      const amount = (i % 17) + 1 + (i % 7) / 100;
      const fee = i % 10 === 0 ? 0.25 : 0;
      return { from: forward ? a : b, to: forward ? b : a, amount, fee };
    });
    const answers = await Promise.all(
      jobs.map((j) => api(base, 'accounting.create', { type: 'transfer', amount: j.amount, fee: j.fee, fromAsset: j.from, toAsset: j.to, description: 'concurrent' }, token)),
    );
    expect(answers.filter((r) => r.code !== 200).map((r) => `${r.code} ${r.message}`)).toEqual([]);
    const expected = new Map([
      [a, cents(10_000)],
      [b, cents(10_000)],
    ]);
    const move = (asset: string, delta: number) => expected.set(asset, (expected.get(asset) ?? 0) + delta);
    for (const j of jobs) {
      move(j.from, -(cents(j.amount) + cents(j.fee)));
      move(j.to, cents(j.amount));
    }
    const now = await balances();
    expect({ a: now[a], b: now[b] }).toEqual({ a: expected.get(a), b: expected.get(b) });
    expect((await allRecords(a)).length).toBe(200);
    expect(await ok(base, 'asset.checkBalances', {}, token)).toEqual({ ok: true, mismatches: [] });
  });

  it('200 concurrent transfers out of 150.00 (1.00 each): exactly 150 succeed, the rest 2002, never below zero', async () => {
    const cash = (await ok(base, 'asset.create', { name: 'Wallet', type: 'cash', currency: 'USD', balance: 150 }, token)).id;
    const card = (await ok(base, 'asset.create', { name: 'Card', type: 'credit_card', currency: 'USD' }, token)).id;
    const answers = await Promise.all(Array.from({ length: 200 }, () => api(base, 'accounting.create', { type: 'transfer', amount: 1, fromAsset: cash, toAsset: card }, token)));
    const codes = answers.map((r) => r.code);
    expect(codes.filter((c) => c === 200).length).toBe(150);
    const refused = ledgerErrors.rows.insufficientBalance.code;
    expect(codes.filter((c) => c === refused).length).toBe(50);
    expectRefusal(
      answers.find((r) => r.code === refused)!,
      ledgerErrors.rows.insufficientBalance,
    );
    const now = await balances();
    expect(now[cash]).toBe(0);
    expect(now[card]).toBe(cents(150));
    expect(await ok(base, 'asset.checkBalances', {}, token)).toEqual({ ok: true, mismatches: [] });
  });
});

describe('concurrent edits of the same record', () => {
  async function freshExpense(asset: string) {
    const record = await ok(base, 'accounting.create', { type: 'expense', amount: 10, asset, category: 'Food', description: 'original' }, token);
    await sleep(3); // a later edit gets a later updatedAt
    return record;
  }

  it('without expectedUpdatedAt: the final record is exactly one of the writes, and the balance follows it', async () => {
    const asset = (await ok(base, 'asset.create', { name: 'Edits', type: 'debit_card', currency: 'USD', balance: 1000 }, token)).id;
    const record = await freshExpense(asset);
    const writes = Array.from({ length: 60 }, (_, i) => ({ amount: 1 + i, description: `write ${i}`, tags: [`t${i}`] }));
    const answers = await Promise.all(writes.map((w) => api(base, 'accounting.update', { id: record.id, ...w }, token)));
    expect(answers.filter((r) => r.code !== 200).map((r) => r.message)).toEqual([]);
    const final = await ok(base, 'accounting.get', { id: record.id }, token);
    const match = writes.find((w) => w.description === final.description);
    expect(match, final.description).toBeDefined();
    expect({ amount: final.amount, tags: final.tags }).toEqual({ amount: match!.amount, tags: match!.tags });
    expect((await balances())[asset]).toBe(cents(1000 - match!.amount));
    expect(await ok(base, 'asset.checkBalances', {}, token)).toEqual({ ok: true, mismatches: [] });
  });

  it('with the same expectedUpdatedAt: exactly one edit wins, every other client gets 409 and changes nothing', async () => {
    const asset = (await ok(base, 'asset.create', { name: 'Stale', type: 'debit_card', currency: 'USD', balance: 1000 }, token)).id;
    const record = await freshExpense(asset);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        api(base, 'accounting.update', { id: record.id, amount: 20 + i, description: `client ${i}`, expectedUpdatedAt: record.updatedAt }, token),
      ),
    );
    const winners = answers.filter((r) => r.code === 200);
    expect(winners.length).toBe(1);
    const losers = answers.filter((r) => r.code !== 200);
    expect(new Set(losers.map((r) => `${r.status} ${r.code}`))).toEqual(new Set(['409 409']));
    const final = await ok(base, 'accounting.get', { id: record.id }, token);
    expect(final.description).toBe(winners[0]?.data.description);
    expect(final.amount).toBe(winners[0]?.data.amount);
    expect((await balances())[asset]).toBe(cents(1000 - final.amount));
    // The winner's updatedAt is the new version: a client holding it can edit, the old one cannot.
    expectRefusal(await api(base, 'accounting.update', { id: record.id, description: 'old', expectedUpdatedAt: record.updatedAt }, token), ledgerErrors.rows.changedElsewhere);
    expect((await api(base, 'accounting.update', { id: record.id, description: 'new', expectedUpdatedAt: final.updatedAt }, token)).code).toBe(200);
  });

  it('edits racing a delete: the record ends deleted or edited, never half; balances follow', async () => {
    const asset = (await ok(base, 'asset.create', { name: 'Race', type: 'debit_card', currency: 'USD', balance: 1000 }, token)).id;
    const record = await freshExpense(asset);
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => api(base, 'accounting.update', { id: record.id, amount: 30 + i }, token)),
      api(base, 'accounting.delete', { id: record.id }, token),
      ...Array.from({ length: 10 }, (_, i) => api(base, 'accounting.update', { id: record.id, amount: 50 + i }, token)),
    ]);
    expect(answers.every((r) => r.code === 200 || r.code === ledgerErrors.rows.recordNotFound.code)).toBe(true);
    expectRefusal(await api(base, 'accounting.get', { id: record.id }, token), ledgerErrors.rows.recordNotFound);
    expect((await balances())[asset]).toBe(cents(1000));
    expect(await ok(base, 'asset.checkBalances', {}, token)).toEqual({ ok: true, mismatches: [] });
  });
});

describe('concurrent edits of the same asset', () => {
  it('partial edits of different fields all survive; a stale expectedUpdatedAt gets 409', async () => {
    const created = await ok(base, 'asset.create', { name: 'Shared', type: 'debit_card', currency: 'USD', balance: 5 }, token);
    const asset = await ok(base, 'asset.detail', { id: created.id }, token);
    await sleep(3);
    const answers = await Promise.all([
      api(base, 'asset.update', { id: asset.id, name: 'Renamed' }, token),
      api(base, 'asset.update', { id: asset.id, description: 'described' }, token),
      api(base, 'asset.update', { id: asset.id, icon: 'bank' }, token),
      api(base, 'asset.update', { id: asset.id, openingBalance: 7 }, token),
      api(base, 'accounting.create', { type: 'income', amount: 3, asset: asset.id, category: 'Salary' }, token),
    ]);
    expect(answers.map((r) => r.code)).toEqual([200, 200, 200, 200, 200]);
    const final = await ok(base, 'asset.detail', { id: asset.id }, token);
    expect({ name: final.name, description: final.description, icon: final.icon, openingBalance: final.openingBalance, balance: final.balance }).toEqual({
      name: 'Renamed',
      description: 'described',
      icon: 'bank',
      openingBalance: 7,
      balance: 10,
    });
    const stale = await Promise.all(Array.from({ length: 20 }, (_, i) => api(base, 'asset.update', { id: asset.id, name: `n${i}`, expectedUpdatedAt: final.updatedAt }, token)));
    expect(stale.filter((r) => r.code === 200).length).toBe(1);
    expect(stale.filter((r) => r.code === 409).length).toBe(19);
  });
});

describe('concurrent pushes to one app', () => {
  it('150 simultaneous /send calls: 150 answers, 150 distinct history rows, none lost in the group commit', async () => {
    const channel = await ok(base, 'push.createChannel', { name: 'Desk', type: 'desktop', config: {} }, token);
    const app = await ok(base, 'push.createApp', { name: 'Burst', channelId: channel.id }, token);
    const answers = await Promise.all(Array.from({ length: 150 }, (_, i) => request(`${base}/send/${app.appKey}?title=burst+${i}`)));
    expect(answers.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    const ids = new Set(answers.map((r) => r.data.pushId));
    expect(ids.size).toBe(150);
    const history = await ok(base, 'push.queryMessages', { appId: app.id, pageSize: 100 }, token);
    expect(history.total).toBe(150);
  });
});
