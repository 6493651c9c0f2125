import { createHash, randomInt } from 'node:crypto';
import type { AppContext } from '../app-context';
import { usersErrors } from './errors';
import type { InviteRecord } from './result-shapes';

/** A pending invite as the owner sees it (the code itself is shown once, when it is created); its shape is the answer's. */
export type { InviteRecord } from './result-shapes';

const PREFIX = 'invite:';
/** Crockford's base32 without I, L, O, U: nothing to confuse when read aloud or typed from a phone. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const CODE_CHARS = 12;

/** "k7qx-4m2p 9r…" → "K7QX4M2P9R…": case, spaces and dashes do not matter; O→0, I/L→1. */
export function normalizeInviteCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
}

function hashOf(normalized: string): string {
  return createHash('sha256').update(normalized).digest('hex');
}

/**
 * Single-use invite codes (about 60 bits), kept in the local store (never synced) under the hash
 * of the code: the store never holds a usable code. Sign-ups with a code are rate-limited like
 * sign-ins, so guessing is hopeless.
 */
export class InviteStore {
  constructor(private readonly app: AppContext) {}

  async create(role: InviteRecord['role'], createdBy: string): Promise<{ code: string; invite: InviteRecord }> {
    let raw = '';
    for (let i = 0; i < CODE_CHARS; i++) raw += ALPHABET.charAt(randomInt(ALPHABET.length));
    const hash = hashOf(raw);
    const now = this.app.clock.now();
    const invite: InviteRecord = {
      id: hash.slice(0, 12),
      role,
      createdBy,
      createdAt: now,
      expiresAt: now + this.app.settings.get().registration.inviteHours * 3600_000,
    };
    await this.app.db.local.put(PREFIX + hash, invite);
    const groups = raw.match(/.{4}/g);
    if (!groups) throw new Error('invite code too short to group');
    return { code: groups.join('-'), invite };
  }

  /** Pending invites, oldest first; expired ones are deleted on the way. */
  async list(): Promise<InviteRecord[]> {
    const now = this.app.clock.now();
    const entries = await this.app.db.local.entries<InviteRecord>(PREFIX);
    const expired = entries.filter(([, invite]) => invite.expiresAt <= now);
    if (expired.length > 0) await this.app.db.local.batch(expired.map(([key]) => ({ type: 'del' as const, key })));
    return entries
      .filter(([, invite]) => invite.expiresAt > now)
      .map(([, invite]) => invite)
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  async revoke(id: string): Promise<void> {
    const entry = (await this.app.db.local.entries<InviteRecord>(PREFIX)).find(([, invite]) => invite.id === id);
    if (!entry) throw usersErrors.inviteNotFound().at('id');
    await this.app.db.local.del(entry[0]);
  }

  /**
   * Uses up a code and answers the role it grants. The caller holds the accounts write lock, so two
   * sign-ups cannot both use one code.
   */
  async consume(code: string): Promise<InviteRecord['role']> {
    const key = PREFIX + hashOf(normalizeInviteCode(code));
    const invite = await this.app.db.local.get<InviteRecord>(key);
    if (!invite || invite.expiresAt <= this.app.clock.now()) {
      if (invite) await this.app.db.local.del(key);
      throw usersErrors.inviteCodeInvalid().at('inviteCode');
    }
    await this.app.db.local.del(key);
    return invite.role;
  }
}
