import type { CollectionDefinition } from '../db/collections';
import { ID_MAX_LENGTH } from '../lib/ids';
import { ms, str } from '../db/schema-fields';

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
    version: 0,
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
      prefs: { type: 'object' },
      createdAt: ms,
      updatedAt: ms,
    },
    required: ['id', 'username', 'usernameKey', 'email', 'passwordHash', 'avatar', 'wechatId', 'alipayId', 'prefs', 'createdAt', 'updatedAt'],
    indexes: ['usernameKey', 'email', 'wechatId', 'alipayId'],
  } as any,
};
