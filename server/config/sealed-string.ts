import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretStore } from './secrets';

/**
 * Secrets kept inside database documents (push channel AppSecrets and webhook tokens) are stored
 * sealed: AES-256-GCM with a per-data-dir key (`secrets/<keyName>.key`, 0600; wrapped with the OS
 * keychain by the desktop app), as `enc:v1:<iv>:<tag>:<data>` (base64url). Values written before
 * sealing existed are plain and still read.
 */
const PREFIX = 'enc:v1:';

export function isSealed(value: string): boolean {
  return value.startsWith(PREFIX);
}

export function sealString(secrets: SecretStore, keyName: string, plain: string): string {
  if (plain === '' || isSealed(plain)) return plain;
  const key = secrets.get(keyName, 32).subarray(0, 32);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `${PREFIX}${iv.toString('base64url')}:${cipher.getAuthTag().toString('base64url')}:${data.toString('base64url')}`;
}

export function unsealString(secrets: SecretStore, keyName: string, value: string): string {
  if (!isSealed(value)) return value;
  const parts = value.slice(PREFIX.length).split(':');
  const [iv, tag, data] = [parts.at(0), parts.at(1), parts.at(2)];
  if (iv === undefined || tag === undefined || data === undefined) throw new Error(`The sealed value is damaged: it is not of the form ${PREFIX}<iv>:<tag>:<data>.`);
  const key = secrets.get(keyName, 32).subarray(0, 32);
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}
