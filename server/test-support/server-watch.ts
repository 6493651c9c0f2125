import { readFileSync } from 'node:fs';

/**
 * What one hostile request costs a running PennyPost, measured from outside it: how long `/healthz`
 * waited at worst while the request ran (the event loop held), and how far the server's resident
 * memory rose above where it was before. The server should be a child process
 * (server/test-support/child-server.ts) so that its RSS is its own and its event loop is not the
 * test's.
 *
 * The budgets every such test holds a request to (docs/security.md, "Budgets"): /healthz answers
 * within 1 s, RSS rises by at most 200 MB.
 */
export const HEALTHZ_BUDGET_MS = 1000;
export const RSS_BUDGET_BYTES = 200 * 1024 * 1024;

export interface WatchResult<T> {
  result: T;
  /** The slowest /healthz answer seen while `during` ran (ms). */
  worstHealthzMs: number;
  /** /healthz answers seen (at least a few, or the watch saw nothing). */
  healthzAnswers: number;
  /** Peak RSS while `during` ran, minus RSS before it (bytes). */
  rssRise: number;
}

/** Resident memory of a process (Linux: /proc/<pid>/status). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}

/**
 * Runs `during` while asking `baseUrl/healthz` one request after another and sampling the RSS of
 * process `pid` every 20 ms. A /healthz request still unanswered when `during` ends counts with
 * the time it has waited so far, and is waited for.
 */
export async function watchServer<T>(baseUrl: string, pid: number, during: () => Promise<T>): Promise<WatchResult<T>> {
  const before = rssOf(pid);
  let peak = before;
  let worst = 0;
  let answers = 0;
  const state = { running: true };
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, rssOf(pid));
    } catch {
      // The process ended: the caller's assertions will say so.
    }
  }, 20);
  const healthz = (async () => {
    while (state.running) {
      const started = performance.now();
      const res = await fetch(`${baseUrl.replace(/\/$/, '')}/healthz`).catch(() => null);
      await res?.body?.cancel().catch(() => undefined);
      worst = Math.max(worst, performance.now() - started);
      if (res?.status === 200) answers++;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  try {
    const result = await during();
    state.running = false;
    await healthz;
    peak = Math.max(peak, rssOf(pid));
    return { result, worstHealthzMs: Math.round(worst), healthzAnswers: answers, rssRise: peak - before };
  } finally {
    state.running = false;
    clearInterval(sampler);
  }
}
