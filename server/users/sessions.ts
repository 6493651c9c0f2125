import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { AppContext } from '../app-context';
import type { AuthSession } from '../api/action';
import { usersErrors } from './errors';
import { randomBase62 } from '../lib/ids';

/** A signed-in device. Kept in the local store (never synced): `session:<id>`. */
export interface SessionRecord extends AuthSession {
  createdAt: number;
  deviceId: string;
  deviceInfo: string;
}

interface TokenClaims {
  sub: string;
  sid: string;
  iat: number;
  exp: number;
}

const ALGORITHM = 'HS256' as const;
const SESSION_PREFIX = 'session:';
/** How often an open stream checks its session's expiry: streams end within this of it. */
const EXPIRY_CHECK_MS = 500;

/**
 * JWT (HS256 only, algorithms pinned on verify) whose `sid` names a session record, so that
 * user.logout revokes exactly that token. The signing key is per data dir (secrets/jwt.key, 0600).
 */
export class SessionService {
  /** A KeyObject made once: given raw bytes, jsonwebtoken would make one on every sign and verify. */
  private readonly key: KeyObject;
  /**
   * The session records read or written by this process, by id. This process is the only writer
   * of the data dir (its lock), and every session write goes through this class, so the copy
   * stays exact; a token's check then needs no database read. Unknown ids are not kept.
   */
  private readonly known = new Map<string, SessionRecord>();
  /** Bumped by every revocation: a read that raced with one is not kept (forget). */
  private revocations = 0;
  /** Open streams (GET /events/push…) per session id, ended when that session ends. */
  private readonly watchers = new Map<string, Set<() => void>>();

  constructor(private readonly app: AppContext) {
    this.key = createSecretKey(app.secrets.get('jwt'));
  }

  async create(userId: string, device: { deviceId?: string; deviceInfo?: string }): Promise<{ token: string; session: SessionRecord }> {
    const now = this.app.clock.now();
    const lifetimeMs = this.app.settings.get().auth.tokenLifetimeSeconds * 1000;
    const session: SessionRecord = {
      id: randomBase62(22),
      userId,
      createdAt: now,
      expiresAt: now + lifetimeMs,
      deviceId: device.deviceId ?? '',
      deviceInfo: device.deviceInfo ?? '',
    };
    await this.app.db.local.put(SESSION_PREFIX + session.id, session);
    this.known.set(session.id, session);
    const claims: TokenClaims = { sub: userId, sid: session.id, iat: Math.floor(now / 1000), exp: Math.floor(session.expiresAt / 1000) };
    const token = jwt.sign(claims, this.key, { algorithm: ALGORITHM, noTimestamp: true });
    return { token, session };
  }

  /**
   * Checks signature and expiry (against the app clock), then that the session still exists.
   * Garbage or a revoked session → 401; expired → 1003. The user check is the caller's.
   */
  async verify(token: string): Promise<{ claims: TokenClaims; session: SessionRecord }> {
    let claims: TokenClaims;
    try {
      claims = jwt.verify(token, this.key, {
        algorithms: [ALGORITHM],
        clockTimestamp: Math.floor(this.app.clock.now() / 1000),
      }) as TokenClaims;
    } catch (error) {
      if (error instanceof jwt.TokenExpiredError) {
        throw usersErrors.tokenExpired();
      }
      throw usersErrors.invalidToken();
    }
    if (typeof claims.sub !== 'string' || typeof claims.sid !== 'string') {
      throw usersErrors.invalidToken();
    }
    let session = this.known.get(claims.sid);
    if (!session) {
      const revocations = this.revocations;
      session = await this.app.db.local.get<SessionRecord>(SESSION_PREFIX + claims.sid);
      if (session && revocations === this.revocations) this.known.set(session.id, session);
    }
    if (!session || session.userId !== claims.sub) {
      throw usersErrors.sessionSignedOut();
    }
    return { claims, session };
  }

  async revoke(sessionId: string): Promise<void> {
    await this.app.db.local.del(SESSION_PREFIX + sessionId);
    this.forget([sessionId]);
    this.ended(sessionId);
  }

  /**
   * Ends every session of a user (password changed or reset, account disabled or deleted),
   * except `keep` (the session that changed its own password). Returns how many ended.
   */
  async revokeAllOf(userId: string, keep?: string): Promise<number> {
    const mine = (await this.app.db.local.entries<SessionRecord>(SESSION_PREFIX)).filter(([, s]) => s.userId === userId && s.id !== keep);
    if (mine.length > 0) await this.app.db.local.batch(mine.map(([key]) => ({ type: 'del' as const, key })));
    this.forget(mine.map(([, session]) => session.id));
    for (const [, session] of mine) this.ended(session.id);
    return mine.length;
  }

  /**
   * Calls `onEnd` once when the session ends: revoked (logout, password change, disabled) or
   * expired. Returns the unsubscribe function.
   * Long-lived responses (the push event stream) use it so that a sign-in that ended stops
   * receiving anything at once.
   */
  watch(session: AuthSession, onEnd: () => void): () => void {
    let set = this.watchers.get(session.id);
    if (!set) this.watchers.set(session.id, (set = new Set()));
    const fire = () => {
      stop();
      onEnd();
    };
    // Expiry is checked every second against the app clock rather than by one long timer, so that
    // a clock that jumps (a laptop waking from sleep, a test's manual clock) still ends it in time.
    const expiry = setInterval(() => {
      if (this.app.clock.now() >= session.expiresAt) fire();
    }, EXPIRY_CHECK_MS);
    expiry.unref();
    const stop = () => {
      clearInterval(expiry);
      set.delete(fire);
      if (set.size === 0) this.watchers.delete(session.id);
    };
    set.add(fire);
    if (this.app.clock.now() >= session.expiresAt) fire();
    return stop;
  }

  /** Drops deleted sessions from the kept copies (after the database delete, see `revocations`). */
  private forget(ids: string[]): void {
    this.revocations++;
    for (const id of ids) this.known.delete(id);
  }

  private ended(sessionId: string): void {
    for (const fire of [...(this.watchers.get(sessionId) ?? [])]) fire();
  }

  /** Ids of the users with a session that has not expired (the people likely to open the app). */
  async activeUserIds(): Promise<string[]> {
    const now = this.app.clock.now();
    const sessions = await this.app.db.local.entries<SessionRecord>(SESSION_PREFIX);
    return [...new Set(sessions.filter(([, s]) => s.expiresAt > now).map(([, s]) => s.userId))];
  }

  /** Deletes expired session records; returns how many. */
  async pruneExpired(): Promise<number> {
    const now = this.app.clock.now();
    const expired = (await this.app.db.local.entries<SessionRecord>(SESSION_PREFIX)).filter(([, s]) => s.expiresAt <= now);
    if (expired.length > 0) await this.app.db.local.batch(expired.map(([key]) => ({ type: 'del' as const, key })));
    this.forget(expired.map(([, session]) => session.id));
    return expired.length;
  }
}
