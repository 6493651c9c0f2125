import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../server';
import { createLogger } from '../lib/logger';
import { registerUser, startTestServer, tempDataDir, TEST_PASSWORD_COST } from '../test-support/test-server';
import { DEFAULT_PASSWORD_COST, hashPassword, setPasswordCost, verifyPassword } from './password';

/** The cost part of a stored hash: scrypt$<log2 N>$<r>$<p>. */
function costOf(hash: string): string[] {
  return hash.split('$').slice(0, 4);
}

async function storedHash(app: RunningServer['app'], id: string): Promise<string> {
  const user = await app.services.users.findById(id);
  return user?.passwordHash ?? '';
}

describe('password cost', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('hashes at N = 2^15, r = 8, p = 1 by default (production)', async () => {
    expect(DEFAULT_PASSWORD_COST.logN).toBe(15);
    const hash = await hashPassword('correct horse battery');
    expect(costOf(hash)).toEqual(['scrypt', '15', '8', '1']);
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await verifyPassword('wrong horse battery', hash)).toBe(false);
  });

  it('a server booted as production boots (startServer) stores 2^15 hashes', async () => {
    const dataDir = tempDataDir();
    const server = await startServer({ dataDir, port: 0, host: '127.0.0.1', logger: createLogger('silent') });
    cleanups.push(async () => {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const res = await fetch(server.url + '/api', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'user.register', params: { username: 'prod', email: 'prod@example.com', password: 'correct horse battery' } }),
    });
    const answer = (await res.json()) as { code: number; data: { id: string } };
    expect(answer.code).toBe(200);
    expect(costOf(await storedHash(server.app, answer.data.id))).toEqual(['scrypt', '15', '8', '1']);
  });

  it('the test server stores cheap hashes in the same format, and they sign in', async () => {
    expect(TEST_PASSWORD_COST.logN).toBe(10);
    const t = await startTestServer();
    cleanups.push(() => t.close());
    const user = await registerUser(t);
    const hash = await storedHash(t.server.app, user.id);
    expect(costOf(hash)).toEqual(['scrypt', '10', '8', '1']);
    const login = await t.api('user.login', { email: user.email, password: user.password });
    expect(login.code).toBe(200);
    const wrong = await t.api('user.login', { email: user.email, password: 'wrong horse battery' });
    expect(wrong.code).not.toBe(200);
    // A password changed or reset on a test server is cheap too.
    const changed = await t.api('user.changePassword', { currentPassword: user.password, newPassword: 'another horse battery' }, user.token);
    expect(changed.code).toBe(200);
    expect(costOf(await storedHash(t.server.app, user.id))).toEqual(['scrypt', '10', '8', '1']);
  });

  it('a test server can still ask for the production cost', async () => {
    const t = await startTestServer({ passwordCost: DEFAULT_PASSWORD_COST });
    cleanups.push(() => t.close());
    const user = await registerUser(t);
    expect(costOf(await storedHash(t.server.app, user.id))).toEqual(['scrypt', '15', '8', '1']);
  });

  it('refuses a cost outside the bounds a stored hash is checked within', async () => {
    const t = await startTestServer();
    cleanups.push(() => t.close());
    expect(() => setPasswordCost(t.server.app, { logN: 9 })).toThrow(RangeError);
    expect(() => setPasswordCost(t.server.app, { logN: 21 })).toThrow(RangeError);
    expect(() => setPasswordCost(t.server.app, { logN: 12.5 })).toThrow(RangeError);
    await expect(hashPassword('x', { logN: 4 })).rejects.toThrow(RangeError);
  });
});
