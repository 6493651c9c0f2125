// Bundles the Electron main process and preload into dist/electron/ (esbuild), copies the window
// and tray icons next to them, and writes dist/licenses.json (the about page's licence list).
// Dependencies stay external: they are installed in node_modules and classic-level is native.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const at = (...parts) => path.join(root, ...parts);

/** Files next to main.mjs that the shell loads at run time (electron/main.ts). */
export const ICON_FILES = ['icon.png', 'tray.png', 'trayTemplate.png', 'trayTemplate@2x.png'];

export async function buildElectron({ licences = true } = {}) {
  await build({
    entryPoints: [at('electron/main.ts')],
    outfile: at('dist/electron/main.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
  });
  // The server's work thread (server/work-thread.ts: statement files, long Markdown), loaded from
  // beside main.mjs.
  await build({
    entryPoints: [at('server/work-thread.ts')],
    outfile: at('dist/electron/work-thread.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
  });
  await build({
    entryPoints: [at('electron/preload.cts')],
    outfile: at('dist/electron/preload.cjs'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['electron'],
    logLevel: 'warning',
  });
  mkdirSync(at('dist/electron'), { recursive: true });
  for (const file of ICON_FILES) copyFileSync(at('build', file), at('dist/electron', file));
  if (licences) {
    const { tsImport } = await import('tsx/esm/api');
    const { collectLicenses } = await tsImport('../server/app-info/licenses.ts', import.meta.url);
    const packages = collectLicenses(root, { texts: true });
    writeFileSync(at('dist/licenses.json'), JSON.stringify({ packages }) + '\n');
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await buildElectron();
  process.stdout.write('built dist/electron/ (main.mjs, preload.cjs, icons) and dist/licenses.json\n');
}
