import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCliOptions } from './cli-options';
import { defaultDataDir } from './config/paths';
import { tempDataDir } from './test-support/test-server';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const READY = /^PennyPost listening on (http:\/\/127\.0\.0\.1:(\d+))$/;
const children: ChildProcess[] = [];

interface Started {
  child: ChildProcess;
  stdoutLines: string[];
  stderr: () => string;
  exit: Promise<number | null>;
}

function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'server/cli.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const stdoutLines: string[] = [];
  let stdoutBuffer = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdoutBuffer += chunk.toString();
    const parts = stdoutBuffer.split('\n');
    stdoutBuffer = parts.pop()!;
    stdoutLines.push(...parts);
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdoutLines, stderr: () => stderr, exit };
}

async function waitForReady(started: Started, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const line = started.stdoutLines.find((l) => READY.test(l));
    if (line) return READY.exec(line)!.at(1)!;
    if (started.child.exitCode !== null) throw new Error(`exited early: ${started.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no ready line; stderr: ${started.stderr()}`);
}

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('headless CLI contract', () => {
  it('prints exactly one ready line, serves /healthz and the API, and exits 0 on SIGTERM', async () => {
    const dataDir = tempDataDir('cli');
    const started = runCli(['--port', '0', '--data-dir', dataDir]);
    const url = await waitForReady(started);
    const health = await fetch(`${url}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok' });
    const register = await fetch(`${url}/api`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'user.register', params: { username: 'cli_user', email: 'cli@example.com', password: 'long enough pw' } }),
    });
    expect(((await register.json()) as { code: number }).code).toBe(200);
    const login = await fetch(`${url}/api`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'user.login', params: { platform: 'email', email: 'cli@example.com', password: 'long enough pw' } }),
    });
    expect(((await login.json()) as { code: number }).code).toBe(200);

    // A second process on the same data dir fails at once with exit code 2, naming the dir.
    const second = runCli(['--port', '0', '--data-dir', dataDir]);
    expect(await second.exit).toBe(2);
    expect(second.stderr()).toContain(dataDir);
    expect(second.stdoutLines.filter((l) => READY.test(l))).toHaveLength(0);

    started.child.kill('SIGTERM');
    expect(await started.exit).toBe(0);
    expect(started.stdoutLines.filter((l) => l.trim() !== '')).toEqual([`PennyPost listening on ${url}`]);

    // The data survived and the dir is free again.
    const again = runCli(['--data-dir', dataDir], { PENNYPOST_PORT: '0' });
    const url2 = await waitForReady(again);
    const relogin = await fetch(`${url2}/api`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'user.login', params: { email: 'cli@example.com', password: 'long enough pw' } }),
    });
    expect(((await relogin.json()) as { code: number }).code).toBe(200);
    again.child.kill('SIGINT');
    expect(await again.exit).toBe(0);
  }, 60_000);

  it('finishes an in-flight request before exiting on SIGTERM', async () => {
    const dataDir = tempDataDir('cli-inflight');
    const started = runCli(['--port', '0', '--data-dir', dataDir]);
    const url = await waitForReady(started);
    // Registration hashes a password (tens of ms): signal while it is in flight.
    const pending = fetch(`${url}/api`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'user.register', params: { username: 'inflight', email: 'if@example.com', password: 'long enough pw' } }),
    });
    await new Promise((r) => setTimeout(r, 5));
    started.child.kill('SIGTERM');
    const answer = (await (await pending).json()) as { code: number };
    expect(answer.code).toBe(200);
    expect(await started.exit).toBe(0);
  }, 60_000);

  it('rejects bad usage with exit code 64', async () => {
    const bad = runCli(['--port', 'eighty']);
    expect(await bad.exit).toBe(64);
    expect(bad.stderr()).toMatch(/--port must be a port number/);
    const unknown = runCli(['--bogus']);
    expect(await unknown.exit).toBe(64);
  }, 30_000);
});

describe('CLI options', () => {
  it('takes flags over env over defaults', () => {
    expect(parseCliOptions(['--port', '0', '--host', '0.0.0.0', '--data-dir', '/x'], {})).toMatchObject({ port: 0, host: '0.0.0.0', dataDir: '/x' });
    expect(parseCliOptions([], { PENNYPOST_PORT: '6000', PENNYPOST_HOST: '::1', PENNYPOST_DATA_DIR: '/y' })).toMatchObject({ port: 6000, host: '::1', dataDir: '/y' });
    expect(parseCliOptions(['--port', '7000'], { PENNYPOST_PORT: '6000' }).port).toBe(7000);
    expect(parseCliOptions([], {})).toMatchObject({ port: undefined, host: undefined, dataDir: defaultDataDir() });
    expect(() => parseCliOptions(['--port', '70000'], {})).toThrow(/port number/);
  });

  it('defaults the data dir to the desktop app folder per OS', () => {
    expect(defaultDataDir('linux', { XDG_CONFIG_HOME: '/home/u/.cfg' })).toBe('/home/u/.cfg/PennyPost');
    expect(defaultDataDir('darwin', {})).toMatch(/Library\/Application Support\/PennyPost$/);
    expect(defaultDataDir('win32', { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' })).toMatch(/PennyPost$/);
  });
});
