import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { AppContext } from '../app-context';

/**
 * Password hashing with scrypt (memory-hard, node:crypto). Stored as
 *   scrypt$<log2 N>$<r>$<p>$<salt b64>$<hash b64>
 * so the cost can be raised later without breaking existing hashes.
 * N = 2^15, r = 8, p = 1 uses 32 MiB per hash (~60 ms here): slow for a guesser, quick for a person.
 */
const LOG_N = 15;
/** The bounds a stored hash's cost must be within to be checked at all. */
const MIN_LOG_N = 10;
const MAX_LOG_N = 20;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

function scrypt(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const options: ScryptOptions = { N: 2 ** logN, r, p, maxmem: 256 * 2 ** logN * r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scryptCallback(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** The scrypt cost of new hashes. Existing hashes keep theirs: it is stored in each. */
export interface PasswordCost {
  /** log2 of scrypt's N, within the bounds verifyPassword accepts (10–20). */
  readonly logN: number;
}

export const DEFAULT_PASSWORD_COST: PasswordCost = { logN: LOG_N };

function checkCost(cost: PasswordCost): PasswordCost {
  const { logN } = cost;
  if (!Number.isInteger(logN) || logN < MIN_LOG_N || logN > MAX_LOG_N)
    throw new RangeError(`password cost logN ${String(logN)} is outside ${String(MIN_LOG_N)}–${String(MAX_LOG_N)}`);
  return cost;
}

/**
 * A running server's cost for new hashes. Production never sets one and hashes at the default
 * (N = 2^15). Only the test boot paths (server/test-support/test-server.ts) call
 * `setPasswordCost` with a low one, so that each of the tests' thousands of sign-ups does not
 * spend 60 ms and 32 MiB: it is a call in code, not a setting or an environment variable an
 * install could set. Kept per AppContext, so it outlives a snapshot restore's new UserService.
 */
const costs = new WeakMap<AppContext, PasswordCost>();

export function setPasswordCost(app: AppContext, cost: PasswordCost): void {
  costs.set(app, checkCost(cost));
}

export function passwordCostOf(app: AppContext): PasswordCost {
  return costs.get(app) ?? DEFAULT_PASSWORD_COST;
}

export async function hashPassword(password: string, cost: PasswordCost = DEFAULT_PASSWORD_COST): Promise<string> {
  const { logN } = checkCost(cost);
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, logN, R, P);
  return ['scrypt', logN, R, P, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Constant-time check of a password against a stored hash. A malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [logN = NaN, r = NaN, p = NaN] = parts.slice(1, 4).map(Number); // NaN fails the checks below
  if (![logN, r, p].every(Number.isInteger) || logN < MIN_LOG_N || logN > MAX_LOG_N || r < 1 || r > 32 || p < 1 || p > 16) return false;
  const salt = Buffer.from(parts.at(4) ?? '', 'base64');
  const expected = Buffer.from(parts.at(5) ?? '', 'base64');
  const actual = await scrypt(password, salt, logN, r, p);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A hash of a random password at the given cost: checked when the name is unknown, so timing does not tell. */
const dummyHashes = new Map<number, Promise<string>>();
export function dummyPasswordHash(cost: PasswordCost = DEFAULT_PASSWORD_COST): Promise<string> {
  let hash = dummyHashes.get(cost.logN);
  if (!hash) {
    hash = hashPassword(randomBytes(16).toString('hex'), cost);
    dummyHashes.set(cost.logN, hash);
  }
  return hash;
}
