import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { actionsOf, checkDomainOrder } from './domain';
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

  it('lets every domain reach only the services it declares: needs as app.services, uses through optionalService', () => {
    const domains = allDomains();
    const names = new Set(domains.map((d) => d.name));
    // Which domain publishes each service: the ServiceMap entries each domain's folder declares.
    const ownerOfService = new Map<string, string>();
    for (const file of files.filter((f) => !isTest(f))) {
      const folder = /^server\/([a-z-]+)\//.exec(file)?.[1];
      if (!folder || !names.has(folder)) continue;
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      for (const block of text.matchAll(/interface ServiceMap \{([\s\S]*?)\n {2}\}/g)) {
        for (const entry of block.at(1)!.matchAll(/^\s+(\w+)\??:/gm)) ownerOfService.set(entry.at(1)!, folder);
      }
    }
    expect(ownerOfService.size).toBeGreaterThan(10);
    const problems: string[] = [];
    for (const domain of domains) {
      const needs = new Set(domain.needs ?? []);
      const uses = new Set(domain.uses ?? []);
      for (const name of [...needs, ...uses]) if (!names.has(name)) problems.push(`${domain.name} declares "${name}", which is no domain`);
      for (const name of needs) if (uses.has(name)) problems.push(`${domain.name} both needs and uses ${name}`);
      const own = files.filter((f) => f.startsWith(`server/${domain.name}/`) && !isTest(f));
      for (const file of own) {
        const text = readFileSync(path.join(ROOT, file), 'utf8');
        if (/services as\b|as (?:Partial<)?ServiceMap\b|:\s*Partial<ServiceMap>/.test(text)) problems.push(`${file} casts app.services`);
        for (const found of text.matchAll(/\bservices\.(?<direct>\w+)|liveService\(\s*[\w.]+,\s*'(?<live>\w+)'\)/g)) {
          const service = found.groups?.direct ?? found.groups?.live ?? '';
          const owner = ownerOfService.get(service);
          if (owner && owner !== domain.name && !needs.has(owner)) {
            problems.push(
              `${file} uses app.services.${service} of ${owner}: add "${owner}" to the needs of ${domain.name} (or reach it through optionalService and list it in uses)`,
            );
          }
        }
        for (const found of text.matchAll(/optionalService\(\s*[\w.]+,\s*'(\w+)'\)/g)) {
          const service = found.at(1)!;
          const owner = ownerOfService.get(service);
          if (owner && owner !== domain.name && !uses.has(owner) && !needs.has(owner))
            problems.push(`${file} reaches ${service} of ${owner} through optionalService: list "${owner}" in the uses of ${domain.name}`);
        }
      }
    }
    expect(problems).toEqual([]);
    // And the start order keeps every need: each domain starts after those it needs.
    expect(() => checkDomainOrder(domains)).not.toThrow();
  });

  it('refuses a start order in which a domain needs one that starts after it, or is missing', () => {
    expect(() => checkDomainOrder([{ name: 'ledger', needs: ['users'] }, { name: 'users' }])).toThrow('The ledger domain needs the users domain, which starts after it.');
    expect(() => checkDomainOrder([{ name: 'ledger', needs: ['users'] }])).toThrow('which is not part of this server');
    expect(() => checkDomainOrder([{ name: 'users' }, { name: 'ledger', needs: ['users'], uses: ['backup'] }])).not.toThrow();
  });

  it('takes snapshots before writes only where an action declares it (writes: { snapshotFirst })', () => {
    // The backup domain takes snapshots; the pipeline asks it (server/api/write-policies.ts). A domain
    // that called it itself would hide the policy from its action and from docs/api.md.
    const callers = files
      .filter((f) => f.startsWith('server/') && !isTest(f) && !f.startsWith('server/backup/') && f !== 'server/api/write-policies.ts')
      .filter((f) => /\.snapshotBefore\(/.test(readFileSync(path.join(ROOT, f), 'utf8')));
    expect(callers).toEqual([]);
    const declared = actionsOf(allDomains())
      .filter((a) => a.writes?.snapshotFirst)
      .map((a) => a.name)
      .sort();
    expect(declared).toEqual(['accounting.importCsv', 'import.commit', 'import.finish', 'ledger.restore']);
  });

  it('folds text for comparison in one place (server/lib/fold-text.ts)', () => {
    const folders = files
      .filter((f) => f.startsWith('server/') && !isTest(f) && f !== 'server/lib/fold-text.ts')
      .filter((f) => /\.normalize\('NFKC'\)(\.trim\(\))?\.toLowerCase\(\)/.test(readFileSync(path.join(ROOT, f), 'utf8')));
    expect(folders).toEqual([]);
  });

  it('makes every stored record in the record factory: no other module writes searchText', () => {
    const writers = files
      .filter((f) => f.startsWith('server/') && !isTest(f) && f !== 'server/ledger/record-factory.ts')
      .filter((f) => /\bsearchText\s*(:|=(?!=))/.test(readFileSync(path.join(ROOT, f), 'utf8').replace(/^\s*(\/\/|\*).*$/gm, '')));
    // The ledger's read-side shapes (views, snapshots) hold a copy of the stored searchText; they write no record.
    const readSide = ['server/ledger/entry.ts', 'server/ledger/views.ts', 'server/ledger/view-snapshot.ts', 'server/ledger/schema.ts'];
    expect(writers.filter((f) => !readSide.includes(f))).toEqual([]);
  });

  it('keeps the record factory and what it imports free of Node, for the phone', () => {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      // Type-only imports are erased from a bundle; what runs is what the value imports bring.
      for (const match of text.matchAll(/^import (?!type )[^;]*? from '([^']+)';/gm)) {
        const spec = match.at(1)!;
        expect(spec, `${file} imports ${spec}`).not.toMatch(/^node:|^(fs|path|crypto|os|buffer|child_process|worker_threads)$/);
        if (spec.startsWith('.')) visit(path.relative(ROOT, path.resolve(ROOT, path.dirname(file), spec)) + '.ts');
      }
    };
    visit('server/ledger/record-factory.ts');
    expect([...seen].sort()).toEqual(['server/ledger/record-factory.ts', 'server/ledger/text-limits.ts', 'server/lib/fold-text.ts']);
  });

  describe('the layer check (.dependency-cruiser.cjs)', () => {
    /** Runs the layer check on `files` (paths under the repository) and answers the names of the rules they break. */
    const brokenRules = (files: string[]): string[] => {
      let output: string;
      try {
        output = execFileSync(path.join(ROOT, 'node_modules/.bin/depcruise'), [...files, '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], {
          cwd: ROOT,
          encoding: 'utf8',
        });
      } catch (error) {
        output = (error as { stdout?: string }).stdout ?? ''; // depcruise exits non-zero when it finds violations
      }
      const report = JSON.parse(output) as { summary: { violations: Array<{ rule: { name: string }; from: string; to: string }> } };
      return report.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
    };

    it('knows every folder of server/ as a domain unless it is the ground, the frame or the top', async () => {
      const layers = (await import(path.join(ROOT, '.dependency-cruiser.cjs'))) as { default: { forbidden: Array<{ name: string; from: { path?: string } }> } };
      const rule = layers.default.forbidden.find((r) => r.name === 'domains-meet-at-their-public-surface');
      const folders = readdirSync(path.join(ROOT, 'server'), { withFileTypes: true }).filter((e) => e.isDirectory());
      const domainFolders = folders.filter((f) => new RegExp(rule?.from.path ?? '^$').test(`server/${f.name}/x.ts`)).map((f) => f.name);
      expect(domainFolders.sort()).toEqual(
        allDomains()
          .map((d) => d.name)
          .sort(),
      );
    });

    it("fails when a domain, or a folder made today, imports another domain's internals; passes through index.ts and public.ts", { timeout: 60_000 }, () => {
      const probeDir = path.join(ROOT, 'server', 'zz-layer-probe');
      const inLedger = path.join(ROOT, 'server', 'ledger', 'zz-layer-probe.ts');
      try {
        mkdirSync(probeDir);
        writeFileSync(path.join(probeDir, 'new-domain.ts'), "import { importErrors } from '../imports/errors';\nexport const probe = importErrors;\n");
        writeFileSync(path.join(probeDir, 'through-public.ts'), "import { ledgerErrors } from '../ledger/public';\nexport const probe = ledgerErrors;\n");
        writeFileSync(inLedger, "import { planningErrors } from '../planning/errors';\nexport const probe = planningErrors;\n");
        expect(brokenRules(['server/zz-layer-probe', 'server/ledger/zz-layer-probe.ts'])).toEqual([
          'domains-meet-at-their-public-surface: server/ledger/zz-layer-probe.ts → server/planning/errors.ts',
          'domains-meet-at-their-public-surface: server/zz-layer-probe/new-domain.ts → server/imports/errors.ts',
        ]);
      } finally {
        rmSync(probeDir, { recursive: true, force: true });
        rmSync(inLedger, { force: true });
      }
    });
  });
});
