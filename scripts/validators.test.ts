import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GENERATED_DIR, generatedValidators } from './gen-validators';
import { compileParams, describeValidationError, hintsOf } from '../server/api/validation';
import { itemAt } from '../server/lib/item-at';
import { allDomains } from '../server/domains';
import { actionsOf } from '../server/domain';
import * as generated from '../renderer/src/api/generated/validators.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe("the UI's generated params validators (scripts/gen-validators.ts)", () => {
  it('match the action schemas (run `npx tsx scripts/gen-validators.ts` after changing params)', () => {
    for (const [name, text] of Object.entries(generatedValidators())) expect(readFileSync(path.join(root, GENERATED_DIR, name), 'utf8'), name).toBe(text);
  });

  it('cover every action and refuse what the server refuses, in the same words, field and rule', () => {
    const actions = actionsOf(allDomains());
    expect(Object.keys(generated.validators).sort()).toEqual(actions.map((a) => a.name).sort());
    const cases: [string, Record<string, unknown>][] = [
      ['user.register', { username: '-x', email: 'a@example.com', password: 'longenough' }],
      ['user.register', { username: 'someone', email: 'nope', password: 'longenough' }],
      ['user.register', { username: 'someone', email: 'a@example.com', password: 'short' }],
      ['accounting.create', { type: 'expense', amount: 3, asset: 'a1', category: 'Food', tags: ['ok', 'x'.repeat(33)] }],
      ['accounting.create', { type: 'gift', amount: 3 }],
      ['accounting.create', { type: 'expense', amount: 3, asset: 'a1', extra: 1 }],
      ['category.create', { name: '   ', type: 'expense' }],
      ['currency.setRate', { from: 'usd', to: 'CNY', rate: '7.1' }],
      ['user.register', { username: 'someone', email: 'a@example.com', password: 'longenough' }],
      // required params with a default are filled in, as on the server
      ['user.login', { email: 'a@example.com', password: 'longenough' }],
      ['file.query', {}],
    ];
    for (const [name, params] of cases) {
      const action = actions.find((a) => a.name === name);
      if (!action) throw new Error(name);
      const server = compileParams(action.params);
      const serverOk = server(structuredClone(params));
      const client = generated.validators[name];
      if (!client) throw new Error(name);
      expect(client(params), `${name} ${JSON.stringify(params)}`).toBe(serverOk);
      if (serverOk) continue;
      const hints = generated.hints[name] ?? {};
      const words = generated.describeValidationError(itemAt(client.errors!, 0), (p) => hints[p]);
      expect(words, name).toEqual(describeValidationError(itemAt(server.errors!, 0), hintsOf(action.params)));
    }
  });
});

describe("the UI's text limits (renderer/src/api/param-limits.ts textLimit)", () => {
  it('exist for every field a form limits, the same for creating and editing', async () => {
    const { textLimit } = await import('../renderer/src/api/param-limits');
    const pairs: [Parameters<typeof textLimit>, Parameters<typeof textLimit>][] = [
      [
        ['asset.create', 'name'],
        ['asset.update', 'name'],
      ],
      [
        ['asset.create', 'description'],
        ['asset.update', 'description'],
      ],
      [
        ['accounting.create', 'description'],
        ['accounting.update', 'description'],
      ],
      [
        ['category.create', 'name'],
        ['category.update', 'name'],
      ],
      [
        ['savings.createGoal', 'title'],
        ['savings.updateGoal', 'title'],
      ],
      [
        ['savings.createGoal', 'description'],
        ['savings.updateGoal', 'description'],
      ],
    ];
    for (const [create, update] of pairs) expect(textLimit(...update), update.join(' ')).toBe(textLimit(...create));
    expect(textLimit('accounting.create', 'tags')).toBe(32);
    expect(() => textLimit('accounting.create', 'amount')).toThrow(/no maxLength/);
  });
});
