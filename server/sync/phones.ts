import type { AppContext } from '../app-context';
import { randomBase62 } from '../lib/ids';
import { couchFetch, CouchError, toDomainError, type CouchTarget } from './couch-client';
import { syncErrors } from './errors';
import { encodePairing, PHONE_COLLECTIONS, type Pairing } from './pairing-link';
import type { PhoneView } from './result-shapes';
import type { SyncService } from './service';

/**
 * Pairing phones with a ledger (docs/phone.md, "Pairing"). Each phone gets a CouchDB user of its
 * own — never the desktop's credentials — that is a member of this ledger's databases and of
 * nothing else: CouchDB 3 makes new databases admin-only, so that user cannot open another prefix,
 * `_users` or `_all_dbs`. Making a user and editing `_security` needs a CouchDB admin; without one
 * the error says what the admin must do.
 *
 * The phone's user document carries `pennypost: {label, ledger, pairedAt}`, so the list needs no
 * store of its own; the phone writes `<prefix>meta/device:<user>` with the time of its last sync.
 * Revoking takes the user out of every database's members first (a later user of the same name
 * is not let back in), then deletes it: the phone's next request gets 401 and it stops.
 */

const USER_PREFIX = 'pennypost-phone-';
const USERS_DOC = (name: string) => `_users/${encodeURIComponent(`org.couchdb.user:${name}`)}`;

interface Security {
  admins?: { names?: string[]; roles?: string[] };
  members?: { names?: string[]; roles?: string[] };
}

interface PhoneUserDoc {
  _id: string;
  _rev: string;
  name: string;
  pennypost?: { label?: string; ledger?: string; pairedAt?: number };
}

export interface AddedPhone {
  phone: PhoneView;
  link: string;
  pairing: Pairing;
  /** What was done so a phone on another origin may call CouchDB from a browser. */
  cors: 'enabled' | 'already' | 'same-origin' | 'not-changed';
}

export class PhonePairing {
  constructor(
    private readonly app: AppContext,
    private readonly sync: SyncService,
  ) {}

  /** The ledger's databases a phone uses: meta (owner, device times) and the synced collections it shows. */
  private databases(prefix: string, collections: readonly string[]): string[] {
    return ['meta', ...PHONE_COLLECTIONS.filter((name) => collections.includes(name))].map((name) => `${prefix}${name}`);
  }

  private async access(userId: string) {
    const access = await this.sync.couchAccess(userId);
    return { ...access, databases: this.databases(access.prefix, access.collections) };
  }

  /** Refuses with the admin's to-do list unless the configured CouchDB user is a server admin. */
  private async requireAdmin(target: CouchTarget, databases: readonly string[]): Promise<void> {
    const session = await couchFetch(target, '_session');
    const roles = (session.body?.userCtx as { roles?: unknown } | undefined)?.roles;
    if (Array.isArray(roles) && roles.includes('_admin')) return;
    throw syncErrors.phoneNeedsAdmin(target.username, databases);
  }

  async add(userId: string, input: { label: string; appUrl: string; language?: 'en' | 'zh-CN'; baseCurrency?: string }): Promise<AddedPhone> {
    const { target, prefix, ownerId, databases } = await this.access(userId);
    try {
      await this.requireAdmin(target, databases);
      const name = USER_PREFIX + randomBase62(12).toLowerCase();
      const password = randomBase62(32);
      const pairedAt = this.app.clock.now();
      const created = await couchFetch(target, USERS_DOC(name), {
        method: 'PUT',
        body: { _id: `org.couchdb.user:${name}`, name, type: 'user', roles: [], password, pennypost: { label: input.label, ledger: prefix, pairedAt } },
      });
      if (created.status !== 201 && created.status !== 202) throw new CouchError(`CouchDB could not create the phone's user (HTTP ${created.status}).`, 'other', created.status);
      for (const db of databases) await this.editMembers(target, db, (names) => (names.includes(name) ? names : [...names, name]));
      const cors = await this.allowOrigin(target, new URL(input.appUrl).origin);
      const pairing: Pairing = { v: 1, url: target.url, prefix, user: name, pw: password, owner: ownerId, label: input.label };
      if (input.language) pairing.lang = input.language;
      if (input.baseCurrency) pairing.base = input.baseCurrency;
      return { phone: { username: name, label: input.label, pairedAt, lastSyncAt: null }, link: encodePairing(input.appUrl, pairing), pairing, cors };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  async list(userId: string): Promise<PhoneView[]> {
    const { target, prefix } = await this.access(userId);
    try {
      const users = await couchFetch(
        target,
        `_users/_all_docs?include_docs=true&startkey=${encodeURIComponent(JSON.stringify(`org.couchdb.user:${USER_PREFIX}`))}&endkey=${encodeURIComponent(JSON.stringify(`org.couchdb.user:${USER_PREFIX}\ufff0`))}`,
      );
      const rows = (users.body?.rows as Array<{ doc?: PhoneUserDoc }> | undefined) ?? [];
      const seen = await this.lastSyncs(target, prefix);
      return rows
        .map((row) => row.doc)
        .filter((doc): doc is PhoneUserDoc => doc?.pennypost?.ledger === prefix)
        .map((doc) => ({ username: doc.name, label: doc.pennypost?.label ?? '', pairedAt: doc.pennypost?.pairedAt ?? 0, lastSyncAt: seen.get(doc.name) ?? null }))
        .sort((a, b) => a.pairedAt - b.pairedAt);
    } catch (error) {
      if (error instanceof CouchError && error.kind === 'forbidden') throw syncErrors.phoneNeedsAdmin(target.username, this.databases(prefix, []));
      throw toDomainError(error);
    }
  }

  async revoke(userId: string, username: string): Promise<{ username: string; revoked: true }> {
    const { target, prefix, databases } = await this.access(userId);
    try {
      await this.requireAdmin(target, databases);
      const user = await couchFetch(target, USERS_DOC(username));
      const doc = user.body as PhoneUserDoc | null;
      if (user.status !== 200 || !doc || doc.pennypost?.ledger !== prefix) throw syncErrors.phoneNotFound();
      for (const db of databases) await this.editMembers(target, db, (names) => names.filter((n) => n !== username));
      const deleted = await couchFetch(target, `${USERS_DOC(username)}?rev=${encodeURIComponent(doc._rev)}`, { method: 'DELETE' });
      if (deleted.status !== 200 && deleted.status !== 202) throw new CouchError(`CouchDB could not delete the phone's user (HTTP ${deleted.status}).`, 'other', deleted.status);
      return { username, revoked: true };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /** Rewrites `members.names` of a database's `_security`, keeping everything else as it is. */
  private async editMembers(target: CouchTarget, db: string, edit: (names: string[]) => string[]): Promise<void> {
    const current = await couchFetch(target, `${encodeURIComponent(db)}/_security`);
    if (current.status === 404) return; // not created (a collection this ledger does not sync)
    if (current.status !== 200) throw new CouchError(`CouchDB answered HTTP ${current.status} for the members of ${db}.`, 'other', current.status);
    const security = (current.body ?? {}) as Security;
    const members = security.members ?? {};
    // CouchDB 3 makes a database admin-only with members.roles ["_admin"]; kept, so it stays closed to everyone else.
    const next: Security = { ...security, members: { ...members, roles: members.roles ?? ['_admin'], names: edit(members.names ?? []) } };
    const written = await couchFetch(target, `${encodeURIComponent(db)}/_security`, { method: 'PUT', body: next });
    if (written.status !== 200) throw new CouchError(`CouchDB did not store the members of ${db} (HTTP ${written.status}).`, 'other', written.status);
  }

  /** When each phone of this ledger last synced, from `<prefix>meta/device:<user>` (written by the phone). */
  private async lastSyncs(target: CouchTarget, prefix: string): Promise<Map<string, number>> {
    const answer = await couchFetch(
      target,
      `${encodeURIComponent(`${prefix}meta`)}/_all_docs?include_docs=true&startkey=${encodeURIComponent('"device:"')}&endkey=${encodeURIComponent('"device:\ufff0"')}`,
    );
    const out = new Map<string, number>();
    for (const row of (answer.body?.rows as Array<{ id: string; doc?: { lastSyncAt?: unknown } }> | undefined) ?? []) {
      if (typeof row.doc?.lastSyncAt === 'number') out.set(row.id.slice('device:'.length), row.doc.lastSyncAt);
    }
    return out;
  }

  /**
   * A phone app served from another origin than CouchDB's calls it cross-origin: CouchDB must have
   * CORS on and list that origin ([chttpd] enable_cors, [cors] origins). Set through the node
   * config API when this user may; otherwise docs/phone.md says what to set by hand.
   */
  private async allowOrigin(target: CouchTarget, origin: string): Promise<AddedPhone['cors']> {
    if (origin === new URL(target.url).origin) return 'same-origin';
    try {
      const enabled = await couchFetch(target, '_node/_local/_config/chttpd/enable_cors');
      const origins = await couchFetch(target, '_node/_local/_config/cors/origins');
      if (enabled.status !== 200 && enabled.status !== 404) return 'not-changed';
      const list = origins.status === 200 && typeof origins.body === 'string' ? (origins.body as string).split(',').map((o) => o.trim()) : [];
      if (enabled.body === ('true' as unknown) && (list.includes(origin) || list.includes('*'))) return 'already';
      const put = async (path: string, value: string) => (await couchFetch(target, `_node/_local/_config/${path}`, { method: 'PUT', body: value })).status === 200;
      const ok = (await put('chttpd/enable_cors', 'true')) && (await put('cors/origins', [...list.filter(Boolean), origin].join(', ')));
      return ok ? 'enabled' : 'not-changed';
    } catch (error) {
      if (error instanceof CouchError && error.kind !== 'unreachable') return 'not-changed';
      throw error;
    }
  }
}
