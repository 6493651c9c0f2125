import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params, type ActionErrorDoc } from '../api/action';
import { apiErrors } from '../api/errors';
import { Id, LanguageParam } from '../api/params';
import { commonErrors } from '../lib/errors';
import { usersErrors } from './errors';
import {
  CreatedInvite,
  Household,
  InviteRevoked,
  LoggedOut,
  MemberShape,
  RegistrationInfo,
  SignedInShape,
  TemporaryPassword,
  UserDeleted,
  UserShape,
  VerifiedToken,
} from './result-shapes';
import type { UserService } from './service';
import type { HouseholdService } from './household';

declare module '../app-context' {
  interface ServiceMap {
    users: UserService;
    household: HouseholdService;
  }
}

const InviteCode = Type.String({ minLength: 4, maxLength: 64, description: 'A code from the owner (user.createInvite); case, spaces and dashes do not matter.' });
const origin = (ctx: { fromThisComputer: boolean }) => ({ local: ctx.fromThisComputer });

const DeviceId = Type.String({ maxLength: 128, description: 'Identifier of the signing-in device (free text).' });
const DeviceInfo = Type.String({ maxLength: 256, description: 'Device description shown in the session list (free text).' });

export const USERNAME_PATTERN = '^[\\p{L}\\p{N}][\\p{L}\\p{N}_.-]{1,31}$';
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;

const REGISTRATION_NOTES =
  'Who may sign up is settings registration.fromThisComputer / fromNetwork: `open`, `invite` (an invite code is needed) or `closed`; defaults: open from this computer, invite from the network. ' +
  "The first account of a data dir is its owner and must be created from this computer unless fromNetwork is open. Accounts created with an invite get the invite's role.";

const register = defineAction({
  summary: 'Create an account and sign in on this device.',
  notes:
    'Usernames: 2–32 characters (小明 is a name), letters and digits of any script plus `_ . -`, starting with a letter or digit; unique regardless of case. ' +
    `Passwords: ${PASSWORD_MIN}–${PASSWORD_MAX} characters, stored as a scrypt hash (N=2^15, r=8, p=1, per-user salt). Emails are stored in lower case. ` +
    '`language` (en or zh-CN, default en) names the default categories (Food… or 餐饮…) and gives the base currency until the account sets one or creates its first asset (USD or CNY). ' +
    REGISTRATION_NOTES,
  auth: 'public',
  rateLimit: 'auth',
  params: Params({
    username: Type.String({ pattern: USERNAME_PATTERN, hint: 'username', description: 'Display and sign-in name.' }),
    email: Type.String({ format: 'email', maxLength: 254 }),
    password: Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }),
    inviteCode: Type.Optional(InviteCode),
    language: Type.Optional(LanguageParam()),
    deviceId: Type.Optional(DeviceId),
    deviceInfo: Type.Optional(DeviceInfo),
  }),
  result: SignedInShape,
  errors: [
    [commonErrors.rows.invalid, 'username, email, password or language breaks the rules above'],
    [usersErrors.rows.inviteCodeInvalid, 'the invite code is used, expired or revoked'],
    [usersErrors.rows.signUpsClosed, 'sign-ups from where the caller is are closed'],
    [usersErrors.rows.inviteNeeded, 'sign-ups from where the caller is need an invite code'],
    [usersErrors.rows.firstAccountLocalOnly, 'the first account would be created from the network while registration.fromNetwork is not open'],
    [usersErrors.rows.emailTaken, 'the email is already used'],
    [usersErrors.rows.usernameTaken, 'the username is already used'],
    [commonErrors.rows.rateLimited, 'too many sign-in attempts from this address'],
  ],
  handler: (params, ctx) => ctx.app.services.users.register(params, origin(ctx)),
});

const login = defineAction({
  summary: 'Sign in with email (or username) and password, or with a WeChat or Alipay authorization code.',
  notes:
    '`platform: "email"` needs `password` and the account\'s `email` or, instead, its `username` (any case); `"wechat"` needs `code` (from WeChat OAuth or a mini program `wx.login`); ' +
    '`"alipay"` needs `authCode`. The first platform sign-in creates an account linked to that platform identity. ' +
    'Lockout: 5 wrong passwords for one account within 15 minutes, by its email and its username together, lock it for 15 minutes (1004, even with the right password); ' +
    'the numbers are settings auth.lockout.*. An unknown email or username and a wrong password give the same answer.',
  auth: 'public',
  rateLimit: 'auth',
  params: Params({
    platform: Type.Union([Type.Literal('email'), Type.Literal('wechat'), Type.Literal('alipay')], { default: 'email' }),
    email: Type.Optional(Type.String({ maxLength: 254 })),
    username: Type.Optional(Type.String({ maxLength: 64, description: 'Instead of `email`: the username (any case).' })),
    password: Type.Optional(Type.String({ maxLength: PASSWORD_MAX })),
    code: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    authCode: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    inviteCode: Type.Optional(InviteCode),
    language: Type.Optional(LanguageParam('The UI language, used only when a first platform sign-in creates the account (see user.register).')),
    deviceId: Type.Optional(DeviceId),
    deviceInfo: Type.Optional(DeviceInfo),
  }),
  result: SignedInShape,
  errors: [
    [usersErrors.rows.loginParamMissing, 'a field that the platform needs is missing'],
    [usersErrors.rows.platformNotConfigured, 'the platform is not configured on this server'],
    [usersErrors.rows.alipayKeysInvalid, 'the Alipay keys in the settings are not valid RSA keys'],
    [usersErrors.rows.invalidCredentials, 'wrong email, username or password'],
    [usersErrors.rows.platformCodeRefused, 'the platform refused the code'],
    [usersErrors.rows.platformAnswerRefused, "Alipay's answer refuses the code"],
    [usersErrors.rows.accountLocked, 'the account is locked after too many wrong passwords'],
    [usersErrors.rows.accountDisabled, 'the account is disabled by the owner or an admin'],
    [usersErrors.rows.signUpsClosed, 'a first platform sign-in would create an account where sign-ups are closed'],
    [usersErrors.rows.inviteNeeded, 'a first platform sign-in would create an account where sign-ups need an invite code'],
    [commonErrors.rows.rateLimited, 'too many sign-in attempts from this address'],
    [usersErrors.rows.platformFailed, 'WeChat or Alipay could not be reached or answered something unusable'],
    [usersErrors.rows.wechatRefusedCredentials, "WeChat refused this server's credentials"],
    [usersErrors.rows.wechatBusy, 'WeChat is busy'],
    [usersErrors.rows.alipayRefusedRequest, "Alipay refused this server's request"],
  ],
  handler: (params, ctx) => {
    const device = { deviceId: params.deviceId, deviceInfo: params.deviceInfo };
    const users = ctx.app.services.users;
    switch (params.platform) {
      case 'wechat':
        if (!params.code) throw usersErrors.loginParamMissing('code', 'wechat').at('code');
        return users.loginWithPlatform('wechat', params.code, { ...device, inviteCode: params.inviteCode, language: params.language }, origin(ctx));
      case 'alipay':
        if (!params.authCode) throw usersErrors.loginParamMissing('authCode', 'alipay').at('authCode');
        return users.loginWithPlatform('alipay', params.authCode, { ...device, inviteCode: params.inviteCode, language: params.language }, origin(ctx));
      default:
        if (!params.email && !params.username) throw usersErrors.loginParamMissing('email').at('email');
        if (!params.password) throw usersErrors.loginParamMissing('password').at('password');
        return users.loginWithPassword({ ...(params.email ? { email: params.email } : { username: params.username }), password: params.password, ...device });
    }
  },
});

const verifyToken = defineAction({
  summary: 'Check a token without using it: is it valid, whose is it, when does it expire.',
  auth: 'public',
  params: Params({ token: Type.String({ minLength: 1, maxLength: 4096 }) }),
  result: VerifiedToken,
  errors: [
    [usersErrors.rows.invalidToken, 'the token is not a PennyPost token of this server'],
    [usersErrors.rows.sessionSignedOut, 'the session of the token was signed out'],
    [usersErrors.rows.tokenExpired, 'the token has expired'],
    [usersErrors.rows.tokenUserNotFound, 'the account of the token no longer exists'],
    [usersErrors.rows.accountDisabled, 'the account is disabled'],
  ],
  handler: (params, ctx) => ctx.app.services.users.verifyToken(params.token),
});

const logout = defineAction({
  summary: 'Sign out this session: its token stops working at once; other devices stay signed in.',
  auth: 'user',
  duringPasswordChange: true,
  params: Params({}),
  result: LoggedOut,
  errors: [[commonErrors.rows.unauthorized, 'missing or invalid token']],
  handler: async (_params, ctx) => {
    await ctx.app.services.users.logout(ctx.session.id);
    return { loggedOut: true as const };
  },
});

const registrationInfo = defineAction({
  summary: 'What the sign-up screen needs to know: is there an owner yet, and may the caller sign up (open, with an invite code, or not at all).',
  notes: REGISTRATION_NOTES + ' `desktop` is true for callers on this computer (the desktop window may sign its owner in without a password).',
  auth: 'public',
  params: Params({}),
  result: RegistrationInfo,
  handler: async (_params, ctx) => {
    const { first, rule } = await ctx.app.services.users.signUpRule(origin(ctx));
    return { hasOwner: !first, signUp: rule, desktop: ctx.fromThisComputer };
  },
});

const desktopSignIn = defineAction({
  summary: 'The desktop window signs its owner in with a one-time secret from the desktop app; on a new data dir this creates the owner.',
  notes:
    'Only the desktop app can get a secret (the shell hands it to its own window); each works once, for 60 s, and only from this computer. ' +
    '`username` names the owner when the account is created (default "owner"); an existing owner is simply signed in.',
  auth: 'public',
  rateLimit: 'auth',
  params: Params({
    secret: Type.String({ minLength: 16, maxLength: 128 }),
    username: Type.Optional(Type.String({ pattern: USERNAME_PATTERN, hint: 'username' })),
    language: Type.Optional(LanguageParam('The UI language, used only when this creates the owner (see user.register).')),
    deviceId: Type.Optional(DeviceId),
    deviceInfo: Type.Optional(DeviceInfo),
  }),
  result: SignedInShape,
  errors: [
    [usersErrors.rows.desktopSecretUsed, 'the secret is unknown, used or expired'],
    [usersErrors.rows.desktopOnlyHere, 'the caller is not on this computer'],
  ],
  handler: (params, ctx) => {
    if (!ctx.fromThisComputer) throw usersErrors.desktopOnlyHere();
    return ctx.app.services.users.desktopSignIn(params.secret, params);
  },
});

const changePassword = defineAction({
  summary: 'Set a new password (also the first password of an account that has none, e.g. the desktop owner); every other session of the account ends.',
  notes: `\`currentPassword\` is required when the account has a password (after a reset: the temporary one). New passwords: ${PASSWORD_MIN}–${PASSWORD_MAX} characters.`,
  auth: 'user',
  duringPasswordChange: true,
  rateLimit: 'auth',
  params: Params({
    currentPassword: Type.Optional(Type.String({ maxLength: PASSWORD_MAX })),
    newPassword: Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }),
  }),
  result: UserShape,
  errors: [
    [usersErrors.rows.currentPasswordWrong, 'the current password is wrong or missing'],
    [commonErrors.rows.invalid, 'the new password breaks the rules'],
    [usersErrors.rows.samePassword, 'the new password equals the current one'],
  ],
  handler: (params, ctx) => ctx.app.services.users.changePassword(ctx.user.id, ctx.session.id, params),
});

const UserId = Id('Id of the account (from user.listMembers).');
const MEMBER_CALLER: ActionErrorDoc = [apiErrors.rows.adminOnly, 'the caller is a member'];
/** The errors of acting on another account, whoever the caller is. */
const TARGET_ERRORS: ActionErrorDoc[] = [
  [usersErrors.rows.memberNotFound, 'no account with this id'],
  [usersErrors.rows.ownAccount, 'the caller named their own account'],
];
/** Owner and admins acting on an account below their rank. */
const ADMIN_MANAGES: ActionErrorDoc[] = [
  MEMBER_CALLER,
  [usersErrors.rows.ownerUnchangeable, 'an admin names the owner'],
  [usersErrors.rows.onlyOwnerManagesAdmins, 'an admin names another admin'],
  ...TARGET_ERRORS,
];

const listMembers = defineAction({
  summary: 'The household: every account with its role and state, and the pending invites.',
  auth: 'admin',
  params: Params({}),
  result: Household,
  errors: [MEMBER_CALLER],
  handler: (_params, ctx) => ctx.app.services.household.list(),
});

const createInvite = defineAction({
  summary: 'A single-use invite code to hand to a new household member (valid settings registration.inviteHours, default 72 h).',
  notes: 'The code is shown only here; the server keeps only its hash. Only the owner can invite an admin.',
  auth: 'admin',
  params: Params({ role: Type.Optional(Type.Union([Type.Literal('member'), Type.Literal('admin')], { default: 'member' })) }),
  result: CreatedInvite,
  errors: [
    MEMBER_CALLER,
    [usersErrors.rows.onlyOwnerInvitesAdmins, 'an admin invites an admin'],
    [usersErrors.rows.registrationClosedEverywhere, 'registration is closed from everywhere, so no invite could be used'],
  ],
  handler: (params, ctx) => ctx.app.services.household.createInvite(ctx.user, params.role ?? 'member'),
});

const revokeInvite = defineAction({
  summary: 'Withdraw a pending invite before it is used.',
  auth: 'admin',
  params: Params({ id: Id() }),
  result: InviteRevoked,
  errors: [MEMBER_CALLER, [usersErrors.rows.inviteNotFound, 'no pending invite with this id']],
  handler: (params, ctx) => ctx.app.services.household.revokeInvite(params.id),
});

const setRole = defineAction({
  summary: 'Make an account an admin (may change server settings, snapshots and the household) or a member again. Owner only.',
  auth: 'owner',
  params: Params({ userId: UserId, role: Type.Union([Type.Literal('admin'), Type.Literal('member')]) }),
  result: MemberShape,
  errors: [[apiErrors.rows.ownerOnly, 'the caller is not the owner'], ...TARGET_ERRORS],
  handler: (params, ctx) => ctx.app.services.household.setRole(ctx.user, params.userId, params.role),
});

const disable = defineAction({
  summary: 'Stop an account from signing in; its sessions and open event streams end at once. Its data stays.',
  auth: 'admin',
  params: Params({ userId: UserId }),
  result: MemberShape,
  errors: ADMIN_MANAGES,
  handler: (params, ctx) => ctx.app.services.household.setDisabled(ctx.user, params.userId, true),
});

const enable = defineAction({
  summary: 'Let a disabled account sign in again.',
  auth: 'admin',
  params: Params({ userId: UserId }),
  result: MemberShape,
  errors: ADMIN_MANAGES,
  handler: (params, ctx) => ctx.app.services.household.setDisabled(ctx.user, params.userId, false),
});

const resetPassword = defineAction({
  summary: 'Give an account a temporary password (shown once) that must be changed at its next sign-in; its sessions end.',
  auth: 'admin',
  params: Params({ userId: UserId }),
  result: TemporaryPassword,
  errors: [...ADMIN_MANAGES, [usersErrors.rows.noPasswordToReset, 'the account has no email (WeChat or Alipay sign-in only)']],
  handler: (params, ctx) => ctx.app.services.household.resetPassword(ctx.user, params.userId),
});

const deleteUser = defineAction({
  summary: 'Delete an account and all its data on this PennyPost (ledger, files, links, savings, push, sync settings). Cannot be undone.',
  notes: "`confirm` must repeat the account's username. A remote CouchDB the account synced to is not touched. Take a snapshot first if in doubt.",
  auth: 'admin',
  params: Params({ userId: UserId, confirm: Type.String({ maxLength: 64 }) }),
  result: UserDeleted,
  errors: [...ADMIN_MANAGES, [usersErrors.rows.deleteNotConfirmed, 'confirm does not repeat the username']],
  handler: (params, ctx) => ctx.app.services.household.remove(ctx.user, params.userId, params.confirm),
});

export const userActions = defineActions({
  'user.register': register,
  'user.login': login,
  'user.verifyToken': verifyToken,
  'user.logout': logout,
  'user.registrationInfo': registrationInfo,
  'user.desktopSignIn': desktopSignIn,
  'user.changePassword': changePassword,
  'user.listMembers': listMembers,
  'user.createInvite': createInvite,
  'user.revokeInvite': revokeInvite,
  'user.setRole': setRole,
  'user.disable': disable,
  'user.enable': enable,
  'user.resetPassword': resetPassword,
  'user.delete': deleteUser,
});
