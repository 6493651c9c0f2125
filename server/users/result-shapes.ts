import { Type, type Static } from '@sinclair/typebox';
import { Result, Shape } from '../api/result';

/**
 * Result shapes of the users' actions (server/api/result.ts); the presenters are typed by them.
 * Closed objects: a password hash, a session secret or a platform id that slipped into an answer
 * fails the result check instead of reaching a client.
 */

const Role = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')], { description: "owner, admin or member of this PennyPost's household" });
const InvitedRole = Type.Union([Type.Literal('member'), Type.Literal('admin')], { description: 'the role an account created with the invite gets' });

const userFields = {
  id: Type.String(),
  username: Type.String(),
  email: Type.String({ description: "lower case; '' for accounts that sign in with WeChat or Alipay only" }),
  avatar: Type.String(),
  role: Role,
  mustChangePassword: Type.Boolean({ description: 'true after a password reset: only user.changePassword and user.logout answer until a new password is set' }),
  createdAt: Type.Integer({ description: 'ms' }),
  updatedAt: Type.Integer({ description: 'ms' }),
};

export const UserShape = Shape('User', userFields, 'An account as its owner sees it (no password hash, no platform ids).');
export type PublicUser = Static<typeof UserShape>;

export const SignedInShape = Shape(
  'SignedIn',
  {
    ...userFields,
    token: Type.String({ description: 'the Bearer JWT for every other action' }),
    expiresAt: Type.Integer({ description: 'when the token expires, ms' }),
  },
  'The account just signed in (or created), with the token of its new session.',
);
export type LoginResult = Static<typeof SignedInShape>;

export const VerifiedToken = Result({ valid: Type.Literal(true), user: UserShape, expiresAt: Type.Integer() }, { description: '`expiresAt`: when the token expires, ms' });

export const LoggedOut = Result({ loggedOut: Type.Literal(true) });

export const RegistrationInfo = Result(
  {
    hasOwner: Type.Boolean(),
    signUp: Type.Union([Type.Literal('open'), Type.Literal('invite'), Type.Literal('closed')]),
    desktop: Type.Boolean(),
  },
  { description: '`hasOwner`: an owner account exists; `signUp`: may the caller sign up (open, with an invite code, or not at all); `desktop`: the caller is on this computer' },
);

export const SIGN_IN_METHODS = ['password', 'wechat', 'alipay', 'desktop'] as const;
export type SignInMethod = (typeof SIGN_IN_METHODS)[number];

export const MemberShape = Shape(
  'Member',
  {
    id: Type.String(),
    username: Type.String(),
    email: Type.String(),
    role: Role,
    disabled: Type.Boolean({ description: 'may not sign in (user.disable)' }),
    mustChangePassword: Type.Boolean({ description: 'a password reset is pending' }),
    signIn: Type.Array(Type.Union(SIGN_IN_METHODS.map((m) => Type.Literal(m))), {
      description: 'how the account signs in; `desktop` alone: the desktop owner without a password yet',
    }),
    createdAt: Type.Integer({ description: 'ms' }),
  },
  'One account as the owner and admins see it on the Household screen.',
);
export type Member = Static<typeof MemberShape>;

const inviteFields = {
  id: Type.String({ description: 'short, stable handle for listing and revoking (not the code)' }),
  role: InvitedRole,
  createdBy: Type.String({ description: 'id of the account that made the invite' }),
  createdAt: Type.Integer({ description: 'ms' }),
  expiresAt: Type.Integer({ description: 'ms' }),
};

export const InviteShape = Shape('Invite', inviteFields, 'A pending invite (the code itself is shown once, by user.createInvite; the server keeps only its hash).');
export type InviteRecord = Static<typeof InviteShape>;

export const Household = Result(
  { members: Type.Array(MemberShape), invites: Type.Array(InviteShape) },
  { description: 'members: owner first, then admins, then members (each by creation); invites: pending ones, oldest first' },
);

export const CreatedInvite = Result({ code: Type.String(), ...inviteFields }, { description: 'the Invite with its `code`, shown only here; it looks like `K7QX-4M2P-9RTA`' });

export const InviteRevoked = Result({ revoked: Type.Literal(true) });

export const TemporaryPassword = Result(
  { userId: Type.String(), temporaryPassword: Type.String() },
  { description: '`temporaryPassword` is shown only here; it must be changed at the next sign-in' },
);

export const UserDeleted = Result({ deleted: Type.Literal(true), userId: Type.String() });

export const TimeZoneSet = Result({ timeZone: Type.String() }, { description: 'the IANA zone now kept' });
