import { Type, type Static } from '@sinclair/typebox';
import { Bool, EnumOf, IdField, Ms, Str } from '../db/schema-fields';

export type UserRole = 'owner' | 'admin' | 'member';
export const USER_ROLES: readonly UserRole[] = ['owner', 'admin', 'member'];

/**
 * A local account of this PennyPost. Accounts live in the local store (user-store.ts), not in RxDB:
 * they never sync, and the old RxDB collection `users` is moved there at start (move-to-local-store.ts).
 */
export const UserDocument = Type.Object({
  id: IdField(),
  username: Str(64),
  /** NFKC + lower case: usernames are unique regardless of case. */
  usernameKey: Str(64),
  /** Lower case; '' for accounts created by a platform sign-in. */
  email: Str(254),
  /** scrypt$… (see password.ts); '' when the account has no password (platform sign-in only). */
  passwordHash: Str(256),
  avatar: Str(2048),
  /** openid of the configured WeChat app; '' when not linked. */
  wechatId: Str(128),
  /** Alipay user_id / open_id; '' when not linked. */
  alipayId: Str(128),
  /** 'owner' (the first account of the data dir), 'admin' (named by the owner) or 'member'. */
  role: EnumOf(USER_ROLES, 8),
  /** Disabled by the owner or an admin: cannot sign in, every session ended. */
  disabled: Bool(),
  /** Set by a password reset: the next sign-in must choose a new password before anything else. */
  mustChangePassword: Bool(),
  /** Free-form per-user preferences owned by other domains (base currency, language…). */
  prefs: Type.Unsafe<Record<string, unknown>>({ type: 'object' }),
  createdAt: Ms(),
  updatedAt: Ms(),
});
export type UserDoc = Static<typeof UserDocument>;

/** An account as version 0 of the old RxDB `users` collection stored it, before roles. */
export type UserDocV0 = Omit<UserDoc, 'role' | 'disabled' | 'mustChangePassword'>;

/**
 * Version 0 → 1 of the old RxDB collection (roles). Which account came first is decided once every
 * account is there (UserService.start promotes the oldest when no owner exists), so each starts as a member.
 */
export function userFromV0(doc: UserDocV0): UserDoc {
  return { ...doc, role: 'member', disabled: false, mustChangePassword: false };
}
