import type { UserDoc } from '../users/schema';

/** An account document as the user store keeps it: a member named `username`, no password, created at 1000, with `extra` on top. */
export function userDoc(id: string, username: string, extra: Partial<UserDoc> = {}): UserDoc {
  return {
    id,
    username,
    usernameKey: username.toLowerCase(),
    email: `${username.toLowerCase()}@example.com`,
    passwordHash: '',
    avatar: '',
    wechatId: '',
    alipayId: '',
    role: 'member',
    disabled: false,
    mustChangePassword: false,
    prefs: {},
    createdAt: 1000,
    updatedAt: 1000,
    ...extra,
  };
}
