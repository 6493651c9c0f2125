import type { AppContext } from '../app-context';
import type { AuthSession, AuthUser } from '../api/action';
import type { Authenticator } from '../api/call-action';
import { commonErrors, type DomainError } from '../lib/errors';
import { isTimeZone, localTimeZone } from '../lib/calendar';
import { KeyedMutex } from '../lib/keyed-mutex';
import { newId, randomBase62 } from '../lib/ids';
import { DEFAULT_LANGUAGE, isLanguage, type Language } from '../lib/languages';
import { dummyPasswordHash, hashPassword, passwordCostOf, verifyPassword } from './password';
import { LoginLockout } from './lockout';
import { SessionService } from './sessions';
import type { UserDoc, UserRole } from './schema';
import { InviteStore } from './invites';
import { UserConflictError, UserStore, type UserLookupField } from './user-store';
import { usersErrors } from './errors';
import { DesktopSignIn } from './desktop-sign-in';
import { wechatIdentity, type PlatformIdentity } from './providers/wechat';
import { alipayIdentity } from './providers/alipay';
import type { LoginResult, PublicUser } from './result-shapes';
import { foldText } from '../lib/fold-text';

export type { LoginResult, PublicUser } from './result-shapes';

/** Where a sign-up comes from: this computer (loopback) or the network. */
export interface Origin {
  local: boolean;
}

export interface Device {
  deviceId?: string;
  deviceInfo?: string;
}

export type Platform = 'wechat' | 'alipay';

export function usernameKey(username: string): string {
  return foldText(username);
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function publicUser(doc: UserDoc): PublicUser {
  return {
    id: doc.id,
    username: doc.username,
    email: doc.email,
    avatar: doc.avatar,
    role: doc.role,
    mustChangePassword: doc.mustChangePassword,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

/** The preferences a new account starts with: its language, when the sign-up named one. */
function languagePrefs(language: Language | undefined): Record<string, unknown> {
  return language ? { locale: { language } } : {};
}

function disabledError(): DomainError {
  return usersErrors.accountDisabled().with({ disabled: true });
}

/** Accounts, sign-in and sessions. Published as app.services.users. */
export class UserService implements Authenticator {
  readonly sessions: SessionService;
  readonly invites: InviteStore;
  /** One-time secrets the desktop shell hands to its own window (desktop-sign-in.ts). */
  readonly desktop: DesktopSignIn;
  private readonly lockout: LoginLockout;
  /** Every check-then-write of accounts goes through key 'users' (uniqueness, roles, invites). */
  readonly writes = new KeyedMutex();
  private readonly signIns = new KeyedMutex();
  /** The accounts, in the local store (user-store.ts); held in memory, kept current by its own writes. */
  readonly store: UserStore;

  constructor(private readonly app: AppContext) {
    this.sessions = new SessionService(app);
    this.lockout = new LoginLockout(app);
    this.invites = new InviteStore(app);
    this.desktop = new DesktopSignIn(app.clock);
    this.store = new UserStore(() => app.db.local);
  }

  async start(): Promise<void> {
    await this.store.load();
    await this.ensureOwner();
  }

  stop(): void {
    // Nothing to release: the store has no subscription, only its memory copy.
  }

  async findById(id: string): Promise<UserDoc | null> {
    return this.store.findById(id);
  }

  /**
   * A data dir from before roles (or whose owner was removed by hand) gets one: the oldest account.
   */
  private async ensureOwner(): Promise<void> {
    await this.writes.run('users', async () => {
      const all = await this.store.all(); // oldest first
      const oldest = all.at(0);
      if (oldest === undefined || all.some((doc) => doc.role === 'owner')) return;
      await this.store.patch(oldest.id, { role: 'owner', disabled: false, updatedAt: this.app.clock.now() });
      this.app.log.info('users: the oldest account is now the owner of this PennyPost', { userId: oldest.id });
    });
  }

  async all(): Promise<UserDoc[]> {
    return this.store.all();
  }

  /** How many accounts this PennyPost has (0 on a new data dir). */
  async count(): Promise<number> {
    return this.store.count();
  }

  async owner(): Promise<UserDoc | null> {
    return this.store.findOne('role', 'owner');
  }

  /**
   * What a sign-up from `origin` meets (settings.registration): the first account becomes the owner
   * and may come from the network only when fromNetwork is open; later ones follow the policy of
   * where they come from. user.registrationInfo shows the same answer to the sign-up screen.
   */
  async signUpRule(origin: Origin): Promise<{ first: boolean; rule: 'open' | 'invite' | 'closed' }> {
    const policy = this.app.settings.get().registration;
    if ((await this.count()) === 0) return { first: true, rule: origin.local || policy.fromNetwork === 'open' ? 'open' : 'closed' };
    return { first: false, rule: origin.local ? policy.fromThisComputer : policy.fromNetwork };
  }

  /**
   * The role a new account gets, or the reason it may not be created. Runs under the write lock;
   * `inviteCode` is used up only when the account will be created.
   */
  private async admit(origin: Origin, inviteCode: string | undefined): Promise<UserRole> {
    const { first, rule } = await this.signUpRule(origin);
    if (first) {
      if (rule === 'closed') {
        throw usersErrors.firstAccountLocalOnly();
      }
      return 'owner';
    }
    if (rule === 'closed') throw usersErrors.signUpsClosed();
    if (inviteCode) return this.invites.consume(inviteCode);
    if (rule === 'invite') throw usersErrors.inviteNeeded().at('inviteCode');
    return 'member';
  }

  private async findOneBy(field: UserLookupField, value: string): Promise<UserDoc | null> {
    return this.store.findOne(field, value);
  }

  /** Adds an account (under the accounts lock, after the checks that answer the precise errors). */
  private async insert(doc: UserDoc): Promise<UserDoc> {
    try {
      return await this.store.insert(doc);
    } catch (error) {
      if (!(error instanceof UserConflictError)) throw error;
      if (error.field === 'email') throw usersErrors.emailTaken().at('email');
      if (error.field === 'usernameKey') throw usersErrors.usernameTaken().at('username');
      throw error; // a platform id: found by the sign-in itself under the lock, so never here
    }
  }

  private async issue(user: UserDoc, device: Device): Promise<LoginResult> {
    const { token, session } = await this.sessions.create(user.id, device);
    return { ...publicUser(user), token, expiresAt: session.expiresAt };
  }

  async register(input: { username: string; email: string; password: string; inviteCode?: string; language?: Language } & Device, origin: Origin): Promise<LoginResult> {
    const email = normalizeEmail(input.email);
    const key = usernameKey(input.username);
    // Hash outside the lock: it is the slow part and does not depend on the checks.
    const passwordHash = await hashPassword(input.password, passwordCostOf(this.app));
    const user = await this.writes.run('users', async () => {
      if (await this.findOneBy('email', email)) throw usersErrors.emailTaken().at('email');
      if (await this.findOneBy('usernameKey', key)) throw usersErrors.usernameTaken().at('username');
      const role = await this.admit(origin, input.inviteCode);
      const now = this.app.clock.now();
      const doc: UserDoc = {
        id: newId(now),
        username: input.username,
        usernameKey: key,
        email,
        passwordHash,
        avatar: '',
        wechatId: '',
        alipayId: '',
        role,
        disabled: false,
        mustChangePassword: false,
        prefs: languagePrefs(input.language),
        createdAt: now,
        updatedAt: now,
      };
      return this.insert(doc);
    });
    return this.issue(user, input);
  }

  /**
   * Sign-in with a password; the account is named by its email or, without one, by its username
   * (any case). Both names of an account share one lockout, keyed by its email; a name that is no
   * account has a lockout of its own, so locking reveals nothing.
   */
  async loginWithPassword(input: { email?: string; username?: string; password: string } & Device): Promise<LoginResult> {
    const byEmail = input.email !== undefined;
    const name = byEmail ? normalizeEmail(input.email ?? '') : usernameKey(input.username ?? '');
    const account = byEmail ? null : await this.findOneBy('usernameKey', name);
    const lockKey = byEmail ? name : account?.email || `username:${name}`;
    // One attempt per account at a time: concurrent guesses must each see the failures before
    // them, or a burst of N guesses would all be checked before the lockout counts any.
    return this.signIns.run(lockKey, () => this.loginWithPasswordNow(lockKey, byEmail ? 'email' : 'usernameKey', name, input));
  }

  private async loginWithPasswordNow(lockKey: string, field: 'email' | 'usernameKey', name: string, input: { password: string } & Device): Promise<LoginResult> {
    const lockedUntil = await this.lockout.lockedUntil(lockKey);
    if (lockedUntil) throw this.lockedError(lockedUntil);
    const user = await this.findOneBy(field, name);
    const ok = await verifyPassword(input.password, user?.passwordHash || (await dummyPasswordHash(passwordCostOf(this.app))));
    if (!user || !user.passwordHash || !ok) {
      const lockedNow = await this.lockout.recordFailure(lockKey);
      if (lockedNow) throw this.lockedError(lockedNow);
      throw usersErrors.invalidCredentials();
    }
    await this.lockout.clear(lockKey);
    // Checked after the password, so that a guesser learns nothing about the account.
    if (user.disabled) throw disabledError();
    return this.issue(user, input);
  }

  private lockedError(until: number): DomainError {
    const { maxFailures, lockMinutes } = this.app.settings.get().auth.lockout;
    const minutes = Math.max(1, Math.ceil((until - this.app.clock.now()) / 60_000));
    return usersErrors.accountLocked(maxFailures, lockMinutes, minutes).with({ lockedUntil: until });
  }

  /** Sign-in through WeChat or Alipay: the first sign-in creates the account, later ones find it. */
  async loginWithPlatform(platform: Platform, code: string, device: Device & { inviteCode?: string; language?: Language }, origin: Origin): Promise<LoginResult> {
    const auth = this.app.settings.get().auth;
    let identity: PlatformIdentity;
    if (platform === 'wechat') {
      if (!auth.wechat) throw usersErrors.platformNotConfigured('WeChat', 'wechat');
      identity = await wechatIdentity(auth.wechat, code, auth.providerTimeoutMs);
    } else {
      if (!auth.alipay) throw usersErrors.platformNotConfigured('Alipay', 'alipay');
      identity = await alipayIdentity(auth.alipay, code, auth.providerTimeoutMs, this.app.clock.now());
    }
    const field = platform === 'wechat' ? 'wechatId' : 'alipayId';
    const user = await this.writes.run('users', async () => {
      const existing = await this.findOneBy(field, identity.id);
      if (existing) return existing;
      const role = await this.admit(origin, device.inviteCode);
      const now = this.app.clock.now();
      let username = '';
      for (let attempt = 0; attempt < 5 && !username; attempt++) {
        const candidate = `${platform}_${randomBase62(8)}`;
        if (!(await this.findOneBy('usernameKey', usernameKey(candidate)))) username = candidate;
      }
      if (!username) throw new Error('could not pick a free username');
      const doc: UserDoc = {
        id: newId(now),
        username,
        usernameKey: usernameKey(username),
        email: '',
        passwordHash: '',
        avatar: identity.avatar ?? '',
        wechatId: platform === 'wechat' ? identity.id : '',
        alipayId: platform === 'alipay' ? identity.id : '',
        role,
        disabled: false,
        mustChangePassword: false,
        prefs: { ...(identity.nickname ? { nickname: identity.nickname } : {}), ...languagePrefs(device.language) },
        createdAt: now,
        updatedAt: now,
      };
      return this.insert(doc);
    });
    if (user.disabled) throw disabledError();
    return this.issue(user, device);
  }

  /**
   * The desktop window's sign-in (desktop-sign-in.ts): a one-time secret from the shell opens the
   * owner's session without a password. On a new data dir it creates the owner, named `username`.
   */
  async desktopSignIn(secret: string, input: { username?: string; language?: Language } & Device): Promise<LoginResult> {
    if (!this.desktop.redeem(secret)) throw usersErrors.desktopSecretUsed();
    const owner = await this.writes.run('users', async () => {
      const existing = await this.owner();
      if (existing) return existing;
      const username = input.username ?? 'owner';
      if (await this.findOneBy('usernameKey', usernameKey(username))) throw usersErrors.usernameTaken().at('username');
      const now = this.app.clock.now();
      const doc: UserDoc = {
        id: newId(now),
        username,
        usernameKey: usernameKey(username),
        email: '',
        passwordHash: '',
        avatar: '',
        wechatId: '',
        alipayId: '',
        role: 'owner',
        disabled: false,
        mustChangePassword: false,
        prefs: languagePrefs(input.language),
        createdAt: now,
        updatedAt: now,
      };
      return this.insert(doc);
    });
    return this.issue(owner, input);
  }

  /**
   * Sets a new password. The current one is needed when the account has one (a reset's temporary
   * password counts); every other session of the account ends, this one stays signed in.
   */
  async changePassword(userId: string, sessionId: string, input: { currentPassword?: string; newPassword: string }): Promise<PublicUser> {
    const user = await this.findById(userId);
    if (!user) throw usersErrors.userNotFound();
    if (user.passwordHash) {
      const ok = input.currentPassword !== undefined && (await verifyPassword(input.currentPassword, user.passwordHash));
      // 400, not 1002: a 401-class answer would tell clients that the session itself ended.
      if (!ok) throw usersErrors.currentPasswordWrong().at('currentPassword');
      if (await verifyPassword(input.newPassword, user.passwordHash)) throw usersErrors.samePassword().at('newPassword');
    }
    const passwordHash = await hashPassword(input.newPassword, passwordCostOf(this.app));
    const updated = await this.patch(userId, { passwordHash, mustChangePassword: false });
    await this.sessions.revokeAllOf(userId, sessionId);
    return publicUser(updated);
  }

  /** Writes some fields of an account (under the accounts lock) and answers the new document. */
  async patch(userId: string, fields: Partial<Omit<UserDoc, 'id' | 'createdAt'>>): Promise<UserDoc> {
    return this.writes.run('users', async () => {
      const next = await this.store.patch(userId, { ...fields, updatedAt: this.app.clock.now() });
      if (!next) throw usersErrors.userNotFound();
      return next;
    });
  }

  /** Authenticator for the /api wrapper: 401 garbage/revoked, 1003 expired, 1001 user gone. */
  async authenticate(token: string): Promise<{ user: AuthUser; session: AuthSession }> {
    const { session } = await this.sessions.verify(token);
    const user = await this.findById(session.userId);
    if (!user) throw usersErrors.tokenUserNotFound();
    if (user.disabled) throw disabledError();
    return {
      user: { id: user.id, username: user.username, role: user.role, mustChangePassword: user.mustChangePassword },
      session: { id: session.id, userId: session.userId, expiresAt: session.expiresAt },
    };
  }

  async verifyToken(token: string): Promise<{ valid: true; user: PublicUser; expiresAt: number }> {
    const { session } = await this.sessions.verify(token);
    const user = await this.findById(session.userId);
    if (!user) throw usersErrors.tokenUserNotFound();
    if (user.disabled) throw disabledError();
    return { valid: true, user: publicUser(user), expiresAt: session.expiresAt };
  }

  /** Reads one namespace of a user's preferences (owned by another domain). */
  async getPrefs<T extends Record<string, unknown>>(userId: string, namespace: string): Promise<Partial<T>> {
    const user = await this.findById(userId);
    return (user?.prefs[namespace] as T | undefined) ?? {};
  }

  /** The language chosen at sign-up (server/lib/languages.ts); English for accounts that never chose one. */
  async language(userId: string): Promise<Language> {
    const { language } = await this.getPrefs<{ language: string }>(userId, 'locale');
    return isLanguage(language) ? language : DEFAULT_LANGUAGE;
  }

  /** The person's time zone (user.setTimeZone), else this computer's. */
  async timeZone(userId: string): Promise<string> {
    const { timeZone } = await this.getPrefs<{ timeZone: string }>(userId, 'locale');
    return typeof timeZone === 'string' && isTimeZone(timeZone) ? timeZone : localTimeZone();
  }

  /** Keeps the person's time zone; 400 for a name that is not a zone. */
  async setTimeZone(userId: string, timeZone: string): Promise<string> {
    if (!isTimeZone(timeZone)) throw commonErrors.invalid(`"${timeZone}" is not a time zone this computer knows (an IANA name such as "Asia/Shanghai").`).at('timeZone');
    await this.updatePrefs(userId, 'locale', { timeZone });
    return timeZone;
  }

  /** Merges `patch` into one namespace of a user's preferences. */
  async updatePrefs(userId: string, namespace: string, patch: Record<string, unknown>): Promise<void> {
    // A function of the stored account, run in the store's write queue: two updates never lose each other's keys.
    const next = await this.store.patch(userId, (data) => {
      const current = (data.prefs[namespace] as Record<string, unknown> | undefined) ?? {};
      return { prefs: { ...data.prefs, [namespace]: { ...current, ...patch } }, updatedAt: this.app.clock.now() };
    });
    if (!next) throw usersErrors.userNotFound();
  }

  async logout(sessionId: string): Promise<void> {
    await this.sessions.revoke(sessionId);
  }
}
