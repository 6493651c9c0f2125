// Is the compiled server (dist/server/cli.cjs) older than its sources? Asked by bin/pennypost.mjs
// in a source checkout before it starts the bundle, and by scripts/build-server.mjs before it
// rebuilds. A tiny module of its own, so that starting PennyPost loads the build scripts only when
// there is something to build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bundle = path.join(root, 'dist', 'server', 'cli.cjs');

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (/\.(ts|mts|cts|json|js|mjs)$/.test(entry.name)) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

/** Is the bundle missing or older than server/ or package.json? */
export function serverSourcesNewer() {
  if (!existsSync(bundle)) return true;
  const built = statSync(bundle).mtimeMs;
  return newestSource(path.join(root, 'server')) > built || statSync(path.join(root, 'package.json')).mtimeMs > built;
}
