// `npm start`: the desktop app when Electron can start here, otherwise the headless server.
// The headless server runs in this process (no child to orphan); the desktop app is a child that
// gets this process's signals and quits by itself if this process dies (PENNYPOST_EXIT_WITH_PARENT).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** Why the desktop app cannot start on this machine, or null when it can. */
export function electronUnavailableReason(env = process.env, platform = process.platform) {
  let binary;
  try {
    binary = require('electron'); // the npm package exports the binary path, or throws
  } catch (error) {
    return error?.code === 'MODULE_NOT_FOUND'
      ? 'Electron is not installed, its download was not possible when npm installed PennyPost'
      : `the Electron binary is not installed (${String(error.message).split('\n')[0]})`;
  }
  if (typeof binary !== 'string' || !existsSync(binary)) return 'the Electron binary is not installed (it is downloaded at install time and was skipped or failed)';
  if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) return 'there is no display (DISPLAY and WAYLAND_DISPLAY are unset)';
  return null;
}

/** The one line `npm start` prints before running the headless server instead of the app. */
export function headlessNotice(reason) {
  return `PennyPost: the desktop app is not available here: ${reason}. Running the headless server instead; open the address below in a browser.\n`;
}

function runDesktop(binary, args) {
  const child = spawn(binary, [root, ...args], { cwd: root, stdio: 'inherit', env: { ...process.env, PENNYPOST_EXIT_WITH_PARENT: '1' } });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const reason = electronUnavailableReason();
  if (reason) {
    process.stderr.write(headlessNotice(reason));
    const { runPennyPost } = await import('../bin/pennypost.mjs');
    await runPennyPost(['serve', ...args]);
  } else {
    const { ensureUi } = await import('./ensure-ui.mjs');
    ensureUi();
    const { buildElectron } = await import('./build-electron.mjs');
    await buildElectron();
    // esbuild's service process (200-350 MB) would otherwise stay beside the app for its whole life.
    await (await import('esbuild')).stop();
    runDesktop(require('electron'), args);
  }
}
