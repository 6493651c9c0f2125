import type { CollectionDefinition } from '../db/collections';
import { ID_MAX_LENGTH } from '../lib/ids';
import { ms, str } from '../db/schema-fields';

export type UserRole = 'owner' | 'admin' | 'member';
export const USER_ROLES: readonly UserRole[] = ['owner', 'admin', 'member'];

export interface UserDoc {
  id: string;
  username: string;
  /** NFKC + lower case: usernames are unique regardless of case. */
  usernameKey: string;
  /** Lower case; '' for accounts created by a platform sign-in. */
  email: string;
  /** scrypt$… (see password.ts); '' when the account has no password (platform sign-in only). */
  passwordHash: string;
  avatar: string;
  /** openid of the configured WeChat app; '' when not linked. */
  wechatId: string;
  /** Alipay user_id / open_id; '' when not linked. */
  alipayId: string;
  /** 'owner' (the first account of the data dir), 'admin' (named by the owner) or 'member'. */
  role: UserRole;
  /** Disabled by the owner or an admin: cannot sign in, every session ended. */
  disabled: boolean;
  /** Set by a password reset: the next sign-in must choose a new password before anything else. */
  mustChangePassword: boolean;
  /** Free-form per-user preferences owned by other domains (base currency, language…). */
  prefs: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}


/** Users are local accounts of this PennyPost; they never sync (password hashes stay here). */
export const usersCollection: CollectionDefinition<UserDoc> = {
  name: 'users',
  schema: {
    title: 'PennyPost users',
    version: 1,
    primaryKey: 'id',
    type: 'object',
    properties: {
      id: str(ID_MAX_LENGTH),
      username: str(64),
      usernameKey: str(64),
      email: str(254),
      passwordHash: str(256),
      avatar: str(2048),
      wechatId: str(128),
      alipayId: str(128),
      role: { type: 'string', enum: ['owner', 'admin', 'member'], maxLength: 8 },
      disabled: { type: 'boolean' },
      mustChangePassword: { type: 'boolean' },
      prefs: { type: 'object' },
      createdAt: ms,
      updatedAt: ms,
    },
    required: ['id', 'username', 'usernameKey', 'email', 'passwordHash', 'avatar', 'wechatId', 'alipayId', 'role', 'disabled', 'mustChangePassword', 'prefs', 'createdAt', 'updatedAt'],
    indexes: ['usernameKey', 'email', 'wechatId', 'alipayId'],
  } as any,
  // Version 1 added roles. Which account came first is decided once every document is migrated
  // (UserService.start promotes the oldest account when no owner exists), so each starts as a member.
  migrationStrategies: {
    1: (doc: Omit<UserDoc, 'role' | 'disabled' | 'mustChangePassword'>) => ({ ...doc, role: 'member', disabled: false, mustChangePassword: false }),
  },
};
