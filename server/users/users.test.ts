import { statSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../lib/clock';
import { registerUser, startTestServer, tempDataDir, type TestServer } from '../test-support/test-server';
import { usersErrors } from './errors';
import { expectRefusal } from '../test-support/refusal';

const PASSWORD = 'correct horse battery';

describe('user.register', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('creates an account and answers the seed User object with a working token', async () => {
    const answer = await t.api('user.register', { username: 'Alice', email: 'Alice@Example.com', password: PASSWORD, deviceId: 'd1', deviceInfo: 'laptop' });
    expect(answer.status).toBe(200);
    const user = answer.data;
    expect(Object.keys(user).sort()).toEqual(['avatar', 'createdAt', 'email', 'expiresAt', 'id', 'mustChangePassword', 'role', 'token', 'updatedAt', 'username']);
    expect(user).toMatchObject({ username: 'Alice', email: 'alice@example.com', avatar: '' });
    expect(typeof user.id).toBe('string');
    expect(Number.isInteger(user.createdAt)).toBe(true);
    expect(JSON.stringify(answer)).not.toMatch(/scrypt|passwordHash/);
    const verified = await t.api('user.verifyToken', { token: user.token });
    expect(verified.data).toMatchObject({ valid: true, user: { id: user.id, username: 'Alice' } });
  });

  it('refuses duplicates of email or username regardless of case with 409', async () => {
    await t.api('user.register', { username: 'bob', email: 'bob@example.com', password: PASSWORD });
    const sameEmail = await t.api('user.register', { username: 'bobby', email: 'BOB@example.com', password: PASSWORD });
    expectRefusal(sameEmail, usersErrors.rows.emailTaken);
    expect(sameEmail.message).toMatch(/email/);
    const sameName = await t.api('user.register', { username: 'BOB', email: 'other@example.com', password: PASSWORD });
    expectRefusal(sameName, usersErrors.rows.usernameTaken);
    expect(sameName.message).toMatch(/username/);
  });

  it('registers only one of many concurrent sign-ups with the same email', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => t.api('user.register', { username: `racer${i}`, email: 'race@example.com', password: PASSWORD })));
    expect(answers.filter((a) => a.code === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.code === 409)).toHaveLength(5);
  });

  it('validates email shape, password length and username rules', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ username: 'carol', email: 'not-an-email', password: PASSWORD }, /params.email must match format "email"/],
      [{ username: 'carol', email: 'carol@example.com', password: 'short' }, /params.password must NOT have fewer than 8 characters/],
      [{ username: 'c', email: 'carol@example.com', password: PASSWORD }, /params.username must match pattern/],
      [{ username: '_carol', email: 'carol@example.com', password: PASSWORD }, /params.username/],
      [{ username: 'carol smith', email: 'carol@example.com', password: PASSWORD }, /params.username/],
      [{ username: 'carol', email: 'carol@example.com' }, /params.password is required/],
      [{ username: 'carol', email: 'carol@example.com', password: 12345678 }, /params.password must be string/],
    ];
    for (const [params, message] of cases) {
      const answer = await t.api('user.register', params);
      expect(answer.status, JSON.stringify(params)).toBe(400);
      expect(answer.message).toMatch(message);
    }
    const chinese = await t.api('user.register', { username: '小明_2024', email: 'xm@example.com', password: PASSWORD });
    expect(chinese.status).toBe(200);
  });

  it('takes a two-character name such as 小明 (issue 36: it needed three characters)', async () => {
    const answer = await t.api('user.register', { username: '小明', email: 'xiaoming@example.com', password: PASSWORD });
    expect(answer.status).toBe(200);
    expect(answer.data).toMatchObject({ username: '小明' });
    expect((await t.api('user.register', { username: 'Al', email: 'al@example.com', password: PASSWORD })).status).toBe(200);
  });
});

describe('user.login (email), lockout, logout, verifyToken', () => {
  let t: TestServer;
  const clock = new ManualClock(Date.UTC(2026, 10, 1));
  beforeAll(async () => {
    t = await startTestServer({ clock });
  });
  afterAll(() => t.close());

  it('logs in with the right password and answers the same 1002 for wrong password and unknown email', async () => {
    const user = await registerUser(t);
    const ok = await t.api('user.login', { platform: 'email', email: user.email.toUpperCase(), password: user.password, deviceId: 'phone', deviceInfo: 'Pixel' });
    expect(ok.status).toBe(200);
    expect(ok.data).toMatchObject({ id: user.id, username: user.username, email: user.email });
    expect(typeof ok.data.token).toBe('string');

    const wrong = await t.api('user.login', { platform: 'email', email: user.email, password: 'not the password' });
    const unknown = await t.api('user.login', { platform: 'email', email: 'nobody@example.com', password: 'not the password' });
    expectRefusal(wrong, usersErrors.rows.invalidCredentials);
    expectRefusal(unknown, usersErrors.rows.invalidCredentials);
    expect(unknown.message).toBe(wrong.message);
    const noPlatform = await t.api('user.login', { email: user.email, password: user.password });
    expect(noPlatform.code).toBe(200);
    const missing = await t.api('user.login', { platform: 'email', email: user.email });
    expectRefusal(missing, usersErrors.rows.loginParamMissing);
    expect(missing.message).toMatch(/params.password is required/);
  });

  it('locks an email for 15 minutes after 5 failures within 15 minutes, even with the right password', async () => {
    const user = await registerUser(t);
    const attempt = (password: string) => t.api('user.login', { platform: 'email', email: user.email, password });
    // four failures spread over 20 minutes: the first falls out of the window
    await attempt('wrong-password-1');
    clock.advance(16 * 60_000);
    for (let i = 0; i < 3; i++) expectRefusal(await attempt('wrong-password-x'), usersErrors.rows.invalidCredentials);
    expect((await attempt(user.password)).code).toBe(200); // success clears the count
    for (let i = 0; i < 4; i++) expectRefusal(await attempt('wrong-password-y'), usersErrors.rows.invalidCredentials);
    const fifth = await attempt('wrong-password-y');
    expectRefusal(fifth, usersErrors.rows.accountLocked);
    const rightButLocked = await attempt(user.password);
    expectRefusal(rightButLocked, usersErrors.rows.accountLocked);
    expect(rightButLocked.message).toMatch(/locked for 15 minutes/);
    clock.advance(14 * 60_000);
    expectRefusal(await attempt(user.password), usersErrors.rows.accountLocked);
    clock.advance(60_000 + 1);
    expect((await attempt(user.password)).code).toBe(200);
  });

  it('signs in with the username (any case) as well as the email; a wrong password or an unknown name is the same 1002 (issue 36)', async () => {
    const user = await registerUser(t);
    const byName = await t.api('user.login', { platform: 'email', username: user.username.toUpperCase(), password: user.password });
    expect(byName.status).toBe(200);
    expect(byName.data).toMatchObject({ id: user.id, username: user.username });
    const chinese = await t.api('user.register', { username: '小红', email: 'xiaohong@example.com', password: PASSWORD });
    expect((await t.api('user.login', { username: '小红', password: PASSWORD })).data).toMatchObject({ id: chinese.data.id });
    const wrong = await t.api('user.login', { username: user.username, password: 'not the password' });
    const unknown = await t.api('user.login', { username: 'nobody-here', password: 'not the password' });
    expectRefusal(wrong, usersErrors.rows.invalidCredentials);
    expectRefusal(unknown, usersErrors.rows.invalidCredentials);
    expect(unknown.message).toBe(wrong.message);
    const neither = await t.api('user.login', { platform: 'email', password: PASSWORD });
    expectRefusal(neither, usersErrors.rows.loginParamMissing);
  });

  it('one lockout for an account whichever name is typed: failures by email and by username add up', async () => {
    const user = await registerUser(t);
    for (let i = 0; i < 2; i++) expectRefusal(await t.api('user.login', { email: user.email, password: 'wrong-password' }), usersErrors.rows.invalidCredentials);
    for (let i = 0; i < 2; i++) expectRefusal(await t.api('user.login', { username: user.username, password: 'wrong-password' }), usersErrors.rows.invalidCredentials);
    expectRefusal(await t.api('user.login', { username: user.username.toUpperCase(), password: 'wrong-password' }), usersErrors.rows.accountLocked);
    expectRefusal(await t.api('user.login', { email: user.email, password: user.password }), usersErrors.rows.accountLocked);
    expectRefusal(await t.api('user.login', { username: user.username, password: user.password }), usersErrors.rows.accountLocked);
    // An unknown username locks the same way, so locking reveals nothing either.
    for (let i = 0; i < 4; i++) expectRefusal(await t.api('user.login', { username: 'ghost-name', password: 'whatever-1' }), usersErrors.rows.invalidCredentials);
    expectRefusal(await t.api('user.login', { username: 'ghost-name', password: 'whatever-1' }), usersErrors.rows.accountLocked);
    clock.advance(16 * 60_000);
  });

  it('locks unknown emails the same way, so locking reveals nothing', async () => {
    for (let i = 0; i < 4; i++) expectRefusal(await t.api('user.login', { email: 'ghost@example.com', password: 'whatever-1' }), usersErrors.rows.invalidCredentials);
    expectRefusal(await t.api('user.login', { email: 'ghost@example.com', password: 'whatever-1' }), usersErrors.rows.accountLocked);
  });

  it('logout revokes only that session', async () => {
    const user = await registerUser(t);
    const second = (await t.api('user.login', { email: user.email, password: user.password, deviceId: 'second' })).data.token as string;
    expect((await t.api('user.logout', {}, user.token)).data).toEqual({ loggedOut: true });
    const after = await t.api('user.logout', {}, user.token);
    expectRefusal(after, usersErrors.rows.sessionSignedOut);
    expectRefusal(await t.api('user.verifyToken', { token: user.token }), usersErrors.rows.sessionSignedOut);
    expect((await t.api('user.verifyToken', { token: second })).code).toBe(200);
  });

  it('verifyToken: expired → 1003, garbage and tampered → 401', async () => {
    const user = await registerUser(t);
    const valid = await t.api('user.verifyToken', { token: user.token });
    expect(valid.data.valid).toBe(true);
    expect(valid.data.expiresAt).toBe(clock.now() + 7 * 24 * 3600 * 1000);

    expectRefusal(await t.api('user.verifyToken', { token: 'garbage' }), usersErrors.rows.invalidToken);
    const [header = '', payload = '', signature = ''] = user.token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const changed = Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url');
    expectRefusal(await t.api('user.verifyToken', { token: `${header}.${changed}.${signature}` }), usersErrors.rows.invalidToken);
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
    expectRefusal(await t.api('user.verifyToken', { token: none }), usersErrors.rows.invalidToken);
    const otherKey = jwt.sign(claims, 'not-the-server-key', { algorithm: 'HS256', noTimestamp: true });
    expectRefusal(await t.api('user.verifyToken', { token: otherKey }), usersErrors.rows.invalidToken);
    const hs512 = jwt.sign(claims, t.server.app.secrets.get('jwt'), { algorithm: 'HS512', noTimestamp: true });
    expectRefusal(await t.api('user.verifyToken', { token: hs512 }), usersErrors.rows.invalidToken);

    clock.advance(7 * 24 * 3600 * 1000 + 1000);
    const expired = await t.api('user.verifyToken', { token: user.token });
    expectRefusal(expired, usersErrors.rows.tokenExpired);
    const expiredUse = await t.api('user.logout', {}, user.token);
    expectRefusal(expiredUse, usersErrors.rows.tokenExpired);
  });

  it('answers 1001 for a valid token whose account no longer exists', async () => {
    const user = await registerUser(t);
    expect(await t.server.app.services.users.store.remove(user.id)).toBe(true);
    const answer = await t.api('user.logout', {}, user.token);
    expectRefusal(answer, usersErrors.rows.tokenUserNotFound);
  });
});

describe('persistence and secrets', () => {
  it('keeps users, sessions and lockouts across a restart, and stores the JWT key with mode 0600', async () => {
    const dataDir = tempDataDir('restart');
    const first = await startTestServer({ dataDir });
    const user = await registerUser(first);
    for (let i = 0; i < 5; i++) await first.api('user.login', { email: 'locked@example.com', password: 'wrongwrong' });
    await first.close(true);

    const second = await startTestServer({ dataDir });
    try {
      expect((await second.api('user.verifyToken', { token: user.token })).code).toBe(200);
      expect((await second.api('user.login', { email: user.email, password: user.password })).code).toBe(200);
      expectRefusal(await second.api('user.login', { email: 'locked@example.com', password: 'wrongwrong' }), usersErrors.rows.accountLocked);
      const keyFile = path.join(dataDir, 'secrets', 'jwt.key');
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      expect(statSync(path.join(dataDir, 'secrets')).mode & 0o777).toBe(0o700);
      // The password never reaches disk in clear text.
      const files = readdirSync(path.join(dataDir, 'db')).map((f) => readFileSync(path.join(dataDir, 'db', f)));
      expect(files.some((content) => content.includes(Buffer.from(user.password)))).toBe(false);
    } finally {
      await second.close();
    }
  });
});
