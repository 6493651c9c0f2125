// `npm run pack:server`: a self-contained release of the headless server for a home server
// (docs/deploy.md). Writes out/pennypost-server-<version>/ and out/pennypost-server-<version>.tgz:
// the compiled server (dist/server/cli.cjs, its source map), the built UI (dist/renderer/), the
// `pennypost` command, package.json and package-lock.json (so `npm ci --omit=dev --omit=optional`
// on the server installs exactly the locked production dependencies, classic-level's native
// binding among them), the systemd unit (deploy/) and the docs to install it.
//
// No server/ sources go in: bin/pennypost.mjs then treats the folder as a release and runs the
// build as it is, without trying to rebuild it (which the read-only /opt/pennypost could not).
// Builds first when needed: the server when dist/server/cli.cjs is missing or older than its
// sources, the UI when dist/renderer/index.html is missing or older than renderer/'s sources
// (`--fresh` rebuilds both).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildServer, serverBuildIsStale } from './build-server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Files and folders of a release, relative to the checkout; `optional` ones are skipped when absent. */
export const RELEASE_FILES = [
  { path: 'package.json' },
  { path: 'package-lock.json' },
  { path: 'LICENSE', optional: true },
  { path: 'README.md' },
  { path: 'bin/pennypost.mjs' },
  // package.json's postinstall runs it; in a production install (no TypeScript) it does nothing.
  { path: 'scripts/electron-types.mjs' },
  { path: 'dist/server/cli.cjs' },
  { path: 'dist/server/cli.cjs.map', optional: true },
  // The server's work thread (server/work-thread.ts: statement files, long Markdown).
  { path: 'dist/server/work-thread.cjs' },
  { path: 'dist/server/work-thread.cjs.map', optional: true },
  { path: 'dist/renderer' },
  // The phone app, served at /phone/ (docs/phone.md).
  { path: 'dist/phone' },
  { path: 'dist/licenses.json', optional: true },
  { path: 'deploy' },
  { path: 'docs/deploy.md' },
  // deploy.md links to it for every setting.
  { path: 'docs/configuration.md' },
];

function log(line) {
  process.stderr.write(`${line}\n`);
}

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(full));
    else newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

/** True when dist/renderer/index.html is missing or older than the UI's sources or vite.config.ts. */
export function uiBuildIsStale() {
  const built = path.join(root, 'dist', 'renderer', 'index.html');
  if (!existsSync(built)) return true;
  const sources = ['src', 'public', 'index.html'].map((p) => path.join(root, 'renderer', p)).filter((p) => existsSync(p));
  const newest = Math.max(statSync(path.join(root, 'vite.config.ts')).mtimeMs, ...sources.map((p) => (statSync(p).isDirectory() ? newestMtime(p) : statSync(p).mtimeMs)));
  return newest > statSync(built).mtimeMs;
}

/** True when dist/phone/index.html is missing or older than the phone app's sources. */
function phoneBuildIsStale() {
  const built = path.join(root, 'dist', 'phone', 'index.html');
  if (!existsSync(built)) return true;
  const sources = ['src', 'public', 'index.html'].map((p) => path.join(root, 'phone', p)).filter((p) => existsSync(p));
  const newest = Math.max(statSync(path.join(root, 'vite.phone.config.ts')).mtimeMs, ...sources.map((p) => (statSync(p).isDirectory() ? newestMtime(p) : statSync(p).mtimeMs)));
  return newest > statSync(built).mtimeMs;
}

/** Builds what a release needs and is missing or older than its sources. */
export async function ensureBuilt({ fresh = false } = {}) {
  if (fresh || serverBuildIsStale()) {
    log('pack:server: compiling the server…');
    await buildServer();
  }
  if (fresh || uiBuildIsStale()) {
    const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js');
    if (!existsSync(vite)) throw new Error('vite is not installed: run `npm ci` in the checkout first');
    log('pack:server: building the user interface…');
    const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: root, stdio: ['ignore', 2, 2] });
    if (result.status !== 0) throw new Error(`vite build failed (exit ${result.status ?? result.signal})`);
  }
  if (fresh || phoneBuildIsStale()) {
    const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js');
    log('pack:server: building the phone app…');
    const result = spawnSync(process.execPath, [vite, 'build', '-c', 'vite.phone.config.ts', '--logLevel', 'warn'], { cwd: root, stdio: ['ignore', 2, 2] });
    if (result.status !== 0) throw new Error(`vite build of the phone app failed (exit ${result.status ?? result.signal})`);
  }
}

/** tar flags that record every file as owned by root, so extracting as root gives root-owned code. */
function ownerFlags() {
  const version = spawnSync('tar', ['--version'], { encoding: 'utf8' });
  if (version.error) throw new Error(`the system \`tar\` is needed: ${version.error.message}`);
  return /GNU tar/.test(version.stdout) ? ['--owner=0', '--group=0', '--numeric-owner'] : ['--uid', '0', '--gid', '0'];
}

/**
 * Makes the release folder and its tarball under `outDir` (default out/).
 * Returns { version, name, dir, tarball }.
 */
export async function packServer({ outDir = path.join(root, 'out'), fresh = false, build = true } = {}) {
  if (build) await ensureBuilt({ fresh });
  const version = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version;
  const name = `pennypost-server-${version}`;
  const dir = path.join(outDir, name);
  const tarball = path.join(outDir, `${name}.tgz`);
  rmSync(dir, { recursive: true, force: true });
  rmSync(tarball, { force: true });
  mkdirSync(dir, { recursive: true });
  try {
    for (const entry of RELEASE_FILES) {
      const from = path.join(root, entry.path);
      if (!existsSync(from)) {
        if (entry.optional) continue;
        throw new Error(`${entry.path} is missing`);
      }
      const to = path.join(dir, entry.path);
      mkdirSync(path.dirname(to), { recursive: true });
      cpSync(from, to, { recursive: true, preserveTimestamps: true });
    }
    const tar = spawnSync('tar', ['-czf', tarball, ...ownerFlags(), '-C', outDir, name], { encoding: 'utf8' });
    if (tar.status !== 0) throw new Error(`tar failed: ${(tar.stderr || tar.error?.message || '').trim()}`);
  } catch (error) {
    // No half-made release left behind to be mistaken for a good one.
    rmSync(dir, { recursive: true, force: true });
    rmSync(tarball, { force: true });
    throw error;
  }
  return { version, name, dir, tarball };
}

function isMain() {
  return Boolean(process.argv[1]) && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url;
}

if (isMain()) {
  try {
    const { dir, tarball } = await packServer({ fresh: process.argv.includes('--fresh') });
    process.stdout.write(`${path.relative(process.cwd(), dir) || dir}/\n${path.relative(process.cwd(), tarball) || tarball}\n`);
  } catch (error) {
    process.stderr.write(`pack:server: ${error.message}\n`);
    process.exitCode = 1;
  }
}
