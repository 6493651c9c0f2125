import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../lib/clock';

/** How long a secret handed to the desktop window stays usable. */
export const DESKTOP_SECRET_TTL_MS = 60_000;
const MAX_PENDING = 16;

/**
 * The desktop app signs its owner in without a password: the Electron shell (same process as the
 * server) asks for a one-time secret and hands it to its own window over IPC; the window trades it
 * for a session with `user.desktopSignIn`. A secret works once, for a minute, and only from this
 * computer. Nothing else can obtain one: it never leaves the process except through the shell's
 * IPC, which answers only the app's own pages.
 */
export class DesktopSignIn {
  /** sha256 of each pending secret → its expiry. */
  private readonly pending = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  issue(): string {
    const now = this.clock.now();
    for (const [hash, expiresAt] of this.pending) if (expiresAt <= now) this.pending.delete(hash);
    // A window that is reloaded again and again must not grow the map without end.
    for (const oldest of this.pending.keys()) {
      if (this.pending.size < MAX_PENDING) break;
      this.pending.delete(oldest);
    }
    const secret = randomBytes(32).toString('base64url');
    this.pending.set(digest(secret), now + DESKTOP_SECRET_TTL_MS);
    return secret;
  }

  /** True once per issued secret, within its lifetime. */
  redeem(secret: string): boolean {
    const wanted = Buffer.from(digest(secret), 'hex');
    const now = this.clock.now();
    for (const [hash, expiresAt] of this.pending) {
      if (timingSafeEqual(Buffer.from(hash, 'hex'), wanted)) {
        this.pending.delete(hash);
        return expiresAt > now;
      }
    }
    return false;
  }
}

function digest(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
