import { isolateTempDir } from '../server/test-support/temp-guard';

/**
 * Playwright's global setup: the run's own temporary folder (browser profiles included), which
 * must be empty when the run ends (server/test-support/temp-guard.ts); the teardown fails the run
 * naming what is left.
 */
export default function setup(): () => void {
  return isolateTempDir('e2e');
}
