// Compiles the headless server (server/cli.ts and everything it imports, dependencies included)
// into one script, dist/server/cli.cjs, with a source map beside it. Bundling the dependencies
// is what makes the server start fast: Node then reads and compiles one file instead of resolving
// and loading some 600 modules. classic-level stays outside: it loads LevelDB's native binding
// from its own folder in node_modules. It is a CommonJS script rather than an ES module so that
// bin/pennypost.mjs can compile it with V8's code cache (node:vm), which ES modules do not offer
// on Node 20: the cache saves most of the ~70 ms that parsing 3.5 MB of JavaScript takes.
//
// `ensureServerBuilt()` rebuilds only when a source is newer than the build: `npm start`,
// `npm run serve` and `bin/pennypost.mjs` call it, so a fresh checkout (or an edited one) runs
// current code without a separate build step.
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serverSourcesNewer } from './server-freshness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SERVER_ENTRY = path.join(root, 'server', 'cli.ts');
export const SERVER_BUNDLE = path.join(root, 'dist', 'server', 'cli.cjs');
// The server's work thread (server/work-thread.ts: statement files, long Markdown) runs this second
// bundle beside the first.
export const WORK_THREAD_ENTRY = path.join(root, 'server', 'work-thread.ts');
export const WORK_THREAD_BUNDLE = path.join(root, 'dist', 'server', 'work-thread.cjs');

/** Where bin/pennypost.mjs keeps V8's code cache of a bundle (rewritten when V8 refuses it). */
export function codeCachePath(bundle) {
  return `${bundle}.v8cache`;
}

/** Packages loaded from node_modules at run time instead of being bundled. */
export const RUNTIME_EXTERNAL = ['classic-level'];

export async function buildServer() {
  const { build, stop } = await import('esbuild');
  try {
    await buildBundles(build);
  } finally {
    // esbuild builds in a child process of its own (`esbuild --service`, 200-350 MB resident) that
    // otherwise lives as long as this one: on a first start, that is the server's whole life.
    await stop();
  }
}

async function buildBundles(build) {
  const options = {
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20.19',
    external: RUNTIME_EXTERNAL,
    // bin/pennypost.mjs runs the bundle through node:vm (for V8's code cache), where import()
    // has no loader: with a code cache, even vm's "use the main loader" option is lost
    // (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING crashed `pennypost check` and `repair`). So every
    // import() becomes a require(): the ones left are the data tools' (classic-level, node:*),
    // all CommonJS, and an unused optional adapter of rate-limiter-flexible.
    supported: { 'dynamic-import': false },
    // The sources are ES modules that locate files from import.meta.url.
    define: { 'import.meta.url': '__pennypostModuleUrl' },
    banner: { js: "const __pennypostModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
    // Smaller to read and compile at every start; local names are kept so stack traces stay
    // readable (mangling them also made the heap larger, measured: +10 MB RSS).
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
    write: false,
  };
  const results = await Promise.all([
    build({ ...options, entryPoints: [SERVER_ENTRY], outfile: SERVER_BUNDLE }),
    build({ ...options, entryPoints: [WORK_THREAD_ENTRY], outfile: WORK_THREAD_BUNDLE }),
  ]);
  // Each file replaced whole (write, then rename): a server starting meanwhile reads the old
  // bundle or the new one, never half of one. The code cache of the old bundle goes with it.
  mkdirSync(path.dirname(SERVER_BUNDLE), { recursive: true });
  rmSync(codeCachePath(SERVER_BUNDLE), { force: true });
  for (const file of results.flatMap((result) => result.outputFiles)) {
    const temp = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temp, file.contents);
    renameSync(temp, file.path);
  }
}

/**
 * True when dist/server/cli.cjs is missing or older than a source file (or package.json). The rule
 * lives in bin/pennypost.mjs, which checks it at every start without loading this script.
 */
export function serverBuildIsStale() {
  if (!existsSync(SERVER_BUNDLE) || !existsSync(WORK_THREAD_BUNDLE)) return true;
  if (!existsSync(SERVER_ENTRY)) return false; // a release: no sources, the build is the program
  return serverSourcesNewer();
}

/** Builds the server when stale. Returns false when it is needed but cannot be built here. */
export async function ensureServerBuilt({ log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  if (!serverBuildIsStale()) return true;
  if (!existsSync(SERVER_ENTRY)) return false;
  const fresh = !existsSync(SERVER_BUNDLE);
  try {
    await import('esbuild');
  } catch {
    log(
      fresh
        ? 'PennyPost: the server is not compiled and esbuild is not installed (run `npm install`, then `npm run build`).'
        : 'PennyPost: server sources are newer than the build, and esbuild is not installed to rebuild it; running the existing build (`npm run build` with the development dependencies installed updates it).',
    );
    return !fresh;
  }
  if (fresh) log('PennyPost: compiling the server (first start only)…');
  await buildServer();
  return true;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await buildServer();
  process.stdout.write(`built ${path.relative(root, SERVER_BUNDLE)}\n`);
}
