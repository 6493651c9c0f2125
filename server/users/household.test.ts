/**
 * Roles and the household (issue: owner, household and secrets): who may change what, invites,
 * registration policy, disabling, password resets, deleting a member with their data, the
 * desktop owner's password-less sign-in, and sign-ins that end everywhere at once.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allDomains } from '../domains';
import { actionsOf } from '../domain';
import { ManualClock } from '../lib/clock';
import { registerUser, startTestServer, type TestServer } from '../test-support/test-server';
import { tinyPng, uploadFile } from '../test-support/files';
import { withDeadline } from '../test-support/deadline';
import { apiErrors } from '../api/errors';
import { signInErrors } from '../http/sign-in';
import { usersErrors } from './errors';
import { expectRefusal } from '../test-support/refusal';

const PASSWORD = 'correct horse battery';
const ACTIONS = actionsOf(allDomains());

describe('roles', () => {
  let t: TestServer;
  let owner: Awaited<ReturnType<typeof registerUser>>;
  let member: Awaited<ReturnType<typeof registerUser>>;
  beforeAll(async () => {
    t = await startTestServer();
    owner = await registerUser(t, { username: 'owner1' });
    member = await registerUser(t, { username: 'member1' });
  });
  afterAll(() => t.close());

  it('the first account of a data dir is its owner, later ones are members', async () => {
    expect((await t.api('user.verifyToken', { token: owner.token })).data.user.role).toBe('owner');
    expect((await t.api('user.verifyToken', { token: member.token })).data.user.role).toBe('member');
  });

  it('finding 1: a member cannot change the server (settings.update answers 403, code 1004) and settings.json is unchanged', async () => {
    const file = path.join(t.dataDir, 'settings.json');
    const before = (() => {
      try {
        return readFileSync(file, 'utf8');
      } catch {
        return '';
      }
    })();
    for (const patch of [
      { network: { corsOrigins: ['https://evil.example'] } },
      { network: { publicBaseUrl: 'https://evil.example' } },
      { network: { lan: true, lanApi: true } },
      { push: { retentionDays: 1 } },
    ]) {
      const answer = await t.api('settings.update', patch, member.token);
      expectRefusal(answer, apiErrors.rows.adminOnly);
    }
    expectRefusal(await t.api('settings.get', {}, member.token), apiErrors.rows.adminOnly);
    let after: string;
    try {
      after = readFileSync(file, 'utf8');
    } catch {
      after = '';
    }
    expect(after).toBe(before);
    // The owner still can.
    const changed = await t.api('settings.update', { push: { retentionDays: 30 } }, owner.token);
    expect(changed.code).toBe(200);
    expect(changed.data.push.retentionDays).toBe(30);
  });

  it('every owner-only action (from the action registry) answers 403 with code 1004 to a member', async () => {
    const restricted = ACTIONS.filter((a) => a.auth === 'admin' || a.auth === 'owner');
    const names = restricted.map((a) => a.name);
    // The issue's list: server settings, snapshots and restores, the household.
    for (const name of [
      'settings.get',
      'settings.update',
      'backup.listSnapshots',
      'backup.createSnapshot',
      'backup.restoreSnapshot',
      'user.setRole',
      'user.createInvite',
      'user.listMembers',
      'user.disable',
      'user.delete',
      'user.resetPassword',
    ]) {
      expect(names).toContain(name);
    }
    const snapshotsBefore = (await t.api('backup.listSnapshots', {}, owner.token)).data;
    for (const action of restricted) {
      // Plausible params: the role check must come before anything else looks at them.
      const answer = await t.api(action.name, { userId: owner.id, id: 'x', role: 'admin', confirm: 'owner1' }, member.token);
      expectRefusal(answer, action.auth === 'owner' ? apiErrors.rows.ownerOnly : apiErrors.rows.adminOnly, { label: action.name });
    }
    expect((await t.api('backup.listSnapshots', {}, owner.token)).data).toEqual(snapshotsBefore);
    expect((await t.api('user.verifyToken', { token: owner.token })).data.user.role).toBe('owner');
    // Members keep their own ledger.
    expect((await t.api('asset.create', { name: 'Wallet', type: 'cash', currency: 'USD', balance: 5 }, member.token)).code).toBe(200);
  });

  it('admins named by the owner change settings but cannot manage the owner or other admins; only the owner names admins', async () => {
    const admin = await registerUser(t, { username: 'admin1' });
    const other = await registerUser(t, { username: 'admin2' });
    expectRefusal(await t.api('user.setRole', { userId: admin.id, role: 'admin' }, member.token), apiErrors.rows.ownerOnly);
    expect((await t.api('user.setRole', { userId: admin.id, role: 'admin' }, owner.token)).data.role).toBe('admin');
    expect((await t.api('user.setRole', { userId: other.id, role: 'admin' }, owner.token)).data.role).toBe('admin');
    expect((await t.api('settings.update', { push: { retentionDays: 31 } }, admin.token)).code).toBe(200);
    expectRefusal(await t.api('user.setRole', { userId: member.id, role: 'admin' }, admin.token), apiErrors.rows.ownerOnly);
    expectRefusal(await t.api('user.disable', { userId: owner.id }, admin.token), usersErrors.rows.ownerUnchangeable);
    expectRefusal(await t.api('user.disable', { userId: other.id }, admin.token), usersErrors.rows.onlyOwnerManagesAdmins);
    expectRefusal(await t.api('user.createInvite', { role: 'admin' }, admin.token), usersErrors.rows.onlyOwnerInvitesAdmins);
    expect((await t.api('user.createInvite', { role: 'member' }, admin.token)).code).toBe(200);
    expectRefusal(await t.api('user.setRole', { userId: owner.id, role: 'member' }, owner.token), usersErrors.rows.ownAccount);
    const list = (await t.api('user.listMembers', {}, admin.token)).data;
    expect(list.members[0]).toMatchObject({ id: owner.id, role: 'owner' });
    expect(JSON.stringify(list)).not.toMatch(/scrypt|passwordHash|token/);
    await t.api('user.setRole', { userId: other.id, role: 'member' }, owner.token);
  });
});

describe('registration policy and invites', () => {
  let t: TestServer;
  let owner: Awaited<ReturnType<typeof registerUser>>;
  beforeAll(async () => {
    t = await startTestServer();
    owner = await registerUser(t, { username: 'boss' });
  });
  afterAll(() => t.close());

  it('defaults: open from this computer, invite-only from the network; an invite admits a network sign-up', async () => {
    const users = t.server.app.services.users;
    expect((await t.api('user.registrationInfo')).data).toEqual({ hasOwner: true, signUp: 'open', desktop: true });
    await expect(users.register({ username: 'languy', email: 'lan@example.com', password: PASSWORD }, { local: false })).rejects.toMatchObject({
      code: usersErrors.rows.inviteNeeded.code,
    });
    const { code } = (await t.api('user.createInvite', {}, owner.token)).data;
    const joined = await users.register({ username: 'languy', email: 'lan@example.com', password: PASSWORD, inviteCode: code }, { local: false });
    expect(joined.role).toBe('member');
  });

  it('a reverse proxy on this computer relays callers from anywhere: they sign up as the network does', async () => {
    const response = await t.fetch('/api', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9' },
      body: JSON.stringify({ action: 'user.register', params: { username: 'proxied', email: 'proxied@example.com', password: PASSWORD } }),
    });
    const viaProxy = { status: response.status, ...(await response.json()) };
    expectRefusal(viaProxy, usersErrors.rows.inviteNeeded);
    expect(viaProxy.message).toMatch(/invite code/);
    const info = await t
      .fetch('/api', {
        method: 'POST',
        headers: { 'content-type': 'application/json', forwarded: 'for=203.0.113.9' },
        body: JSON.stringify({ action: 'user.registrationInfo', params: {} }),
      })
      .then((r) => r.json());
    expect(info.data).toEqual({ hasOwner: true, signUp: 'invite', desktop: false });
  });

  it('invite: a code works once, in any case and spacing, and gives its role; without one the sign-up is refused', async () => {
    await t.api('settings.update', { registration: { fromThisComputer: 'invite' } }, owner.token);
    const noCode = await t.api('user.register', { username: 'kid', email: 'kid@example.com', password: PASSWORD });
    expectRefusal(noCode, usersErrors.rows.inviteNeeded);
    expect(noCode.message).toMatch(/invite code/);
    const invite = (await t.api('user.createInvite', { role: 'admin' }, owner.token)).data;
    expect(invite.code).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    expect((await t.api('user.listMembers', {}, owner.token)).data.invites.map((i: { id: string }) => i.id)).toContain(invite.id);
    // A failed sign-up (taken username) does not use up the code.
    expectRefusal(await t.api('user.register', { username: 'boss', email: 'x@example.com', password: PASSWORD, inviteCode: invite.code }), usersErrors.rows.usernameTaken);
    const typed = invite.code.toLowerCase().replace(/-/g, ' ');
    const joined = await t.api('user.register', { username: 'kid', email: 'kid@example.com', password: PASSWORD, inviteCode: typed });
    expect(joined.code).toBe(200);
    expect(joined.data.role).toBe('admin');
    const again = await t.api('user.register', { username: 'kid2', email: 'kid2@example.com', password: PASSWORD, inviteCode: invite.code });
    expectRefusal(again, usersErrors.rows.inviteCodeInvalid);
    expect(again.message).toMatch(/already used, has expired or was revoked/);
    const revoked = (await t.api('user.createInvite', {}, owner.token)).data;
    expect((await t.api('user.revokeInvite', { id: revoked.id }, owner.token)).code).toBe(200);
    expectRefusal(await t.api('user.register', { username: 'kid3', email: 'kid3@example.com', password: PASSWORD, inviteCode: revoked.code }), usersErrors.rows.inviteCodeInvalid);
  });

  it('closed: nobody signs up, not even with a code', async () => {
    const invite = (await t.api('user.createInvite', {}, owner.token)).data;
    await t.api('settings.update', { registration: { fromThisComputer: 'closed' } }, owner.token);
    const answer = await t.api('user.register', { username: 'late', email: 'late@example.com', password: PASSWORD, inviteCode: invite.code });
    expectRefusal(answer, usersErrors.rows.signUpsClosed);
    expect(answer.message).toMatch(/closed/);
    await t.api('settings.update', { registration: { fromThisComputer: 'open' } }, owner.token);
  });
});

describe('the first account', () => {
  it('is refused from the network (it would become the owner) unless fromNetwork is open', async () => {
    const fresh = await startTestServer();
    try {
      await expect(fresh.server.app.services.users.register({ username: 'first', email: 'f@example.com', password: PASSWORD }, { local: false })).rejects.toMatchObject({
        code: usersErrors.rows.firstAccountLocalOnly.code,
        message: expect.stringMatching(/first account/),
      });
      expect((await fresh.api('user.registrationInfo')).data).toEqual({ hasOwner: false, signUp: 'open', desktop: true });
    } finally {
      await fresh.close();
    }
  });
});

describe('disable, reset, delete', () => {
  let t: TestServer;
  let owner: Awaited<ReturnType<typeof registerUser>>;
  beforeAll(async () => {
    t = await startTestServer();
    owner = await registerUser(t, { username: 'mum' });
  });
  afterAll(() => t.close());

  it('a disabled member cannot sign in or use an old token; enabled again they can', async () => {
    const kid = await registerUser(t, { username: 'kiddo' });
    expect((await t.api('user.disable', { userId: kid.id }, owner.token)).data.disabled).toBe(true);
    expectRefusal(await t.api('asset.query', {}, kid.token), usersErrors.rows.sessionSignedOut);
    const login = await t.api('user.login', { email: kid.email, password: PASSWORD });
    expectRefusal(login, usersErrors.rows.accountDisabled);
    expect(login.message).toMatch(/disabled/);
    // A wrong password says only that: nothing about the account being disabled.
    expectRefusal(await t.api('user.login', { email: kid.email, password: 'wrong password!' }), usersErrors.rows.invalidCredentials);
    await t.api('user.enable', { userId: kid.id }, owner.token);
    expect((await t.api('user.login', { email: kid.email, password: PASSWORD })).code).toBe(200);
  });

  it('a password reset gives a temporary password that only opens the change-password step', async () => {
    const kid = await registerUser(t, { username: 'teen' });
    const { temporaryPassword } = (await t.api('user.resetPassword', { userId: kid.id }, owner.token)).data;
    expectRefusal(await t.api('asset.query', {}, kid.token), usersErrors.rows.sessionSignedOut);
    expectRefusal(await t.api('user.login', { email: kid.email, password: PASSWORD }), usersErrors.rows.invalidCredentials);
    const signedIn = await t.api('user.login', { email: kid.email, password: temporaryPassword });
    expect(signedIn.data.mustChangePassword).toBe(true);
    const blocked = await t.api('asset.query', {}, signedIn.data.token);
    expectRefusal(blocked, signInErrors.rows.mustChangePassword);
    expect(blocked.message).toMatch(/new password/);
    expectRefusal(await t.api('user.changePassword', { currentPassword: temporaryPassword, newPassword: temporaryPassword }, signedIn.data.token), usersErrors.rows.samePassword);
    const changed = await t.api('user.changePassword', { currentPassword: temporaryPassword, newPassword: 'a brand new secret' }, signedIn.data.token);
    expect(changed.data.mustChangePassword).toBe(false);
    expect((await t.api('asset.query', {}, signedIn.data.token)).code).toBe(200);
  });

  it('a pending password reset also closes the routes outside /api: file bytes and the push feed', async () => {
    const kid = await registerUser(t, { username: 'reader' });
    const { ticket } = await uploadFile(t, kid.token, tinyPng());
    const fileId = ticket.data.fileId as string;
    const { temporaryPassword } = (await t.api('user.resetPassword', { userId: kid.id }, owner.token)).data;
    const token = (await t.api('user.login', { email: kid.email, password: temporaryPassword })).data.token as string;
    for (const path of [`/files/${fileId}`, '/events/push']) {
      const res = await t.fetch(path, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status, path).toBe(403);
      const body = (await res.json()) as { message: string; data: { mustChangePassword?: boolean } | null };
      expect(body.message, path).toMatch(/new password/);
      expect(body.data?.mustChangePassword, path).toBe(true);
    }
  });

  it('deleting a member needs their username repeated, and removes them with every document of theirs', async () => {
    const kid = await registerUser(t, { username: 'leaving' });
    const asset = (await t.api('asset.create', { name: 'Piggy', type: 'cash', currency: 'USD', balance: 10 }, kid.token)).data.id;
    await t.api('accounting.create', { type: 'expense', amount: 1, asset, category: 'Food' }, kid.token);
    await t.api('shortlink.create', { url: 'https://example.com/kid' }, kid.token);
    await t.api('savings.createGoal', { title: 'Bike', targetAmount: 100, endDate: Date.now() + 40 * 86_400_000 }, kid.token);
    const refused = await t.api('user.delete', { userId: kid.id, confirm: 'Leaving' }, owner.token);
    expectRefusal(refused, usersErrors.rows.deleteNotConfirmed);
    expect((await t.api('asset.query', {}, kid.token)).code).toBe(200);
    expect((await t.api('user.delete', { userId: kid.id, confirm: 'leaving' }, owner.token)).data).toEqual({ deleted: true, userId: kid.id });
    for (const collection of Object.values(t.server.app.db.rx.collections)) {
      if (!('userId' in (collection.schema.jsonSchema.properties as object))) continue;
      expect(await collection.count({ selector: { userId: kid.id } }).exec(), collection.name).toBe(0);
    }
    expectRefusal(await t.api('user.login', { email: kid.email, password: PASSWORD }), usersErrors.rows.invalidCredentials);
    // The account itself is gone from the local store (accounts are not an RxDB collection).
    expect(await t.server.app.services.users.findById(kid.id)).toBeNull();
    expect(await t.server.app.db.local.get(`user:${kid.id}`)).toBeUndefined();
    expect((await t.server.app.services.users.all()).some((u) => u.id === kid.id)).toBe(false);
    expectRefusal(await t.api('user.delete', { userId: owner.id, confirm: 'mum' }, owner.token), usersErrors.rows.ownAccount);
  });
});

/** Opens GET /events/push and resolves with the time the server ended the stream. */
function openStream(url: string, token: string): Promise<{ ended: Promise<number>; status: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}/events/push`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      const ended = new Promise<number>((done) => {
        res.on('end', () => done(Date.now()));
        res.on('close', () => done(Date.now()));
      });
      res.resume();
      resolve({ ended, status: res.statusCode ?? 0 });
    });
    req.on('error', reject);
  });
}

describe('finding 3: sign-ins end everywhere at once', () => {
  const clock = new ManualClock(Date.now());
  let t: TestServer;
  let owner: Awaited<ReturnType<typeof registerUser>>;
  beforeAll(async () => {
    t = await startTestServer({ clock, settings: { auth: { tokenLifetimeSeconds: 3600 } } });
    owner = await registerUser(t, { username: 'streamer' });
  });
  afterAll(() => t.close());

  async function endsWithin(token: string, act: () => Promise<unknown>) {
    const stream = await openStream(t.url, token);
    expect(stream.status).toBe(200);
    await act();
    // Counted from the action's answer: a password change hashes, which a loaded machine makes slow.
    const answered = Date.now();
    const endedAt = await withDeadline(stream.ended, 5000, 'the feed was still open 5 s after the action');
    return Math.max(0, endedAt - answered);
  }

  it('logout closes the open push feed within a second', async () => {
    const s = await t.api('user.login', { email: owner.email, password: PASSWORD });
    expect(await endsWithin(s.data.token, () => t.api('user.logout', {}, s.data.token))).toBeLessThan(1000);
  });

  it('expiry closes it within a second', async () => {
    const s = await t.api('user.login', { email: owner.email, password: PASSWORD });
    expect(
      await endsWithin(s.data.token, () => {
        clock.advance(3600_000 + 1);
        return Promise.resolve();
      }),
    ).toBeLessThan(1000);
    clock.set(Date.now());
  });

  it("a password change closes the other sessions' feeds (not the one that changed it)", async () => {
    const other = await t.api('user.login', { email: owner.email, password: PASSWORD });
    const here = await t.api('user.login', { email: owner.email, password: PASSWORD });
    const hereStream = await openStream(t.url, here.data.token);
    const took = await endsWithin(other.data.token, () => t.api('user.changePassword', { currentPassword: PASSWORD, newPassword: 'another long pass' }, here.data.token));
    expect(took).toBeLessThan(1000);
    // The session that changed it is still good (what the feed's closing follows), and its feed is
    // still open after that round trip; it ends at its own logout.
    let hereEnded = false;
    void hereStream.ended.then(() => (hereEnded = true));
    expect((await t.api('user.verifyToken', { token: here.data.token })).code).toBe(200);
    expect(hereEnded).toBe(false);
    await t.api('user.logout', {}, here.data.token);
    await expect.poll(() => hereEnded).toBe(true);
    owner.password = 'another long pass';
  });

  it('disabling a member closes their feed within a second', async () => {
    const kid = await registerUser(t, { username: 'watcher' });
    const fresh = (await t.api('user.login', { email: owner.email, password: owner.password })).data.token;
    expect(await endsWithin(kid.token, () => t.api('user.disable', { userId: kid.id }, fresh))).toBeLessThan(1000);
    expect((await openStream(t.url, kid.token)).status).toBe(401);
  });
});

describe('the desktop owner signs in without a password', () => {
  it('a one-time secret from the shell creates the owner on a new data dir, then signs the same owner in', async () => {
    const t = await startTestServer();
    try {
      const desktop = t.server.app.services.users.desktop;
      const secret = desktop.issue();
      const first = await t.api('user.desktopSignIn', { secret, username: 'alex' });
      expect(first.data).toMatchObject({ username: 'alex', role: 'owner', email: '' });
      expectRefusal(await t.api('user.desktopSignIn', { secret }), usersErrors.rows.desktopSecretUsed);
      expectRefusal(await t.api('user.desktopSignIn', { secret: 'x'.repeat(43) }), usersErrors.rows.desktopSecretUsed);
      const second = await t.api('user.desktopSignIn', { secret: desktop.issue() });
      expect(second.data.id).toBe(first.data.id);
      // Later a password lets the owner sign in from a phone too.
      expect((await t.api('user.changePassword', { newPassword: 'phone password' }, second.data.token)).code).toBe(200);
      const info = (await t.api('user.listMembers', {}, second.data.token)).data.members[0];
      expect(info.signIn).toEqual(['password']);
    } finally {
      await t.close();
    }
  });
});
