import type { SafeStorage } from 'electron';
import type { KeyProtector } from '../server/config/secrets';

export const SAFE_STORAGE_PROTECTOR = 'electron-safeStorage';

/** Why the OS keychain is not used on this machine, or null when it is. */
export function keychainUnavailableReason(safeStorage: Pick<SafeStorage, 'isEncryptionAvailable' | 'getSelectedStorageBackend'>, platform: NodeJS.Platform): string | null {
  if (!safeStorage.isEncryptionAvailable()) return 'the operating system offers no keychain to this app';
  if (platform === 'linux') {
    const backend = safeStorage.getSelectedStorageBackend();
    // basic_text encrypts with a password hard-coded in Chromium: no better than a 0600 file.
    if (backend === 'basic_text' || backend === 'unknown') return `no Secret Service or KWallet is running (Electron would use "${backend}", which protects nothing)`;
  }
  return null;
}

/**
 * The data dir's keys wrapped with Electron safeStorage (macOS Keychain, Windows DPAPI, Linux
 * Secret Service / KWallet), or null where that would not add protection. Call after app 'ready'.
 */
export function safeStorageKeyProtector(
  safeStorage: Pick<SafeStorage, 'isEncryptionAvailable' | 'getSelectedStorageBackend' | 'encryptString' | 'decryptString'>,
  platform: NodeJS.Platform,
): KeyProtector | null {
  if (keychainUnavailableReason(safeStorage, platform)) return null;
  return {
    name: SAFE_STORAGE_PROTECTOR,
    encrypt: (plain) => safeStorage.encryptString(plain.toString('base64')),
    decrypt: (sealed) => Buffer.from(safeStorage.decryptString(sealed), 'base64'),
  };
}
