import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['server/**/*.test.ts', 'electron/**/*.test.ts', 'scripts/**/*.test.ts', 'renderer/src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Every run gets its own TMPDIR, which must be empty when it ends (server/test-support/temp-guard.ts).
    globalSetup: ['scripts/vitest-temp-guard.ts'],
    // The tests wait on disks, sockets and child processes far more than on the CPU: at least two
    // files run at once even on a 2-core machine (where Vitest's default would be one).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
