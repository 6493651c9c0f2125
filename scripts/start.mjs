// `npm start`: the desktop app when Electron can start here, otherwise the headless server.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);

/** Why the desktop app cannot start on this machine, or null when it can. */
export function electronUnavailableReason(env = process.env, platform = process.platform) {
  let binary;
  try {
    binary = require('electron'); // the npm package exports the binary path, or throws
  } catch (error) {
    return `the Electron binary is not installed (${String(error.message).split('\n')[0]})`;
  }
  if (typeof binary !== 'string' || !existsSync(binary)) return 'the Electron binary is not installed (it is downloaded at install time and was skipped or failed)';
  if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) return 'there is no display (DISPLAY and WAYLAND_DISPLAY are unset)';
  return null;
}

function run(command, commandArgs) {
  const child = spawn(command, commandArgs, { cwd: root, stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { ensureUi } = await import('./ensure-ui.mjs');
  ensureUi();
  const reason = electronUnavailableReason();
  if (reason) {
    process.stderr.write(`PennyPost: the desktop app cannot start here: ${reason}.\nStarting the headless server instead (same data, open the printed address in a browser).\n`);
    run(process.execPath, ['--import', 'tsx', path.join(root, 'server/cli.ts'), ...args]);
  } else {
    const { buildElectron } = await import('./build-electron.mjs');
    await buildElectron();
    run(require('electron'), [root, ...args]);
  }
}
