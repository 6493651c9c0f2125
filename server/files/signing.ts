import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Short-lived capability URLs: an HMAC-SHA256 over (purpose, subject, expiry) with a per-data-dir
 * key from app.secrets. The purpose keeps an upload signature from working as a view link.
 */
export class Signer {
  constructor(private readonly key: Buffer) {}

  sign(purpose: string, subject: string, expiresAt: number): string {
    return createHmac('sha256', this.key).update(`${purpose}\n${subject}\n${expiresAt}`).digest('base64url').slice(0, 32);
  }

  /** True when `signature` was made by sign() for exactly these values (expiry not checked). */
  verify(purpose: string, subject: string, expiresAt: number, signature: unknown): boolean {
    if (typeof signature !== 'string' || signature.length !== 32 || !Number.isSafeInteger(expiresAt)) return false;
    const expected = Buffer.from(this.sign(purpose, subject, expiresAt));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

/** Base of the absolute URLs handed to clients: settings network.publicBaseUrl, or where we listen. */
export function baseUrlOf(publicBaseUrl: string, listening: { host: string; port: number; url: string } | null): string {
  if (publicBaseUrl) return publicBaseUrl.replace(/\/+$/, '');
  if (!listening) return '';
  // Bound to every interface: name this computer's loopback (set network.publicBaseUrl for other devices).
  if (listening.host === '0.0.0.0') return `http://127.0.0.1:${listening.port}`;
  if (listening.host === '::') return `http://[::1]:${listening.port}`;
  return listening.url;
}
