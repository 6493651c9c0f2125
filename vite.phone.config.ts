import { builtinModules } from 'node:module';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * The phone app: phone/ → dist/phone/ (docs/phone.md). Relative paths (`base: './'`), so the same
 * folder works wherever it is served: at /phone/ of PennyPost, beside CouchDB, or on any static host.
 * One bundle (no code splitting): the service worker caches what index.html names.
 */

/** The phone shares the server's rules (ledger, sync, planning): a Node module among them fails the build. */
function noNodeModules(): Plugin {
  const builtins = new Set(builtinModules);
  return {
    name: 'pennypost-no-node-modules',
    enforce: 'pre',
    resolveId(id, importer) {
      if (id.startsWith('node:') || builtins.has(id)) this.error(`${importer ?? '?'} imports the Node module "${id}": the phone app runs in a browser`);
      return null;
    },
  };
}

export default defineConfig({
  root: 'phone',
  base: './',
  publicDir: 'public',
  plugins: [noNodeModules(), react()],
  build: {
    outDir: '../dist/phone',
    assetsDir: 'app',
    emptyOutDir: true,
    target: 'chrome120',
    sourcemap: false,
    modulePreload: false,
    chunkSizeWarningLimit: 900,
    reportCompressedSize: true,
  },
});
