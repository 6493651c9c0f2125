/**
 * UserStore: accounts in the local store — validated, unique usernames/emails/platform ids, one
 * batch per write, writes one at a time, the memory copy changed only by acknowledged writes.
 */
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase, type AppDatabase } from '../db/database';
import { tempDataDir } from '../test-support/test-server';
import { userDoc } from '../test-support/users';
import { UserConflictError, UserStore, userKey } from './user-store';

describe('UserStore', () => {
  let dataDir: string;
  let db: AppDatabase;
  let store: UserStore;
  beforeEach(async () => {
    dataDir = tempDataDir('user-store');
    db = await openDatabase({ dataDir, collections: [] });
    store = new UserStore(() => db.local);
  });
  afterEach(async () => {
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stores accounts as user:<id> in the local store and finds them by every lookup field', async () => {
    await store.insert(userDoc('a', 'Ann', { createdAt: 2000, role: 'owner', wechatId: 'wx-a' }));
    await store.insert(userDoc('b', 'Bob', { createdAt: 1000, alipayId: 'ali-b' }));
    expect(await db.local.get(userKey('a'))).toMatchObject({ id: 'a', username: 'Ann' });
    expect((await store.all()).map((u) => u.id)).toEqual(['b', 'a']); // oldest first
    expect(await store.count()).toBe(2);
    expect((await store.findOne('usernameKey', 'ann'))?.id).toBe('a');
    expect((await store.findOne('email', 'bob@example.com'))?.id).toBe('b');
    expect((await store.findOne('wechatId', 'wx-a'))?.id).toBe('a');
    expect((await store.findOne('alipayId', 'ali-b'))?.id).toBe('b');
    expect((await store.findOne('role', 'owner'))?.id).toBe('a');
    expect(await store.findOne('email', 'nobody@example.com')).toBeNull();
    // A fresh store (the next start) reads the same from disk.
    const again = new UserStore(() => db.local);
    expect(await again.all()).toEqual(await store.all());
  });

  it('keeps usernames, emails and platform ids unique; empty ones may repeat', async () => {
    await store.insert(userDoc('a', 'Ann', { wechatId: 'wx' }));
    const conflict = (field: string) => expect.objectContaining({ name: 'UserConflictError', field });
    await expect(store.insert(userDoc('b', 'ANN', { email: 'other@example.com' }))).rejects.toEqual(conflict('usernameKey'));
    await expect(store.insert(userDoc('b', 'Bob', { email: 'ann@example.com' }))).rejects.toEqual(conflict('email'));
    await expect(store.insert(userDoc('b', 'Bob', { wechatId: 'wx' }))).rejects.toEqual(conflict('wechatId'));
    await expect(store.insert(userDoc('a', 'Other'))).rejects.toThrow(/exists already/);
    await store.insert(userDoc('p1', 'wechat_1', { email: '', wechatId: 'wx-1' }));
    await store.insert(userDoc('p2', 'wechat_2', { email: '', wechatId: 'wx-2' }));
    await store.insert(userDoc('b', 'Bob', { alipayId: 'ali' }));
    await expect(store.patch('b', { email: 'ann@example.com' })).rejects.toBeInstanceOf(UserConflictError);
    await expect(store.patch('p1', { alipayId: 'ali' })).rejects.toBeInstanceOf(UserConflictError);
    expect((await store.findById('b'))?.email).toBe('bob@example.com');
    expect(await store.count()).toBe(4);
  });

  it('refuses an account that is not a valid UserDocument, before writing anything', async () => {
    const batch = vi.spyOn(db.local, 'batch');
    await expect(store.insert({ ...userDoc('a', 'Ann'), role: 'king' as never })).rejects.toThrow(/invalid account "a": \/role/);
    await expect(store.insert({ ...userDoc('a', 'Ann'), extra: 1 } as never)).rejects.toThrow(/invalid account/);
    await expect(store.insert({ ...userDoc('a', 'Ann'), username: 'x'.repeat(65) })).rejects.toThrow(/\/username/);
    await store.insert(userDoc('a', 'Ann'));
    await expect(store.patch('a', { disabled: 'yes' as never })).rejects.toThrow(/\/disabled/);
    expect(batch).toHaveBeenCalledTimes(1);
    expect((await store.findById('a'))?.disabled).toBe(false);
  });

  it('writes one batch per change, one change at a time: concurrent patches lose nothing', async () => {
    await store.insert(userDoc('a', 'Ann'));
    const batch = vi.spyOn(db.local, 'batch');
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.patch('a', (current) => ({ prefs: { ...current.prefs, [`k${i}`]: i } }))));
    expect(batch).toHaveBeenCalledTimes(20);
    expect(Object.keys((await store.findById('a'))!.prefs)).toHaveLength(20);
    expect(Object.keys((await new UserStore(() => db.local).findById('a'))!.prefs)).toHaveLength(20);
    expect(await store.patch('nobody', { disabled: true })).toBeNull();
  });

  it('changes its memory copy only after the write was acknowledged, and hands out copies', async () => {
    await store.insert(userDoc('a', 'Ann'));
    vi.spyOn(db.local, 'batch').mockRejectedValueOnce(new Error('disk full'));
    await expect(store.patch('a', { disabled: true })).rejects.toThrow('disk full');
    expect((await store.findById('a'))?.disabled).toBe(false);
    const copy = (await store.findById('a'))!;
    copy.prefs.mutated = true;
    expect((await store.findById('a'))!.prefs).toEqual({});
    expect(await store.remove('a')).toBe(true);
    expect(await store.findById('a')).toBeNull();
    expect(await db.local.get(userKey('a'))).toBeUndefined();
    expect(await store.remove('a')).toBe(false);
  });
});
