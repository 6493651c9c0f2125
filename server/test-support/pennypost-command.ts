import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The `pennypost` command of package.json's "bin", as a user runs it (the compiled server in its own process). */
export const PENNYPOST_BIN = path.join(ROOT, 'bin', 'pennypost.mjs');

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `pennypost <args>` to its end. */
export function pennypost(args: string[], timeoutMs = 60_000): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [PENNYPOST_BIN, ...args], { cwd: ROOT, timeout: timeoutMs }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

export interface RunningCommand {
  child: ChildProcess;
  exit: Promise<number | null>;
  stdout(): string;
  stderr(): string;
}

/** Starts a command of the project (`pennypost …`, or `npm run serve -- …` with `npm: true`) and collects its output. */
export function startCommand(args: string[], { npm = false } = {}): RunningCommand {
  const child = npm
    ? spawn('npm', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, [PENNYPOST_BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exit, stdout: () => stdout, stderr: () => stderr };
}
