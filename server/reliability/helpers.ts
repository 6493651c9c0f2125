/**
 * Shared pieces of the reliability suites: HTTP calls with a per-request timeout (a hang is a
 * failure, never a stuck test) and a snapshot of everything one user can see, to prove that a
 * refused request changed nothing.
 */

export interface Answer<T = any> {
  status: number;
  code: number;
  message: string;
  data: T;
  /** The raw body text when it was not JSON. */
  raw?: string;
  /** The whole JSON body (other shapes than the envelope: the drop-in forms' answers). */
  json?: unknown;
  headers: Headers;
}

export class HangError extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not answer within ${ms} ms`);
  }
}

/** fetch with a hard timeout; the answer body parsed as JSON when it is JSON. */
export async function request(url: string, init: RequestInit = {}, timeoutMs = 15_000): Promise<Answer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const res = await fetch(url, { ...init, signal: controller.signal });
    const text = await res.text();
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      return { status: res.status, code: NaN, message: '', data: null, raw: text, headers: res.headers };
    }
    return { status: res.status, code: body?.code, message: body?.message, data: body?.data, raw: typeof body === 'object' ? undefined : text, json: body, headers: res.headers };
  } catch (error) {
    if (controller.signal.aborted) throw new HangError(`${init.method ?? 'GET'} ${url}`, timeoutMs);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** POST /api {action, params}. */
export function api<T = any>(base: string, action: string, params: unknown = {}, token?: string, timeoutMs = 15_000): Promise<Answer<T>> {
  return request(
    `${base}/api`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ action, params }),
    },
    timeoutMs,
  );
}

/** Like api() but throws unless the answer is code 200. */
export async function ok<T = any>(base: string, action: string, params: unknown = {}, token?: string): Promise<T> {
  const answer = await api<T>(base, action, params, token);
  if (answer.code !== 200) throw new Error(`${action}: ${answer.status} ${answer.code} ${answer.message}`);
  return answer.data;
}

let counter = 0;
/** Registers a fresh user on `base`; returns its token and id. */
export async function newUser(base: string, label = 'rel'): Promise<{ token: string; id: string; email: string; password: string; username: string }> {
  counter++;
  const suffix = `${process.pid}x${counter}x${Math.floor(Math.random() * 1e6)}`;
  const params = { username: `${label}${suffix}`, email: `${label}${suffix}@example.com`, password: 'correct horse battery' };
  const data = await ok(base, 'user.register', params);
  return { token: data.token, id: data.id, ...params };
}

/**
 * Everything a user can see that a write could change: the ledger backup (assets, categories,
 * rates, records), live balances, savings goals, push configuration and history, files and
 * short links. Volatile fields (export time, signed URLs) are dropped.
 */
export async function snapshotOf(base: string, token: string): Promise<string> {
  const backup = await ok(base, 'ledger.backup', {}, token);
  delete backup.exportedAt;
  const assets = await ok(base, 'asset.query', { pageSize: 200 }, token);
  const goals = await ok(base, 'savings.queryGoals', {}, token).catch(() => null);
  const channels = await ok(base, 'push.queryChannels', {}, token);
  const apps = await ok(base, 'push.queryApps', {}, token);
  const messages = await ok(base, 'push.queryMessages', { pageSize: 100 }, token);
  const links = await ok(base, 'shortlink.list', {}, token).catch(() => null);
  const files = await ok(base, 'file.query', { page: 1, pageSize: 100 }, token).catch(() => null);
  const strip = (value: unknown): unknown =>
    JSON.parse(JSON.stringify(value), (key, v) => (key === 'signedUrl' || key === 'signedUrlExpiresAt' || key === 'ownerUrl' ? undefined : v));
  return JSON.stringify(
    strip({
      backup,
      balances: assets.list.map((a: any) => [a.id, a.balance]),
      goals,
      channels,
      apps,
      messages: { total: messages.total, ids: messages.list.map((m: any) => m.id) },
      links,
      files,
    }),
  );
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Retries `fn` until it returns true (at most `attempts` times, `gapMs` apart); false if it never did. */
export async function eventually(fn: () => Promise<boolean>, attempts = 100, gapMs = 100): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (await fn()) return true;
    await sleep(gapMs);
  }
  return false;
}
