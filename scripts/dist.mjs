// `npm run dist`: installers for this platform with electron-builder (electron-builder.yml):
// Linux AppImage + deb, Windows NSIS, macOS dmg. `npm run dist -- --dir` makes only the unpacked
// app (fast, and the only target that needs no packaging tools). Extra arguments go to
// electron-builder. Before anything is built, it checks that Electron and the packaging tools can
// be had — from a local copy or by download — and otherwise stops at once and says why.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

const PLATFORM_FLAG = { linux: '--linux', win32: '--win', darwin: '--mac' };
const EXECUTABLE = { linux: 'electron', win32: 'electron.exe', darwin: 'Electron.app' };

/** The Electron version the app is built with (package.json optionalDependencies). */
export function electronVersion(rootDir = root) {
  const pkg = JSON.parse(readFileSync(path.join(rootDir, 'package.json'), 'utf8'));
  return String(pkg.optionalDependencies?.electron ?? pkg.devDependencies?.electron ?? '').replace(/^[^\d]*/, '');
}

/** A local, unpacked Electron for this platform: $ELECTRON_DIST, or node_modules/electron/dist. */
export function localElectronDist(env = process.env, platform = process.platform, rootDir = root) {
  for (const dir of [env.ELECTRON_DIST, path.join(rootDir, 'node_modules', 'electron', 'dist')]) {
    if (dir && existsSync(path.join(dir, EXECUTABLE[platform] ?? 'electron'))) return path.resolve(dir);
  }
  return null;
}

/**
 * What `npm run dist` needs from the network, given the arguments and what is on disk:
 * Electron itself unless a local dist exists, and electron-builder's tools (appimagetool, fpm,
 * NSIS, dmg helpers) unless only the unpacked app (--dir) is asked for.
 */
export function distPlan({ args = [], env = process.env, platform = process.platform, rootDir = root } = {}) {
  const dirOnly = args.includes('--dir');
  const electronDist = localElectronDist(env, platform, rootDir);
  const version = electronVersion(rootDir);
  const downloads = [];
  if (!electronDist) {
    const mirror = env.ELECTRON_MIRROR || 'https://github.com/electron/electron/releases/download/';
    downloads.push({ what: `Electron ${version} for ${platform}`, url: mirror });
  }
  if (!dirOnly) {
    const mirror = env.ELECTRON_BUILDER_BINARIES_MIRROR || 'https://github.com/electron-userland/electron-builder-binaries/releases/download/';
    downloads.push({ what: "electron-builder's packaging tools (AppImage, deb, NSIS or dmg)", url: mirror });
  }
  const builderArgs = ['--publish', 'never', PLATFORM_FLAG[platform] ?? '--linux', ...args];
  if (electronDist) builderArgs.push(`-c.electronDist=${electronDist}`, `-c.electronVersion=${version}`);
  return { dirOnly, electronDist, version, downloads, builderArgs };
}

/** The message shown when a download cannot be had: what, from where, and what to do instead. */
export function unreachableMessage(failed, plan) {
  const lines = [`npm run dist cannot build PennyPost's installers here: it needs to download`];
  for (const item of failed) lines.push(`  - ${item.what} from ${item.url} (${item.error})`);
  lines.push(`and ${failed.length === 1 ? 'that address' : 'those addresses'} cannot be reached from this machine.`, '', 'What you can do:');
  lines.push('  - run `npm run dist` on a machine with internet access (it downloads both automatically), or');
  if (!plan.electronDist) {
    lines.push(`  - point ELECTRON_DIST at an unpacked Electron ${plan.version} for this platform (or ELECTRON_MIRROR at a reachable mirror),`);
  }
  if (!plan.dirOnly) {
    lines.push('  - build only the unpacked app, which needs no packaging tools: `npm run dist -- --dir` (with a local Electron), or');
    lines.push('  - set ELECTRON_BUILDER_BINARIES_MIRROR to a reachable mirror of electron-builder-binaries.');
  }
  return lines.join('\n') + '\n';
}

/** Whether a URL answers at all (any HTTP status), within `ms`. */
export async function reachable(url, ms = 8000) {
  try {
    await fetch(url, { method: 'HEAD', redirect: 'manual', signal: AbortSignal.timeout(ms) });
    return { ok: true };
  } catch (error) {
    const cause = error?.cause?.code ?? error?.cause?.message ?? error?.name ?? String(error);
    return { ok: false, error: cause === 'TimeoutError' ? `no answer within ${ms / 1000} s` : String(cause) };
  }
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' } });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

async function main() {
  const args = process.argv.slice(2);
  let builderCli;
  try {
    builderCli = require.resolve('electron-builder/cli.js');
  } catch {
    process.stderr.write('npm run dist: electron-builder is not installed. Run `npm install` (it is a dev dependency).\n');
    process.exit(1);
  }
  const plan = distPlan({ args });
  const failed = [];
  for (const item of plan.downloads) {
    const answer = await reachable(item.url);
    if (!answer.ok) failed.push({ ...item, error: answer.error });
  }
  if (failed.length > 0) {
    process.stderr.write(unreachableMessage(failed, plan));
    process.exit(1);
  }
  process.stdout.write(
    `npm run dist: building PennyPost for ${process.platform}${plan.dirOnly ? ' (unpacked app only)' : ''}${plan.electronDist ? ` with the local Electron in ${plan.electronDist}` : ''}\n`,
  );
  run(process.execPath, [path.join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build']);
  const { buildElectron } = await import('./build-electron.mjs');
  await buildElectron();
  run(process.execPath, [builderCli, ...plan.builderArgs]);
  process.stdout.write(`npm run dist: done — see ${path.join('out', 'release')}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
