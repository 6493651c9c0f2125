import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset } from '../../test-support/ledger';
import { registerUser, startTestServer, type TestServer } from '../../test-support/test-server';

/**
 * Issue 34, finding 13: a CSV export reads back exactly what the person typed. The export puts an
 * apostrophe before text a spreadsheet would run as a formula (server/lib/spreadsheet-cells.ts);
 * reading must take off exactly that apostrophe and nothing else, so a description typed as `'=x`
 * (which the export used to write unchanged, and the import then cut to `=x`) comes back as `'=x`.
 * Checked through PennyPost's own CSV (accounting.exportCsv → accounting.importCsv), for hand-picked
 * texts and for a few hundred random ones made of the characters that matter, and through the
 * generic CSV import (import.preview).
 */

type User = Awaited<ReturnType<typeof registerUser>>;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const PICKED = [
  "'=x",
  '=x',
  "''=x",
  "'x",
  "'",
  "'-",
  '+1',
  '-5',
  '@a',
  '\t=x',
  "'\t=x",
  "a'=b",
  '=HYPERLINK("http://x","y")',
  "'@",
  "'''+",
  '\r=x',
  ' =x',
  'x ',
  '"=x"',
  'a,b',
  'a\nb',
];

/** Random texts of the characters that decide the escaping (seeded: the same texts every run). */
function randomTexts(count: number): string[] {
  const alphabet = ["'", '=', '+', '-', '@', '\t', 'a', ' ', '"', ',', '\n', '\r', 'é'];
  let seed = 34;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const texts = new Set<string>();
  while (texts.size < count) {
    let text = '';
    const length = 1 + Math.floor(next() * 6);
    for (let i = 0; i < length; i++) text += alphabet.at(Math.floor(next() * alphabet.length)) ?? '';
    texts.add(text);
  }
  return [...texts];
}

async function ok(action: string, params: Record<string, unknown>, user: User) {
  const answer = await t.api(action, params, user.token);
  expect(answer.code, `${action}: ${answer.message}`).toBe(200);
  return answer.data;
}

/** Records with these descriptions in a new account, exported. */
async function exported(descriptions: string[]): Promise<string> {
  const user = await registerUser(t);
  const asset = await createAsset(t, user, { name: 'Cash', currency: 'USD', balance: 100_000 });
  for (const [i, description] of descriptions.entries()) {
    await ok('accounting.create', { type: 'expense', amount: (100 + i) / 100, asset, category: 'Other', description, date: Date.UTC(2026, 0, 1) + i * 60_000 }, user);
  }
  return (await ok('accounting.exportCsv', {}, user)).csv as string;
}

/** The descriptions another account would get from importing `csv`, by amount (what links a row to its text). */
async function importedBack(csv: string, count: number): Promise<Map<number, string>> {
  const user = await registerUser(t);
  await createAsset(t, user, { name: 'Cash', currency: 'USD', balance: 0 });
  const answer = await ok('accounting.importCsv', { csv, dryRun: false, timeZone: 'UTC' }, user);
  expect(answer.summary.create).toBe(count);
  const records = (await ok('accounting.query', { page: 1, pageSize: 200 }, user)).list as Array<{ amount: number; description: string }>;
  return new Map(records.map((r) => [Math.round(r.amount * 100), r.description]));
}

describe('CSV export reads back exactly', () => {
  it.each([
    ['hand-picked texts', PICKED],
    ['random texts of quotes, formula signs, spaces and line breaks', randomTexts(150)],
  ])('%s: accounting.exportCsv → accounting.importCsv', async (_label, descriptions) => {
    const csv = await exported(descriptions);
    const back = await importedBack(csv, descriptions.length);
    const changed = descriptions.flatMap((description, i) => {
      const got = back.get(100 + i);
      return got === description ? [] : [`${JSON.stringify(description)} came back as ${JSON.stringify(got)}`];
    });
    expect(changed).toEqual([]);
  });

  it("the formula escapes read back through the generic CSV import too ('=x stays '=x)", async () => {
    const descriptions = PICKED.filter((d) => d.trim() === d && !/[\r\n]/.test(d));
    const csv = await exported(descriptions);
    const user = await registerUser(t);
    const assetId = await createAsset(t, user, { name: 'Cash', currency: 'USD', balance: 0 });
    // id, date, type, amount, currency, asset, toAsset, toAmount, fee, category, tags, description
    const preview = await ok(
      'import.preview',
      { format: 'csv', content: Buffer.from(csv).toString('base64'), assetId, timeZone: 'UTC', mapping: { date: 1, amount: 3, description: 11, positiveIsExpense: true } },
      user,
    );
    const back = new Map((preview.create as Array<{ amount: number; description: string }>).map((l) => [Math.round(l.amount * 100), l.description]));
    const changed = descriptions.flatMap((description, i) => (back.get(100 + i) === description ? [] : [`${JSON.stringify(description)} → ${JSON.stringify(back.get(100 + i))}`]));
    expect(changed).toEqual([]);
  });
});
