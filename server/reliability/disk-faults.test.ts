/**
 * Disk faults through HTTP, against a real PennyPost process whose data dir is a small file
 * system that fills up (tmpfs, ENOSPC) or turns read-only under the running server (ext4 abort,
 * EROFS; see server/db/tests/disk.ts for why not `remount,ro`).
 *
 * Expected: every request that writes answers a 503 envelope saying so, the process stays up,
 * reads keep answering from the same data, and once the disk is back writes work again (after
 * the storage's cool-down and reopen, server/db/README.md) with nothing acknowledged lost.
 * Needs root with CAP_SYS_ADMIN; otherwise skipped with the reason in the suite's name.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ext4Disk, loopUnavailable, mountUnavailable, tmpfsDisk } from '../db/tests/disk';
import { startChildServer, type ChildServer } from '../test-support/child-server';
import { api, eventually, newUser, ok, request, snapshotOf } from './helpers';
import { commonErrors } from '../lib/errors';
import { expectRefusal } from '../test-support/refusal';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

interface World {
  server: ChildServer;
  token: string;
  cash: string;
  bank: string;
  appKey: string;
  records: string[];
  pushes: string[];
}

async function setUp(dataDir: string): Promise<World> {
  const server = await startChildServer(dataDir, { push: { sendPerAppKey: 100_000, sendPerAddress: 100_000 } });
  cleanups.push(() => server.stop());
  const user = await newUser(server.url, 'disk');
  const cash = (await ok(server.url, 'asset.create', { name: 'Cash', type: 'cash', currency: 'USD', balance: 1000 }, user.token)).id;
  const bank = (await ok(server.url, 'asset.create', { name: 'Bank', type: 'debit_card', currency: 'USD', balance: 5000 }, user.token)).id;
  const channel = await ok(server.url, 'push.createChannel', { name: 'Desk', type: 'desktop', config: {} }, user.token);
  const app = await ok(server.url, 'push.createApp', { name: 'Alerts', channelId: channel.id }, user.token);
  const world: World = { server, token: user.token, cash, bank, appKey: app.appKey, records: [], pushes: [] };
  for (let i = 0; i < 5; i++) await acknowledgedWrites(world, i);
  return world;
}

/** One expense, one transfer and one push; remembers what was acknowledged. */
async function acknowledgedWrites(w: World, i: number): Promise<void> {
  const expense = await ok(w.server.url, 'accounting.create', { type: 'expense', amount: 1.5, asset: w.cash, category: 'Food', description: `lunch ${i}` }, w.token);
  w.records.push(expense.id);
  const transfer = await ok(w.server.url, 'accounting.create', { type: 'transfer', amount: 10, fromAsset: w.bank, toAsset: w.cash, description: `top-up ${i}` }, w.token);
  w.records.push(transfer.id);
  const push = await request(`${w.server.url}/send/${w.appKey}?title=ok+${i}`);
  expect(push.status, push.message).toBe(200);
  w.pushes.push(push.data.pushId);
}

/** While the disk refuses writes: 503 envelopes for writes, reads unchanged, the process up. */
async function expectDegraded(w: World, before: string): Promise<void> {
  const base = w.server.url;
  const writes = [
    () => api(base, 'accounting.create', { type: 'expense', amount: 2, asset: w.cash, category: 'Food', description: 'refused' }, w.token),
    () => api(base, 'accounting.create', { type: 'transfer', amount: 5, fromAsset: w.bank, toAsset: w.cash }, w.token),
    () => api(base, 'asset.create', { name: 'New', type: 'cash', currency: 'USD' }, w.token),
    () => api(base, 'category.create', { name: 'Pets', type: 'expense' }, w.token),
    () => api(base, 'push.createApp', { name: 'Another', channelId: 'x' }, w.token),
  ];
  // The first write may be the one that meets the full disk; every one answers 503 or a
  // domain refusal that proves nothing was written (the push app with an unknown channel: 404).
  for (const write of writes) {
    const answer = await write();
    if (answer.code === 404) continue;
    expectRefusal(answer, commonErrors.rows.unavailable, { label: `${answer.code} ${answer.message}` });
    expectRefusal(answer, commonErrors.rows.unavailable);
    expect(answer.message).toMatch(/Storage is unavailable right now \(disk full or not writable\)\. Nothing was changed/);
    expect(answer.data).toBeNull();
  }
  const push = await request(`${base}/send/${w.appKey}?title=refused`);
  expectRefusal(push, commonErrors.rows.unavailable, { label: push.message });
  expectRefusal(push, commonErrors.rows.unavailable);
  expect(push.message).toMatch(/could not write the message history.*nothing was sent/i);
  const signIn = await api(base, 'user.register', { username: `late${process.pid}`, email: `late${process.pid}@example.com`, password: 'correct horse battery' });
  expectRefusal(signIn, commonErrors.rows.unavailable);

  // Reads keep working and see exactly the data from before.
  expect(await snapshotOf(base, w.token)).toBe(before);
  expect((await ok(base, 'asset.checkBalances', {}, w.token)).ok).toBe(true);
  expect((await ok(base, 'accounting.query', { pageSize: 5 }, w.token)).total).toBe(w.records.length);
  expect((await request(`${base}/healthz`)).status).toBe(200);
  expect(w.server.child.exitCode).toBeNull();
}

/** After the disk is back: writes work again (after the cool-down), and nothing acknowledged is missing. */
async function expectRecovered(w: World): Promise<void> {
  const base = w.server.url;
  let last = '';
  const recovered = await eventually(
    async () => {
      const answer = await api(base, 'accounting.create', { type: 'expense', amount: 3, asset: w.cash, category: 'Food', description: 'after' }, w.token);
      last = `${answer.status} ${answer.message}`;
      if (answer.code === 200) w.records.push(answer.data.id);
      return answer.code === 200;
    },
    150,
    100,
  );
  expect(recovered, `writes did not come back: ${last}`).toBe(true);
  for (let i = 100; i < 103; i++) await acknowledgedWrites(w, i);
  await checkEverythingAcknowledged(w);
}

async function checkEverythingAcknowledged(w: World): Promise<void> {
  const base = w.server.url;
  for (const id of w.records) expect((await api(base, 'accounting.get', { id }, w.token)).code, `record ${id}`).toBe(200);
  const history = await ok(base, 'push.queryMessages', { pageSize: 100 }, w.token);
  const ids = new Set(history.list.map((m: any) => m.id));
  expect(w.pushes.filter((id) => !ids.has(id))).toEqual([]);
  expect((await ok(base, 'asset.checkBalances', {}, w.token)).ok).toBe(true);
}

async function restart(w: World, dataDir: string): Promise<void> {
  expect(await w.server.stop()).toBe(0);
  w.server = await startChildServer(dataDir, { push: { sendPerAppKey: 100_000, sendPerAddress: 100_000 } });
  const server = w.server;
  cleanups.push(() => server.stop());
  await checkEverythingAcknowledged(w);
}

const noMount = mountUnavailable();
const noLoop = loopUnavailable();

describe.skipIf(noMount !== null)(`disk full under a running server${noMount ? ` — skipped: ${noMount}` : ''}`, () => {
  it('answers 503 for writes, keeps reads and the process, and resumes when space returns', { timeout: 90_000 }, async () => {
    const disk = tmpfsDisk(48);
    cleanups.push(() => disk.dispose());
    const dataDir = path.join(disk.dir, 'data');
    const w = await setUp(dataDir);
    const before = await snapshotOf(w.server.url, w.token);
    disk.fill();
    await expectDegraded(w, before);
    // Still refused a while later (no write slipped into a damaged log).
    await expectDegraded(w, before);
    disk.free();
    await expectRecovered(w);
    await restart(w, dataDir);
  });
});

describe.skipIf(noLoop !== null)(`data dir turns read-only under a running server${noLoop ? ` — skipped: ${noLoop}` : ''}`, () => {
  it('answers 503 for writes, keeps reads and the process, and resumes on the repaired disk', { timeout: 90_000 }, async () => {
    const disk = ext4Disk(96);
    cleanups.push(() => disk.dispose());
    const dataDir = path.join(disk.dir, 'data');
    const w = await setUp(dataDir);
    const before = await snapshotOf(w.server.url, w.token);
    disk.breakReadOnly();
    await expectDegraded(w, before);
    disk.repair();
    await expectRecovered(w);
    await restart(w, dataDir);
  });
});
