import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * Wraps the per-data-dir keys with something stronger than file permissions — the desktop shell
 * passes Electron's `safeStorage` (macOS Keychain, Windows DPAPI, Linux Secret Service/KWallet).
 * `encrypt`/`decrypt` must be inverse; `decrypt` throws when the sealed bytes cannot be opened.
 */
export interface KeyProtector {
  /** Short name stored in the key file, e.g. `electron-safeStorage`. Letters, digits, `-`, `_`, `.`. */
  readonly name: string;
  encrypt(plain: Buffer): Buffer;
  decrypt(sealed: Buffer): Buffer;
}

export interface SecretStoreOptions {
  /** When given, keys are stored wrapped by it (and plain key files are wrapped on first read). */
  protector?: KeyProtector | null;
  /**
   * false with a protector: unwrap protected key files back to plain ones (so the headless server,
   * which has no OS keychain, can open this data dir). Default true.
   */
  protect?: boolean;
}

/** How the keys of a data dir are kept, for docs and the about page. */
export interface SecretProtection {
  mode: 'os-keychain' | 'file';
  /** The protector's name in 'os-keychain' mode. */
  protector?: string;
}

/** A key file is wrapped by an OS keychain that this process has no access to. */
export class SecretProtectedError extends Error {
  readonly code = 'SECRET_PROTECTED';
  constructor(
    readonly file: string,
    readonly protector: string,
  ) {
    super(
      `The key ${file} is protected by the desktop app's OS keychain (${protector}) and cannot be read here. ` +
        'Open this data dir with the PennyPost desktop app, or turn off "desktop.protectKeys" there (Settings or settings.json) and start it once to unwrap the keys.',
    );
    this.name = 'SecretProtectedError';
  }
}

const PROTECTED_PREFIX = 'protected:';

function writeAtomic(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

/**
 * Secrets generated per data dir (the JWT signing key, keys for signed links, the key that seals
 * sync credentials). Each lives in `<dataDir>/secrets/<name>.key`, created with mode 0600 inside a
 * 0700 directory, and is never logged or returned by any action.
 *
 * File format: a plain key file holds the key in base64. With a {@link KeyProtector} (the desktop
 * app with an OS keychain) it holds `protected:<protector>:<base64 of the wrapped key>` instead;
 * existing plain files are wrapped on first read (write to a temp file, fsync, rename).
 */
export class SecretStore {
  private readonly dir: string;
  private readonly cache = new Map<string, Buffer>();
  private readonly protector: KeyProtector | null;
  private readonly protect: boolean;

  constructor(dataDir: string, options: SecretStoreOptions = {}) {
    this.dir = path.join(dataDir, 'secrets');
    this.protector = options.protector ?? null;
    this.protect = options.protect ?? true;
    if (this.protector && !/^[A-Za-z0-9._-]{1,64}$/.test(this.protector.name)) throw new Error(`invalid key protector name ${this.protector.name}`);
    // Bring every existing key file to the wanted form now (keys are otherwise read lazily, and a
    // key left in the other form would surprise the next headless start much later).
    if (this.protector && existsSync(this.dir)) {
      for (const file of readdirSync(this.dir)) {
        const name = /^([a-z0-9-]+)\.key$/.exec(file)?.at(1);
        if (name !== undefined) this.get(name);
      }
    }
  }

  /** Whether new and existing keys are wrapped by an OS keychain in this process. */
  protection(): SecretProtection {
    return this.protector && this.protect ? { mode: 'os-keychain', protector: this.protector.name } : { mode: 'file' };
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
      chmodSync(file, 0o600);
      const text = readFileSync(file, 'utf8').trim();
      if (text.startsWith(PROTECTED_PREFIX)) {
        const [, protectorName = '', sealed = ''] = text.split(':');
        if (!this.protector) throw new SecretProtectedError(file, protectorName);
        try {
          value = this.protector.decrypt(Buffer.from(sealed, 'base64'));
        } catch {
          throw new Error(
            `The key ${file} is protected by an OS keychain that cannot open it (another user account or computer, or a reset keychain). ` +
              'Restore the keychain, or delete the file to start over with a new key (signed-in devices sign in again; saved sync passwords must be entered again).',
          );
        }
        if (!this.protect) writeAtomic(file, this.encode(value, false));
      } else {
        value = Buffer.from(text, 'base64');
        if (this.protector && this.protect && value.length >= 32) writeAtomic(file, this.encode(value, true));
      }
    } else {
      value = randomBytes(bytes);
      writeFileExclusive(file, this.encode(value, Boolean(this.protector && this.protect)));
    }
    if (value.length < 32) throw new Error(`secret ${file} is too short; delete it to generate a new one`);
    this.cache.set(name, value);
    return value;
  }

  private encode(value: Buffer, wrapped: boolean): string {
    if (!wrapped || !this.protector) return value.toString('base64') + '\n';
    return `${PROTECTED_PREFIX}${this.protector.name}:${this.protector.encrypt(value).toString('base64')}\n`;
  }
}

function writeFileExclusive(file: string, text: string): void {
  const fd = openSync(file, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
