import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding PennyPost's package.json, found by walking up from this module: the same
 * answer from the TypeScript sources (server/app-info/), the compiled server (dist/server/cli.mjs),
 * the desktop bundle (dist/electron/main.mjs) and a packaged app (app.asar).
 */
export function findPackageRoot(from: string = path.dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'pennypost') return dir;
      } catch {
        // an unreadable package.json further down (a fixture): keep walking up
      }
    }
    if (path.dirname(dir) === dir) throw new Error(`PennyPost's package.json was not found above ${from}`);
  }
}

export const PACKAGE_ROOT = findPackageRoot();

/** The version in package.json ('' when unreadable). */
export function packageVersion(root = PACKAGE_ROOT): string {
  try {
    return (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version?: string }).version ?? '';
  } catch {
    return '';
  }
}
