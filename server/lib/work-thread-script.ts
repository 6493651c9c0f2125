import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * How to start the server's work thread (server/work-thread.ts) from code at `here`
 * (`import.meta.url`): in a build, `work-thread.cjs` (or `.mjs` for the desktop app) beside the
 * bundle, which scripts/build-server.mjs and scripts/build-electron.mjs write; from the sources
 * (tests, `tsx`), the TypeScript file loaded through tsx's require hooks (Node 20 applies no
 * module hooks registered for a worker thread; require hooks it does). `fromSources` is the path
 * of server/work-thread.ts relative to `here`'s folder.
 */
export function workThreadScript(here: string, fromSources: string): { script: string | URL; eval: boolean } {
  if (/\.[cm]?ts$/.test(here)) {
    const require = createRequire(here);
    const entry = fileURLToPath(new URL(fromSources, here));
    return { script: `require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(entry)});`, eval: true };
  }
  const extension = /\.mjs$/.test(here) ? 'mjs' : 'cjs';
  return { script: new URL(`./work-thread.${extension}`, here), eval: false };
}
