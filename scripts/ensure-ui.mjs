// Builds the UI (dist/renderer) when it is missing, so `npm install && npm start` and
// `npm run serve` work on a fresh checkout. Build output goes to stderr: stdout carries only the
// server's ready line (a contract).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Builds one Vite app (the desktop UI, or the phone app with its own config) when its index.html is missing. */
function buildApp(dir, config) {
  if (existsSync(path.join(root, 'dist', dir, 'index.html'))) return true;
  const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  if (!existsSync(vite)) return false;
  const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn', ...config], { cwd: root, stdio: ['ignore', 2, 2] });
  return result.status === 0;
}

export function ensureUi() {
  // The phone app (served at /phone/) is built quietly beside the UI; without it only /phone/ is missing.
  if (existsSync(path.join(root, 'dist', 'renderer', 'index.html'))) return buildApp('phone', ['-c', 'vite.phone.config.ts']) || true;
  process.stderr.write('PennyPost: building the user interface (first start only)…\n');
  const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  if (!existsSync(vite)) {
    process.stderr.write('PennyPost: vite is not installed (run `npm install`); starting without the user interface.\n');
    return false;
  }
  const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (result.status !== 0) {
    process.stderr.write('PennyPost: the user interface could not be built; the API and the webhook still work.\n');
    return false;
  }
  if (!buildApp('phone', ['-c', 'vite.phone.config.ts'])) process.stderr.write('PennyPost: the phone app could not be built; /phone/ is missing.\n');
  return true;
}

if (import.meta.url === `file://${process.argv[1]}`) ensureUi();
