#!/usr/bin/env node
// The `pennypost` command (package.json "bin"):
//   pennypost [serve] [--port <n>] [--host <addr>] [--data-dir <dir>]   run the server
//   pennypost --version | --help
// It runs the compiled server (dist/server/cli.cjs) in this very process, so a signal sent to the
// command reaches the server itself and nothing is left running after it. In a source checkout it
// first compiles the server when a source changed, and builds the UI when it is missing.
//
// The bundle is compiled with V8's code cache (dist/server/cli.cjs.v8cache, written on the first
// run and again whenever V8 refuses it, e.g. after a Node upgrade): starting then skips parsing
// and compiling the server's top-level code. Where that folder is read-only (a release in /opt),
// PENNYPOST_CACHE_DIR names another; where neither is writable, the cache is simply not written.
import { existsSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import vm from 'node:vm';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bundle = path.join(root, 'dist', 'server', 'cli.cjs');
// PENNYPOST_CACHE_DIR: where a service keeps it (deploy/pennypost.service sets /var/cache/pennypost).
const codeCache = process.env.PENNYPOST_CACHE_DIR ? path.join(process.env.PENNYPOST_CACHE_DIR, 'cli.cjs.v8cache') : `${bundle}.v8cache`;

function readCodeCache() {
  try {
    return readFileSync(codeCache);
  } catch {
    return undefined;
  }
}

function writeCodeCache(script) {
  const temp = `${codeCache}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, script.createCachedData());
    renameSync(temp, codeCache);
  } catch {
    rmSync(temp, { force: true });
  }
}

/**
 * Runs a CommonJS bundle as Node would, compiled with (and refreshing) its V8 code cache. A script
 * compiled by node:vm has no loader for `import()`: the bundle has none (scripts/build-server.mjs
 * turns them into require()).
 */
function runBundle(file) {
  const cachedData = readCodeCache();
  const script = new vm.Script(Module.wrap(readFileSync(file, 'utf8')), { filename: file, cachedData });
  if (!cachedData || script.cachedDataRejected) writeCodeCache(script);
  const module = { exports: {}, filename: file, id: file, loaded: false };
  script.runInThisContext().call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
}

function version() {
  return JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version;
}

/** The subcommand: the first argument that is neither a flag nor a flag's value ('serve' when none). */
function commandOf(args) {
  for (let i = 0; i < args.length; i++) {
    if (/^--(port|host|data-dir)$/.test(args[i])) i++;
    else if (!args[i].startsWith('-')) return args[i];
  }
  return 'serve';
}

/** Runs the server's command line with `args`; resolves once the server module took over. */
export async function runPennyPost(args) {
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-v' || args[0] === 'version')) {
    process.stdout.write(`PennyPost ${version()}\n`);
    return;
  }
  const sourceCheckout = existsSync(path.join(root, 'scripts', 'build-server.mjs')) && existsSync(path.join(root, 'server', 'cli.ts'));
  // The build scripts are loaded only when there is something to build: every module read here
  // is time before the ready line.
  if (sourceCheckout) {
    const { serverSourcesNewer } = await import('../scripts/server-freshness.mjs');
    if (serverSourcesNewer()) {
      const { ensureServerBuilt } = await import('../scripts/build-server.mjs');
      await ensureServerBuilt();
    }
  }
  // Only the server needs the UI built; --help and the data tools (check, repair, …) do not.
  const command = commandOf(args);
  const serving = command === 'serve' && !args.includes('--help') && !args.includes('-h');
  if (sourceCheckout && serving && !existsSync(path.join(root, 'dist', 'renderer', 'index.html'))) {
    const { ensureUi } = await import('../scripts/ensure-ui.mjs');
    ensureUi();
  }
  if (!existsSync(bundle)) {
    process.stderr.write(`PennyPost: ${path.relative(process.cwd(), bundle) || bundle} is missing: run \`npm run build\` in a source checkout, or reinstall the release.\n`);
    process.exitCode = 1;
    return;
  }
  // The server reads its flags from process.argv, as when it is run directly.
  process.argv = [process.argv[0], bundle, ...args];
  runBundle(bundle);
}

/** True when this file is the program being run (directly, or through npm's `pennypost` link). */
function isMain() {
  try {
    return realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isMain()) {
  await runPennyPost(process.argv.slice(2));
}
