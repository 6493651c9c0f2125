import { mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A test run's own temporary folder (issue 36, finding 20: a whole run left 29 folders in /tmp).
 * Before the tests start, TMPDIR (and TMP, TEMP) point to a new folder, so every temporary file or
 * folder the tests make — in the runner, its workers and the processes they start, browsers
 * included — lands in it. When the run ends, whatever is still there was not cleaned up by the
 * test that made it: the run fails naming it, and the folder is removed either way.
 *
 * Used as Vitest's and Playwright's global setup (vitest.config.ts, playwright.config.ts).
 */
/**
 * What a run may leave: the compile caches of tsx (`tsx-<uid>`), Playwright
 * (`playwright-transform-cache-<uid>`) and jiti (`jiti`, the TypeScript loader Vite and ESLint use
 * for their config files when a test builds or lints a copy of the project), which the tools keep
 * in the temporary folder on purpose and reuse from run to run (one folder each, not one per test).
 */
const TOOL_CACHES = /^((tsx|playwright-transform-cache)-\d+|jiti)$/;

export function isolateTempDir(runner: string, options: { ignore?: RegExp } = {}): () => void {
  const outer = { TMPDIR: process.env.TMPDIR, TMP: process.env.TMP, TEMP: process.env.TEMP };
  const run = mkdtempSync(path.join(realpathSync(os.tmpdir()), `pennypost-${runner}-run-`));
  process.env.TMPDIR = process.env.TMP = process.env.TEMP = run;
  return () => {
    restore('TMPDIR', outer.TMPDIR);
    restore('TMP', outer.TMP);
    restore('TEMP', outer.TEMP);
    const left = readdirSync(run).filter((name) => !TOOL_CACHES.test(name) && !options.ignore?.test(name));
    rmSync(run, { recursive: true, force: true });
    if (left.length > 0) {
      throw new Error(`The tests left ${left.length} temporary ${left.length === 1 ? 'entry' : 'entries'} behind (each test removes what it creates): ${left.sort().join(', ')}`);
    }
  };
}

function restore(name: 'TMPDIR' | 'TMP' | 'TEMP', value: string | undefined): void {
  if (value === undefined) Reflect.deleteProperty(process.env, name);
  else process.env[name] = value;
}
