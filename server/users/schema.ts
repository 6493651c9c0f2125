import { Type, type Static } from '@sinclair/typebox';
import { defineCollection } from '../db/collections';
import { Bool, EnumOf, IdField, Ms, Str } from '../db/schema-fields';

export type UserRole = 'owner' | 'admin' | 'member';
export const USER_ROLES: readonly UserRole[] = ['owner', 'admin', 'member'];

/** A local account of this PennyPost. */
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

/** A document of version 0, before roles. */
type UserDocV0 = Omit<UserDoc, 'role' | 'disabled' | 'mustChangePassword'>;

/** Users are local accounts of this PennyPost; they never sync (password hashes stay here). */
export const usersCollection = defineCollection({
  name: 'users',
  title: 'PennyPost users',
  version: 1,
  primaryKey: 'id',
  document: UserDocument,
  indexes: ['usernameKey', 'email', 'wechatId', 'alipayId'],
  // Version 1 added roles. Which account came first is decided once every document is migrated
  // (UserService.start promotes the oldest account when no owner exists), so each starts as a member.
  migrationStrategies: {
    1: (doc: UserDocV0): UserDoc => ({ ...doc, role: 'member', disabled: false, mustChangePassword: false }),
  },
});
