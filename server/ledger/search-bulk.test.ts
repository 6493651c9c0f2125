import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../lib/clock';
import { registerUser, startTestServer, type TestServer } from '../test-support/test-server';
import { ledgerErrors } from './errors';
import { expectRefusal } from '../test-support/refusal';

type User = Awaited<ReturnType<typeof registerUser>>;

let t: TestServer;
const clock = new ManualClock(Date.UTC(2026, 10, 22, 12));
beforeAll(async () => {
  t = await startTestServer({ clock });
});
afterAll(() => t.close());

async function ok(action: string, params: Record<string, unknown>, user: User): Promise<any> {
  const answer = await t.api(action, params, user.token);
  if (answer.code !== 200) throw new Error(`${action}: ${answer.code} ${answer.message}`);
  return answer.data;
}

const day = (m: number, d: number) => Date.UTC(2026, m - 1, d, 12);

/** A user with two assets and a few records of every kind. */
async function ledger() {
  const u = await registerUser(t);
  const wallet = (await ok('asset.create', { name: 'Wallet', type: 'cash', currency: 'USD', balance: 0 }, u)).id as string;
  const bank = (await ok('asset.create', { name: '招商银行', type: 'debit_card', currency: 'CNY', balance: 5000 }, u)).id as string;
  await ok('category.create', { type: 'expense', name: '餐饮' }, u);
  const r = {
    salary: (await ok('accounting.create', { type: 'income', amount: 2500, asset: wallet, category: 'Salary', description: 'November pay', date: day(10, 30) }, u)).id,
    coffee: (await ok('accounting.create', { type: 'expense', amount: 35.5, asset: wallet, category: 'Food', description: 'Coffee beans', date: day(11, 3), tags: ['trip'] }, u))
      .id,
    lunch: (await ok('accounting.create', { type: 'expense', amount: 48, asset: bank, category: '餐饮', description: '今天的午饭', date: day(11, 10) }, u)).id,
    move: (await ok('accounting.create', { type: 'transfer', amount: 100, fromAsset: wallet, toAsset: bank, toAmount: 712, date: day(11, 5), description: 'to bank' }, u)).id,
    big: (await ok('accounting.create', { type: 'expense', amount: 150, asset: wallet, category: 'Shopping', description: 'Shoes', date: day(9, 15), tags: ['Trip', 'gift'] }, u))
      .id,
  };
  return { u, wallet, bank, r };
}

async function search(u: User, q: string, extra: Record<string, unknown> = {}): Promise<string[]> {
  const data = await ok('accounting.query', { q, timeZone: 'UTC', pageSize: 200, ...extra }, u);
  return (data.list as Array<{ id: string }>).map((x) => x.id);
}

describe('accounting.query q (search)', () => {
  it('finds by note, category, tag, asset, amount and date, words AND together', async () => {
    const { u, r } = await ledger();
    expect(await search(u, 'coffee')).toEqual([r.coffee]);
    expect(await search(u, 'BEANS')).toEqual([r.coffee]);
    expect(await search(u, '午饭')).toEqual([r.lunch]);
    expect(await search(u, '餐饮')).toEqual([r.lunch]);
    expect(await search(u, 'cat:餐饮')).toEqual([r.lunch]);
    expect(await search(u, 'salary')).toEqual([r.salary]);
    expect(await search(u, 'trip')).toEqual([r.coffee, r.big]);
    expect(await search(u, 'tag:gift')).toEqual([r.big]);
    expect(await search(u, '招商')).toEqual([r.lunch, r.move]);
    expect(await search(u, 'asset:wallet')).toEqual([r.lunch, r.move, r.coffee, r.salary, r.big].filter((id) => id !== r.lunch));
    expect(await search(u, '35.5')).toEqual([r.coffee]);
    expect(await search(u, '>100')).toEqual([r.move, r.salary, r.big]); // the transfer received 712 CNY
    expect(await search(u, '>=100')).toEqual([r.move, r.salary, r.big]);
    expect(await search(u, '<50')).toEqual([r.lunch, r.coffee]);
    expect(await search(u, '712')).toEqual([r.move]); // the amount received of a cross-currency transfer
    expect(await search(u, '100..200')).toEqual([r.move, r.big]);
    expect(await search(u, '2026-11')).toEqual([r.lunch, r.move, r.coffee]);
    expect(await search(u, '2026-11-03')).toEqual([r.coffee]);
    expect(await search(u, '<2026-11')).toEqual([r.salary, r.big]);
    expect(await search(u, 'trip 2026-11')).toEqual([r.coffee]);
    expect(await search(u, 'trip >100')).toEqual([r.big]);
    expect(await search(u, 'coffee shoes')).toEqual([]);
    // combines with the other filters, and totals follow the search
    expect(await search(u, 'trip', { type: 'expense', endDate: day(10, 1) })).toEqual([r.big]);
    const totals = (await ok('accounting.query', { q: 'wallet <=150', timeZone: 'UTC' }, u)).totals;
    expect(totals).toMatchObject({ expense: 185.5, income: 0, transfers: 1 });
    // the same ledger seen from another user's account: nothing
    const other = await registerUser(t);
    expect(await search(other, 'coffee')).toEqual([]);
  });

  it('searches a word named like a property every object has (constructor:) as plain text, not as a qualifier', async () => {
    const { u, wallet } = await ledger();
    const lego = (await ok('accounting.create', { type: 'expense', amount: 20, asset: wallet, description: 'Lego Constructor:Set', date: day(11, 12) }, u)).id;
    expect(await search(u, 'constructor:set')).toEqual([lego]);
    expect(await search(u, 'constructor:x')).toEqual([]);
  });

  it('refuses a malformed q or time zone with a 400 naming the field', async () => {
    const { u } = await ledger();
    for (const q of ['>abc', '2026-13', '"open', '200..100']) {
      const answer = await t.api('accounting.query', { q }, u.token);
      expectRefusal(answer, ledgerErrors.rows.badSearch);
      expect(answer.data.field).toBe('params.q');
      expect(answer.message).not.toContain('params.');
    }
    expectRefusal(await t.api('accounting.query', { q: 'x', timeZone: 'Mars/Base' }, u.token), ledgerErrors.rows.unknownTimeZone);
  });
});

describe('bulk changes and undo', () => {
  const snapshot = async (u: User) => {
    const data = await ok('accounting.query', { pageSize: 200 }, u);
    const assets = await ok('asset.query', {}, u);
    return { list: data.list.map((x: any) => ({ ...x, updatedAt: 0 })), balances: assets.list.map((a: any) => [a.id, a.balance]) };
  };

  it('re-categorises and re-tags, then undo puts every field back', async () => {
    const { u, r } = await ledger();
    const before = await snapshot(u);
    const changed = await ok('accounting.bulkUpdate', { ids: [r.coffee, r.big], category: 'Shopping', addTags: ['work'], removeTags: ['TRIP'] }, u);
    expect(changed).toMatchObject({ updated: 2, undoUntil: clock.now() + 60_000 });
    const coffee = await ok('accounting.get', { id: r.coffee }, u);
    expect(coffee).toMatchObject({ category: 'Shopping', tags: ['work'] });
    expect((await ok('accounting.get', { id: r.big }, u)).tags).toEqual(['gift', 'work']);
    clock.advance(10_000);
    expect(await ok('accounting.undo', { token: changed.undoToken }, u)).toEqual({ restored: 2 });
    expect(await snapshot(u)).toEqual(before);
    // each token works once
    expectRefusal(await t.api('accounting.undo', { token: changed.undoToken }, u.token), ledgerErrors.rows.undoUnavailable);
  });

  it('is all or nothing: a foreign id, a transfer given a category, an unknown category change nothing', async () => {
    const { u, r } = await ledger();
    const other = await ledger();
    const before = await snapshot(u);
    const otherBefore = await snapshot(other.u);
    const foreign = await t.api('accounting.bulkDelete', { ids: [r.coffee, other.r.coffee] }, u.token);
    expectRefusal(foreign, ledgerErrors.rows.recordNotFound);
    expect(foreign.data.ids).toEqual([other.r.coffee]);
    expectRefusal(await t.api('accounting.bulkUpdate', { ids: [r.coffee, other.r.big], addTags: ['x'] }, u.token), ledgerErrors.rows.recordNotFound);
    expectRefusal(await t.api('accounting.bulkUpdate', { ids: [r.coffee, r.move], category: 'Food' }, u.token), ledgerErrors.rows.bulkTransferCategory);
    expectRefusal(await t.api('accounting.bulkUpdate', { ids: [r.coffee, r.salary], category: 'Food' }, u.token), ledgerErrors.rows.unknownCategory); // Salary is income; no income "Food"
    expectRefusal(await t.api('accounting.bulkUpdate', { ids: [r.coffee] }, u.token), ledgerErrors.rows.bulkNothingToDo);
    const tooMany = Array.from({ length: 20 }, (_, i) => `t${i}`);
    expectRefusal(await t.api('accounting.bulkUpdate', { ids: [r.coffee, r.lunch], addTags: tooMany }, u.token), ledgerErrors.rows.bulkTooManyTags);
    // deleting the salary would take the cash wallet below zero: refused whole
    expectRefusal(await t.api('accounting.bulkDelete', { ids: [r.coffee, r.salary] }, u.token), ledgerErrors.rows.insufficientBalance);
    expect(await snapshot(u)).toEqual(before);
    expect(await snapshot(other.u)).toEqual(otherBefore);
    // another user cannot use my undo token
    const mine = await ok('accounting.bulkDelete', { ids: [r.coffee] }, u);
    expectRefusal(await t.api('accounting.undo', { token: mine.undoToken }, other.u.token), ledgerErrors.rows.undoUnavailable);
  });

  it('deletes many and undo brings them back with the same ids (over the tombstones), balances following', async () => {
    const { u, r, wallet } = await ledger();
    const before = await snapshot(u);
    const gone = await ok('accounting.bulkDelete', { ids: [r.coffee, r.lunch, r.move, r.coffee] }, u);
    expect(gone.deleted).toBe(3);
    expect(await search(u, '')).toEqual([r.salary, r.big]);
    expect((await ok('asset.detail', { id: wallet }, u)).balance).toBe(2500 - 150);
    clock.advance(12_000);
    expect(await ok('accounting.undo', { token: gone.undoToken }, u)).toEqual({ restored: 3 });
    expect(await snapshot(u)).toEqual(before);
    expect((await ok('accounting.get', { id: r.lunch }, u)).description).toBe('今天的午饭');
    // a restored record can be deleted and restored again
    const again = await ok('accounting.delete', { id: r.lunch }, u);
    expect(again).toMatchObject({ deleted: true });
    expect(await ok('accounting.undo', { token: again.undoToken }, u)).toEqual({ restored: 1 });
  });

  it('refuses undo after 60 s, and when a record changed meanwhile', async () => {
    const { u, r } = await ledger();
    const deleted = await ok('accounting.delete', { id: r.coffee }, u);
    clock.advance(60_001);
    expect(await t.api('accounting.undo', { token: deleted.undoToken }, u.token)).toMatchObject({ status: 404 });
    const edit = await ok('accounting.bulkUpdate', { ids: [r.big, r.lunch], addTags: ['later'] }, u);
    await ok('accounting.update', { id: r.lunch, description: 'changed since' }, u);
    const refused = await t.api('accounting.undo', { token: edit.undoToken }, u.token);
    expect(refused).toMatchObject({ status: 409 });
    expect((await ok('accounting.get', { id: r.big }, u)).tags).toEqual(['Trip', 'gift', 'later']);
    expect((await ok('accounting.get', { id: r.lunch }, u)).description).toBe('changed since');
    expect(await t.api('accounting.undo', { token: 'nope' }, u.token)).toMatchObject({ status: 404 });
  });

  it('copies a record (accounting.duplicate) dated now, without attachments, refusing foreign ids', async () => {
    const { u, r } = await ledger();
    const copy = await ok('accounting.duplicate', { id: r.move }, u);
    expect(copy).toMatchObject({ type: 'transfer', amount: 100, toAmount: 712, description: 'to bank', date: clock.now(), attachments: [] });
    expect(copy.id).not.toBe(r.move);
    const dated = await ok('accounting.duplicate', { id: r.coffee, date: day(11, 20) }, u);
    expect(dated).toMatchObject({ amount: 35.5, category: 'Food', tags: ['trip'], date: day(11, 20) });
    const other = await registerUser(t);
    expectRefusal(await t.api('accounting.duplicate', { id: r.coffee }, other.token), ledgerErrors.rows.recordNotFound);
  });
});
