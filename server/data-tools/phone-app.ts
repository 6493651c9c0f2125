import { cpSync, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../app-info/package-root';
import type { DataTool } from './tool';

/** Where the build puts the phone app (vite.phone.config.ts). */
export const PHONE_APP_DIR = path.join(PACKAGE_ROOT, 'dist', 'phone');

/**
 * `pennypost phone-app <folder>`: writes the phone app (docs/phone.md) as plain static files into
 * `<folder>`, to be served by any HTTPS host — beside CouchDB behind the same reverse proxy (no CORS
 * needed), or anywhere else (CouchDB then needs CORS for that origin). Its paths are relative, so
 * the folder works at any address. Refuses a folder that holds anything, so nothing is overwritten.
 */
export const phoneAppTool: DataTool = {
  name: 'phone-app',
  summary: 'Write the phone app as static files into <folder>, for any HTTPS host.',
  run(ctx) {
    const target = ctx.positionals.at(0);
    if (target === undefined || ctx.positionals.length > 1) {
      ctx.err('pennypost phone-app: give one folder to write the phone app into, e.g. `pennypost phone-app ./pennypost-phone`.');
      return Promise.resolve(1);
    }
    if (!existsSync(path.join(PHONE_APP_DIR, 'index.html'))) {
      ctx.err(`pennypost phone-app: the phone app is not built (${PHONE_APP_DIR}): run \`npm run build\` in the PennyPost folder.`);
      return Promise.resolve(1);
    }
    const folder = path.resolve(target);
    if (existsSync(folder) && readdirSync(folder).length > 0) {
      ctx.err(`pennypost phone-app: ${folder} is not empty; give a new or empty folder.`);
      return Promise.resolve(1);
    }
    cpSync(PHONE_APP_DIR, folder, { recursive: true });
    const files = readdirSync(folder, { recursive: true }).length;
    ctx.out(`Wrote the phone app to ${folder} (${files} files).`);
    ctx.out('Serve it over HTTPS. Beside CouchDB (same address, e.g. https://couch.example.net/_pennypost_phone/) it needs nothing more;');
    ctx.out('at another address, CouchDB needs [chttpd] enable_cors = true and that address in [cors] origins (docs/phone.md).');
    ctx.out('Then pair a phone on the desktop with that address: Settings → Server → Sync → Add a phone.');
    return Promise.resolve(0);
  },
};
