import type { AppContext } from '../app-context';
import { setPasswordCost, type PasswordCost } from '../users/password';

/**
 * The scrypt cost of passwords on test servers: N = 2^10 (about 1 ms and 1 MiB a hash) instead of
 * production's 2^15 (about 60 ms and 32 MiB), in the same hash format. The tests create thousands
 * of accounts; server/users/password.test.ts keeps the production cost proven.
 */
export const TEST_PASSWORD_COST: PasswordCost = { logN: 10 };

/** Gives a server just started for a test cheap password hashes (before its first request). */
export function useTestPasswordCost(app: AppContext, cost: PasswordCost = TEST_PASSWORD_COST): void {
  setPasswordCost(app, cost);
}
