import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileSync, mkdirSync } from 'node:fs';
import type { SettingsPatch } from '../config/settings';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ChildServer {
  url: string;
  child: ChildProcess;
  api(action: string, params?: unknown, token?: string): Promise<{ code: number; message: string; data: any; status: number }>;
  stop(): Promise<number | null>;
}

/**
 * A PennyPost in its own process (`server/cli.ts`), for tests that need a second instance: the
 * open-source RxDB build allows 13 open collections per process, and one PennyPost uses 12.
 */
export async function startChildServer(dataDir: string, settings: SettingsPatch = {}, options: { checkResults?: boolean } = {}): Promise<ChildServer> {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ log: { level: 'warn' }, rateLimit: { authPerAddress: 100000 }, ...settings }));
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'server/cli.ts'), '--port', '0', '--data-dir', dataDir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Answers are checked against their result schemas as in every test, unless the test measures
    // the server as people run it (the budgets: the check costs time on the largest answers).
    env: { ...process.env, PENNYPOST_CHECK_RESULTS: options.checkResults === false ? '0' : (process.env.PENNYPOST_CHECK_RESULTS ?? '0') },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`child server did not start: ${stderr}`)), 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /PennyPost listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match.at(1)!);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`child server exited with ${String(code)}: ${stderr}`));
    });
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    url,
    child,
    async api(action, params = {}, token) {
      const res = await fetch(`${url}/api`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ action, params }),
      });
      return { ...((await res.json()) as { code: number; message: string; data: any }), status: res.status };
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exit;
    },
  };
}
