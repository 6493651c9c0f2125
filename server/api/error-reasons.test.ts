import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allDomains, allErrorCatalogues } from '../domains';
import { actionsOf } from '../domain';
import { registerUser, startTestServer, type TestServer } from '../test-support/test-server';
import { expectRefusal } from '../test-support/refusal';
import { ledgerErrors } from '../ledger/errors';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

type Node = Record<string, unknown>;
/** Every schema node below `schema` with its path (`username`, `tags.items`). */
function* nodes(schema: unknown, path = ''): Generator<[string, Node]> {
  if (!schema || typeof schema !== 'object') return;
  yield [path, schema as Node];
  for (const [key, child] of Object.entries(schema)) if (child && typeof child === 'object') yield* nodes(child, path ? `${path}.${key}` : key);
}

describe('errors a client can put in its own words (docs/api.md, "Reasons and rules")', () => {
  it('names each catalogue as allErrorCatalogues does, so a reason is `<catalogue>.<row>` (the shared rows have none)', () => {
    for (const [name, catalogue] of Object.entries(allErrorCatalogues())) {
      expect((catalogue as { reasonPrefix: string | null }).reasonPrefix, name).toBe(name === 'common' ? null : name);
    }
  });

  it('gives every pattern of every action a hint, so no client has to show a regular expression', () => {
    const missing: string[] = [];
    for (const action of actionsOf(allDomains())) {
      for (const [path, node] of nodes(action.params)) if (typeof node.pattern === 'string' && typeof node.hint !== 'string') missing.push(`${action.name} ${path}`);
    }
    expect(missing).toEqual([]);
  });

  it("answers a catalogue error with its reason and the message's arguments", async () => {
    const u = await registerUser(t);
    const missing = await t.api('asset.detail', { id: 'nope' }, u.token);
    expectRefusal(missing, ledgerErrors.rows.assetNotFound);
    expect(missing).toMatchObject({ message: 'Asset not found.', data: { reason: 'ledger.assetNotFound', args: [] } });
    const cash = await t.api('asset.create', { name: 'Cash', type: 'cash', currency: 'USD' }, u.token);
    const unknown = await t.api('accounting.create', { type: 'expense', amount: 3, asset: cash.data.id, category: 'Pets' }, u.token);
    expect(unknown.message).toBe('Unknown expense category "Pets". Create it with category.create first.');
    expect(unknown.data).toMatchObject({ reason: 'ledger.unknownCategory', args: ['expense', 'Pets'] });
  });

  it('answers a params failure with its field and rule: keyword and limit, format, or the hint of a pattern', async () => {
    const badName = await t.api('user.register', { username: '-x', email: 'a@example.com', password: 'longenough' });
    expect(badName.message).toMatch(/^params\.username must match pattern/);
    expect(badName.data).toEqual({ field: 'params.username', rule: { keyword: 'pattern', hint: 'username' } });
    const badEmail = await t.api('user.register', { username: 'someone', email: 'not-an-email', password: 'longenough' });
    expect(badEmail.data).toEqual({ field: 'params.email', rule: { keyword: 'format', format: 'email' } });
    const u = await registerUser(t);
    const cash = await t.api('asset.create', { name: 'Cash', type: 'cash', currency: 'USD' }, u.token);
    const longTag = await t.api('accounting.create', { type: 'expense', amount: 3, asset: cash.data.id, category: 'Food', tags: ['ok', 'x'.repeat(33)] }, u.token);
    expect(longTag.message).toBe('params.tags[1] must NOT have more than 32 characters');
    expect(longTag.data).toEqual({ field: 'params.tags[1]', rule: { keyword: 'maxLength', limit: 32 } });
  });
});
