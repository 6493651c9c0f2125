// postinstall: keep `electron/` type-checkable when the Electron package could not be installed.
//
// Electron is an optional dependency: its own install step downloads the Electron binary, and
// where that download is impossible (no route to its host) npm drops the package instead of
// failing the whole install. The package also carries Electron's API declarations
// (electron.d.ts), which `npm test` type-checks the desktop shell against. So when the package is
// missing and TypeScript is installed (a development install), this fetches the same version's
// package from the npm registry (npm's cache after the attempted install) and keeps only
// electron.d.ts, under node_modules/.cache/pennypost/. tsconfig.json resolves `electron` to the
// installed package first and to this copy second. A production install has no TypeScript and
// skips all of this. Never fails the install: a failure is one line on stderr.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const TYPES_DIR = path.join(root, 'node_modules', '.cache', 'pennypost');
const typesFile = path.join(TYPES_DIR, 'electron.d.ts');

function electronVersion() {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  return pkg.optionalDependencies?.electron ?? pkg.devDependencies?.electron ?? pkg.dependencies?.electron;
}

/** What to do: 'installed' (the package is there), 'production' (no TypeScript), or 'fetch'. */
export function electronTypesPlan(at = root) {
  if (existsSync(path.join(at, 'node_modules', 'electron', 'electron.d.ts'))) return 'installed';
  if (!existsSync(path.join(at, 'node_modules', 'typescript', 'package.json'))) return 'production';
  return 'fetch';
}

function fetchTypes() {
  const version = electronVersion();
  const work = mkdtempSync(path.join(os.tmpdir(), 'pennypost-electron-types-'));
  try {
    const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : [process.platform === 'win32' ? 'npm.cmd' : 'npm', []];
    const pack = spawnSync(npm[0], [...npm[1], 'pack', `electron@${version}`, '--silent', '--pack-destination', work], {
      cwd: work,
      encoding: 'utf8',
      shell: process.platform === 'win32' && !process.env.npm_execpath,
    });
    const tarball = pack.stdout?.trim().split('\n').pop();
    if (pack.status !== 0 || !tarball) throw new Error(`npm pack electron@${version} failed: ${(pack.stderr || '').trim().split('\n')[0]}`);
    const untar = spawnSync('tar', ['-xzf', path.join(work, tarball), '-C', work, 'package/electron.d.ts'], { encoding: 'utf8' });
    if (untar.status !== 0) throw new Error(`could not unpack electron.d.ts: ${(untar.stderr || '').trim()}`);
    mkdirSync(TYPES_DIR, { recursive: true });
    // Moved into place whole, so a half-done run never leaves a truncated declaration file.
    writeFileSync(`${typesFile}.tmp`, readFileSync(path.join(work, 'package', 'electron.d.ts')));
    renameSync(`${typesFile}.tmp`, typesFile);
    return version;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const plan = electronTypesPlan();
  if (plan === 'installed') rmSync(typesFile, { force: true });
  else if (plan === 'fetch') {
    try {
      const version = fetchTypes();
      process.stderr.write(
        `PennyPost: Electron ${version} could not be installed here (its binary download failed); the desktop shell is type-checked against its declarations, and \`npm start\` will run the headless server.\n`,
      );
    } catch (error) {
      process.stderr.write(`PennyPost: Electron's type declarations are unavailable (${error.message}); \`npm run typecheck\` will report the desktop shell's imports.\n`);
    }
  }
}
