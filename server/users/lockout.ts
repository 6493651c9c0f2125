import { createHash } from 'node:crypto';
import type { AppContext } from '../app-context';

interface LockoutState {
  failures: number[];
  lockedUntil: number;
}

/**
 * Sign-in lockout, keyed by the normalised email (known or not, so that locking does not reveal
 * which emails have accounts): settings.auth.lockout.maxFailures wrong passwords within
 * windowMinutes lock that email for lockMinutes, during which even the right password gets 1004.
 * State lives in the local store, so a restart does not unlock.
 */
export class LoginLockout {
  constructor(private readonly app: AppContext) {}

  private key(email: string): string {
    return 'lockout:' + createHash('sha256').update(email).digest('hex');
  }

  /** The time until which the email is locked, or 0. */
  async lockedUntil(email: string): Promise<number> {
    const state = await this.app.db.local.get<LockoutState>(this.key(email));
    return state && state.lockedUntil > this.app.clock.now() ? state.lockedUntil : 0;
  }

  /** Records a failure; returns the lock end when this failure locked the email, else 0. */
  async recordFailure(email: string): Promise<number> {
    const { maxFailures, windowMinutes, lockMinutes } = this.app.settings.get().auth.lockout;
    const now = this.app.clock.now();
    const key = this.key(email);
    const state = (await this.app.db.local.get<LockoutState>(key)) ?? { failures: [], lockedUntil: 0 };
    const failures = state.failures.filter((t) => t > now - windowMinutes * 60_000);
    failures.push(now);
    if (failures.length >= maxFailures) {
      const lockedUntil = now + lockMinutes * 60_000;
      await this.app.db.local.put(key, { failures: [], lockedUntil });
      return lockedUntil;
    }
    await this.app.db.local.put(key, { failures, lockedUntil: 0 });
    return 0;
  }

  async clear(email: string): Promise<void> {
    await this.app.db.local.del(this.key(email));
  }
}
