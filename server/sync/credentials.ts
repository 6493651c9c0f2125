import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretStore } from '../config/secrets';

/**
 * Sync credentials are stored encrypted (AES-256-GCM) with a key kept in
 * `<dataDir>/secrets/sync-credentials.key` (0600). The desktop shell can later wrap that key with
 * the OS keychain (Electron safeStorage). Passwords are never returned by any action.
 */
export interface SealedSecret {
  iv: string;
  tag: string;
  data: string;
}

export function seal(secrets: SecretStore, plain: string): SealedSecret {
  const key = secrets.get('sync-credentials', 32).subarray(0, 32);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
}

export function unseal(secrets: SecretStore, sealed: SealedSecret): string {
  const key = secrets.get('sync-credentials', 32).subarray(0, 32);
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
}
