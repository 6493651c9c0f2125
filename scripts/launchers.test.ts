/**
 * The commands a person runs — `npm start`, `npm run serve`, `pennypost serve` — stop the server
 * with them: SIGTERM to the command, or Ctrl-C in its terminal (SIGINT to the whole process
 * group), ends it with exit code 0, frees the port and the data dir, and leaves no process behind.
 * If npm itself is killed outright, the server notices and shuts down on its own.
 *
 * Real processes, real ports, a real data dir; Linux only (it reads /proc to find leftovers).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempDataDir } from '../server/test-support/test-server';
import { itemAt } from '../server/lib/item-at';
// @ts-expect-error plain ESM script without types
import { ensureServerBuilt } from './build-server.mjs';
// @ts-expect-error plain ESM script without types
import { ensureUi } from './ensure-ui.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const READY = /^PennyPost listening on http:\/\/127\.0\.0\.1:(\d+)$/m;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

interface Launch {
  child: ChildProcess;
  output: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const launched: Launch[] = [];

function launch(command: string, args: string[]): Launch {
  // detached: its own process group, as a job started from a terminal is.
  const child = spawn(command, args, { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const started = { child, output: () => output, exit };
  launched.push(started);
  return started;
}

async function readyPort(started: Launch, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const match = READY.exec(started.output());
    if (match) return Number(match[1]);
    if (started.child.exitCode !== null) throw new Error(`exited before the ready line:\n${started.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no ready line within ${timeoutMs} ms:\n${started.output()}`);
}

/** Pids of every process whose command line mentions `marker` (the test's unique data dir). */
function processesMentioning(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) found.push(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

async function waitUntil(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

function portRefuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

async function healthz(port: number): Promise<unknown> {
  return (await fetch(`http://127.0.0.1:${port}/healthz`)).json();
}

/** After the command ended: the port is free, no process is left, the data dir opens again. */
async function expectNothingLeft(port: number, dataDir: string): Promise<void> {
  expect(await waitUntil(() => processesMentioning(dataDir).length === 0, 5_000), `left running: ${processesMentioning(dataDir).join(', ')}`).toBe(true);
  expect(await portRefuses(port)).toBe(true);
  const again = launch(process.execPath, [path.join(ROOT, 'bin/pennypost.mjs'), 'serve', '--port', '0', '--data-dir', dataDir]);
  const port2 = await readyPort(again);
  expect(await healthz(port2)).toEqual({ status: 'ok' });
  process.kill(again.child.pid!, 'SIGTERM');
  expect((await again.exit).code).toBe(0);
}

const LAUNCHERS: Array<[string, string, (dataDir: string) => string[]]> = [
  ['npm start', npm, (d) => ['start', '--silent', '--', '--port', '0', '--data-dir', d]],
  ['npm run serve', npm, (d) => ['run', 'serve', '--silent', '--', '--port', '0', '--data-dir', d]],
  ['pennypost serve', process.execPath, (d) => [path.join(ROOT, 'bin/pennypost.mjs'), 'serve', '--port', '0', '--data-dir', d]],
];

describe.runIf(process.platform === 'linux')('launchers stop with their command, leaving nothing behind', () => {
  beforeAll(async () => {
    // Built once up front, as `npm test` does before it: the launchers would otherwise build on first use.
    await ensureServerBuilt();
    ensureUi();
  }, 180_000);

  afterEach(() => {
    for (const started of launched.splice(0)) {
      if (started.child.exitCode === null && started.child.signalCode === null) {
        try {
          process.kill(-started.child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  });

  for (const [name, command, argsFor] of LAUNCHERS) {
    it(`${name}: SIGTERM to the command → exit 0, port and data dir free, no process left`, async () => {
      const dataDir = tempDataDir('launch-term');
      const started = launch(command, argsFor(dataDir));
      const port = await readyPort(started);
      expect(await healthz(port)).toEqual({ status: 'ok' });
      process.kill(started.child.pid!, 'SIGTERM');
      expect(await started.exit).toEqual({ code: 0, signal: null });
      await expectNothingLeft(port, dataDir);
    }, 120_000);

    it(`${name}: Ctrl-C in its terminal (SIGINT to the process group) → exit 0, nothing left`, async () => {
      const dataDir = tempDataDir('launch-int');
      const started = launch(command, argsFor(dataDir));
      const port = await readyPort(started);
      process.kill(-started.child.pid!, 'SIGINT');
      expect((await started.exit).code).toBe(0);
      await expectNothingLeft(port, dataDir);
    }, 120_000);
  }

  for (const [name, command, argsFor] of LAUNCHERS.slice(0, 2)) {
    it(`${name}: npm killed outright (SIGKILL) → the server notices and stops by itself`, async () => {
      const dataDir = tempDataDir('launch-kill');
      const started = launch(command, argsFor(dataDir));
      const port = await readyPort(started);
      process.kill(started.child.pid!, 'SIGKILL');
      await started.exit;
      await expectNothingLeft(port, dataDir);
    }, 120_000);
  }

  it('npm start says in one line that the desktop app is not available, then serves', async () => {
    const dataDir = tempDataDir('launch-notice');
    const started = launch(npm, itemAt(LAUNCHERS, 0)[2](dataDir));
    await readyPort(started);
    const notice = started
      .output()
      .split('\n')
      .filter((line) => line.includes('desktop app'));
    // On this machine Electron cannot be downloaded; where it can but no display exists, the same line says so.
    expect(notice).toHaveLength(1);
    expect(notice[0]).toMatch(/^PennyPost: the desktop app is not available here: .+\. Running the headless server instead; open the address below in a browser\.$/);
    process.kill(started.child.pid!, 'SIGTERM');
    expect((await started.exit).code).toBe(0);
  }, 120_000);

  it('pennypost --version prints the version; an unknown command is a usage error (64)', async () => {
    const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const v = launch(process.execPath, [path.join(ROOT, 'bin/pennypost.mjs'), '--version']);
    expect((await v.exit).code).toBe(0);
    expect(v.output().trim()).toBe(`PennyPost ${version}`);
    const bad = launch(process.execPath, [path.join(ROOT, 'bin/pennypost.mjs'), 'frobnicate']);
    expect((await bad.exit).code).toBe(64);
    expect(bad.output()).toMatch(/unknown command "frobnicate"/);
    expect(bad.output()).toMatch(/Usage: pennypost/);
  }, 60_000);

  it('the compiled server has no import() left: the launcher runs it through node:vm, where import() has no loader', () => {
    // With a code cache, vm keeps no loader even when asked (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING
    // crashed `pennypost check` and `repair`); scripts/build-server.mjs turns every import() into require().
    const bundle = readFileSync(path.join(ROOT, 'dist/server/cli.cjs'), 'utf8');
    expect(bundle.match(/\bimport\(/g) ?? []).toEqual([]);
  });
});
