import { existsSync, readdirSync, rmSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../lib/logger';
import { recordsCollection } from '../ledger/schema';
import { startTestServer } from '../test-support/test-server';
import { flipInsideCollection, flipMiddle, seedDataDir, writeAheadLog, type SeededDataDir } from '../db/tests/damage';
import { checkTool } from './check';
import { openDatabase, type AppDatabase } from '../db/database';
import v8 from 'node:v8';
import { repairTool } from './repair';
import { pennypost, startCommand } from '../test-support/pennypost-command';

/** `pennypost check` and `pennypost repair` on real, damaged data dirs: through the command a user runs, and the tools' own entry points for the details. */

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

async function seed(records: number, restarts = 0): Promise<SeededDataDir> {
  const seeded = await seedDataDir(records, { restarts, label: 'tools' });
  made.push(seeded.dataDir);
  return seeded;
}

/** The data tools through the `pennypost` command, exactly as a user runs them (bin/pennypost.mjs: the compiled server). */
const cli = (...args: string[]) => pennypost(args);

async function runTool(tool: typeof checkTool, dataDir: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await tool.run({ dataDir, values: {}, positionals: [], out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Every key of the derived store (the saved ledger views). */
async function derivedKeys(db: AppDatabase): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of db.level.sublevel<string, Buffer>('derived', { keyEncoding: 'utf8', valueEncoding: 'buffer' }).keys()) keys.push(key);
  return keys;
}

/** Records and the asset's balance as the running server reports them after a repair. */
async function ledgerState(seeded: SeededDataDir) {
  const t = await startTestServer({ dataDir: seeded.dataDir, logger: createLogger('silent') });
  try {
    const login = await t.api('user.login', { email: seeded.email, password: seeded.password });
    expect(login.code).toBe(200);
    const token = login.data.token as string;
    const records = await t.api('accounting.query', { pageSize: 200 }, token);
    const asset = await t.api('asset.detail', { id: seeded.assetId }, token);
    const checked = await t.api('asset.checkBalances', {}, token);
    expect([records.code, asset.code, checked.code]).toEqual([200, 200, 200]);
    return { records: records.data.total as number, balance: asset.data.balance as number, checkOk: checked.data.ok as boolean };
  } finally {
    await t.close(true);
  }
}

describe('pennypost check', () => {
  it('through the CLI: exit 0 and a clean report on a healthy data dir, exit 2 while a server uses it', async () => {
    const seeded = await seed(5);
    const clean = await cli('check', '--data-dir', seeded.dataDir);
    expect(clean.stderr).toBe('');
    expect(clean.code).toBe(0);
    expect(clean.stdout).toMatch(/records\s+5 documents/);
    expect(clean.stdout).toMatch(/Result: clean/);

    const t = await startTestServer({ dataDir: seeded.dataDir, logger: createLogger('silent') });
    try {
      const busy = await cli('check', '--data-dir', seeded.dataDir);
      expect(busy.code).toBe(2);
      expect(busy.stderr).toMatch(/already in use/);
      const busyRepair = await cli('repair', '--data-dir', seeded.dataDir);
      expect(busyRepair.code).toBe(2);
      expect(readdirSync(seeded.dataDir).filter((f) => f.startsWith('db.before-repair-'))).toEqual([]);
    } finally {
      await t.close(true);
    }
  });

  it('reports a damaged table file (exit 1) with what is unreadable and the remedy', async () => {
    const seeded = await seed(120, 1);
    await flipInsideCollection(seeded.dataDir, 'records', recordsCollection.schema.version, 100);
    const result = await runTool(checkTool, seeded.dataDir);
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/records: documents unreadable .*Corruption/);
    expect(result.out).toMatch(/pennypost repair --data-dir/);
  });

  it('reports a damaged log without opening it (exit 1), the log left in place', async () => {
    const seeded = await seed(50);
    const log = writeAheadLog(seeded.dataDir);
    flipMiddle(log, 64);
    const size = statSync(log).size;
    const result = await runTool(checkTool, seeded.dataDir);
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/write-ahead log is damaged/);
    expect(statSync(log).size).toBe(size);
  });

  it('checks the accounts in the local store: valid, under their own id, unique (exit 1 otherwise)', async () => {
    const seeded = await seed(1);
    expect((await runTool(checkTool, seeded.dataDir)).code).toBe(0);
    const db = await openDatabase({ dataDir: seeded.dataDir, collections: [] });
    try {
      const [first] = await db.local.entries<Record<string, unknown>>('user:');
      if (!first) throw new Error('no account in the local store');
      const [, account] = first;
      await db.local.put('user:twin', { ...account, id: 'twin', usernameKey: 'twin' });
      await db.local.put('user:bad', { ...account, id: 'bad', usernameKey: 'bad', email: 'bad@example.com', role: 'king' });
      await db.local.put('user:moved', { ...account, id: 'elsewhere' });
    } finally {
      await db.close();
    }
    const result = await runTool(checkTool, seeded.dataDir);
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/local store user:bad: invalid account "bad": \/role/);
    expect(result.out).toMatch(/local store user:moved: the account stored there has id "elsewhere"/);
    expect(result.out).toMatch(/accounts \S+ and \S+ have the same (usernameKey|email)/);
  });
});

describe('a damaged saved ledger view', () => {
  it('a flipped bit in a saved view: check reports it (exit 1), the server rebuilds the right balances, repair drops it', async () => {
    const seeded = await seed(30);
    // A start that loads the view, then a stop that saves it.
    const before = await ledgerState(seeded);
    expect(before.balance).toBe(seeded.balance / 100);
    expect((await cli('check', '--data-dir', seeded.dataDir)).code).toBe(0);

    // One bit of the saved amounts changes on disk (LevelDB does not verify what it reads).
    const db = await openDatabase({ dataDir: seeded.dataDir, collections: [] });
    try {
      const [userPrefix] = (await derivedKeys(db)).filter((key) => key.endsWith('\u0001meta')).map((key) => key.slice(0, -'meta'.length));
      if (userPrefix === undefined) throw new Error('no saved ledger view');
      const chunkKey = `${userPrefix}c0`;
      const chunk = (await db.derived.get(chunkKey))!;
      const amounts = (v8.deserialize(chunk) as { amount: Float64Array }).amount;
      const at = chunk.indexOf(Buffer.from(amounts.buffer, amounts.byteOffset, amounts.byteLength));
      expect(at).toBeGreaterThanOrEqual(0);
      const flipped = Buffer.from(chunk);
      flipped.writeUInt8(flipped.readUInt8(at + 6) ^ 0x01, at + 6);
      await db.derived.replace(`${userPrefix}c`, [[chunkKey, flipped]]);
    } finally {
      await db.close();
    }

    const checked = await cli('check', '--data-dir', seeded.dataDir);
    expect(checked.code).toBe(1);
    expect(checked.stdout).toMatch(/the saved ledger view of user \S+ cannot be used: the saved ledger view does not match its digest/);

    // The server does not trust it: the balance is right.
    expect(await ledgerState(seeded)).toEqual(before);
    // …and it saved a good one again.
    expect((await cli('check', '--data-dir', seeded.dataDir)).code).toBe(0);
  });
});

describe('pennypost repair', () => {
  it('a missing CURRENT: copies db aside, rebuilds it, every record and balance is back (through the CLI)', async () => {
    const seeded = await seed(20);
    unlinkSync(path.join(seeded.dataDir, 'db', 'CURRENT'));
    const files = readdirSync(path.join(seeded.dataDir, 'db'))
      .filter((f) => f !== 'LOCK')
      .sort();
    const result = await cli('repair', '--data-dir', seeded.dataDir);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [backup] = readdirSync(seeded.dataDir).filter((f) => f.startsWith('db.before-repair-'));
    expect(backup).toBeDefined();
    const copy = path.join(seeded.dataDir, backup!);
    expect(readdirSync(copy).sort()).toEqual(files);
    expect(statSync(copy).mode & 0o777).toBe(0o700);
    expect(result.stdout).toContain(`Copied ${path.join(seeded.dataDir, 'db')} to ${copy}`);
    expect(result.stdout).toMatch(/balances before are unknown/);
    expect(result.stdout).toMatch(/records\s+20 documents/);
    expect(result.stdout).toMatch(/Result: repaired/);
    expect(await ledgerState(seeded)).toEqual({ records: 20, balance: seeded.balance / 100, checkOk: true });
    expect((await runTool(checkTool, seeded.dataDir)).code).toBe(0);
  });

  it('a damaged log: keeps the damaged log in the copy, recovers the readable records, reports the balances', async () => {
    const seeded = await seed(50);
    const log = writeAheadLog(seeded.dataDir);
    flipMiddle(log, 64);
    const result = await runTool(repairTool, seeded.dataDir);
    const [backup] = readdirSync(seeded.dataDir).filter((f) => f.startsWith('db.before-repair-'));
    expect(backup).toBeDefined();
    expect(existsSync(path.join(seeded.dataDir, backup!, path.basename(log)))).toBe(true);
    expect(result.out).toMatch(/Log #\d+: \d+ ops saved to Table/);
    expect(result.out).toMatch(/Balances now:\n\s+asset Cash/);
    expect(result.out).toMatch(/Result: repaired/);
    expect(result.code).toBe(0);
    const state = await ledgerState(seeded);
    expect(state.records).toBeGreaterThan(0);
    expect(state.records).toBeLessThan(50); // what LevelDB could not read is gone; the copy keeps it
    expect(state.checkOk).toBe(true);
  });

  it('a damaged table: reports which balance changed', async () => {
    const seeded = await seed(120, 1);
    await flipInsideCollection(seeded.dataDir, 'records', recordsCollection.schema.version, 100);
    const result = await runTool(repairTool, seeded.dataDir);
    expect(result.out).toMatch(/Before the repair: \d+ problem/);
    expect(result.out).toMatch(/records: 1\d\d → \d+ documents|Balances: none changed|Balances changed/);
    const state = await ledgerState(seeded);
    expect(state.checkOk).toBe(true);
    expect(state.records).toBeLessThanOrEqual(120);
  });
});

describe('a damaged data dir, as a person meets it: npm run serve refuses, pennypost check and repair fix it', () => {
  it('missing CURRENT: serve refuses and names the remedy; check reports it; repair recovers every record; serve starts again', async () => {
    const seeded = await seed(12);
    unlinkSync(path.join(seeded.dataDir, 'db', 'CURRENT'));

    const refused = startCommand(['run', 'serve', '--', '--port', '0', '--data-dir', seeded.dataDir], { npm: true });
    expect(await refused.exit).not.toBe(0);
    expect(refused.stdout()).not.toMatch(/PennyPost listening on/);
    expect(refused.stderr()).toContain(`pennypost repair --data-dir ${seeded.dataDir}`);
    expect(refused.stderr()).not.toMatch(/ERR_VM_DYNAMIC_IMPORT|crashed/);

    const checked = await cli('check', '--data-dir', seeded.dataDir);
    expect(checked.stderr).not.toMatch(/ERR_VM_DYNAMIC_IMPORT|crashed/);
    expect(checked.code).toBe(1);
    expect(checked.stdout).toMatch(/pennypost repair --data-dir/);

    const repaired = await cli('repair', '--data-dir', seeded.dataDir);
    expect(repaired.stderr).toBe('');
    expect(repaired.code).toBe(0);
    expect(repaired.stdout).toMatch(/Result: repaired/);
    expect((await cli('check', '--data-dir', seeded.dataDir)).code).toBe(0);

    const served = startCommand(['run', 'serve', '--', '--port', '0', '--data-dir', seeded.dataDir], { npm: true });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setInterval(() => {
          const listening = /PennyPost listening on (http:\/\/\S+)/.exec(served.stdout())?.[1];
          if (listening !== undefined) {
            clearInterval(timer);
            resolve(listening);
          }
        }, 20);
        void served.exit.then((code) => {
          clearInterval(timer);
          reject(new Error(`npm run serve exited with ${String(code)}: ${served.stderr()}`));
        });
      });
      const login = await (
        await fetch(`${url}/api`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ action: 'user.login', params: { email: seeded.email, password: seeded.password } }),
        })
      ).json();
      const records = await (
        await fetch(`${url}/api`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${login.data.token}` },
          body: JSON.stringify({ action: 'accounting.query', params: { pageSize: 50 } }),
        })
      ).json();
      expect(records.data.total).toBe(12);
    } finally {
      served.child.kill('SIGTERM');
      expect(await served.exit).toBe(0);
    }
  });
});
