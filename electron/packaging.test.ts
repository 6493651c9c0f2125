/**
 * The electron-builder configuration: valid by electron-builder's own schema, and naming every
 * file the desktop app needs (checked against a real `npm run build:electron` output). Building
 * the unpacked app needs a local Electron dist (ELECTRON_DIST or node_modules/electron/dist); where
 * there is none — machines that cannot download Electron — that one test is skipped.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM scripts without types
import { buildElectron, ICON_FILES } from '../scripts/build-electron.mjs';
// @ts-expect-error plain ESM scripts without types
import { distPlan, localElectronDist, unreachableMessage } from '../scripts/dist.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const builderRequire = createRequire(require.resolve('app-builder-lib'));
const configModule = require('app-builder-lib/out/util/config/config.js') as {
  getConfig(projectDir: string, configPath: string | null, configFromOptions: unknown): Promise<Record<string, any>>;
  validateConfiguration(config: unknown, debugLogger: { isEnabled: boolean; add(): void }): Promise<void>;
};
const minimatchModule = builderRequire('minimatch') as { minimatch?: (p: string, g: string, o?: object) => boolean };
const minimatch = minimatchModule.minimatch ?? (minimatchModule as unknown as (p: string, g: string, o?: object) => boolean);
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  main: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  optionalDependencies: { electron: string };
};

let config: Record<string, any>;
/** `files` as electron-builder applies it: production node_modules are always added, then the filters. */
let filePatterns: string[];
beforeAll(async () => {
  config = await configModule.getConfig(root, null, null);
  filePatterns = ['**/node_modules/**/*', ...(config.files as (string | { filter?: string[] })[]).flatMap((f) => (typeof f === 'string' ? [f] : (f.filter ?? [])))];
  await buildElectron();
}, 60_000);

/** electron-builder's rule: the last matching pattern decides (a `!` pattern excludes). */
function shipped(file: string, patterns: string[]): boolean {
  let included = false;
  for (const pattern of patterns) {
    const negated = pattern.startsWith('!');
    if (minimatch(file, negated ? pattern.slice(1) : pattern, { dot: true })) included = !negated;
  }
  return included;
}

function pngSize(file: string): { width: number; height: number } {
  const bytes = readFileSync(file);
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('electron-builder configuration', () => {
  it("is valid by electron-builder's own schema (and the check catches a typo)", async () => {
    await expect(configModule.validateConfiguration(config, { isEnabled: false, add() {} })).resolves.toBeUndefined();
    const typo = { ...config, nsis: { ...config.nsis, oneClik: false } };
    await expect(configModule.validateConfiguration(typo, { isEnabled: false, add() {} })).rejects.toThrow(/configuration\.nsis/);
  });

  it('builds AppImage + deb, NSIS and dmg with icons and metadata from build/', () => {
    expect(config.productName).toBe('PennyPost');
    expect(config.appId).toMatch(/^[a-z]+(\.[a-z]+)+$/);
    expect(config.directories.buildResources).toBe('build');
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.win.target).toEqual(['nsis']);
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.linux.maintainer).toMatch(/<.+@.+>/);
    expect(config.publish).toBeNull();
    // Windows delivers notifications only to the AppUserModelId the installer registered.
    expect(readFileSync(path.join(root, 'electron', 'main.ts'), 'utf8')).toContain(`app.setAppUserModelId('${config.appId}')`);
    expect(pngSize(path.join(root, config.win.icon))).toEqual({ width: 512, height: 512 });
    expect(pngSize(path.join(root, config.mac.icon))).toEqual({ width: 512, height: 512 });
    const linuxIcons = readdirSync(path.join(root, config.linux.icon)).filter((f) => f.endsWith('.png'));
    expect(linuxIcons.length).toBeGreaterThanOrEqual(6);
    for (const icon of linuxIcons) {
      const [w, h] = icon.replace('.png', '').split('x').map(Number);
      expect(pngSize(path.join(root, config.linux.icon, icon))).toEqual({ width: w, height: h });
    }
    expect(existsSync(path.join(root, config.mac.entitlements))).toBe(true);
    expect(readFileSync(path.join(root, config.mac.entitlements), 'utf8')).toContain('com.apple.security.cs.allow-jit');
  });

  it('ships every file the app loads: main bundle, preload, icons, the UI and the licence list', () => {
    const files = filePatterns;
    const needed = [
      'package.json',
      pkg.main,
      'dist/electron/preload.cjs',
      ...ICON_FILES.map((f: string) => `dist/electron/${f}`),
      'dist/licenses.json',
      // The UI (npm run build): its index and hashed bundles.
      'dist/renderer/index.html',
      'dist/renderer/assets/index-0a1b2c.js',
      'dist/renderer/assets/index-0a1b2c.css',
    ];
    expect(pkg.main).toBe('dist/electron/main.mjs');
    for (const file of needed) {
      if (!file.startsWith('dist/renderer/')) expect(existsSync(path.join(root, file)), `${file} is built`).toBe(true);
      expect(shipped(file, files), `${file} is packaged`).toBe(true);
    }
    // Source maps, TypeScript sources and the test suite stay out.
    // Electron's npm package (an optional dependency, so counted as production) and its downloader too.
    for (const file of [
      'dist/electron/main.mjs.map',
      'electron/main.ts',
      'server/server.ts',
      'electron/shell.test.ts',
      'e2e/home.spec.ts',
      'node_modules/electron/index.js',
      'node_modules/@electron/get/dist/cjs/index.js',
      'dist/server/cli.cjs',
    ]) {
      expect(shipped(file, files), `${file} is not packaged`).toBe(false);
    }
  });

  it('everything the main bundle imports is a production dependency (electron-builder ships exactly those)', () => {
    const bundle = readFileSync(path.join(root, pkg.main), 'utf8');
    // each import matches one of the two alternatives; a require() or import() has its one group
    const specifiers = new Set([...bundle.matchAll(/^\s*import\s[^;]*?from\s*"([^"]+)"|^\s*import\s*"([^"]+)"/gm)].flatMap((m) => m.at(1) ?? m.at(2) ?? []));
    for (const [, specifier] of bundle.matchAll(/\b(?:require|import)\(\s*"([^"]+)"\s*\)/g)) if (specifier) specifiers.add(specifier);
    expect(specifiers.size).toBeGreaterThan(10);
    const builtins = new Set(builtinModules);
    for (const specifier of specifiers) {
      if (specifier.startsWith('node:') || builtins.has(specifier) || specifier === 'electron') continue;
      const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] ?? specifier);
      expect(pkg.dependencies[name], `${specifier} must be in "dependencies" to be packaged`).toBeDefined();
    }
    const preload = readFileSync(path.join(root, 'dist/electron/preload.cjs'), 'utf8');
    expect([...preload.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1])).toEqual(['electron']);
  });

  it('packages classic-level with its N-API prebuilds outside the asar archive, and never rebuilds it', () => {
    expect(pkg.dependencies['classic-level']).toBeDefined();
    expect(config.asar).toBe(true);
    expect(config.npmRebuild).toBe(false);
    const prebuilds = path.join(root, 'node_modules', 'classic-level', 'prebuilds');
    const binaries = readdirSync(prebuilds).flatMap((dir) => readdirSync(path.join(prebuilds, dir)).map((f) => `node_modules/classic-level/prebuilds/${dir}/${f}`));
    expect(binaries.some((f) => f.includes('linux-x64') && f.endsWith('.node'))).toBe(true);
    expect(binaries.some((f) => f.includes('win32-x64'))).toBe(true);
    expect(binaries.some((f) => f.includes('darwin-x64+arm64'))).toBe(true);
    for (const file of binaries) {
      expect(shipped(file, filePatterns), `${file} is packaged`).toBe(true);
      expect(
        config.asarUnpack.some((pattern: string) => minimatch(file, pattern, { dot: true })),
        `${file} is unpacked`,
      ).toBe(true);
    }
    // Its JavaScript loads from the archive; only LevelDB's C++ sources are left out.
    for (const file of ['node_modules/classic-level/index.js', 'node_modules/classic-level/binding.js', 'node_modules/classic-level/package.json']) {
      expect(shipped(file, filePatterns), file).toBe(true);
    }
    expect(shipped('node_modules/classic-level/deps/leveldb/leveldb-1.20/db/db_impl.cc', filePatterns)).toBe(false);
  });
});

describe('npm run dist (plan and fail-fast message)', () => {
  const noDist = { ELECTRON_DIST: path.join(root, 'no-such-electron') };

  it('without a local Electron it needs to download Electron and, for installers, the packaging tools', () => {
    const plan = distPlan({ args: [], env: noDist, platform: 'linux', rootDir: path.join(root, 'electron', '..') });
    if (localElectronDist(noDist, 'linux', root)) return; // a machine with node_modules/electron/dist: covered below
    expect(plan.electronDist).toBeNull();
    expect(plan.downloads.map((d: { what: string }) => d.what)).toEqual([
      `Electron ${pkg.optionalDependencies.electron} for linux`,
      "electron-builder's packaging tools (AppImage, deb, NSIS or dmg)",
    ]);
    expect(plan.builderArgs).toEqual(['--publish', 'never', '--linux']);
    expect(distPlan({ args: ['--dir'], env: noDist, platform: 'win32', rootDir: root }).downloads).toHaveLength(1);
    expect(distPlan({ args: [], env: { ...noDist, ELECTRON_MIRROR: 'https://mirror.example/electron/' }, platform: 'darwin', rootDir: root }).downloads[0].url).toBe(
      'https://mirror.example/electron/',
    );
  });

  it('with a local Electron, --dir needs nothing from the network and passes the dist to electron-builder', () => {
    const fakeDist = path.join(root, 'node_modules', '.cache', 'pp-fake-electron-dist');
    rmSync(fakeDist, { recursive: true, force: true });
    require('node:fs').mkdirSync(fakeDist, { recursive: true });
    require('node:fs').writeFileSync(path.join(fakeDist, 'electron'), '');
    try {
      const plan = distPlan({ args: ['--dir'], env: { ELECTRON_DIST: fakeDist }, platform: 'linux', rootDir: root });
      expect(plan.downloads).toEqual([]);
      expect(plan.builderArgs).toEqual(['--publish', 'never', '--linux', '--dir', `-c.electronDist=${fakeDist}`, `-c.electronVersion=${pkg.optionalDependencies.electron}`]);
    } finally {
      rmSync(fakeDist, { recursive: true, force: true });
    }
  });

  it('says what could not be downloaded, from where, and what to do instead', () => {
    const plan = distPlan({ args: [], env: noDist, platform: 'linux', rootDir: root });
    const message = unreachableMessage(
      plan.downloads.map((d: object) => ({ ...d, error: 'ENOTFOUND' })),
      plan,
    );
    expect(message).toMatch(/^npm run dist cannot build PennyPost's installers here: it needs to download/);
    expect(message).toContain('from https://github.com/electron/electron/releases/download/ (ENOTFOUND)');
    expect(message).toContain('ELECTRON_DIST');
    expect(message).toContain('npm run dist -- --dir');
  });

  it('fails fast, before building anything, when the downloads cannot be reached', () => {
    const result = spawnSync(process.execPath, [path.join(root, 'scripts', 'dist.mjs')], {
      cwd: root,
      encoding: 'utf8',
      timeout: 20_000,
      // Unreachable on purpose: a closed port on this machine (no traffic leaves it).
      env: { ...process.env, ...noDist, ELECTRON_MIRROR: 'http://127.0.0.1:1/', ELECTRON_BUILDER_BINARIES_MIRROR: 'http://127.0.0.1:1/' },
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('cannot build PennyPost');
    expect(result.stdout).not.toContain('building PennyPost');
  });
});

const electronDist = localElectronDist(process.env, process.platform, root) as string | null;

describe('the unpacked desktop app (electron-builder --dir)', () => {
  it.skipIf(!electronDist)(
    `builds against the local Electron and contains the bundle, the UI and classic-level's native binding${electronDist ? '' : ' — SKIPPED: no local Electron dist here (set ELECTRON_DIST, or install Electron so node_modules/electron/dist exists); this machine cannot download it'}`,
    () => {
      const build = spawnSync(
        process.execPath,
        [
          require.resolve('electron-builder/cli.js'),
          '--dir',
          '--publish',
          'never',
          `-c.electronDist=${String(electronDist)}`,
          `-c.electronVersion=${pkg.optionalDependencies.electron}`,
          '-c.directories.output=out/test-unpacked',
        ],
        {
          cwd: root,
          encoding: 'utf8',
          timeout: 300_000,
        },
      );
      expect(build.status, build.stderr).toBe(0);
      const outDir = path.join(root, 'out', 'test-unpacked');
      const unpacked = readdirSync(outDir).find((d) => d.endsWith('-unpacked') || d === 'mac' || d === 'mac-arm64');
      expect(unpacked).toBeDefined();
      const resources = process.platform === 'darwin' ? path.join(outDir, unpacked!, 'PennyPost.app', 'Contents', 'Resources') : path.join(outDir, unpacked!, 'resources');
      const asar = require('@electron/asar') as { listPackage(file: string, options: object): string[] };
      const listed = asar.listPackage(path.join(resources, 'app.asar'), {}).map((f) => f.replace(/\\/g, '/'));
      for (const file of [
        '/package.json',
        '/dist/electron/main.mjs',
        '/dist/electron/preload.cjs',
        '/dist/licenses.json',
        '/node_modules/express/package.json',
        '/node_modules/rxdb/package.json',
      ]) {
        expect(listed, file).toContain(file);
      }
      expect(existsSync(path.join(resources, 'app.asar.unpacked', 'node_modules', 'classic-level', 'prebuilds'))).toBe(true);
      rmSync(outDir, { recursive: true, force: true });
    },
  );
});
