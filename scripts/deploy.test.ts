/**
 * docs/deploy.md, followed as written: the release tarball (`npm run pack:server`) is unpacked and
 * installed with the doc's own commands (read from its code blocks, not copied here), then the
 * server is started the way deploy/pennypost.service starts it (its ExecStart= and Environment=,
 * /opt/pennypost and /var/lib pointed at temp dirs), answers /healthz and serves the UI, and stops
 * on SIGTERM with exit 0. Also: the unit embedded in the doc is the unit in deploy/, and the unit,
 * the Caddy and the nginx examples pass their tools' own checks where those tools are installed.
 *
 * Real processes, a real `npm ci` (from npm's cache); Linux only, like the service.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { itemAt } from '../server/lib/item-at';
// @ts-expect-error plain ESM script without types
import { packServer } from './pack-server.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOC = readFileSync(path.join(ROOT, 'docs', 'deploy.md'), 'utf8');
const UNIT_FILE = path.join(ROOT, 'deploy', 'pennypost.service');
const UNIT = readFileSync(UNIT_FILE, 'utf8');
const READY = /^PennyPost listening on http:\/\/127\.0\.0\.1:(\d+)\n$/;
/** Build and test tools that a production install must leave out (and Electron, optional). */
const NEVER_IN_RELEASE = ['vite', 'typescript', 'vitest', 'tsx', 'esbuild', '@playwright/test', 'electron', 'electron-builder'];

/* ------------------------------------------------------------------ the doc */

function codeBlocks(markdown: string): Array<{ lang: string; body: string }> {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map(([, lang = '', body = '']) => ({ lang, body }));
}

/** The shell block that holds the release install (the one that sets VERSION and unpacks). */
function installBlock(): string[] {
  const block = codeBlocks(DOC).find((b) => b.lang === 'sh' && /^VERSION=/m.test(b.body) && /tar -xzf/.test(b.body));
  if (!block) throw new Error('docs/deploy.md has no sh block with VERSION= and tar -xzf');
  return block.body.split('\n').filter((line) => line.trim() !== '');
}

/** Every line of the doc's shell blocks that contains `needle`. */
function shellLinesWith(needle: string): string[] {
  return codeBlocks(DOC)
    .filter((b) => b.lang === 'sh')
    .flatMap((b) => b.body.split('\n'))
    .filter((line) => line.includes(needle));
}

/* ------------------------------------------------------------------ the unit */

type Unit = Map<string, Array<[string, string]>>;

function parseUnit(text: string): Unit {
  const sections: Unit = new Map();
  let current: Array<[string, string]> | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[(.+)\]$/.exec(line)?.[1];
    if (section !== undefined) {
      current = [];
      sections.set(section, current);
      continue;
    }
    const eq = line.indexOf('=');
    if (eq < 0 || !current) throw new Error(`not a unit line: ${line}`);
    current.push([line.slice(0, eq).trim(), line.slice(eq + 1).trim()]);
  }
  return sections;
}

function values(unit: Unit, section: string, key: string): string[] {
  return (unit.get(section) ?? []).filter(([k]) => k === key).map(([, v]) => v);
}

function value(unit: Unit, section: string, key: string): string | undefined {
  return values(unit, section, key).at(-1);
}

/** Seconds of a systemd time span such as "30s", "1min 30s", "90". */
function seconds(span: string): number {
  const units: Record<string, number> = { ms: 0.001, s: 1, sec: 1, m: 60, min: 60, h: 3600 };
  let total = 0;
  for (const [, n, u] of span.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]*)/g)) total += Number(n) * (units[u || 's'] ?? NaN);
  return total;
}

/** The unit's specifiers this test knows how to place (%S = /var/lib for a system unit). */
function expand(text: string, stateRoot: string): string {
  const unknown = text.replace(/%%|%S|%C/g, '').match(/%./);
  if (unknown) throw new Error(`unit uses ${unknown[0]}, which this test does not substitute yet`);
  // %S → <root>/var/lib, %C → <root>/var/cache (stateRoot is <root>/var/lib).
  return text
    .replace(/%S/g, stateRoot)
    .replace(/%C/g, path.join(path.dirname(stateRoot), 'cache'))
    .replace(/%%/g, '%');
}

/** Environment= values: space-separated assignments, each optionally in double quotes. */
function environment(unit: Unit, stateRoot: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of values(unit, 'Service', 'Environment')) {
    for (const match of line.matchAll(/"([^"]*)"|(\S+)/g)) {
      const assignment = match.at(1) ?? match.at(2); // one of the two alternatives matched
      if (assignment === undefined) continue;
      const eq = assignment.indexOf('=');
      env[assignment.slice(0, eq)] = expand(assignment.slice(eq + 1), stateRoot);
    }
  }
  return env;
}

/* ------------------------------------------------------------------ processes */

function has(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

interface Started {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const started: Started[] = [];
const workDirs: string[] = [];

function start(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Started {
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const entry = { child, stdout: () => stdout, stderr: () => stderr, exit };
  started.push(entry);
  return entry;
}

async function readyPort(server: Started, timeoutMs = 30_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.stdout().includes('\n')) {
      const match = READY.exec(server.stdout());
      if (!match) throw new Error(`unexpected stdout: ${JSON.stringify(server.stdout())}\n${server.stderr()}`);
      return Number(match[1]);
    }
    if (server.child.exitCode !== null) throw new Error(`exited (${server.child.exitCode}) before the ready line:\n${server.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no ready line within ${timeoutMs} ms:\n${server.stderr()}`);
}

/** Every file under `dir` (node_modules aside) with its size and modification time. */
function snapshot(dir: string, base = dir): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') out.push(...snapshot(full, base));
    } else {
      const st = statSync(full);
      out.push(`${path.relative(base, full)} ${st.size} ${st.mtimeMs}`);
    }
  }
  return out.sort();
}

afterAll(() => {
  for (const s of started) {
    if (s.child.exitCode === null && s.child.signalCode === null) {
      try {
        process.kill(-s.child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  for (const dir of workDirs) rmSync(dir, { recursive: true, force: true });
});

/* ------------------------------------------------------------------ tests */

describe('docs/deploy.md and deploy/pennypost.service', () => {
  const unit = parseUnit(UNIT);

  it('the unit shown in the doc is deploy/pennypost.service, byte for byte', () => {
    const shown = codeBlocks(DOC).filter((b) => b.body.includes('[Service]'));
    expect(shown).toHaveLength(1);
    expect(shown[0]?.body).toBe(UNIT);
  });

  it('the doc gives each command once: every unpack and every `npm ci --omit=dev` line is the same', () => {
    expect(new Set(shellLinesWith('tar -xzf pennypost-server')).size).toBe(1);
    expect(new Set(shellLinesWith('npm ci --omit=dev')).size).toBe(1);
    expect(shellLinesWith('npm ci --omit=dev')[0]).toBe('sudo npm ci --omit=dev --omit=optional');
  });

  it('the unit runs hardened as its own user, restarts on failure, and outlasts the 15 s shutdown', () => {
    const s = (key: string) => value(unit, 'Service', key);
    expect(s('User') === 'pennypost' || s('DynamicUser') === 'yes').toBe(true);
    expect(s('StateDirectory')).toBe('pennypost');
    expect(s('ExecStart')).toMatch(/^\/usr\/bin\/node \/opt\/pennypost\/bin\/pennypost\.mjs serve /);
    expect(s('ExecStart')).toMatch(/ --host 127\.0\.0\.1( |$)/);
    expect(s('ExecStart')).toMatch(/ --port 5733( |$)/);
    for (const [key, expected] of Object.entries({
      Type: /^(simple|exec)$/,
      ProtectSystem: /^strict$/,
      ProtectHome: /^(yes|true)$/,
      PrivateTmp: /^(yes|true)$/,
      NoNewPrivileges: /^(yes|true)$/,
      Restart: /^on-failure$/,
      KillSignal: /^SIGTERM$/,
      UMask: /^0077$/,
      StandardOutput: /^journal$/,
    })) {
      expect(s(key), key).toMatch(expected);
    }
    expect(seconds(s('TimeoutStopSec')!)).toBeGreaterThan(15);
    expect(seconds(s('RestartSec')!)).toBeGreaterThan(0);
    // V8's JIT needs W+X memory: Node does not start under it.
    expect(s('MemoryDenyWriteExecute') ?? 'no').not.toMatch(/^(yes|true)$/);
    expect(value(unit, 'Install', 'WantedBy')).toBe('multi-user.target');
  });

  it.runIf(has('systemd-analyze'))('systemd-analyze verify finds nothing to say about the unit', () => {
    const verify = spawnSync('systemd-analyze', ['verify', UNIT_FILE], { encoding: 'utf8' });
    let complaints = `${verify.stdout}${verify.stderr}`.split('\n').filter((line) => line.trim() !== '');
    // Where node is installed elsewhere the doc says to change ExecStart=; only that may differ here.
    if (!existsSync('/usr/bin/node')) complaints = complaints.filter((line) => !line.includes('/usr/bin/node'));
    expect(verify.status).toBe(0);
    expect(complaints).toEqual([]);
  });

  it.runIf(has('caddy'))('the Caddy example is a valid Caddyfile', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pennypost-caddy-'));
    workDirs.push(dir);
    const blocks = codeBlocks(DOC).filter((b) => b.lang === 'caddy');
    expect(blocks).toHaveLength(1);
    writeFileSync(path.join(dir, 'Caddyfile'), itemAt(blocks, 0).body);
    const check = spawnSync('caddy', ['validate', '--adapter', 'caddyfile', '--config', path.join(dir, 'Caddyfile')], { encoding: 'utf8' });
    expect(check.status, check.stderr).toBe(0);
  });

  it.runIf(has('nginx') && has('openssl'))('the nginx example passes nginx -t (with a throwaway certificate)', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pennypost-nginx-'));
    workDirs.push(dir);
    const blocks = codeBlocks(DOC).filter((b) => b.lang === 'nginx');
    expect(blocks).toHaveLength(1);
    const cert = spawnSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=pennypost.example.com',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { encoding: 'utf8' },
    );
    expect(cert.status, cert.stderr).toBe(0);
    const site = itemAt(blocks, 0)
      .body.replace(/\/etc\/letsencrypt\/live\/[^/]+\/fullchain\.pem/, path.join(dir, 'cert.pem'))
      .replace(/\/etc\/letsencrypt\/live\/[^/]+\/privkey\.pem/, path.join(dir, 'key.pem'));
    writeFileSync(path.join(dir, 'nginx.conf'), `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\nhttp {\naccess_log off;\n${site}}\n`);
    const check = spawnSync('nginx', ['-t', '-p', dir, '-c', path.join(dir, 'nginx.conf')], { encoding: 'utf8' });
    expect(check.status, check.stderr).toBe(0);
  });

  it.runIf(process.platform === 'linux')(
    'release tarball → unpacked and installed as the doc says → started as the unit starts it: /healthz, the UI, SIGTERM → exit 0',
    async () => {
      const work = mkdtempSync(path.join(os.tmpdir(), 'pennypost-deploy-'));
      workDirs.push(work);
      const opt = path.join(work, 'opt', 'pennypost');
      const stateRoot = path.join(work, 'var', 'lib');
      const home = path.join(work, 'home');
      mkdirSync(home);

      // `npm run pack:server`, into a temp out/ instead of the checkout's.
      const release = (await packServer({ outDir: path.join(work, 'out') })) as { version: string; name: string; tarball: string };
      const listing = spawnSync('tar', ['-tvzf', release.tarball], { encoding: 'utf8' }).stdout.trim().split('\n');
      const names = listing.map((line) => line.split(/\s+/).slice(5).join(' '));
      expect(names.every((n) => n === `${release.name}/` || n.startsWith(`${release.name}/`))).toBe(true);
      for (const file of [
        'bin/pennypost.mjs',
        'dist/server/cli.cjs',
        'dist/renderer/index.html',
        'package.json',
        'package-lock.json',
        'scripts/electron-types.mjs',
        'deploy/pennypost.service',
        'docs/deploy.md',
      ]) {
        expect(names, file).toContain(`${release.name}/${file}`);
      }
      // No sources: bin/pennypost.mjs then runs the build as it is (a source checkout would rebuild).
      expect(names.filter((n) => /^\/(server|renderer|electron|node_modules)\/|^\/scripts\/build-server\.mjs$/.test(n.slice(release.name.length)))).toEqual([]);
      // Recorded as root's, so unpacking as root never hands the code to some other user.
      expect(listing.filter((line) => line.split(/\s+/)[1] !== '0/0')).toEqual([]);

      // The doc's install block, run as written: copied tarball in the current folder, sudo dropped
      // (the test runs as the user it runs as), /opt/pennypost moved into the temp dir, and npm ci
      // told to use the cache quietly (flags that change nothing about what gets installed).
      copyFileSync(release.tarball, path.join(home, path.basename(release.tarball)));
      const script = installBlock().map((line) => {
        let cmd = line.replace(/\s+#.*$/, '').replace(/^sudo /, '');
        if (/^VERSION=/.test(cmd)) cmd = `VERSION=${release.version}`;
        cmd = cmd.replaceAll('/opt/pennypost', opt);
        if (/^npm ci /.test(cmd)) cmd += ' --no-audit --no-fund --prefer-offline';
        return cmd;
      });
      expect(script.some((cmd) => cmd.startsWith('tar -xzf '))).toBe(true);
      expect(script.some((cmd) => cmd.startsWith('npm ci --omit=dev --omit=optional '))).toBe(true);
      const install = spawnSync('sh', ['-e', '-c', script.join('\n')], { cwd: home, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
      expect(install.status, `${install.stdout}\n${install.stderr}`).toBe(0);

      // Production dependencies only.
      expect(existsSync(path.join(opt, 'node_modules', 'classic-level', 'package.json'))).toBe(true);
      const pkg = JSON.parse(readFileSync(path.join(opt, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
      const lock = JSON.parse(readFileSync(path.join(opt, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean } | undefined> };
      const devOnly = Object.keys(pkg.devDependencies).filter((name) => lock.packages[`node_modules/${name}`]?.dev);
      const present = [...new Set([...devOnly, ...NEVER_IN_RELEASE])].filter((name) => existsSync(path.join(opt, 'node_modules', name)));
      expect(present).toEqual([]);

      // Started the way systemd starts it: ExecStart= with its Environment=, WorkingDirectory= and
      // StateDirectory= (created 0700, as systemd does), the environment of a system service, port 0.
      const stateDir = path.join(stateRoot, value(unit, 'Service', 'StateDirectory')!);
      mkdirSync(stateDir, { recursive: true, mode: 0o700 });
      const cacheDir = path.join(path.dirname(stateRoot), 'cache', value(unit, 'Service', 'CacheDirectory')!);
      mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
      const [, ...args] = expand(value(unit, 'Service', 'ExecStart')!, stateRoot)
        .split(/\s+/)
        .map((arg) => arg.replace(/^\/opt\/pennypost(?=\/|$)/, opt));
      args[args.indexOf('--port') + 1] = '0';
      const unitEnv = environment(unit, stateRoot);
      expect(unitEnv.PENNYPOST_DATA_DIR).toBe(stateDir);
      const workingDirectory = value(unit, 'Service', 'WorkingDirectory');
      const before = snapshot(opt);
      const t0 = Date.now();
      const server = start(process.execPath, args, {
        cwd: workingDirectory ? expand(workingDirectory, stateRoot) : '/',
        env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOME: stateDir, LANG: 'C.UTF-8', ...unitEnv },
      });
      const port = await readyPort(server);
      const startupMs = Date.now() - t0;

      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });
      const page = await fetch(`http://127.0.0.1:${port}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await page.text()).toBe(readFileSync(path.join(opt, 'dist', 'renderer', 'index.html'), 'utf8'));

      process.kill(server.child.pid!, 'SIGTERM');
      expect(await server.exit).toEqual({ code: 0, signal: null });
      // Exactly the ready line on stdout; stderr only JSON log lines (no rebuild attempt, no notices).
      expect(server.stdout()).toBe(`PennyPost listening on http://127.0.0.1:${port}\n`);
      const stderrLines = server
        .stderr()
        .split('\n')
        .filter((line) => line !== '');
      expect(
        stderrLines.filter((line) => !line.startsWith('{')),
        server.stderr(),
      ).toEqual([]);
      for (const line of stderrLines) expect(() => JSON.parse(line), line).not.toThrow();
      // The data went to the state dir, and the code (read-only under ProtectSystem=strict) was not touched.
      expect(existsSync(path.join(stateDir, 'db'))).toBe(true);
      // V8's code cache went to the unit's cache directory.
      expect(existsSync(path.join(cacheDir, 'cli.cjs.v8cache'))).toBe(true);
      expect(snapshot(opt)).toEqual(before);
      console.log(`deploy: release ${release.name}, server ready in ${startupMs} ms`);
    },
    180_000,
  );
});
