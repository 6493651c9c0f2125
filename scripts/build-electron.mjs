// Bundles the Electron main process and preload into dist/electron/ (esbuild).
// Dependencies stay external: they are installed in node_modules and classic-level is native.
import { build } from 'esbuild';

export async function buildElectron() {
  await build({
    entryPoints: ['electron/main.ts'],
    outfile: 'dist/electron/main.mjs',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
  });
  await build({
    entryPoints: ['electron/preload.cts'],
    outfile: 'dist/electron/preload.cjs',
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['electron'],
    logLevel: 'warning',
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await buildElectron();
  process.stdout.write('built dist/electron/main.mjs and preload.cjs\n');
}
