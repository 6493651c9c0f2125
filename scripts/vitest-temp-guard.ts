import { isolateTempDir } from '../server/test-support/temp-guard';

/**
 * Vitest's global setup: the run's own temporary folder, which must be empty at the end
 * (server/test-support/temp-guard.ts). Vitest reports an error thrown while it closes but exits
 * 0 all the same, so the leftovers also set the exit code.
 */
export default function setup(): () => void {
  const finish = isolateTempDir('vitest');
  return () => {
    try {
      finish();
    } catch (error) {
      process.exitCode = 1;
      throw error;
    }
  };
}
