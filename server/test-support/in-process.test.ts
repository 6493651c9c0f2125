import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ledgerErrors } from '../ledger/errors';
import { commonErrors } from '../lib/errors';
import { startInProcess, type InProcessApp } from './in-process';
import { expectRefusal } from './refusal';
import { registerUser, startTestServer, type ApiCaller, type TestServer } from './test-server';

/** The answers a client can compare, ids and times aside. */
async function journey(t: ApiCaller) {
  const user = await registerUser(t, { username: 'tiers', email: 'tiers@example.com' });
  const asset = await t.api('asset.create', { name: 'Cash', type: 'cash', balance: 10 }, user.token);
  const answers = [
    await t.api('accounting.create', { type: 'expense', amount: 2.5, asset: asset.data.id, category: 'Food', date: 1_767_225_600_000 }, user.token),
    await t.api('asset.detail', { id: 'nope' }, user.token),
    await t.api('asset.create', { name: 'x', type: 'cash', smuggled: true }, user.token),
    await t.api('asset.query', [] as unknown, user.token),
    await t.api('asset.query', {}),
    await t.api('no.such', {}, user.token),
  ];
  const list = await t.api('asset.query', {}, user.token);
  return {
    answers: answers.map(({ code, message, data, status }) => ({ code, message, status, data: code === 200 ? Object.keys(data as object) : data })),
    balance: list.data.list[0].balance,
  };
}

/** Runs `use` on a fresh tier and closes it (RxDB's free edition allows 13 open collections per process: one server at a time). */
async function onTier<T extends ApiCaller & { close(): Promise<void> }, R>(start: () => Promise<T>, use: (t: T) => Promise<R>): Promise<R> {
  const t = await start();
  try {
    return await use(t);
  } finally {
    await t.close();
  }
}

describe('the in-process tier', () => {
  it('answers exactly as /api over HTTP does: data, refusals, params and body errors', async () => {
    const overHttp = await onTier(() => startTestServer({ wire: true }), journey);
    expect(overHttp.balance).toBe(7.5);
    expect(await onTier(() => startTestServer(), journey)).toEqual(overHttp);
    expect(await onTier(() => startInProcess(), journey)).toEqual(overHttp);
    const { answers } = overHttp;
    expect(answers).toHaveLength(6);
    expectRefusal(answers.at(1)!, ledgerErrors.rows.assetNotFound); // an asset that is not there
    expectRefusal(answers.at(2)!, commonErrors.rows.invalid); // a param the action does not take
    expect(answers.at(3)?.message).toBe('"params" must be a JSON object ({} when there are none).');
    expectRefusal(answers.at(4)!, commonErrors.rows.unauthorized); // signed out
    expectRefusal(answers.at(5)!, commonErrors.rows.notFound); // an action that does not exist
  });

  it('runs without a socket and keeps its database in memory, not in the data dir', async () => {
    await onTier(startInProcess, async (memory: InProcessApp) => {
      expect('url' in memory).toBe(false);
      await registerUser(memory);
      expect(existsSync(path.join(memory.dataDir, 'db'))).toBe(false);
    });
    await onTier(
      () => startTestServer(),
      async (onDisk: TestServer) => {
        await registerUser(onDisk);
        expect(existsSync(path.join(onDisk.dataDir, 'db'))).toBe(true);
      },
    );
  });
});
