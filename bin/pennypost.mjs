#!/usr/bin/env node
// The `pennypost` command (package.json "bin"):
//   pennypost [serve] [--port <n>] [--host <addr>] [--data-dir <dir>]   run the server
//   pennypost --version | --help
// It runs the compiled server (dist/server/cli.mjs) in this very process, so a signal sent to the
// command reaches the server itself and nothing is left running after it. In a source checkout it
// first compiles the server when a source changed, and builds the UI when it is missing.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bundle = path.join(root, 'dist', 'server', 'cli.mjs');

function version() {
  return JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version;
}

/** Runs the server's command line with `args`; resolves once the server module took over. */
export async function runPennyPost(args) {
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-v' || args[0] === 'version')) {
    process.stdout.write(`PennyPost ${version()}\n`);
    return;
  }
  const sourceCheckout = existsSync(path.join(root, 'scripts', 'build-server.mjs')) && existsSync(path.join(root, 'server', 'cli.ts'));
  if (sourceCheckout) {
    const { ensureServerBuilt } = await import('../scripts/build-server.mjs');
    await ensureServerBuilt();
    const helpOnly = args.includes('--help') || args.includes('-h');
    if (!helpOnly) {
      const { ensureUi } = await import('../scripts/ensure-ui.mjs');
      ensureUi();
    }
  }
  if (!existsSync(bundle)) {
    process.stderr.write(`PennyPost: ${path.relative(process.cwd(), bundle) || bundle} is missing: run \`npm run build\` in a source checkout, or reinstall the release.\n`);
    process.exitCode = 1;
    return;
  }
  // The server reads its flags from process.argv, as when it is run directly.
  process.argv = [process.argv[0], bundle, ...args];
  await import(pathToFileURL(bundle).href);
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
