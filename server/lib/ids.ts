import { sha256 } from '@noble/hashes/sha2.js';

/**
 * Plain TypeScript without Node: the phone app (phone/) makes its ids with this module too. Random
 * bytes come from Web Crypto (`globalThis.crypto`, in Node ≥ 19 and every browser); the digest of
 * digestId is a synchronous SHA-256 from @noble/hashes, so its ids are the same on every device.
 */

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes are drawn from the CSPRNG 4 KiB at a time (as Node's randomUUID does): one call into
 * the crypto library per few hundred ids instead of one per id. Each byte is used once.
 */
const pool = new Uint8Array(4096);
let poolAt = pool.length;

function randomByte(): number {
  if (poolAt === pool.length) {
    globalThis.crypto.getRandomValues(pool);
    poolAt = 0;
  }
  return pool.at(poolAt++) ?? 0;
}

/** Random base62 string of `length` characters (rejection sampling: no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62.charAt(byte % 62);
  }
  return out;
}

/**
 * Document ids: time-ordered prefix (ms, base36, fixed width) + 10 random base62 characters.
 * Sortable by creation, unguessable enough that ids reveal nothing about other users' data.
 */
export function newId(now = Date.now()): string {
  return now.toString(36).padStart(9, '0') + randomBase62(10);
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/**
 * A deterministic id: `prefix` + 22 base62 characters of SHA-256(`seed`) (≈131 bits). The same seed
 * always gives the same id, so a write keyed by it happens once (a recurring occurrence, an inbox
 * draft confirmed twice), also on two machines.
 */
export function digestId(prefix: string, seed: string): string {
  let n = BigInt(`0x${hex(sha256(new TextEncoder().encode(seed)).subarray(0, 17))}`);
  let out = '';
  for (let i = 0; i < 22; i++) {
    out += BASE62.charAt(Number(n % 62n));
    n /= 62n;
  }
  return prefix + out;
}

/** Maximum length of ids produced by newId (also the maxLength used in schemas). */
export const ID_MAX_LENGTH = 40;
