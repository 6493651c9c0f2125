import jwt from 'jsonwebtoken';
import type { AppContext } from '../app-context';
import type { AuthSession } from '../api/action';
import { ApiError, ErrorCode } from '../api/errors';
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

/**
 * JWT (HS256 only, algorithms pinned on verify) whose `sid` names a session record, so that
 * user.logout revokes exactly that token. The signing key is per data dir (secrets/jwt.key, 0600).
 */
export class SessionService {
  private readonly key: Buffer;

  constructor(private readonly app: AppContext) {
    this.key = app.secrets.get('jwt');
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
        throw new ApiError(ErrorCode.TokenExpired, 'Your session has expired. Please sign in again.');
      }
      throw new ApiError(ErrorCode.Unauthorized, 'Invalid token. Please sign in again.');
    }
    if (typeof claims.sub !== 'string' || typeof claims.sid !== 'string') {
      throw new ApiError(ErrorCode.Unauthorized, 'Invalid token. Please sign in again.');
    }
    const session = await this.app.db.local.get<SessionRecord>(SESSION_PREFIX + claims.sid);
    if (!session || session.userId !== claims.sub) {
      throw new ApiError(ErrorCode.Unauthorized, 'This session was signed out. Please sign in again.');
    }
    return { claims, session };
  }

  async revoke(sessionId: string): Promise<void> {
    await this.app.db.local.del(SESSION_PREFIX + sessionId);
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
    return expired.length;
  }
}
