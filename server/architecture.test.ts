import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allDomains } from './domains';

/**
 * The structural rules of docs/architecture.md that an import graph cannot show (the layer rules
 * themselves are checked by dependency-cruiser in `npm test`, `npm run lint:layers`).
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const SOURCE_ROOTS = ['server', 'electron', 'renderer/src', 'renderer/scripts', 'scripts', 'bench', 'e2e'];
const MAX_LINES = 600;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') out.push(...sourceFiles(rel)); // bench/actual/ installs its own
    } else if (/\.(ts|tsx|mts|cts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

const isTest = (file: string) => /\.test\.tsx?$|\.spec\.ts$|(^|\/)(tests|test-support)\//.test(file);

describe('the structure of the code', () => {
  const files = SOURCE_ROOTS.filter((dir) => statSync(path.join(ROOT, dir), { throwIfNoEntry: false })?.isDirectory()).flatMap(sourceFiles);

  it(`has no source file over ${MAX_LINES} lines`, () => {
    const long = files
      .map((file) => ({ file, lines: readFileSync(path.join(ROOT, file), 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });

  it("lets no domain read another domain's collection (it calls that domain's service)", () => {
    const owner = new Map<string, string>();
    for (const domain of allDomains()) for (const def of domain.collections ?? []) owner.set(def.name, domain.name);
    const folderOf = new Map(allDomains().map((d) => [d.name, d.name]));
    const trespasses: string[] = [];
    for (const file of files.filter((f) => !isTest(f))) {
      const match = /^server\/([a-z-]+)\//.exec(file) ?? (file.startsWith('electron/') ? [file, 'electron'] : null);
      if (!match) continue;
      const folder = match[1];
      if (folder !== 'electron' && !folderOf.has(folder)) continue; // the ground, the frame and the top
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      for (const found of text.matchAll(/\.collection(?:<[^>]*>)?\(\s*'([a-z_]+)'|(?:rx|db)\.collections(?:\[\s*'([a-z_]+)'\s*\]|\.([a-z_]+)\b)/g)) {
        const [, a, b, c] = found as (string | undefined)[]; // one of the three groups matched
        const name = (a ?? b ?? c)!;
        const ownedBy = owner.get(name);
        if (ownedBy && ownedBy !== folder) trespasses.push(`${file} reads "${name}" (owned by ${ownedBy})`);
      }
    }
    expect(trespasses).toEqual([]);
  });
});
