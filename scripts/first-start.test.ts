/**
 * The first start of a source checkout compiles the server with esbuild, in the process that then
 * runs the server. esbuild builds in a child process of its own (`esbuild --service`, ~340 MB
 * resident on the issue-36 machine) that stayed alive for the server's whole life. After the build
 * it must be gone: the server process has no child left.
 *
 * A sandbox that looks like a fresh checkout (bin/ and scripts/ copied, server/ and node_modules
 * linked, no dist/server), so the real launcher builds into the sandbox and nothing of the working
 * tree is rewritten. Linux only (reads /proc).
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const READY = /^PennyPost listening on http:\/\/127\.0\.0\.1:(\d+)$/m;

/** Pids and command lines of the live children of `pid`. */
function childrenOf(pid: number): Array<{ pid: number; command: string }> {
  const found: Array<{ pid: number; command: string }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid …": the command name may hold spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid && fields[0] !== 'Z') found.push({ pid: Number(entry), command: readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim() });
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

const sandbox = mkdtempSync(path.join(os.tmpdir(), 'pennypost-first-start-'));
afterAll(() => rmSync(sandbox, { recursive: true, force: true }));

describe.runIf(process.platform === 'linux')('the first start of a checkout', () => {
  it('compiles the server, then serves with no esbuild process left beside it', async () => {
    for (const dir of ['bin', 'scripts']) cpSync(path.join(ROOT, dir), path.join(sandbox, dir), { recursive: true });
    cpSync(path.join(ROOT, 'package.json'), path.join(sandbox, 'package.json'));
    for (const dir of ['server', 'node_modules']) symlinkSync(path.join(ROOT, dir), path.join(sandbox, dir), 'dir');
    mkdirSync(path.join(sandbox, 'dist'));
    if (existsSync(path.join(ROOT, 'dist', 'renderer'))) symlinkSync(path.join(ROOT, 'dist', 'renderer'), path.join(sandbox, 'dist', 'renderer'), 'dir');
    const dataDir = path.join(sandbox, 'data');

    const child = spawn(process.execPath, [path.join(sandbox, 'bin', 'pennypost.mjs'), 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], {
      cwd: sandbox,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 150_000;
      while (!READY.test(output) && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(output, output).toMatch(READY);
      expect(output).toContain('compiling the server (first start only)');
      expect(existsSync(path.join(sandbox, 'dist', 'server', 'cli.cjs'))).toBe(true);
      const port = Number(READY.exec(output)?.[1]);
      expect(await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()).toEqual({ status: 'ok' });
      // The server itself may run worker threads, never another process: esbuild's service is gone.
      expect(childrenOf(child.pid ?? -1)).toEqual([]);
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 180_000);
});
