import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset } from '../../test-support/ledger';
import { registerUser, startTestServer, type TestServer } from '../../test-support/test-server';
import { importErrors } from '../errors';
import { expectRefusal } from '../../test-support/refusal';

/**
 * Issue 22: import rules — CRUD and its validation (operators per field, values, regular
 * expressions that could take exponential time, categories and assets of the account), rules in a
 * preview (which rule set what; later rules win; a category of the other type is not applied),
 * rules following a renamed category, and suggestions after re-categorising a payee twice.
 */

type User = Awaited<ReturnType<typeof registerUser>>;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

async function ok<T = any>(action: string, params: Record<string, unknown>, u: User): Promise<T> {
  const answer = await t.api(action, params, u.token);
  if (answer.code !== 200) throw new Error(`${action}: ${answer.code} ${answer.message}`);
  return answer.data as T;
}

const csv = (rows: string[]) => Buffer.from(['Date,Payee,Memo,Amount,Id', ...rows, ''].join('\n')).toString('base64');
const MAPPING = { date: 0, payee: 1, description: 2, amount: 3, externalId: 4 };

describe('rule.create / query / update / delete', () => {
  it('stores a rule, lists it, changes it and deletes it; another account sees none of it', async () => {
    const u = await registerUser(t);
    const other = await registerUser(t);
    const rule = await ok('rule.create', { match: { field: 'payee', op: 'contains', value: 'STARBUCKS' }, set: { category: 'food', tags: ['coffee', ' coffee '] } }, u);
    expect(rule).toMatchObject({ match: { field: 'payee', op: 'contains', value: 'STARBUCKS' }, set: { category: 'Food', tags: ['coffee'] }, autoConfirm: false });
    expect(rule.userId).toBeUndefined();
    expect((await ok('rule.query', {}, u)).list).toHaveLength(1);
    expect((await ok('rule.query', {}, other)).list).toEqual([]);
    expectRefusal(await t.api('rule.update', { id: rule.id, autoConfirm: true }, other.token), importErrors.rows.ruleNotFound);
    expectRefusal(await t.api('rule.delete', { id: rule.id }, other.token), importErrors.rows.ruleNotFound);
    const updated = await ok('rule.update', { id: rule.id, set: { description: 'Coffee' }, autoConfirm: true }, u);
    expect(updated).toMatchObject({ set: { description: 'Coffee' }, autoConfirm: true, match: { value: 'STARBUCKS' } });
    await ok('rule.delete', { id: rule.id }, u);
    expect((await ok('rule.query', {}, u)).list).toEqual([]);
    expectRefusal(await t.api('rule.delete', { id: rule.id }, u.token), importErrors.rows.ruleNotFound);
  });

  it('refuses rules that cannot work, with the field named, and stores none of them', async () => {
    const u = await registerUser(t);
    const other = await registerUser(t);
    const theirs = await createAsset(t, other, { name: 'Theirs' });
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ match: { field: 'amount', op: 'contains', value: '5' }, set: { category: 'Food' } }, 'params.match.op', /cannot use "contains"/],
      [{ match: { field: 'payee', op: 'gt', value: 'x' }, set: { category: 'Food' } }, 'params.match.op', /cannot use "gt"/],
      [{ match: { field: 'amount', op: 'gt', value: 'lots' }, set: { category: 'Food' } }, 'params.match.value', /amount/],
      [{ match: { field: 'payee', op: 'regex', value: '(a)\\1' }, set: { category: 'Food' } }, 'params.match.value', /back-references/],
      [{ match: { field: 'payee', op: 'regex', value: '(?<=a)b' }, set: { category: 'Food' } }, 'params.match.value', /look-around/],
      [{ match: { field: 'payee', op: 'regex', value: '([a-z' }, set: { category: 'Food' } }, 'params.match.value', /regular expression/],
      [{ match: { field: 'payee', op: 'contains', value: '   ' }, set: { category: 'Food' } }, 'params.match.value', /blank/],
      [{ match: { field: 'payee', op: 'contains', value: 'x' }, set: {} }, 'params.set', /must set something/],
      [{ match: { field: 'payee', op: 'contains', value: 'x' }, set: { category: 'No such' } }, 'params.set.category', /No such/],
      [{ match: { field: 'asset', op: 'equals', value: theirs }, set: { category: 'Food' } }, 'params.match.value', /your assets/],
    ];
    for (const [params, field, message] of cases) {
      const answer = await t.api('rule.create', params, u.token);
      expect([answer.code, answer.data?.field, answer.message]).toEqual([400, field, expect.stringMatching(message)]);
    }
    expect((await ok('rule.query', {}, u)).list).toEqual([]);
  });
});

describe('rules in a statement import', () => {
  it('shows which rule set what, lets a later rule win, and applies on re-categorised imports', async () => {
    const u = await registerUser(t);
    const bank = await createAsset(t, u, { name: 'Bank', currency: 'USD', balance: 100 });
    const general = await ok('rule.create', { match: { field: 'description', op: 'contains', value: 'starbucks' }, set: { category: 'Food', tags: ['coffee'] } }, u);
    const specific = await ok('rule.create', { match: { field: 'amount', op: 'gt', value: 20 }, set: { category: 'Entertainment' } }, u);
    const regex = await ok('rule.create', { match: { field: 'payee', op: 'regex', value: '^uber\\b' }, set: { category: 'Transport' } }, u);
    const refundRule = await ok('rule.create', { match: { field: 'payee', op: 'equals', value: 'ＡＣＭＥ' }, set: { category: 'Shopping' } }, u);
    const preview = await ok(
      'import.preview',
      {
        format: 'csv',
        content: csv([
          '2026-11-01,STARBUCKS #12,latte,-4.50,a',
          '2026-11-02,Starbucks,team treat,-45.00,b',
          '2026-11-03,Uber Trip,ride,-12.00,c',
          '2026-11-04,acme,refund,15.00,d',
        ]),
        assetId: bank,
        mapping: MAPPING,
      },
      u,
    );
    const by = Object.fromEntries(preview.create.map((l: any) => [l.externalId, l]));
    expect(by.a).toMatchObject({ category: 'Food', tags: ['coffee'], rules: [{ ruleId: general.id, fields: ['category', 'tags'] }] });
    // Both match: the later rule's category wins, the earlier one's tags stay.
    expect(by.b).toMatchObject({
      category: 'Entertainment',
      tags: ['coffee'],
      rules: [
        { ruleId: general.id, fields: ['tags'] },
        { ruleId: specific.id, fields: ['category'] },
      ],
    });
    expect(by.c).toMatchObject({ category: 'Transport', rules: [{ ruleId: regex.id, fields: ['category'] }] });
    // Money in: "Shopping" is an expense category, so the rule does not apply to this income.
    expect(by.d).toMatchObject({ type: 'income', category: 'Other', rules: [] });
    expect(refundRule.id).toBeTruthy();
    expect(preview.summary.ruled).toBe(3);
  });

  it('runs patterns that backtrack exponentially elsewhere in linear time (no ReDoS), case-insensitively', async () => {
    const u = await registerUser(t);
    const bank = await createAsset(t, u, { name: 'Bank', currency: 'USD' });
    await ok('rule.create', { match: { field: 'payee', op: 'regex', value: '(a|a)*b' }, set: { tags: ['x'] } }, u);
    await ok('rule.create', { match: { field: 'description', op: 'regex', value: '(\\w|\\d)*!' }, set: { tags: ['y'] } }, u);
    await ok('rule.create', { match: { field: 'payee', op: 'regex', value: '^Uber\\b' }, set: { category: 'Transport' } }, u);
    const started = Date.now();
    const preview = await ok(
      'import.preview',
      { format: 'csv', content: csv([`2026-11-01,${'a'.repeat(60)},${'a'.repeat(900)},-1.00,a`, '2026-11-02,UBER TRIP,ride,-2.00,b']), assetId: bank, mapping: MAPPING },
      u,
    );
    // With backtracking, 60 characters of "a" would take longer than the age of the universe.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(preview.create.map((l: any) => [l.tags, l.category])).toEqual([
      [[], 'Other'],
      [['x'], 'Transport'], // "uber trip" has a b: (a|a)*b matches it
    ]);
  });

  it('follows a renamed category', async () => {
    const u = await registerUser(t);
    const rule = await ok('rule.create', { match: { field: 'payee', op: 'contains', value: 'x' }, set: { category: 'Food' } }, u);
    const food = (await ok<{ list: Array<{ id: string; name: string }> }>('category.list', { type: 'expense' }, u)).list.find((c) => c.name === 'Food')!;
    await ok('category.update', { id: food.id, name: 'Groceries' }, u);
    const [stored] = (await ok('rule.query', {}, u)).list;
    expect(stored).toMatchObject({ id: rule.id, set: { category: 'Groceries' } });
  });
});

describe('rule suggestions', () => {
  it('suggests a rule after the same payee was moved to the same category twice, and not after a dismiss', async () => {
    const u = await registerUser(t);
    const bank = await createAsset(t, u, { name: 'Bank', currency: 'USD', balance: 100 });
    const preview = await ok(
      'import.preview',
      {
        format: 'csv',
        content: csv(['2026-11-01,Blue Bottle,latte,-4.50,a', '2026-11-08,Blue Bottle,cold brew,-5.00,b', '2026-11-09,Corner Shop,milk,-2.00,c']),
        assetId: bank,
        mapping: MAPPING,
      },
      u,
    );
    const { recordIds } = await ok<{ recordIds: string[] }>('import.commit', { token: preview.token }, u);
    const records = await Promise.all(recordIds.map((id) => ok('accounting.get', { id }, u)));
    const blue = records.filter((r: any) => r.description.startsWith('Blue Bottle'));
    await ok('accounting.update', { id: blue[0].id, category: 'Food' }, u);
    await t.server.app.services.ruleSuggestions.settled();
    expect((await ok('rule.query', {}, u)).suggestions).toEqual([]); // once is not yet a habit
    await ok('accounting.update', { id: blue[1].id, category: 'Food' }, u);
    await t.server.app.services.ruleSuggestions.settled();
    const { suggestions } = await ok('rule.query', {}, u);
    expect(suggestions).toEqual([{ key: '#blue bottle', match: { field: 'description', op: 'contains', value: 'Blue Bottle' }, set: { category: 'Food' }, count: 2 }]);
    // Made a rule: no longer suggested, and the next import uses it.
    await ok('rule.create', { match: suggestions[0].match, set: suggestions[0].set }, u);
    expect((await ok('rule.query', {}, u)).suggestions).toEqual([]);
    const next = await ok('import.preview', { format: 'csv', content: csv(['2026-11-15,Blue Bottle,espresso,-3.00,d']), assetId: bank, mapping: MAPPING }, u);
    expect(next.create[0].category).toBe('Food');

    const corner = records.find((r: any) => r.description.startsWith('Corner Shop'));
    await ok('accounting.update', { id: corner.id, category: 'Shopping' }, u);
    const copy = await ok('accounting.create', { type: 'expense', amount: 1, asset: bank, description: 'Corner Shop — bread' }, u);
    await ok('accounting.update', { id: copy.id, category: 'Shopping' }, u);
    await t.server.app.services.ruleSuggestions.settled();
    const key = (await ok('rule.query', {}, u)).suggestions[0].key as string;
    expect(key).toBe('#corner shop');
    await ok('rule.dismissSuggestion', { key }, u);
    expect((await ok('rule.query', {}, u)).suggestions).toEqual([]);
  });

  it('does not take a category rename for re-categorising, and takes any payee name', async () => {
    const u = await registerUser(t);
    const bank = await createAsset(t, u, { name: 'Bank', currency: 'USD', balance: 100 });
    for (const description of ['Costa', 'Costa', '__proto__', '__proto__'])
      await ok('accounting.create', { type: 'expense', amount: 1, asset: bank, category: 'Food', description }, u);
    const food = (await ok<{ list: Array<{ id: string; name: string }> }>('category.list', { type: 'expense' }, u)).list.find((c) => c.name === 'Food')!;
    await ok('category.update', { id: food.id, name: 'Cafés' }, u);
    await t.server.app.services.ruleSuggestions.settled();
    expect((await ok('rule.query', {}, u)).suggestions).toEqual([]);
    const records = (await ok<{ list: Array<{ id: string; description: string }> }>('accounting.query', { page: 1, pageSize: 10 }, u)).list;
    for (const r of records.filter((r) => r.description === '__proto__')) await ok('accounting.update', { id: r.id, category: 'Shopping' }, u);
    await t.server.app.services.ruleSuggestions.settled();
    expect((await ok('rule.query', {}, u)).suggestions).toEqual([
      { key: '#__proto__', match: { field: 'description', op: 'contains', value: '__proto__' }, set: { category: 'Shopping' }, count: 2 },
    ]);
  });
});
