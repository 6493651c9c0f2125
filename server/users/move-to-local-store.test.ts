/**
 * Accounts moved from the RxDB collection `users` to the local store: a data dir written by the old
 * code (versions 1 and 0 of the collection) starts with its accounts, roles and passwords, nothing
 * of the old collection stays behind, a second start does nothing, and a crash between copying and
 * deleting loses nothing.
 */
import { Type } from '@sinclair/typebox';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareQuery, type InternalStoreDocType } from 'rxdb';
import { defineCollection } from '../db/collections';
import { DATABASE_NAME, openDatabase, type AppDatabase } from '../db/database';
import { encodeKey, prefixEnd } from '../db/leveldb-storage/keys';
import { Bool, EnumOf, IdField, Ms, Str } from '../db/schema-fields';
import { createLogger } from '../lib/logger';
import { startTestServer, tempDataDir as newDataDir } from '../test-support/test-server';
import { repairTool } from '../data-tools/repair';
import { moveUsersToLocalStore } from './move-to-local-store';
import { hashPassword } from './password';
import { USER_KEY_PREFIX } from './user-store';
import { usersErrors } from './errors';
import { expectRefusal } from '../test-support/refusal';
import { userDoc } from '../test-support/users';

const PASSWORD = 'correct horse battery';
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
function tempDataDir(label: string): string {
  const dir = newDataDir(label);
  made.push(dir);
  return dir;
}
const silent = createLogger('silent');

/** A copy of the collection as the old code defined it (server/users/schema.ts before the move). */
const OldUserV1 = Type.Object({
  id: IdField(),
  username: Str(64),
  usernameKey: Str(64),
  email: Str(254),
  passwordHash: Str(256),
  avatar: Str(2048),
  wechatId: Str(128),
  alipayId: Str(128),
  role: EnumOf(['owner', 'admin', 'member'], 8),
  disabled: Bool(),
  mustChangePassword: Bool(),
  prefs: Type.Unsafe<Record<string, unknown>>({ type: 'object' }),
  createdAt: Ms(),
  updatedAt: Ms(),
});
const oldUsersV1 = defineCollection({
  name: 'users',
  title: 'PennyPost users',
  version: 1,
  primaryKey: 'id',
  document: OldUserV1,
  indexes: ['usernameKey', 'email', 'wechatId', 'alipayId'],
  migrationStrategies: { 1: (doc: Record<string, unknown>) => ({ ...doc, role: 'member', disabled: false, mustChangePassword: false }) },
});
/** Version 0, before roles. */
const { role: _role, disabled: _disabled, mustChangePassword: _must, ...v0Fields } = OldUserV1.properties;
const oldUsersV0 = defineCollection({
  name: 'users',
  title: 'PennyPost users',
  version: 0,
  primaryKey: 'id',
  document: Type.Object(v0Fields),
  indexes: ['usernameKey', 'email', 'wechatId', 'alipayId'],
});

/** An account as version 0 of the old collection stored it (no role fields), with `extra` on top. */
function account(id: string, username: string, createdAt: number, extra: Record<string, unknown> = {}) {
  const { role: _noRole, disabled: _noDisabled, mustChangePassword: _noMust, ...v0 } = userDoc(id, username, { createdAt, updatedAt: createdAt });
  return { ...v0, ...extra };
}

const SEP = '\u0001';
/** Raw LevelDB keys of the old collection (any version). */
async function oldKeys(db: AppDatabase): Promise<number> {
  const prefix = `r${SEP}${DATABASE_NAME}${SEP}users${SEP}`;
  let n = 0;
  for await (const _ of db.level.keys({ gte: encodeKey(prefix), lt: encodeKey(prefixEnd(prefix)) })) n++;
  return n;
}

/** RxDB's live internal documents that mention a `users` collection. */
async function usersMeta(db: AppDatabase): Promise<string[]> {
  const internal = db.rx.internalStore;
  const { documents } = await internal.query(prepareQuery<InternalStoreDocType>(internal.schema, { selector: { _deleted: { $eq: false } }, sort: [{ id: 'asc' }], skip: 0 }));
  return documents.filter((doc) => JSON.stringify(doc.data).includes('"users"') || doc.key.startsWith('users-')).map((doc) => doc.id);
}

/** A data dir written by the old code: owner, admin, a disabled member, a WeChat member and a deleted account. */
async function oldDataDir(): Promise<string> {
  const dataDir = tempDataDir('users-move');
  const db = await openDatabase({ dataDir, collections: [oldUsersV1] });
  const passwordHash = await hashPassword(PASSWORD);
  const users = db.collection('users');
  await users.bulkInsert([
    account('u1', 'Mum', 1000, { role: 'owner', disabled: false, mustChangePassword: false, passwordHash, prefs: { ledger: { baseCurrency: 'EUR' } } }),
    account('u2', 'Dad', 2000, { role: 'admin', disabled: false, mustChangePassword: false, passwordHash }),
    account('u3', 'Kid', 3000, { role: 'member', disabled: true, mustChangePassword: false, passwordHash }),
    account('u4', 'wechat_abc', 4000, { role: 'member', disabled: false, mustChangePassword: false, email: '', wechatId: 'openid-4' }),
    account('u5', 'Gone', 5000, { role: 'member', disabled: false, mustChangePassword: false, passwordHash }),
  ]);
  await (await users.findOne('u5').exec())!.remove(); // a tombstone: a deleted account stays deleted
  expect(await oldKeys(db)).toBeGreaterThan(5);
  expect(await usersMeta(db)).toEqual(['collection|users-1']);
  await db.close();
  return dataDir;
}

describe('accounts move from the RxDB collection to the local store', () => {
  it('starts an old data dir with every account, role and password, and leaves nothing of the old collection', async () => {
    const dataDir = await oldDataDir();
    const t = await startTestServer({ dataDir });
    let before: unknown;
    try {
      const users = t.server.app.services.users;
      const all = await users.all();
      expect(all.map((u) => [u.id, u.username, u.role, u.disabled])).toEqual([
        ['u1', 'Mum', 'owner', false],
        ['u2', 'Dad', 'admin', false],
        ['u3', 'Kid', 'member', true],
        ['u4', 'wechat_abc', 'member', false],
      ]);
      expect(all.at(0)?.prefs).toEqual({ ledger: { baseCurrency: 'EUR' } });
      expect(all.some((u) => '_rev' in u || '_meta' in u || '_deleted' in u)).toBe(false);
      // Signing in works; the admin keeps what an admin may do; the disabled account stays refused.
      const mum = await t.api('user.login', { email: 'mum@example.com', password: PASSWORD });
      expect(mum.code).toBe(200);
      expect(mum.data.role).toBe('owner');
      const dad = await t.api('user.login', { email: 'dad@example.com', password: PASSWORD });
      expect(dad.data.role).toBe('admin');
      expect((await t.api('user.listMembers', {}, dad.data.token)).code).toBe(200);
      expect((await t.api('user.login', { email: 'kid@example.com', password: PASSWORD })).code).not.toBe(200);
      expectRefusal(await t.api('user.login', { email: 'gone@example.com', password: PASSWORD }), usersErrors.rows.invalidCredentials);
      // Nothing of the old collection remains: no keys, no RxDB records of it.
      expect(await oldKeys(t.server.app.db)).toBe(0);
      expect(await usersMeta(t.server.app.db)).toEqual([]);
      expect(Object.keys(t.server.app.db.rx.collections)).not.toContain('users');
      expect((await t.server.app.db.local.entries(USER_KEY_PREFIX)).length).toBe(4);
      before = await t.server.app.db.local.entries(USER_KEY_PREFIX);
    } finally {
      await t.close(true);
    }
    // A second start does nothing more.
    const again = await startTestServer({ dataDir });
    try {
      expect(await moveUsersToLocalStore(again.server.app.db, silent)).toBeNull();
      expect(await again.server.app.db.local.entries(USER_KEY_PREFIX)).toEqual(before);
      expect((await again.api('user.login', { email: 'mum@example.com', password: PASSWORD })).data.role).toBe('owner');
    } finally {
      await again.close();
    }
  });

  it('brings version 0 accounts (before roles) over and makes the oldest the owner', async () => {
    const dataDir = tempDataDir('users-move-v0');
    const db = await openDatabase({ dataDir, collections: [oldUsersV0] });
    await db.collection('users').bulkInsert([account('b', 'second', 2000), account('a', 'first', 1000), account('c', 'third', 3000)]);
    await db.close();
    const t = await startTestServer({ dataDir });
    try {
      const users = await t.server.app.services.users.all();
      expect(Object.fromEntries(users.map((u) => [u.username, [u.role, u.disabled, u.mustChangePassword]]))).toEqual({
        first: ['owner', false, false],
        second: ['member', false, false],
        third: ['member', false, false],
      });
      expect(await oldKeys(t.server.app.db)).toBe(0);
      expect(await usersMeta(t.server.app.db)).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('loses nothing when it stops between copying and deleting, and finishes at the next start', async () => {
    const dataDir = await oldDataDir();
    const db = await openDatabase({ dataDir, collections: [] });
    try {
      const batch = db.level.batch.bind(db.level);
      // The raw delete fails, as if the process died right after the copy was acknowledged.
      const oldPrefix = encodeKey(`r${SEP}${DATABASE_NAME}${SEP}users${SEP}`);
      (db.level as { batch: unknown }).batch = (...args: unknown[]) => {
        const first = Array.isArray(args[0]) ? (args[0][0] as { key?: unknown } | undefined) : undefined;
        if (Buffer.isBuffer(first?.key) && first.key.subarray(0, oldPrefix.length).equals(oldPrefix)) return Promise.reject(new Error('killed'));
        return (batch as (...a: unknown[]) => unknown)(...args);
      };
      await expect(moveUsersToLocalStore(db, silent)).rejects.toThrow('killed');
      (db.level as { batch: unknown }).batch = batch;
      expect((await db.local.entries(USER_KEY_PREFIX)).length).toBe(4);
      expect(await oldKeys(db)).toBeGreaterThan(0);
    } finally {
      await db.close();
    }
    const t = await startTestServer({ dataDir });
    try {
      expect((await t.server.app.services.users.all()).map((u) => u.id)).toEqual(['u1', 'u2', 'u3', 'u4']);
      expect(await oldKeys(t.server.app.db)).toBe(0);
      expect(await usersMeta(t.server.app.db)).toEqual([]);
      expect((await t.api('user.login', { email: 'dad@example.com', password: PASSWORD })).data.role).toBe('admin');
    } finally {
      await t.close();
    }
  });

  it('refuses to start over an old account it cannot read, with nothing changed', async () => {
    const dataDir = tempDataDir('users-move-bad');
    const db = await openDatabase({ dataDir, collections: [oldUsersV1] });
    await db.collection('users').insert(account('u1', 'Mum', 1000, { role: 'owner', disabled: false, mustChangePassword: false }));
    const key = encodeKey(`r${SEP}${DATABASE_NAME}${SEP}users${SEP}1${SEP}d${SEP}u1`);
    await db.level.put(key, '{"id":"u1","damaged');
    await db.close();
    await expect(startTestServer({ dataDir })).rejects.toThrow(/unreadable document \(u1\)/);
    const reopened = await openDatabase({ dataDir, collections: [] });
    try {
      expect(await reopened.local.entries(USER_KEY_PREFIX)).toEqual([]);
      expect(await oldKeys(reopened)).toBeGreaterThan(0);
    } finally {
      await reopened.close();
    }
    // `pennypost repair` sets the damaged document aside; then the start finishes the move.
    const out: string[] = [];
    await repairTool.run({ dataDir, values: {}, positionals: [], out: (line) => out.push(line), err: (line) => out.push(line) });
    expect(out.join('\n')).toMatch(/users\/u1: damaged document taken out/);
    const t = await startTestServer({ dataDir });
    try {
      expect(await t.server.app.services.users.count()).toBe(0);
      expect(await oldKeys(t.server.app.db)).toBe(0);
    } finally {
      await t.close();
    }
  });
});
