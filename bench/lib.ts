/**
 * Shared pieces of `npm run bench` and `npm run soak`: machine facts, PennyPost server processes
 * started the way `npm run serve` starts them (with the time to the ready line), their RSS, a
 * 100k-record seed, and small statistics. Everything listens on and talks to 127.0.0.1 only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { seedSyntheticRecords } from '../server/test-support/synthetic-records';
import type { RecordDoc } from '../server/ledger/schema';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Machine {
  cpu: string;
  cores: number;
  memoryGb: number;
  node: string;
  os: string;
}

export function machine(): Machine {
  return {
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown CPU',
    cores: os.cpus().length,
    memoryGb: Math.round(os.totalmem() / 1024 ** 3),
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

export function loadAverage(): number[] {
  return os.loadavg().map((n) => Math.round(n * 100) / 100);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The `p`th percentile (nearest rank, 0–100) of the samples; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted.at(Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))) ?? NaN;
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

/** The width of each column of a text table: its widest cell. */
export function columnWidths(rows: readonly (readonly string[])[]): number[] {
  const widths: number[] = [];
  for (const row of rows) for (const [i, cell] of row.entries()) widths[i] = Math.max(widths.at(i) ?? 0, cell.length);
  return widths;
}

/** A text table row's cells, each padded to the width of its column. */
export function padCells(cells: readonly string[], widths: readonly number[]): string[] {
  return cells.map((cell, i) => cell.padEnd(widths.at(i) ?? 0));
}

/** `value`, or an error naming what is missing: for what the bench itself made sure of (a list it filled). */
export function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`bench: ${what} is missing`);
  return value;
}

/** The `i`th element of `list` taken round and round (`list[i % list.length]`); an error for an empty list. */
export function cycled<T>(list: readonly T[], i: number): T {
  return required(list.at(i % list.length), 'an element of an empty list');
}

/** Resident set size of a process in bytes (Linux /proc; `ps` elsewhere). */
export function rssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1]);
    if (Number.isFinite(kb)) return kb * 1024;
  } catch {
    // not Linux
  }
  return NaN;
}

/** Settings for benchmark servers: limits that would throttle the load generator are lifted. */
export const BENCH_SETTINGS = {
  log: { level: 'warn' },
  // A benchmark server lives seconds, not days: the automatic snapshot at start (taken in the
  // background when the newest is over 24 h old, docs/data-safety.md) would otherwise copy the
  // whole ledger during every measurement. Snapshot speed has its own figures in docs/data-safety.md.
  backup: { automatic: false },
  rateLimit: { apiPerToken: 100_000_000, apiPerAddress: 100_000_000, authPerAddress: 100_000 },
  push: { sendPerAppKey: 100_000_000, sendPerAddress: 100_000_000 },
};

export interface ServerProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  /** ms from spawn to the ready line. */
  startupMs: number;
  rss(): number;
  stop(): Promise<void>;
}

/**
 * How a benchmark starts the server: 'compiled' is `node bin/pennypost.mjs serve` — exactly what
 * `npm run serve` and `npm start` hand over to (the bundle with V8's code cache); 'source' is the
 * earlier way, `node --import tsx server/cli.ts`, kept as a baseline.
 */
export type ServerLaunch = 'compiled' | 'source';

function launchArgs(launch: ServerLaunch): string[] {
  return launch === 'compiled' ? [path.join(ROOT, 'bin/pennypost.mjs'), 'serve'] : ['--import', 'tsx', path.join(ROOT, 'server/cli.ts')];
}

/** Starts the server in its own process, with the time from spawn to "PennyPost listening on …". */
export async function startServerProcess(dataDir: string, settings: Record<string, unknown> | null = BENCH_SETTINGS, launch: ServerLaunch = 'compiled'): Promise<ServerProcess> {
  mkdirSync(dataDir, { recursive: true });
  if (settings) writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify(settings));
  const started = performance.now();
  const child = spawn(process.execPath, [...launchArgs(launch), '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start within 120 s: ${stderr}`)), 120_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const listening = /PennyPost listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (listening !== undefined) {
        clearTimeout(timer);
        resolve(listening);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${String(code)}: ${stderr}`));
    });
  });
  const startupMs = performance.now() - started;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url,
    pid: child.pid!,
    child,
    startupMs,
    rss: () => rssOf(child.pid!),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await Promise.race([exited, sleep(20_000).then(() => child.kill('SIGKILL'))]);
    },
  };
}

export async function call<T = any>(url: string, action: string, params: unknown = {}, token?: string): Promise<T> {
  const res = await fetch(`${url}/api`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ action, params }),
  });
  const body = (await res.json()) as { code: number; message: string; data: T };
  if (body.code !== 200) throw new Error(`${action}: ${body.code} ${body.message}`);
  return body.data;
}

export interface Seeded {
  email: string;
  password: string;
  assets: string[];
  appKey: string;
  records: number;
  seedMs: number;
  /** The session token user.register handed out (sessions survive restarts of the server). */
  token: string;
}

/**
 * A realistic ledger of `count` records over 5 years, 10 assets, one user (like
 * server/ledger/bench/ledger-bench.ts), plus a desktop push app: written by an in-process
 * PennyPost straight into the collection (as sync would), then closed.
 */
export async function seedLedger(dataDir: string, count: number): Promise<Seeded> {
  const { startServer } = await import('../server/server');
  const { createLogger } = await import('../server/lib/logger');
  const server = await startServer({ dataDir, port: 0, host: '127.0.0.1', logger: createLogger('warn'), settings: BENCH_SETTINGS as never });
  try {
    const email = 'bench@example.com';
    const password = 'bench-password-1';
    const user = await call(server.url, 'user.register', { username: 'bench', email, password });
    const assets: string[] = [];
    for (let i = 0; i < 10; i++) {
      assets.push(
        (await call(server.url, 'asset.create', { name: `Asset ${i}`, type: i === 9 ? 'credit_card' : 'debit_card', currency: 'USD', balance: 10_000_000 }, user.token)).id,
      );
    }
    const channel = await call(server.url, 'push.createChannel', { name: 'Desktop', type: 'desktop' }, user.token);
    const app = await call(server.url, 'push.createApp', { name: 'Alerts', channelId: channel.id }, user.token);
    const records = server.app.db.collection<RecordDoc>('records');
    const t0 = performance.now();
    await seedSyntheticRecords(records, { userId: user.id, assets, count });
    return { email, password, assets, appKey: app.appKey, records: count, seedMs: performance.now() - t0, token: user.token };
  } finally {
    await server.close();
  }
}

export const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
