import type { LocalStore } from '../db/local-store';
import { documentValidator } from '../db/validated-storage';
import { UserDocument, type UserDoc } from './schema';

/** Local-store key of one account: `user:<id>` → UserDoc. */
export const USER_KEY_PREFIX = 'user:';

export function userKey(id: string): string {
  return USER_KEY_PREFIX + id;
}

/** Fields no two accounts share: the username always, the others when set ('' is "none"). */
export const UNIQUE_USER_FIELDS = ['usernameKey', 'email', 'wechatId', 'alipayId'] as const;
export type UniqueUserField = (typeof UNIQUE_USER_FIELDS)[number];
export type UserLookupField = UniqueUserField | 'role';

/** An insert or patch would give a second account the same username, email or platform id. */
export class UserConflictError extends Error {
  readonly code = 'USER_CONFLICT';
  constructor(
    readonly field: UniqueUserField,
    readonly otherId: string,
  ) {
    super(`another account (${otherId}) already has this ${field}`);
    this.name = 'UserConflictError';
  }
}

/** The stored shape exactly: the TypeBox UserDocument, and nothing else. */
const validate = documentValidator({ ...(JSON.parse(JSON.stringify(UserDocument)) as Record<string, unknown>), additionalProperties: false });

/** Throws when `doc` is not a valid UserDoc (checked before every write and every imported account). */
export function assertValidUser(doc: unknown): asserts doc is UserDoc {
  const errors = validate(doc);
  if (errors.length === 0) return;
  const first = errors[0] as unknown as { instancePath?: string; message?: string };
  const id = (doc as { id?: unknown } | null)?.id;
  throw new Error(`invalid account ${JSON.stringify(id)}: ${first.instancePath || '/'} ${first.message ?? ''}`.trim());
}

/** The first pair of accounts among `docs` that share a unique field, if any. */
export function findUniquenessConflict(docs: readonly UserDoc[]): { field: UniqueUserField; ids: [string, string] } | null {
  for (const field of UNIQUE_USER_FIELDS) {
    const seen = new Map<string, string>();
    for (const doc of docs) {
      const value = doc[field];
      if (field !== 'usernameKey' && value === '') continue;
      const other = seen.get(value);
      if (other !== undefined) return { field, ids: [other, doc.id] };
      seen.set(value, doc.id);
    }
  }
  return null;
}

/**
 * The accounts of this PennyPost, in the local store (never replicated, never in RxDB): one
 * `user:<id>` entry per account. Every account is held in memory as well (a household has a
 * handful; lookups by username, email or platform id walk them), loaded once by `load()` and
 * kept current by this class's own writes — it is the only writer of these keys.
 *
 * Writes are validated against UserDocument, keep usernameKey/email/wechatId/alipayId unique, are
 * one fsynced local-store batch each, and run one at a time (a read-modify-write never interleaves
 * with another write). The memory copy changes only after the batch was acknowledged.
 */
export class UserStore {
  private readonly byId = new Map<string, UserDoc>();
  private loaded: Promise<void> | undefined;
  private tail: Promise<unknown> = Promise.resolve();

  /** `local` is read at every call: a snapshot restore replaces the database under the app. */
  constructor(private readonly local: () => LocalStore) {}

  /** Reads every account once; later calls reuse that read. */
  load(): Promise<void> {
    this.loaded ??= (async () => {
      for (const [, doc] of await this.local().entries<UserDoc>(USER_KEY_PREFIX)) this.byId.set(doc.id, doc);
    })().catch((error: unknown) => {
      this.loaded = undefined;
      throw error;
    });
    return this.loaded;
  }

  async findById(id: string): Promise<UserDoc | null> {
    await this.load();
    const doc = this.byId.get(id);
    return doc ? structuredClone(doc) : null;
  }

  /** Every account, oldest first. */
  async all(): Promise<UserDoc[]> {
    await this.load();
    return [...this.byId.values()].sort(byAge).map((doc) => structuredClone(doc));
  }

  async count(): Promise<number> {
    await this.load();
    return this.byId.size;
  }

  /** The oldest account whose `field` equals `value`. */
  async findOne(field: UserLookupField, value: string): Promise<UserDoc | null> {
    await this.load();
    let found: UserDoc | undefined;
    for (const doc of this.byId.values()) {
      if (doc[field] === value && (!found || byAge(doc, found) < 0)) found = doc;
    }
    return found ? structuredClone(found) : null;
  }

  /** Adds a new account; refuses an id that exists or a unique field another account has. */
  insert(doc: UserDoc): Promise<UserDoc> {
    return this.serial(async () => {
      if (this.byId.has(doc.id)) throw new Error(`account ${doc.id} exists already`);
      return this.write(null, structuredClone(doc));
    });
  }

  /**
   * Changes some fields of an account: `change` is the fields, or a function of the current
   * account that returns them (run inside the write queue, so it sees the latest state).
   * Resolves with the account as stored, or null when it does not exist.
   */
  patch(id: string, change: Partial<Omit<UserDoc, 'id' | 'createdAt'>> | ((current: UserDoc) => Partial<Omit<UserDoc, 'id' | 'createdAt'>>)): Promise<UserDoc | null> {
    return this.serial(async () => {
      const current = this.byId.get(id);
      if (!current) return null;
      const fields = typeof change === 'function' ? change(structuredClone(current)) : change;
      return this.write(current, { ...structuredClone(current), ...fields, id, createdAt: current.createdAt });
    });
  }

  /** Deletes an account; resolves false when there was none. */
  remove(id: string): Promise<boolean> {
    return this.serial(async () => {
      if (!this.byId.has(id)) return false;
      await this.local().batch([{ type: 'del', key: userKey(id) }]);
      this.byId.delete(id);
      return true;
    });
  }

  private async write(current: UserDoc | null, next: UserDoc): Promise<UserDoc> {
    assertValidUser(next);
    for (const field of UNIQUE_USER_FIELDS) {
      const value = next[field];
      // Only a changed value is checked: an old pair of duplicates (which no write here can make) stays editable.
      if ((field !== 'usernameKey' && value === '') || (current && current[field] === value)) continue;
      for (const other of this.byId.values()) {
        if (other.id !== next.id && other[field] === value) throw new UserConflictError(field, other.id);
      }
    }
    await this.local().batch([{ type: 'put', key: userKey(next.id), value: next }]);
    this.byId.set(next.id, next);
    return structuredClone(next);
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.tail.then(async () => {
      await this.load();
      return task();
    });
    this.tail = run.catch(() => undefined);
    return run;
  }
}

function byAge(a: UserDoc, b: UserDoc): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
