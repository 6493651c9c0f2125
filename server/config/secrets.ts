import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Secrets generated per data dir (the JWT signing key, keys for signed links). Each lives in
 * `<dataDir>/secrets/<name>.key`, created with mode 0600 inside a 0700 directory, and is never
 * logged or returned by any action. The desktop shell may later wrap these with the OS keychain.
 */
export class SecretStore {
  private readonly dir: string;
  private readonly cache = new Map<string, Buffer>();

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'secrets');
  }

  /** The named secret, created with `bytes` random bytes on first use. */
  get(name: string, bytes = 64): Buffer {
    if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`invalid secret name ${name}`);
    const cached = this.cache.get(name);
    if (cached) return cached;
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const file = path.join(this.dir, `${name}.key`);
    let value: Buffer;
    if (existsSync(file)) {
      value = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
      chmodSync(file, 0o600);
    } else {
      value = randomBytes(bytes);
      writeFileSync(file, value.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
    }
    if (value.length < 32) throw new Error(`secret ${file} is too short; delete it to generate a new one`);
    this.cache.set(name, value);
    return value;
  }
}
