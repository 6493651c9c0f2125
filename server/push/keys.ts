import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { APP_KEY_PREFIX } from '../http/network-policy';
import { randomBase62 } from '../lib/ids';

/** Random part of an app key: 24 base62 characters ≈ 142.9 bits from crypto randomness. */
export const APP_KEY_RANDOM_LENGTH = 24;

/**
 * The only shape the catch-all routes accept: the fixed prefix and 22–64 base62 characters.
 * Nothing else in the app (/, /api, /healthz, /s/…, /m/…, UI files with dots) has this shape.
 */
export const APP_KEY_BODY = `${APP_KEY_PREFIX}[0-9A-Za-z]{22,64}`;
export const APP_KEY_PATTERN = new RegExp(`^${APP_KEY_BODY}$`);

export function newAppKey(): string {
  return APP_KEY_PREFIX + randomBase62(APP_KEY_RANDOM_LENGTH);
}

export function isAppKeyShape(value: string): boolean {
  return APP_KEY_PATTERN.test(value);
}

/**
 * Message page tokens: `<message id>.<22 chars of HMAC-SHA256(id)>` with a per-data-dir key.
 * Unguessable (128 bits of MAC), checkable without an index, and the id part finds the row.
 */
export const PAGE_TOKEN_PATTERN = /^([0-9a-z]{9}[0-9A-Za-z]{10,31})\.([A-Za-z0-9_-]{22})$/;

export class PageTokens {
  /** Prepared once: a raw Buffer key is turned into a key object on every createHmac call. */
  private readonly key: KeyObject;

  constructor(key: Buffer) {
    this.key = createSecretKey(key);
  }

  private mac(id: string): string {
    return createHmac('sha256', this.key)
      .update('push-page:' + id)
      .digest('base64url')
      .slice(0, 22);
  }

  tokenOf(id: string): string {
    return `${id}.${this.mac(id)}`;
  }

  /** The message id a token names, or null when the token is malformed or forged. */
  idOf(token: string): string | null {
    const match = PAGE_TOKEN_PATTERN.exec(token);
    const id = match?.at(1);
    const mac = match?.at(2);
    if (id === undefined || mac === undefined) return null;
    const expected = Buffer.from(this.mac(id));
    const given = Buffer.from(mac);
    return expected.length === given.length && timingSafeEqual(expected, given) ? id : null;
  }
}

/** "abcd…wxyz" style masking: only the last 4 characters of a secret are ever shown again. */
export function maskSecret(value: string): string {
  if (!value) return '';
  if (value.length <= 8) return '••••';
  return '••••' + value.slice(-4);
}

export function isMasked(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith('••••');
}
