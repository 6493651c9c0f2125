/**
 * What Apache CouchDB 3 answers that PouchDB Server does not, as pure decisions: who may use which
 * path (CouchDB's `chttpd_auth_request`), who is a member of a database (`couch_db:check_is_member`),
 * the security object a new database gets (`default_security = admin_only`), and the lockout after
 * repeated failed sign-ins (`couch_auth_lockout`: 5 failures from one address lock that user for
 * 5 minutes counted from the first one, also for the right password, until the password changes).
 * The front of the test suite's peer (couchdb3-front.ts) applies them; docs/sync.md lists them.
 */

/** Who a request runs as: CouchDB's `userCtx` (`name: null` is nobody signed in). */
export interface UserCtx {
  name: string | null;
  roles: string[];
}

/** A CouchDB error answer. */
export interface CouchRefusal {
  status: number;
  body: { error: string; reason: string };
}

export const ANONYMOUS: UserCtx = { name: null, roles: [] };

export const LOCKOUT_REASON = 'Account is temporarily locked due to multiple authentication failures';
export const WRONG_PASSWORD: CouchRefusal = { status: 401, body: { error: 'unauthorized', reason: 'Name or password is incorrect.' } };

/** The `_security` object CouchDB 3 gives every new database: server admins only. */
export const ADMIN_ONLY_SECURITY = { members: { roles: ['_admin'] }, admins: { roles: ['_admin'] } } as const;

export function isServerAdmin(ctx: UserCtx): boolean {
  return ctx.roles.includes('_admin');
}

const unauthorized = (reason: string): CouchRefusal => ({ status: 401, body: { error: 'unauthorized', reason } });
const notServerAdmin = unauthorized('You are not a server admin.');

/**
 * What the path decides before any database is read: `refuse` (CouchDB's answer), `pass` (no
 * check beyond signing in), or `member` (the caller must be a member of database `db`).
 */
export type PathDecision = { kind: 'refuse'; refusal: CouchRefusal } | { kind: 'pass' } | { kind: 'member'; db: string };

/** CouchDB 3.4's `chttpd_auth_request:authorize_request/1`, for the paths a CouchDB client uses. */
export function authorizePath(method: string, parts: readonly string[], ctx: UserCtx): PathDecision {
  const admin = isServerAdmin(ctx);
  const requireAdmin = (): PathDecision => (admin ? { kind: 'pass' } : { kind: 'refuse', refusal: notServerAdmin });
  const first = parts.at(0);
  const second = parts.at(1);
  if (first === undefined || first === 'favicon.ico') return { kind: 'pass' };
  if (first === '_all_dbs' || first === '_dbs_info') return requireAdmin(); // admin_only_all_dbs = true
  if (first === '_users' || first === '_replicator') {
    if (parts.length === 1 && (method === 'PUT' || method === 'DELETE')) return requireAdmin();
    if (second === '_all_docs' || second === '_changes') return requireAdmin();
    return admin ? { kind: 'pass' } : { kind: 'member', db: first };
  }
  if (first.startsWith('_')) {
    if (first === '_up' || first === '_uuids' || first === '_session' || first === '_utils') return { kind: 'pass' };
    if (first === '_replicate') return ctx.name === null ? { kind: 'refuse', refusal: unauthorized('You are not an authenticated user') } : { kind: 'pass' };
    return requireAdmin();
  }
  if (parts.length === 1 && (method === 'PUT' || method === 'DELETE')) return requireAdmin();
  if (second === '_sync_shards' || second === '_purge' || second === '_purged_infos_limit' || second === '_compact' || second === '_view_cleanup') return requireAdmin();
  return admin ? { kind: 'pass' } : { kind: 'member', db: first };
}

interface SecuritySection {
  names?: readonly string[];
  roles?: readonly string[];
}
export interface SecurityObject {
  members?: SecuritySection;
  admins?: SecuritySection;
}

function inSection(ctx: UserCtx, section: SecuritySection | undefined, extraRoles: readonly string[] = []): boolean {
  const roles = [...extraRoles, ...(section?.roles ?? [])];
  return roles.some((role) => ctx.roles.includes(role)) || (ctx.name !== null && (section?.names ?? []).includes(ctx.name));
}

/**
 * `couch_db:check_is_member`: a database admin, a member by name or role, or anyone when the
 * database has no members at all. Refused: 401 for nobody signed in, 403 for a signed-in user.
 */
export function checkMember(ctx: UserCtx, security: SecurityObject): CouchRefusal | null {
  if (inSection(ctx, security.admins, ['_admin'])) return null;
  const members = security.members ?? {};
  if ((members.names ?? []).length === 0 && (members.roles ?? []).length === 0) return null;
  if (inSection(ctx, members, ['_admin'])) return null;
  if (ctx.name === null) return unauthorized('You are not authorized to access this db.');
  return { status: 403, body: { error: 'forbidden', reason: 'You are not allowed to access this db.' } };
}

/**
 * `couch_auth_lockout`: failures counted per (address, user, password salt). After `threshold`
 * failures the user is locked from that address — the right password included — until
 * `lifetimeMs` after the first failure. A new password (a new salt) starts a new count.
 */
export class Lockout {
  private readonly failures = new Map<string, { count: number; since: number; salt: string }>();

  constructor(
    private readonly threshold = 5,
    private readonly lifetimeMs = 300_000,
    private readonly now: () => number = Date.now,
  ) {}

  private entry(address: string, user: string, salt: string) {
    const key = `${address}\n${user}`;
    const entry = this.failures.get(key);
    if (!entry) return { key, entry: undefined };
    if (entry.salt !== salt || this.now() - entry.since > this.lifetimeMs) {
      this.failures.delete(key);
      return { key, entry: undefined };
    }
    return { key, entry };
  }

  /** Whether a sign-in of `user` from `address` is refused with {@link LOCKOUT_REASON}. */
  isLocked(address: string, user: string, salt: string): boolean {
    const { entry } = this.entry(address, user, salt);
    return entry !== undefined && entry.count >= this.threshold;
  }

  /** Counts one failed sign-in. */
  fail(address: string, user: string, salt: string): void {
    const { key, entry } = this.entry(address, user, salt);
    if (entry) entry.count++;
    else this.failures.set(key, { count: 1, since: this.now(), salt });
  }

  /** Whether any failure is counted for `user` from `address` (whatever the salt). */
  hasFailures(address: string, user: string): boolean {
    return this.failures.has(`${address}\n${user}`);
  }
}

/** `couch_db:check_is_admin`, which changing a database's `_security` needs. */
export function checkDbAdmin(ctx: UserCtx, security: SecurityObject): CouchRefusal | null {
  return inSection(ctx, security.admins, ['_admin']) ? null : unauthorized('You are not a db or server admin.');
}

export const LOCKED: CouchRefusal = { status: 403, body: { error: 'forbidden', reason: LOCKOUT_REASON } };
