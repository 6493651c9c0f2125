import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SecretProtectedError, SecretStore, type KeyProtector } from './secrets';
import { registerUser, startTestServer, tempDataDir } from '../test-support/test-server';
import { seal, unseal } from '../sync/credentials';

/** A stand-in for Electron safeStorage: AES-GCM with a key only this "keychain" knows. */
function fakeKeychain(name = 'fake-keychain'): KeyProtector & { calls: { encrypt: number; decrypt: number } } {
  const key = randomBytes(32);
  const calls = { encrypt: 0, decrypt: 0 };
  return {
    name,
    calls,
    encrypt(plain) {
      calls.encrypt++;
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([c.update(plain), c.final()]);
      return Buffer.concat([iv, c.getAuthTag(), data]);
    },
    decrypt(sealed) {
      calls.decrypt++;
      const d = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
      d.setAuthTag(sealed.subarray(12, 28));
      return Buffer.concat([d.update(sealed.subarray(28)), d.final()]);
    },
  };
}

const dirs: string[] = [];
function dataDir(): string {
  const dir = tempDataDir('secrets');
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const keyFile = (dir: string, name: string) => path.join(dir, 'secrets', `${name}.key`);

describe('SecretStore without a keychain (headless)', () => {
  it('keeps each key as base64 in a 0600 file inside a 0700 folder', () => {
    const dir = dataDir();
    const store = new SecretStore(dir);
    const key = store.get('jwt');
    expect(key.length).toBe(64);
    expect(readFileSync(keyFile(dir, 'jwt'), 'utf8').trim()).toBe(key.toString('base64'));
    expect(statSync(keyFile(dir, 'jwt')).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dir, 'secrets')).mode & 0o777).toBe(0o700);
    expect(new SecretStore(dir).get('jwt').equals(key)).toBe(true);
    expect(store.protection()).toEqual({ mode: 'file' });
  });
});

describe('SecretStore with a key protector (desktop app with an OS keychain)', () => {
  it('writes new keys wrapped: the key bytes never reach the disk', () => {
    const dir = dataDir();
    const keychain = fakeKeychain();
    const key = new SecretStore(dir, { protector: keychain }).get('jwt');
    const text = readFileSync(keyFile(dir, 'jwt'), 'utf8');
    expect(text.startsWith('protected:fake-keychain:')).toBe(true);
    expect(text).not.toContain(key.toString('base64'));
    expect(readFileSync(keyFile(dir, 'jwt')).includes(key)).toBe(false);
    expect(statSync(keyFile(dir, 'jwt')).mode & 0o777).toBe(0o600);
    // A new process with the same keychain reads the same key.
    const again = new SecretStore(dir, { protector: keychain });
    expect(again.get('jwt').equals(key)).toBe(true);
    expect(again.protection()).toEqual({ mode: 'os-keychain', protector: 'fake-keychain' });
  });

  it('wraps an existing plain key file on first read, keeping its value', () => {
    const dir = dataDir();
    const key = new SecretStore(dir).get('files-signing');
    const keychain = fakeKeychain();
    expect(new SecretStore(dir, { protector: keychain }).get('files-signing').equals(key)).toBe(true);
    expect(readFileSync(keyFile(dir, 'files-signing'), 'utf8')).toMatch(/^protected:fake-keychain:/);
    expect(readdirSync(path.join(dir, 'secrets')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(new SecretStore(dir, { protector: keychain }).get('files-signing').equals(key)).toBe(true);
  });

  it('refuses, with a message that says what to do, to open a wrapped key without the keychain', () => {
    const dir = dataDir();
    new SecretStore(dir, { protector: fakeKeychain() }).get('jwt');
    const headless = new SecretStore(dir);
    expect(() => headless.get('jwt')).toThrow(SecretProtectedError);
    expect(() => headless.get('jwt')).toThrow(/desktop app's OS keychain \(fake-keychain\).*protectKeys/);
  });

  it('does not destroy a key another keychain wrapped (another account or computer)', () => {
    const dir = dataDir();
    new SecretStore(dir, { protector: fakeKeychain() }).get('sync-credentials', 32);
    const before = readFileSync(keyFile(dir, 'sync-credentials'), 'utf8');
    expect(() => new SecretStore(dir, { protector: fakeKeychain() }).get('sync-credentials', 32)).toThrow(/cannot open it/);
    expect(readFileSync(keyFile(dir, 'sync-credentials'), 'utf8')).toBe(before);
  });

  it('unwraps keys back to plain files when protectKeys is off, so the headless server can open the data dir', () => {
    const dir = dataDir();
    const keychain = fakeKeychain();
    const key = new SecretStore(dir, { protector: keychain }).get('market-seed', 32);
    const store = new SecretStore(dir, { protector: keychain, protect: false });
    expect(store.get('market-seed', 32).equals(key)).toBe(true);
    expect(store.protection()).toEqual({ mode: 'file' });
    expect(readFileSync(keyFile(dir, 'market-seed'), 'utf8').trim()).toBe(key.toString('base64'));
    expect(new SecretStore(dir).get('market-seed', 32).equals(key)).toBe(true);
  });

  it('refuses a protector name that would break the file format', () => {
    expect(() => new SecretStore(dataDir(), { protector: { ...fakeKeychain(), name: 'a:b' } })).toThrow(/invalid key protector name/);
  });

  it('rejects a truncated plain key instead of wrapping it', () => {
    const dir = dataDir();
    mkdirSync(path.join(dir, 'secrets'), { recursive: true, mode: 0o700 });
    writeFileSync(keyFile(dir, 'jwt'), Buffer.alloc(8).toString('base64'), { mode: 0o600 });
    expect(() => new SecretStore(dir, { protector: fakeKeychain() }).get('jwt')).toThrow(/too short/);
  });
});

describe('a server started with a key protector (what the desktop shell does)', () => {
  it('wraps the JWT key and the sync-credentials key; tokens and sealed credentials survive restarts', async () => {
    const dir = dataDir();
    const keychain = fakeKeychain();
    const first = await startTestServer({ dataDir: dir, keyProtector: keychain });
    const user = await registerUser(first);
    const sealed = seal(first.server.app.secrets, 'couch-password');
    await first.close(true);
    for (const name of ['jwt', 'sync-credentials']) expect(readFileSync(keyFile(dir, name), 'utf8')).toMatch(/^protected:fake-keychain:/);
    expect(readdirSync(path.join(dir, 'secrets')).every((f) => readFileSync(path.join(dir, 'secrets', f), 'utf8').startsWith('protected:'))).toBe(true);

    // Headless on the same data dir: refused at start with the explanation, nothing half-started.
    await expect(startTestServer({ dataDir: dir })).rejects.toThrow(SecretProtectedError);

    const second = await startTestServer({ dataDir: dir, keyProtector: keychain });
    try {
      expect((await second.api('user.verifyToken', { token: user.token })).code).toBe(200);
      expect(unseal(second.server.app.secrets, sealed)).toBe('couch-password');
    } finally {
      await second.close(true);
    }

    // protectKeys off: the desktop app unwraps the keys; then the headless server opens the dir.
    const unwrapping = await startTestServer({ dataDir: dir, keyProtector: keychain, settings: { desktop: { protectKeys: false } } });
    await unwrapping.close(true);
    const headless = await startTestServer({ dataDir: dir });
    try {
      expect((await headless.api('user.verifyToken', { token: user.token })).code).toBe(200);
      expect(unseal(headless.server.app.secrets, sealed)).toBe('couch-password');
    } finally {
      await headless.close(true);
    }
  });
});
