import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { registerUser, startTestServer, tempDataDir } from '../test-support/test-server';
import { listSnapshots, readManifest, snapshotsDir } from './snapshots';
import { readBack } from './level-copy';
import { startCommand } from '../test-support/pennypost-command';
import { usersErrors } from '../users/errors';
import { expectRefusal } from '../test-support/refusal';

const READY = /^PennyPost listening on (http:\/\/127\.0\.0\.1:\d+)$/m;
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** `pennypost <args>` as a user runs it (bin/pennypost.mjs: the compiled server in its own process). */
function cli(args: string[]) {
  const command = startCommand(args);
  children.push(command.child);
  return command;
}

async function api(url: string, action: string, params: unknown, token?: string) {
  const res = await fetch(url + '/api', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ action, params }),
  });
  return (await res.json()) as { code: number; message: string; data: any };
}

describe('a SIGKILL during a snapshot', () => {
  it('leaves the live data and earlier snapshots intact; the data tools refuse a running server (exit 2) and restore a stopped one', async () => {
    const dataDir = tempDataDir('backup-kill');
    const server = cli(['--port', '0', '--data-dir', dataDir]);
    let url = '';
    for (let i = 0; i < 400 && !url; i++) {
      url = READY.exec(server.stdout())?.[1] ?? '';
      if (!url) await new Promise((r) => setTimeout(r, 50));
    }
    expect(url, server.stderr()).not.toBe('');
    const reg = await api(url, 'user.register', { username: 'killer', email: 'kill@example.com', password: 'correct horse battery' });
    const token = reg.data.token as string;
    await api(url, 'asset.create', { name: 'Cash', type: 'cash', currency: 'USD', balance: 100000 }, token);
    // Enough records that a snapshot takes a while (the import itself takes the first snapshot).
    const rows = Array.from({ length: 8_000 }, (_, i) => `2025-01-${String((i % 28) + 1).padStart(2, '0')},expense,1.25,Cash,row ${i}`);
    const imported = await api(url, 'accounting.importCsv', { csv: `date,type,amount,asset,description\n${rows.join('\n')}\n`, dryRun: false }, token);
    expect(imported.code, imported.message).toBe(200);
    const earlier = await api(url, 'backup.createSnapshot', {}, token);
    expect(earlier.code).toBe(200);
    expect(earlier.data.records).toBe(8_000);
    const before = listSnapshots(dataDir);
    expect(before.map((s) => s.reason).sort()).toEqual(['import', 'manual']);

    // While the server holds the data dir, the data tools refuse with exit 2.
    const refused = cli(['snapshot', '--data-dir', dataDir]);
    expect(await refused.exit).toBe(2);
    expect(refused.stderr()).toMatch(/in use/);

    // Start a snapshot and kill the server as soon as its temporary folder exists.
    void api(url, 'backup.createSnapshot', {}, token).catch(() => undefined);
    const root = snapshotsDir(dataDir);
    let tmp: string | undefined;
    while (!tmp) {
      tmp = readdirSync(root).find((n) => n.startsWith('.tmp-'));
      if (!tmp) await new Promise((r) => setImmediate(r));
    }
    server.child.kill('SIGKILL');
    await server.exit;
    // The kill interrupted the snapshot: only its temporary folder exists, and it is not listed.
    expect(existsSync(path.join(root, tmp))).toBe(true);
    expect(listSnapshots(dataDir).map((s) => s.id)).toEqual(before.map((s) => s.id));
    for (const s of before) {
      const manifest = readManifest(dataDir, s.id)!;
      const check = await readBack(path.join(root, s.id, 'db'));
      expect([check.keys, check.digest]).toEqual([manifest.keys, manifest.digest]);
    }

    // The data tools on the stopped data dir: a snapshot (removes the leftover), then a restore.
    const snap = cli(['snapshot', '--data-dir', dataDir]);
    expect(await snap.exit, snap.stderr()).toBe(0);
    expect(snap.stdout()).toMatch(/8000 records/);
    expect(readdirSync(root).some((n) => n.startsWith('.tmp-'))).toBe(false);
    const importSnapshot = before.find((s) => s.reason === 'import')!;
    const restore = cli(['restore', '--data-dir', dataDir, importSnapshot.id]);
    expect(await restore.exit, restore.stderr()).toBe(0);
    const unknown = cli(['restore', '--data-dir', dataDir, '20200101-000000-000-zzzz']);
    expect(await unknown.exit).toBe(1);

    // The live data: the state of the snapshot taken before the import (no records), intact.
    const t = await startTestServer({ dataDir, settings: { backup: { automatic: false } } });
    try {
      const login = await t.api('user.login', { email: 'kill@example.com', password: 'correct horse battery' });
      expect(login.code).toBe(200);
      const records = await t.api('accounting.query', {}, login.data.token);
      expect(records.data.total).toBe(0);
      expect((await t.api('asset.checkBalances', {}, login.data.token)).data.ok).toBe(true);
      // …and one restore back to the killed server's last complete snapshot brings the 8,000 records.
      const back = await t.api('backup.restoreSnapshot', { id: earlier.data.id }, login.data.token);
      expect(back.code, back.message).toBe(200);
      // The session made after that snapshot is not in it: sign in again (docs/data-safety.md).
      expectRefusal(await t.api('accounting.query', {}, login.data.token), usersErrors.rows.sessionSignedOut);
      const again = await t.api('user.login', { email: 'kill@example.com', password: 'correct horse battery' });
      expect((await t.api('accounting.query', {}, again.data.token)).data.total).toBe(8_000);
      await registerUser(t);
    } finally {
      await t.close(true);
    }
  }, 120_000);
});
