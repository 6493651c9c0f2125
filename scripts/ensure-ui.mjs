// Builds the UI (dist/renderer) when it is missing, so `npm install && npm start` and
// `npm run serve` work on a fresh checkout. Build output goes to stderr: stdout carries only the
// server's ready line (a contract).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function ensureUi() {
  if (existsSync(path.join(root, 'dist', 'renderer', 'index.html'))) return true;
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
  return true;
}

if (import.meta.url === `file://${process.argv[1]}`) ensureUi();
