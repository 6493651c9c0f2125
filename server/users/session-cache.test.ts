import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, startTestServer, type TestServer } from '../test-support/test-server';
import { usersErrors } from './errors';
import { expectRefusal } from '../test-support/refusal';

/**
 * Issue 23: a token's check no longer reads the database (sessions.ts keeps the session records
 * it read or wrote). A kept copy must never let a signed-out token back in.
 */

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('kept sessions', () => {
  it('refuse a token once its logout returned, even with checks of it in flight meanwhile', async () => {
    const user = await registerUser(t);
    const inFlight = Array.from({ length: 20 }, () => t.api('user.verifyToken', { token: user.token }));
    expect((await t.api('user.logout', {}, user.token)).code).toBe(200);
    await Promise.all(inFlight);
    for (let i = 0; i < 5; i++) expectRefusal(await t.api('user.verifyToken', { token: user.token }), usersErrors.rows.sessionSignedOut);
  });

  it('refuse every other session of the account after a password change, and keep the one that changed it', async () => {
    const user = await registerUser(t);
    const other = (await t.api('user.login', { email: user.email, password: user.password, deviceId: 'phone' })).data.token as string;
    expect((await t.api('asset.query', {}, other)).code).toBe(200); // kept now
    expect((await t.api('user.changePassword', { currentPassword: user.password, newPassword: 'a new long passphrase' }, user.token)).code).toBe(200);
    expectRefusal(await t.api('asset.query', {}, other), usersErrors.rows.sessionSignedOut);
    expect((await t.api('asset.query', {}, user.token)).code).toBe(200);
  });
});
