import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Folders made by tempDir() in this test file, removed after its last test (see below). */
const made = new Set<string>();

/**
 * A new folder under the system's temporary folder (`pennypost-<label>-XXXXXX`). It is removed
 * after the test file's last test — after the file's own afterAll hooks, which stop the servers
 * using it — whether or not the test removed it first, so a test may keep a data dir across
 * restarts without cleaning up itself (issue 36, finding 20: such folders were left in /tmp).
 */
export function tempDir(label = 'pp'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `pennypost-${label}-`));
  made.add(dir);
  return dir;
}

/** Removes every folder tempDir() made so far. */
export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}

// Under Vitest, server/test-support/vitest-setup.ts (a setup file, run before each test file)
// registers removeTempDirs as the file's first afterAll hook, so it runs after the file's own ones
// (Vitest runs them last registered first). Not here: test files share their workers' modules
// (vitest.config.ts, isolate: false), so this module is imported once for many files. Elsewhere
// (the benchmarks use the same helpers): when the process ends.
if (!process.env.VITEST) process.on('exit', removeTempDirs);
