import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * The desktop UI: renderer/ → dist/renderer/ (served by the PennyPost server at /).
 * Dev: `npm run serve` in one terminal, `npm run dev:ui` in another; Vite proxies the server's
 * routes (PENNYPOST_URL, default http://127.0.0.1:5733).
 */
const target = process.env.PENNYPOST_URL ?? 'http://127.0.0.1:5733';
const proxied = ['/api', '/events', '/files', '/healthz', '/s/', '/m/', '/send/'];

export default defineConfig({
  root: 'renderer',
  base: '/',
  // renderer/public/ (favicon, app icons, web app manifest; made by renderer/scripts/make-web-icons.mjs)
  // is copied as is to the root of dist/renderer/.
  publicDir: 'public',
  plugins: [react()],
  build: {
    outDir: '../dist/renderer',
    // Not "assets": that is a screen of the app (/assets), and the server serves both from one root.
    assetsDir: '_app',
    emptyOutDir: true,
    target: 'chrome120',
    sourcemap: false,
    chunkSizeWarningLimit: 700,
    reportCompressedSize: true,
  },
  server: {
    port: 5173,
    strictPort: false,
    proxy: Object.fromEntries(proxied.map((p) => [p, { target, changeOrigin: false }])),
  },
});
