import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../lib/ids';
import { registerUser, startTestServer, type TestServer } from '../test-support/test-server';
import { createAsset } from '../test-support/ledger';
import { ledgerErrors } from './errors';
import type { RecordDoc } from './schema';
import { commonErrors } from '../lib/errors';
import { expectRefusal } from '../test-support/refusal';

/** Issue 15, finding 6: every amount and every derived sum stays exact, or the write is refused. */

type User = Awaited<ReturnType<typeof registerUser>>;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const LIMIT = 10n ** 15n;
const NEAR = 9_999_999_999_999.99; // 999,999,999,999,999 cents: the largest 2-decimal amount

const asset = (user: User, params: Record<string, unknown>) => createAsset(t, user, params);

/** Writes a record straight into the collection, as sync does (no API rule applies). */
async function synced(user: User, assetId: string, type: 'income' | 'expense', amount: number): Promise<void> {
  const now = Date.now();
  const doc: RecordDoc = {
    id: newId(now),
    userId: user.id,
    type,
    amount,
    asset: assetId,
    toAsset: '',
    toAmount: 0,
    fee: 0,
    category: 'Other',
    description: 'from another device',
    searchText: 'from another device',
    date: now,
    tags: [],
    attachments: [],
    importKey: '',
    createdAt: now,
    updatedAt: now,
  };
  await t.server.app.db.collection<RecordDoc>('records').insert(doc);
}

describe('finding 6: ten expenses of 9,999,999,999,999.99 plus one of 0.01 on a credit card', () => {
  it('refuses the write that would leave the exact range, naming the limit, and changes nothing', async () => {
    const u = await registerUser(t);
    const card = await asset(u, { name: 'Card', type: 'credit_card' });
    expect((await t.api('accounting.create', { type: 'expense', amount: NEAR, asset: card }, u.token)).code).toBe(200);
    for (let i = 1; i < 10; i++) {
      const refused = await t.api('accounting.create', { type: 'expense', amount: NEAR, asset: card }, u.token);
      expectRefusal(refused, commonErrors.rows.invalid);
      expect(refused.message).toContain('10,000,000,000,000.00 USD');
      expect(refused.data).toMatchObject({ field: 'params.amount', currency: 'USD', limit: 10_000_000_000_000, limitMinor: 1e15, assetId: card });
    }
    expect((await t.api('accounting.create', { type: 'expense', amount: 0.01, asset: card }, u.token)).code).toBe(200);
    const detail = (await t.api('asset.detail', { id: card }, u.token)).data;
    expect(detail).toMatchObject({ balance: -10_000_000_000_000, recordCount: 2 });
    expect(detail.inexact).toBeUndefined();
    // One more cent is refused too; the balance is exactly the limit.
    expectRefusal(await t.api('accounting.create', { type: 'expense', amount: 0.01, asset: card }, u.token), commonErrors.rows.invalid);
    expect(await t.api('asset.checkBalances', {}, u.token)).toMatchObject({ data: { ok: true, mismatches: [] } });
    const list = (await t.api('accounting.query', {}, u.token)).data;
    expect(list.total).toBe(2);
    expect(list.totals).toMatchObject({ expense: 10_000_000_000_000, net: -10_000_000_000_000, inexact: [] });
  });

  it('holds for every writer: inbox notices (confirmed by hand or by a rule) and recurring occurrences cannot leave the range either', async () => {
    const u = await registerUser(t);
    const card = await asset(u, { name: 'Card 4321', type: 'credit_card', isDefault: true });
    expect((await t.api('accounting.create', { type: 'expense', amount: NEAR, asset: card }, u.token)).code).toBe(200);
    const { inboxKey } = (await t.api('inbox.getKey', {}, u.token)).data;
    const notice = (body: unknown) =>
      fetch(`${t.url}/in/${inboxKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as { code: number; message: string; data: any },
      }));
    // Confirmed by hand: refused with the range error, the draft kept.
    const sent = await notice({ amount: NEAR, type: 'expense', merchant: 'Shop', cardTail: '4321' });
    expect(sent.status).toBe(200);
    const confirm = await t.api('inbox.confirm', { id: sent.body.data.id }, u.token);
    expectRefusal(confirm, commonErrors.rows.invalid);
    expect(confirm.message).toContain('10,000,000,000,000.00 USD');
    expect((await t.api('inbox.query', {}, u.token)).data.list).toHaveLength(1);
    // A rule that confirms at once: nothing is written, the notice waits as a draft.
    expect((await t.api('rule.create', { match: { field: 'payee', op: 'contains', value: 'Auto' }, set: { tags: ['auto'] }, autoConfirm: true }, u.token)).code).toBe(200);
    const auto = await notice({ amount: NEAR, type: 'expense', merchant: 'Auto shop', cardTail: '4321' });
    expect(auto.status).toBe(200);
    expect(auto.body.data.autoConfirmed).toBe(false);
    expect((await t.api('inbox.query', {}, u.token)).data.list).toHaveLength(2);
    expectRefusal(await t.api('inbox.confirm', { id: auto.body.data.id }, u.token), commonErrors.rows.invalid);
    expect((await t.api('asset.detail', { id: card }, u.token)).data.balance).toBe(-NEAR);
    expect((await t.api('asset.checkBalances', {}, u.token)).data).toMatchObject({ ok: true });
  });

  it('never lets checkBalances say ok on a sum that is not exact (records that arrived by sync)', async () => {
    const u = await registerUser(t);
    const card = await asset(u, { name: 'Card', type: 'credit_card' });
    for (let i = 0; i < 10; i++) await synced(u, card, 'expense', 999_999_999_999_999);
    await synced(u, card, 'expense', 1);
    const check = (await t.api('asset.checkBalances', {}, u.token)).data;
    expect(check.ok).toBe(false);
    expect(check.mismatches).toEqual([]);
    // The exact sum, as text: −9,999,999,999,999,991 cents (beyond 2^53).
    expect(check.outOfRange).toEqual([{ assetId: card, currency: 'USD', balance: '-9999999999999991' }]);
    const detail = (await t.api('asset.detail', { id: card }, u.token)).data;
    expect(detail.inexact).toEqual(['balance']);
    const totals = (await t.api('accounting.query', {}, u.token)).data.totals;
    expect(totals.inexact).toEqual(['totals.expense', 'totals.net']);
    const stats = (await t.api('stats.getAssetStats', {}, u.token)).data;
    expect(stats.inexact).toEqual(expect.arrayContaining(['netWorth', 'liabilities']));
    // A write that moves the balance back towards the range is accepted; further out is not.
    expectRefusal(await t.api('accounting.create', { type: 'expense', amount: 1, asset: card }, u.token), commonErrors.rows.invalid);
    expect((await t.api('accounting.create', { type: 'income', amount: NEAR, asset: card }, u.token)).code).toBe(200);
    expect((await t.api('asset.checkBalances', {}, u.token)).data.outOfRange[0].balance).toBe(-8_999_999_999_999_992);
  });
});

describe('every other write of the ledger stays within the range', () => {
  it('transfers (amount + fee, toAmount), opening balances and deletes', async () => {
    const u = await registerUser(t);
    const bank = await asset(u, { name: 'Bank', balance: NEAR });
    const card = await asset(u, { name: 'Card', type: 'credit_card' });
    const fee = await t.api('accounting.create', { type: 'transfer', amount: NEAR, fee: 0.02, fromAsset: bank, toAsset: card }, u.token);
    expectRefusal(fee, commonErrors.rows.invalid);
    expect(fee.message).toMatch(/amount \+ fee would be beyond ±10,000,000,000,000\.00 USD/);
    // The target would pass the limit: refused.
    expect((await t.api('accounting.create', { type: 'income', amount: NEAR, asset: card }, u.token)).code).toBe(200);
    const over = await t.api('accounting.create', { type: 'transfer', amount: 1, fromAsset: bank, toAsset: card }, u.token);
    expectRefusal(over, commonErrors.rows.invalid);
    expect(over.data).toMatchObject({ assetId: card, limit: 10_000_000_000_000 });
    // An opening balance that would take the balance out of range.
    const opening = await t.api('asset.update', { id: card, openingBalance: 1 }, u.token);
    expectRefusal(opening, commonErrors.rows.invalid);
    expect(opening.data.field).toBe('params.openingBalance');
    // Deleting an expense can push a balance up beyond the limit.
    const spend = await t.api('accounting.create', { type: 'expense', amount: 5, asset: card }, u.token);
    expect((await t.api('accounting.create', { type: 'income', amount: 5, asset: card }, u.token)).code).toBe(200);
    expectRefusal(await t.api('accounting.delete', { id: spend.data.id }, u.token), commonErrors.rows.invalid);
    // Across currencies: a converted amount beyond the target's limit.
    const yen = await asset(u, { name: 'Yen', currency: 'JPY', type: 'credit_card' });
    const kwd = await asset(u, { name: 'Dinar', currency: 'KWD', balance: 2000 });
    expect((await t.api('currency.setRate', { from: 'KWD', to: 'JPY', rate: '999999999999' }, u.token)).code).toBe(200);
    const converted = await t.api('accounting.create', { type: 'transfer', amount: 1001, fromAsset: kwd, toAsset: yen }, u.token);
    expectRefusal(converted, commonErrors.rows.invalid);
    expect(converted.message).toContain('1,000,000,000,000,000 JPY');
    expect((await t.api('accounting.create', { type: 'expense', amount: 1_000_000_000_000.001, asset: kwd }, u.token)).message).toContain('1,000,000,000,000.000 KWD');
    expect(await t.api('asset.checkBalances', {}, u.token)).toMatchObject({ data: { ok: true } });
  });
});

describe('property: balances and totals near the limits equal a BigInt recomputation', () => {
  it('after random creates, updates and deletes; the refused writes are exactly those that would leave the range', async () => {
    const u = await registerUser(t);
    const assets = [
      { id: await asset(u, { name: 'Card', type: 'credit_card' }), type: 'credit_card', opening: 0n },
      { id: await asset(u, { name: 'Loan', type: 'loan', balance: -NEAR }), type: 'loan', opening: -999_999_999_999_999n },
      { id: await asset(u, { name: 'Cash', balance: 5_000_000_000_000 }), type: 'cash', opening: 500_000_000_000_000n },
    ];
    type Rec = { id: string; type: 'income' | 'expense' | 'transfer'; amount: bigint; fee: bigint; asset: number; to: number };
    const live: Rec[] = [];
    const effects = (r: Rec): Array<[number, bigint]> =>
      r.type === 'income'
        ? [[r.asset, r.amount]]
        : r.type === 'expense'
          ? [[r.asset, -r.amount]]
          : [
              [r.asset, -(r.amount + r.fee)],
              [r.to, r.amount],
            ];
    const balances = () => {
      const b = assets.map((a) => a.opening);
      for (const r of live) for (const [i, d] of effects(r)) b[i]! += d;
      return b;
    };
    /** What the server must answer for a change: 400 out of range, 2002 below zero, else 200. */
    const expected = (removed: Rec[], added: Rec[]): number => {
      const before = balances();
      const after = [...before];
      for (const r of removed) for (const [i, d] of effects(r)) after[i]! -= d;
      for (const r of added) for (const [i, d] of effects(r)) after[i]! += d;
      const abs = (v: bigint) => (v < 0n ? -v : v);
      for (const r of added) if (r.amount + r.fee > LIMIT) return 400;
      for (const [i, now] of after.entries()) if (now !== before[i] && abs(now) > LIMIT && abs(now) > abs(before[i]!)) return 400;
      for (const [i, now] of after.entries()) if (assets[i]!.type === 'cash' && now < before[i]! && now < 0n) return ledgerErrors.rows.insufficientBalance.code;
      return 200;
    };
    // Amounts in cents: mostly near the limit, some small, so sums cross it often.
    const cents = fc.oneof(fc.bigInt({ min: LIMIT - 1000n, max: LIMIT }), fc.bigInt({ min: LIMIT / 2n - 1000n, max: LIMIT / 2n + 1000n }), fc.bigInt({ min: 1n, max: 10_000n }));
    const op = fc.oneof(
      fc.record({ kind: fc.constantFrom('income' as const, 'expense' as const), amount: cents, a: fc.nat(2) }),
      fc.record({ kind: fc.constant('transfer' as const), amount: cents, fee: fc.bigInt({ min: 0n, max: 100n }), a: fc.nat(2), b: fc.nat(2) }),
      fc.record({ kind: fc.constant('update' as const), amount: cents, pick: fc.nat() }),
      fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
    );
    /** Cents → the exact decimal as a JSON number would carry it (independent of the code under test). */
    const major = (c: bigint) => {
      const digits = (c < 0n ? -c : c).toString().padStart(3, '0');
      return Number(`${c < 0n ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`);
    };
    let outcomes = new Set<number>();
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 20 }), async (ops) => {
        for (const o of ops) {
          if (o.kind === 'income' || o.kind === 'expense' || o.kind === 'transfer') {
            if (o.kind === 'transfer' && o.a === o.b) continue;
            const rec: Rec = { id: '', type: o.kind, amount: o.amount, fee: o.kind === 'transfer' ? o.fee : 0n, asset: o.a, to: o.kind === 'transfer' ? o.b : -1 };
            const params =
              o.kind === 'transfer'
                ? { type: 'transfer', amount: major(o.amount), fee: major(o.fee), fromAsset: assets[o.a]!.id, toAsset: assets[o.b]!.id }
                : { type: o.kind, amount: major(o.amount), asset: assets[o.a]!.id };
            const want = expected([], [rec]);
            const r = await t.api('accounting.create', params, u.token);
            expect(r.code, JSON.stringify({ params, message: r.message })).toBe(want);
            outcomes.add(r.code);
            if (r.code === 200) live.push({ ...rec, id: r.data.id });
          } else if (live.length > 0 && 'pick' in o) {
            const rec = live[o.pick % live.length]!;
            if (o.kind === 'update') {
              const next = { ...rec, amount: o.amount };
              const want = expected([rec], [next]);
              const r = await t.api('accounting.update', { id: rec.id, amount: major(o.amount) }, u.token);
              expect(r.code, r.message).toBe(want);
              if (r.code === 200) live[live.indexOf(rec)] = next;
            } else {
              const want = expected([rec], []);
              const r = await t.api('accounting.delete', { id: rec.id }, u.token);
              expect(r.code, r.message).toBe(want);
              if (r.code === 200) live.splice(live.indexOf(rec), 1);
            }
          }
        }
        const b = balances();
        for (const [i, { id }] of assets.entries()) {
          const detail = (await t.api('asset.detail', { id }, u.token)).data;
          expect(detail.balance).toBe(major(b[i]!));
          expect(detail.inexact).toBeUndefined();
        }
        expect((await t.api('asset.checkBalances', {}, u.token)).data).toEqual({ ok: true, mismatches: [] });
        // Totals of every record: exact when within the range, flagged when beyond it.
        let income = 0n;
        let expense = 0n;
        for (const r of live)
          if (r.type === 'income') income += r.amount;
          else if (r.type === 'expense') expense += r.amount;
        const totals = (await t.api('accounting.query', {}, u.token)).data.totals;
        const flagged = [
          ...(income > LIMIT ? ['totals.income'] : []),
          ...(expense > LIMIT ? ['totals.expense'] : []),
          ...(income - expense > LIMIT || expense - income > LIMIT ? ['totals.net'] : []),
        ];
        expect(totals.inexact).toEqual(flagged);
        if (income <= LIMIT) expect(totals.income).toBe(major(income));
        if (expense <= LIMIT) expect(totals.expense).toBe(major(expense));
        if (!flagged.includes('totals.net')) expect(totals.net).toBe(major(income - expense));
        // The same sums in the statistics.
        const stats = (await t.api('stats.getIncomeExpense', { startDate: 0, endDate: Date.now() + 86_400_000 }, u.token)).data;
        expect(stats.inexact).toEqual(flagged.map((path) => ({ 'totals.income': 'income.total', 'totals.expense': 'expense.total', 'totals.net': 'netIncome' })[path]));
        if (income <= LIMIT) expect(stats.income.total).toBe(major(income));
        if (expense <= LIMIT) expect(stats.expense.total).toBe(major(expense));
      }),
      { numRuns: 25, seed: 1515 },
    );
    // The runs crossed the limit, not only stayed inside it.
    expect(outcomes.has(400)).toBe(true);
    outcomes = new Set();
  }, 120_000);
});
