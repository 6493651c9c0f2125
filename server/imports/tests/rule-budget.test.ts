import { describe, expect, it } from 'vitest';
import type { AssetDoc } from '../../ledger/schema';
import type { UserLedgerView } from '../../ledger/views';
import type { ParsedStatement, StatementLine } from '../formats/types';
import { planImport, type PlanContext } from '../pipeline/plan';
import { RULE_TEXT_MAX, RuleBook, RulesTooSlow, ruleText } from '../rules/rule-matcher';
import type { RuleDoc } from '../rules/rule-types';

/**
 * Issue 34, finding 5: rules run after text over the ledger's limit is refused, never on more than
 * RULE_TEXT_MAX characters, give the server's thread back between rules, and have a time budget
 * per import, past which the import is refused (naming the slowest rule).
 */

/** A regular expression the linear-time engine takes tens of µs per character for. */
const SLOW = `${'(?:(?:x+)+)+'.repeat(8)}y`;

const rule = (id: string, value: string, op: 'regex' | 'contains' = 'regex'): RuleDoc => ({
  id,
  userId: 'u',
  match: { field: 'description', op, value },
  set: { tags: [id] },
  autoConfirm: false,
  createdAt: Number(id.replace(/\D/g, '') || 0),
  updatedAt: 0,
});

const asset = { id: 'cash', name: 'Cash', description: '', currency: 'USD', delFlag: false } as unknown as AssetDoc;

function context(rules: RuleDoc[], ruleBudgetMs?: number): PlanContext {
  return {
    userId: 'u',
    format: 'csv',
    now: Date.UTC(2026, 0, 1),
    view: { assets: new Map([[asset.id, asset]]), entries: [] } as unknown as UserLedgerView,
    asset,
    rules: new RuleBook(rules),
    categories: new Map([['expense:other', 'Other']]),
    fallback: { income: 'Other', expense: 'Other' },
    importedKeys: { has: () => false },
    importKeysOf: () => Promise.resolve(new Map()),
    ...(ruleBudgetMs === undefined ? {} : { ruleBudgetMs }),
  };
}

const line = (n: number, description: string): StatementLine => ({
  line: n,
  date: Date.UTC(2026, 0, 1),
  amount: '1.00',
  currency: 'USD',
  direction: 'expense',
  status: 'done',
  payee: '',
  description,
  externalId: `X${n}`,
});
const statement = (lines: StatementLine[]): ParsedStatement => ({ format: 'csv', lines, invalid: [] });

describe('rules and long text', () => {
  it('a line over 1,000 characters is invalid before any rule runs (10 slow rules, a 100 KB memo: was a 29 s stall)', async () => {
    const rules = Array.from({ length: 10 }, (_, i) => rule(`r${i}`, SLOW));
    const started = performance.now();
    const plan = await planImport(statement([line(1, 'x'.repeat(100_000)), line(2, 'x'.repeat(1000))]), context(rules));
    expect(plan.invalid).toEqual([{ line: 1, kind: 'tooLong', reason: expect.stringMatching(/more than 1000 characters.*rules were not run/) }]);
    expect(plan.lines.map((l) => l.line)).toEqual([2]);
    // Ten slow rules over one line of 1,000 characters: well under a second; the 100 KB line cost nothing.
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('rules read at most RULE_TEXT_MAX characters, wherever they run', () => {
    expect(ruleText(`${'a'.repeat(RULE_TEXT_MAX)}STARBUCKS`)).toHaveLength(RULE_TEXT_MAX);
    const book = new RuleBook([rule('r1', 'starbucks', 'contains')]);
    expect(book.run({ description: `${'a'.repeat(5000)} starbucks`, payee: '', amount: 1, assetId: '' }).applied).toEqual([]);
    expect(book.run({ description: 'ＳＴＡＲＢＵＣＫＳ coffee', payee: '', amount: 1, assetId: '' }).applied).toEqual([{ ruleId: 'r1', fields: ['tags'] }]);
  });

  it('the rules of one import have a time budget: past it the import is refused, naming the slowest rule', async () => {
    const rules = [rule('r1', 'coffee', 'contains'), rule('r2', SLOW)];
    const lines = Array.from({ length: 50 }, (_, i) => line(i + 1, `${'x'.repeat(900)}${i}`));
    const error = await planImport(statement(lines), context(rules, 30)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RulesTooSlow);
    expect(error).toMatchObject({ budgetMs: 30, slowest: { ruleId: 'r2' } });
  });

  it('gives the server thread back between slow rules', async () => {
    const run = new RuleBook(Array.from({ length: 20 }, (_, i) => rule(`r${i}`, SLOW))).runner({ budgetMs: 60_000, sliceMs: 20 });
    let longest = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 5);
    await run.run({ description: 'x'.repeat(1000), payee: '', amount: 1, assetId: '' });
    clearInterval(timer);
    // One regex test on 1,000 characters is the longest hold (tens of ms); 20 of them in a row were not.
    expect(longest).toBeLessThan(400);
  });

  it('the same line text twice costs the rules once, and each outcome is its own copy', async () => {
    const run = new RuleBook([rule('r1', 'coffee', 'contains')]).runner({ budgetMs: 1000, sliceMs: 20 });
    const subject = { description: 'coffee', payee: '', amount: 1, assetId: '' };
    const first = await run.run(subject);
    first.applied.at(0)!.fields.push('category');
    first.set.tags?.push('changed');
    expect(await run.run(subject)).toEqual({ set: { tags: ['r1'] }, applied: [{ ruleId: 'r1', fields: ['tags'] }], autoConfirm: false });
  });
});
