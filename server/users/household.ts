import { randomInt } from 'node:crypto';
import type { AppContext } from '../app-context';
import type { AuthUser } from '../api/action';
import { usersErrors } from './errors';
import { hashPassword, passwordCostOf } from './password';
import type { UserDoc, UserRole } from './schema';
import type { InviteRecord } from './invites';
import type { UserService } from './service';
import type { Member, SignInMethod } from './result-shapes';

export type { Member } from './result-shapes';

function memberOf(doc: UserDoc): Member {
  const signIn: SignInMethod[] = [];
  if (doc.passwordHash) signIn.push('password');
  if (doc.wechatId) signIn.push('wechat');
  if (doc.alipayId) signIn.push('alipay');
  return {
    id: doc.id,
    username: doc.username,
    email: doc.email,
    role: doc.role,
    disabled: doc.disabled,
    mustChangePassword: doc.mustChangePassword,
    signIn: signIn.length > 0 ? signIn : ['desktop'],
    createdAt: doc.createdAt,
  };
}

const RANK: Record<UserRole, number> = { owner: 2, admin: 1, member: 0 };
/** Temporary passwords: 4 groups of 4 lower-case letters and digits without look-alikes (~80 bits). */
const TEMP_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/**
 * The household: the owner (first account), the admins the owner names and the members. Owner and
 * admins invite, disable, delete and reset the passwords of accounts below their rank; only the
 * owner names admins. Nobody acts on themselves here (that is the account screen).
 */
export class HouseholdService {
  constructor(
    private readonly app: AppContext,
    private readonly users: UserService,
  ) {}

  async list(): Promise<{ members: Member[]; invites: InviteRecord[] }> {
    const docs = await this.users.all();
    const members = docs.map(memberOf).sort((a, b) => RANK[b.role] - RANK[a.role] || a.createdAt - b.createdAt);
    return { members, invites: await this.users.invites.list() };
  }

  async createInvite(actor: AuthUser, role: InviteRecord['role']) {
    if (role === 'admin' && actor.role !== 'owner') throw usersErrors.onlyOwnerInvitesAdmins();
    const policy = this.app.settings.get().registration;
    if (policy.fromThisComputer === 'closed' && policy.fromNetwork === 'closed') {
      throw usersErrors.registrationClosedEverywhere();
    }
    const { code, invite } = await this.users.invites.create(role, actor.id);
    return { code, ...invite };
  }

  async revokeInvite(id: string): Promise<{ revoked: true }> {
    await this.users.invites.revoke(id);
    return { revoked: true };
  }

  /** The account `actor` may manage, or a clear refusal. */
  private async target(actor: AuthUser, userId: string): Promise<UserDoc> {
    if (userId === actor.id) throw usersErrors.ownAccount().at('userId');
    const doc = await this.users.findById(userId);
    if (!doc) throw usersErrors.memberNotFound().at('userId');
    if (RANK[doc.role] >= RANK[actor.role]) {
      throw doc.role === 'owner' ? usersErrors.ownerUnchangeable() : usersErrors.onlyOwnerManagesAdmins();
    }
    return doc;
  }

  async setRole(actor: AuthUser, userId: string, role: Exclude<UserRole, 'owner'>): Promise<Member> {
    await this.target(actor, userId);
    return memberOf(await this.users.patch(userId, { role }));
  }

  /** Disabling ends every session of the account at once (open event streams included). */
  async setDisabled(actor: AuthUser, userId: string, disabled: boolean): Promise<Member> {
    await this.target(actor, userId);
    const doc = await this.users.patch(userId, { disabled });
    if (disabled) await this.users.sessions.revokeAllOf(userId);
    return memberOf(doc);
  }

  /**
   * A temporary password, shown once to the owner to hand over: the account's sessions end and its
   * next sign-in must choose a new password before anything else.
   */
  async resetPassword(actor: AuthUser, userId: string): Promise<{ userId: string; temporaryPassword: string }> {
    const doc = await this.target(actor, userId);
    if (!doc.email) {
      throw usersErrors.noPasswordToReset();
    }
    let temporaryPassword = '';
    for (let i = 0; i < 16; i++) temporaryPassword += (i > 0 && i % 4 === 0 ? '-' : '') + TEMP_ALPHABET.charAt(randomInt(TEMP_ALPHABET.length));
    await this.users.patch(userId, { passwordHash: await hashPassword(temporaryPassword, passwordCostOf(this.app)), mustChangePassword: true });
    await this.users.sessions.revokeAllOf(userId);
    return { userId, temporaryPassword };
  }

  /**
   * Deletes an account with all its data (ledger, files, links, savings, push channels and history,
   * sync configuration — the remote CouchDB is not touched). `confirm` must repeat its username.
   */
  async remove(actor: AuthUser, userId: string, confirm: string): Promise<{ deleted: true; userId: string }> {
    const doc = await this.target(actor, userId);
    if (confirm !== doc.username) {
      throw usersErrors.deleteNotConfirmed(doc.username).at('confirm');
    }
    // Signed out and unable to sign in while its data goes.
    await this.users.patch(userId, { disabled: true });
    await this.users.sessions.revokeAllOf(userId);
    if (!this.app.forgetUser) throw new Error('forgetUser is not wired');
    await this.app.forgetUser(userId);
    await this.users.writes.run('users', () => this.users.store.remove(userId));
    this.app.log.info('users: account deleted with its data', { userId, by: actor.id });
    return { deleted: true, userId };
  }
}
