import { Type } from '@sinclair/typebox';
import { defineAction, Params } from '../api/action';
import { ApiError, ErrorCode } from '../api/errors';
import type { UserService } from './service';

declare module '../app-context' {
  interface ServiceMap {
    users: UserService;
  }
}

const DeviceId = Type.String({ maxLength: 128, description: 'Identifier of the signing-in device (free text).' });
const DeviceInfo = Type.String({ maxLength: 256, description: 'Device description shown in the session list (free text).' });

export const USERNAME_PATTERN = '^[\\p{L}\\p{N}][\\p{L}\\p{N}_.-]{2,31}$';
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;

const USER_OBJECT =
  'User: `{id, username, email, avatar, token, expiresAt, createdAt, updatedAt}` — `token` is the Bearer JWT for every other action, `expiresAt` its expiry (ms).';

export const register = defineAction({
  name: 'user.register',
  summary: 'Create an account and sign in on this device.',
  notes:
    'Usernames: 3–32 characters, letters and digits of any script plus `_ . -`, starting with a letter or digit; unique regardless of case. ' +
    `Passwords: ${PASSWORD_MIN}–${PASSWORD_MAX} characters, stored as a scrypt hash (N=2^15, r=8, p=1, per-user salt). Emails are stored in lower case.`,
  auth: 'public',
  rateLimit: 'auth',
  params: Params({
    username: Type.String({ pattern: USERNAME_PATTERN, description: 'Display and sign-in name.' }),
    email: Type.String({ format: 'email', maxLength: 254 }),
    password: Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }),
    deviceId: Type.Optional(DeviceId),
    deviceInfo: Type.Optional(DeviceInfo),
  }),
  returns: USER_OBJECT,
  errors: [
    [400, 'username, email or password breaks the rules above'],
    [409, 'the email or the username is already used'],
    [429, 'too many sign-in attempts from this address'],
  ],
  handler: (params, ctx) => ctx.app.services.users.register(params),
});

export const login = defineAction({
  name: 'user.login',
  summary: 'Sign in with email and password, or with a WeChat or Alipay authorization code.',
  notes:
    '`platform: "email"` needs `email` and `password`; `"wechat"` needs `code` (from WeChat OAuth or a mini program `wx.login`); ' +
    '`"alipay"` needs `authCode`. The first platform sign-in creates an account linked to that platform identity. ' +
    'Lockout: 5 wrong passwords for one email within 15 minutes lock it for 15 minutes (1004, even with the right password); ' +
    'the numbers are settings auth.lockout.*. Unknown email and wrong password give the same answer.',
  auth: 'public',
  rateLimit: 'auth',
  params: Params({
    platform: Type.Union([Type.Literal('email'), Type.Literal('wechat'), Type.Literal('alipay')], { default: 'email' }),
    email: Type.Optional(Type.String({ maxLength: 254 })),
    password: Type.Optional(Type.String({ maxLength: PASSWORD_MAX })),
    code: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    authCode: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    deviceId: Type.Optional(DeviceId),
    deviceInfo: Type.Optional(DeviceInfo),
  }),
  returns: USER_OBJECT,
  errors: [
    [400, 'a field that the platform needs is missing, or the platform is not configured on this server'],
    [1002, 'wrong email or password, or the platform refused the code'],
    [1004, 'the account is locked after too many wrong passwords'],
    [429, 'too many sign-in attempts from this address'],
    [502, 'WeChat or Alipay could not be reached or refused this server\'s credentials'],
  ],
  handler: (params, ctx) => {
    const device = { deviceId: params.deviceId, deviceInfo: params.deviceInfo };
    const users = ctx.app.services.users;
    switch (params.platform) {
      case 'wechat':
        if (!params.code) throw new ApiError(ErrorCode.Validation, 'params.code is required for platform "wechat"', { field: 'params.code' });
        return users.loginWithPlatform('wechat', params.code, device);
      case 'alipay':
        if (!params.authCode) throw new ApiError(ErrorCode.Validation, 'params.authCode is required for platform "alipay"', { field: 'params.authCode' });
        return users.loginWithPlatform('alipay', params.authCode, device);
      default:
        if (!params.email) throw new ApiError(ErrorCode.Validation, 'params.email is required', { field: 'params.email' });
        if (!params.password) throw new ApiError(ErrorCode.Validation, 'params.password is required', { field: 'params.password' });
        return users.loginWithEmail({ email: params.email, password: params.password, ...device });
    }
  },
});

export const verifyToken = defineAction({
  name: 'user.verifyToken',
  summary: 'Check a token without using it: is it valid, whose is it, when does it expire.',
  auth: 'public',
  params: Params({ token: Type.String({ minLength: 1, maxLength: 4096 }) }),
  returns: '`{valid: true, user: {id, username, email, avatar, createdAt, updatedAt}, expiresAt}`',
  errors: [
    [401, 'the token is not a PennyPost token of this server, or its session was signed out'],
    [1003, 'the token has expired'],
    [1001, 'the account of the token no longer exists'],
  ],
  handler: (params, ctx) => ctx.app.services.users.verifyToken(params.token),
});

export const logout = defineAction({
  name: 'user.logout',
  summary: 'Sign out this session: its token stops working at once; other devices stay signed in.',
  auth: 'user',
  params: Params({}),
  returns: '`{loggedOut: true}`',
  errors: [[401, 'missing or invalid token']],
  handler: async (_params, ctx) => {
    await ctx.app.services.users.logout(ctx.session.id);
    return { loggedOut: true };
  },
});

export const userActions = [register, login, verifyToken, logout];
