import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { LicenceEntry, LicenceSummary } from './result-shapes';

/**
 * The licences of the software PennyPost ships: the server's production dependencies (in the
 * app's node_modules), the packages bundled into the UI, and the Electron runtime. Collected from
 * package-lock.json at build time into dist/licenses.json (scripts/build-electron.mjs), or live in
 * a source checkout.
 */
export type { LicenceEntry, LicenceSummary } from './result-shapes';

interface LockPackage {
  version?: string;
  license?: string;
  dev?: boolean;
  devOptional?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const IMPORT_RE = /(?:^|[\s;])(?:import|export)\s+(?!type\s)(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]/g;

function packageNameOf(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:') || specifier.startsWith('virtual:')) return null;
  const parts = specifier.split('/');
  if (specifier.startsWith('@')) return parts.length >= 2 ? parts.slice(0, 2).join('/') : null; // @scope/name
  const slash = specifier.indexOf('/');
  return slash === -1 ? specifier : specifier.slice(0, slash);
}

/** Bare package names imported by the UI's sources (type-only imports excluded). */
export function uiImports(rendererSrc: string): string[] {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const full = path.join(dir, entry);
      if (statSync(full).isDirectory()) walk(full);
      else if (/\.(ts|tsx|js|jsx|mjs|css)$/.test(entry) && !/\.test\./.test(entry)) {
        for (const match of readFileSync(full, 'utf8').matchAll(IMPORT_RE)) {
          const specifier = match.at(1); // IMPORT_RE always fills its one group
          const name = specifier === undefined ? null : packageNameOf(specifier);
          if (name) names.add(name);
        }
      }
    }
  };
  if (existsSync(rendererSrc)) walk(rendererSrc);
  return [...names].sort();
}

/** Node's lookup: `from`'s own node_modules first, then each parent's, then the top level. */
function resolveIn(packages: Readonly<Record<string, LockPackage | undefined>>, from: string, name: string): string | null {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return null;
    const index = base.lastIndexOf('/node_modules/');
    base = index < 0 ? '' : base.slice(0, index);
  }
}

function readText(root: string, key: string): string | undefined {
  const dir = path.join(root, key);
  if (!existsSync(dir)) return undefined;
  const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.(md|txt|markdown))?$/i.test(f) || /^licen[cs]e[-.]/i.test(f));
  if (!file) return undefined;
  const text = readFileSync(path.join(dir, file), 'utf8');
  return text.length > 20_000 ? `${text.slice(0, 20_000)}\n…` : text;
}

function homepageOf(root: string, key: string): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(path.join(root, key, 'package.json'), 'utf8')) as { homepage?: string; repository?: string | { url?: string } };
    const repo = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
    const url = pkg.homepage ?? repo;
    return url ? url.replace(/^git\+/, '').replace(/\.git$/, '') : undefined;
  } catch {
    return undefined;
  }
}

/** Every shipped package with its licence, from `root`/package-lock.json (and node_modules for texts). */
export function collectLicenses(root: string, options: { texts?: boolean } = {}): LicenceEntry[] {
  const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockPackage> };
  const packages = lock.packages;
  /** A package by its lock key (undefined when the lock has no such key). */
  const lookup = (key: string): LockPackage | undefined => packages[key];
  const out = new Map<string, LicenceEntry>();
  const add = (key: string, info: LockPackage, scope: LicenceEntry['scope']) => {
    const name = key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const id = `${name}@${String(info.version)}`;
    if (out.has(id)) return false;
    out.set(id, {
      name,
      version: info.version ?? '',
      license: info.license ?? 'UNKNOWN',
      scope,
      ...(options.texts ? { homepage: homepageOf(root, key), text: readText(root, key) } : {}),
    });
    return true;
  };
  // Server: the production dependency tree (what electron-builder puts in the app's node_modules).
  for (const [key, info] of Object.entries(packages)) {
    if (key && key.includes('node_modules/') && !info.dev && !info.devOptional) add(key, info, 'server');
  }
  // UI: what the renderer imports, and what those packages need.
  const queue = uiImports(path.join(root, 'renderer', 'src'))
    .map((name) => resolveIn(packages, '', name))
    .filter((key): key is string => key !== null);
  const seen = new Set<string>();
  for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
    if (seen.has(key)) continue;
    seen.add(key);
    const info = lookup(key);
    if (!info) continue; // resolveIn only queues keys the lock has
    add(key, info, 'ui');
    for (const dep of Object.keys({ ...info.dependencies, ...info.optionalDependencies })) {
      const resolved = resolveIn(packages, key, dep);
      if (resolved) queue.push(resolved);
    }
  }
  // Runtime: Electron itself and the Chromium inside it.
  const electron = lookup('node_modules/electron');
  if (electron) {
    out.set(`electron@${String(electron.version)}`, {
      name: 'electron',
      version: electron.version ?? '',
      license: electron.license ?? 'MIT',
      scope: 'runtime',
      homepage: 'https://www.electronjs.org',
    });
    out.set('chromium', {
      name: 'chromium',
      version: '',
      license: 'BSD-3-Clause and others (LICENSES.chromium.html next to the app)',
      scope: 'runtime',
      homepage: 'https://www.chromium.org',
    });
  }
  return [...out.values()].sort((a, b) => a.scope.localeCompare(b.scope) || a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
}

export function summarize(entries: readonly LicenceEntry[]): LicenceSummary {
  const counts = new Map<string, number>();
  for (const entry of entries) counts.set(entry.license, (counts.get(entry.license) ?? 0) + 1);
  return {
    total: entries.length,
    byLicense: [...counts].map(([license, count]) => ({ license, count })).sort((a, b) => b.count - a.count || a.license.localeCompare(b.license)),
  };
}
