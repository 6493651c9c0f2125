/**
 * `npm install` prints no EBADENGINE warning (issue 36, finding 19: two, from @axe-core/playwright
 * 4.14 and ntfy 1.15, which ask for Node 22 and 21 while PennyPost runs on Node >= 20.19): every
 * package of the lock file that names the Node versions it runs on accepts the oldest one
 * PennyPost supports, and the one running this test. Optional packages npm may drop (Electron)
 * are held to the same rule.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const read = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')) as Record<string, unknown>;

describe('engines agree', () => {
  it('every locked package runs on the oldest Node PennyPost supports and on this one', () => {
    const own = (read('package.json').engines as { node: string }).node;
    const oldest = semver.minVersion(own)?.version ?? '';
    expect(oldest).toBe('20.19.0');
    const packages = read('package-lock.json').packages as Record<string, { version?: string; engines?: unknown }>;
    const refused: string[] = [];
    for (const [where, entry] of Object.entries(packages)) {
      const node = typeof entry.engines === 'object' && entry.engines !== null ? (entry.engines as { node?: unknown }).node : undefined;
      if (typeof node !== 'string' || where === '') continue;
      for (const version of [oldest, process.versions.node]) {
        if (!semver.satisfies(version, node)) refused.push(`${where.replace(/^.*node_modules\//, '')}@${entry.version ?? '?'} wants node ${node}, not ${version}`);
      }
    }
    expect(refused).toEqual([]);
  });
});
