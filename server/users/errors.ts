import { errorCatalogue } from '../lib/errors';

/** A sign-in platform as people read its name. */
export type PlatformName = 'WeChat' | 'Alipay';

/**
 * The errors of accounts, sign-in, sessions, invites and the household (docs/api.md).
 * Business codes: 1001 the account is gone, 1002 wrong credentials, 1003 the session expired,
 * 1004 locked, disabled or not permitted.
 */
export const usersErrors = errorCatalogue(
  {
    // 1001: the account is gone
    userNotFound: { code: 1001, status: 404, message: () => 'The account no longer exists.' },
    tokenUserNotFound: { code: 1001, status: 404, message: () => 'The account of this token no longer exists.' },
    memberNotFound: { code: 1001, status: 404, message: () => 'No account with this id.' },

    // 1002: wrong credentials
    invalidCredentials: { code: 1002, status: 401, message: () => 'Wrong email, username or password.' },
    platformCodeRefused: {
      code: 1002,
      status: 401,
      message: (platform: PlatformName, detail: string) => `${platform} did not accept this sign-in code (${detail}). Start the sign-in again.`,
    },
    platformAnswerRefused: { code: 1002, status: 401, message: (platform: PlatformName, detail: string) => `${platform} did not accept this sign-in code (${detail}).` },

    // 1003: the session expired
    tokenExpired: { code: 1003, status: 401, message: () => 'Your session has expired. Please sign in again.' },

    // 1004: locked, disabled or not permitted
    accountLocked: {
      code: 1004,
      status: 403,
      message: (maxFailures: number, lockMinutes: number, minutesLeft: number) =>
        `Too many wrong passwords (${maxFailures}): sign-in is locked for ${lockMinutes} minutes. Try again in ${minutesLeft} min.`,
    },
    accountDisabled: { code: 1004, status: 403, message: () => 'This account is disabled. Ask the owner of this PennyPost.' },
    onlyOwnerInvitesAdmins: { code: 1004, status: 403, message: () => 'Only the owner can invite an admin.' },
    ownerUnchangeable: { code: 1004, status: 403, message: () => 'The owner of this PennyPost cannot be changed by others.' },
    onlyOwnerManagesAdmins: { code: 1004, status: 403, message: () => 'Only the owner can manage an admin.' },

    // 401: no valid session
    invalidToken: { code: 401, status: 401, message: () => 'Invalid token. Please sign in again.' },
    sessionSignedOut: { code: 401, status: 401, message: () => 'This session was signed out. Please sign in again.' },
    desktopSecretUsed: { code: 401, status: 401, message: () => 'This desktop sign-in has expired or was already used; reopen the window.' },

    // 403: sign-ups and desktop sign-in refused where the caller is
    firstAccountLocalOnly: {
      code: 403,
      status: 403,
      message: () =>
        'The first account of a PennyPost is its owner and is created on the computer PennyPost runs on (or set registration.fromNetwork to "open" in settings.json for the first sign-up).',
    },
    signUpsClosed: { code: 403, status: 403, message: () => 'New accounts are closed on this PennyPost. Ask its owner.' },
    inviteNeeded: { code: 403, status: 403, message: () => 'An invite code is needed to create an account on this PennyPost. Ask its owner for one.' },
    desktopOnlyHere: { code: 403, status: 403, message: () => 'Desktop sign-in works only on the computer PennyPost runs on.' },

    // 409: taken names, useless invites
    emailTaken: { code: 409, status: 409, message: () => 'An account with this email already exists.' },
    usernameTaken: { code: 409, status: 409, message: () => 'This username is taken.' },
    registrationClosedEverywhere: {
      code: 409,
      status: 409,
      message: () => 'Registration is closed from everywhere: an invite could not be used. Allow invites in Settings first.',
    },

    // 404: invites
    inviteNotFound: { code: 404, status: 404, message: () => 'No pending invite with this id (already used, expired or revoked).' },

    // 400: input the rules refuse
    inviteCodeInvalid: { code: 400, status: 400, message: () => 'This invite code is not valid: it was already used, has expired or was revoked. Ask for a new one.' },
    /** The wire text names the param as the caller sent it (`params.code`). */
    loginParamMissing: {
      code: 400,
      status: 400,
      message: (param: 'code' | 'authCode' | 'email' | 'password', platform?: 'wechat' | 'alipay') => `params.${param} is required${platform ? ` for platform "${platform}"` : ''}`,
    },
    platformNotConfigured: {
      code: 400,
      status: 400,
      message: (platform: PlatformName, setting: 'wechat' | 'alipay') => `${platform} sign-in is not configured on this PennyPost (settings auth.${setting}).`,
    },
    alipayKeysInvalid: { code: 400, status: 400, message: () => 'Alipay sign-in is misconfigured: settings auth.alipay.privateKey or alipayPublicKey is not a valid RSA key.' },
    // 400, not 1002: a 401-class answer would tell clients that the session itself ended.
    currentPasswordWrong: { code: 400, status: 400, message: () => 'The current password is wrong.' },
    samePassword: { code: 400, status: 400, message: () => 'Choose a password different from the current one.' },
    ownAccount: { code: 400, status: 400, message: () => 'You cannot do this to your own account here.' },
    noPasswordToReset: {
      code: 400,
      status: 400,
      message: () => 'This account signs in through WeChat or Alipay and has no email to sign in with; there is no password to reset.',
    },
    deleteNotConfirmed: {
      code: 400,
      status: 400,
      message: (username: string) => `To delete this account and all its data, repeat its username ("${username}") in params.confirm.`,
    },

    // 502: WeChat or Alipay could not be used
    platformFailed: { code: 502, status: 502, message: (platform: PlatformName, reason: string) => `${platform} sign-in failed: ${reason}.` },
    wechatRefusedCredentials: { code: 502, status: 502, message: (detail: string) => `WeChat refused this server's app credentials (${detail}). Check settings auth.wechat.` },
    wechatBusy: { code: 502, status: 502, message: (detail: string) => `WeChat is busy (${detail}). Try again in a moment.` },
    alipayRefusedRequest: { code: 502, status: 502, message: (detail: string) => `Alipay refused the sign-in request (${detail}). Check settings auth.alipay.` },
  },
  'users',
);
