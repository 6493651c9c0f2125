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
    // Removes each file's temporary folders after its last test (server/test-support/temp-dirs.ts).
    setupFiles: ['server/test-support/vitest-setup.ts'],
    // Every /api answer of every test is checked against its action's result schema (server/api/result-check.ts).
    env: { PENNYPOST_CHECK_RESULTS: '1' },
    // A worker runs its test files one after another in one process, sharing loaded modules: each
    // file no longer loads RxDB, express and all 13 domains again (issue 37: 5–10 s of imports per
    // file on 2 loaded cores; users+ledger+planning 157 s → 65 s). Each file still closes its
    // servers and folders itself; nothing in the tests changes process-wide state without undoing it.
    isolate: false,
    // The tests wait on disks, sockets and child processes far more than on the CPU: at least two
    // files run at once even on a 2-core machine (where Vitest's default would be one).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
