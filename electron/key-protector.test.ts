import { describe, expect, it } from 'vitest';
import { keychainUnavailableReason, safeStorageKeyProtector, SAFE_STORAGE_PROTECTOR } from './key-protector';

type Backend = 'basic_text' | 'gnome_libsecret' | 'kwallet' | 'kwallet5' | 'kwallet6' | 'unknown';

/** Electron's safeStorage as the shell sees it (its real one needs the Electron binary). */
function fakeSafeStorage(available: boolean, backend: Backend) {
  return {
    isEncryptionAvailable: () => available,
    getSelectedStorageBackend: () => backend,
    encryptString: (plain: string) => Buffer.from(`sealed(${plain})`, 'utf8'),
    decryptString: (sealed: Buffer) => {
      const text = sealed.toString('utf8');
      if (!text.startsWith('sealed(')) throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
      return text.slice('sealed('.length, -1);
    },
  };
}

describe('safeStorage key protector', () => {
  it('is used on macOS and Windows whenever encryption is available, and round-trips binary keys', () => {
    for (const platform of ['darwin', 'win32'] as const) {
      const protector = safeStorageKeyProtector(fakeSafeStorage(true, 'unknown'), platform)!;
      expect(protector.name).toBe(SAFE_STORAGE_PROTECTOR);
      const key = Buffer.from([0, 255, 1, 254, 10, 13, 0x22, 0x5c]);
      const sealed = protector.encrypt(key);
      expect(sealed.includes(key)).toBe(false);
      expect(protector.decrypt(sealed).equals(key)).toBe(true);
    }
  });

  it('is used on Linux with the Secret Service or KWallet', () => {
    for (const backend of ['gnome_libsecret', 'kwallet', 'kwallet5', 'kwallet6'] as const) {
      expect(safeStorageKeyProtector(fakeSafeStorage(true, backend), 'linux')).not.toBeNull();
    }
  });

  it("is not used where it would protect nothing: no keychain, or Linux's basic_text fallback", () => {
    expect(safeStorageKeyProtector(fakeSafeStorage(false, 'gnome_libsecret'), 'linux')).toBeNull();
    expect(safeStorageKeyProtector(fakeSafeStorage(false, 'unknown'), 'darwin')).toBeNull();
    expect(safeStorageKeyProtector(fakeSafeStorage(true, 'basic_text'), 'linux')).toBeNull();
    expect(keychainUnavailableReason(fakeSafeStorage(true, 'basic_text'), 'linux')).toMatch(/basic_text/);
    expect(keychainUnavailableReason(fakeSafeStorage(true, 'gnome_libsecret'), 'linux')).toBeNull();
  });

  it('lets a failed decryption surface as an error (never as an empty key)', () => {
    const protector = safeStorageKeyProtector(fakeSafeStorage(true, 'kwallet5'), 'linux')!;
    expect(() => protector.decrypt(Buffer.from('garbage'))).toThrow(/decrypting/);
  });
});
