import type { Static } from '@sinclair/typebox';
import type { ActionDefinition } from '../../../server/api/action';
import type { ActionDeclarations } from '../../../server/domains';
import sharedLists from './generated/shared-lists.json';
import { paramsRefusal, preloadValidators } from './check-params';

/**
 * The typed /api client. Every action's params and result types come from the server's own
 * action maps (`ActionDeclarations`, the type of every domain's `defineActions` map), so a call with a wrong param or a
 * read of a field the server does not return is a compile error.
 */
export type ActionName = keyof ActionDeclarations;
export type ParamsOf<N extends ActionName> = ActionDeclarations[N] extends ActionDefinition<infer S, infer _A, infer _R> ? Static<S> : never;
export type ResultOf<N extends ActionName> = ActionDeclarations[N] extends ActionDefinition<infer _S, infer _A, infer R> ? Awaited<R> : never;

type IsLoose<T> = 0 extends 1 & T ? true : unknown extends T ? true : string extends keyof T ? true : false;
type LooseActions = { [N in ActionName]: IsLoose<ResultOf<N>> extends true ? N : never }[ActionName];
/**
 * Compile-time contract: no action's result is loose (`any`, `unknown`, an open record), so every
 * field the UI reads is one the server's result schema names. Nothing imports it; it fails to
 * compile when a result is left loose.
 * @public
 */
export const noLooseResult: [LooseActions] extends [never] ? true : never = true;

/** An error answer of the API (or of the network: code 0). */
export class ApiCallError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown = null,
    readonly status = 0,
    readonly action = '',
  ) {
    super(message);
    this.name = 'ApiCallError';
  }
  /**
   * The offending param when the server named one, at its top level: `params.amount` → `amount`,
   * `params.tags[1]` → `tags` (the form field it belongs under); `params.config.url` stays
   * `config.url` (a form may show each key of an object param on its own field).
   */
  get field(): string | null {
    const path = this.path;
    return path === null ? null : path.replace(/\[.*$/, '');
  }
  /** The whole path of the offending input: `params.tags[1]` → `tags[1]`. */
  get path(): string | null {
    const field = (this.data as { field?: unknown } | null)?.field;
    return typeof field === 'string' ? field.replace(/^params\.?/, '') : null;
  }
  /** The rule a params failure broke (docs/api.md, "Reasons and rules"). */
  get rule(): { keyword: string; limit?: number; format?: string; hint?: string } | null {
    const rule = (this.data as { rule?: unknown } | null)?.rule;
    return rule && typeof rule === 'object' && typeof (rule as { keyword?: unknown }).keyword === 'string' ? (rule as { keyword: string }) : null;
  }
  /** The catalogue row of the error (`ledger.assetNotFound`) and its message's arguments. */
  get reason(): { name: string; args: unknown[] } | null {
    const data = this.data as { reason?: unknown; args?: unknown } | null;
    return typeof data?.reason === 'string' ? { name: data.reason, args: Array.isArray(data.args) ? (data.args as unknown[]) : [] } : null;
  }
}

// The validators chunk loads beside the first screen, before the first call needs it.
void preloadValidators();

/** Actions that answer without a session (their spec says `auth: 'public'`; scripts/gen-validators.ts lists them). */
const PUBLIC_ACTIONS = new Set<string>(sharedLists.publicActions);
/** Codes that mean "your sign-in is no longer good" on an authenticated call. */
export const SESSION_CODES = new Set([401, 1001, 1003]);

/** What an error answer of an authenticated call says about the account itself. */
export type AccountNews = { kind: 'disabled' } | { kind: 'mustChangePassword' } | { kind: 'role'; role: string };

/** 1004 with `{disabled: true}`: the account was disabled; 403 with `{mustChangePassword: true}`: a reset is pending; 1004 with `{role}`: the caller's current role. */
export function accountNewsOf(error: ApiCallError): AccountNews | null {
  const raw = error.data;
  if (!raw || typeof raw !== 'object') return null;
  const data = raw as { disabled?: unknown; mustChangePassword?: unknown; role?: unknown };
  if (error.code === 1004 && data.disabled === true) return { kind: 'disabled' };
  if (error.code === 403 && data.mustChangePassword === true) return { kind: 'mustChangePassword' };
  if (error.code === 1004 && typeof data.role === 'string') return { kind: 'role', role: data.role };
  return null;
}

let currentToken: string | null = null;
let onSessionLost: (error: ApiCallError) => void = () => undefined;
let onAccountNews: (news: AccountNews) => void = () => undefined;

export function setToken(token: string | null): void {
  currentToken = token;
}
export function getToken(): string | null {
  return currentToken;
}
export function onSessionEnded(handler: (error: ApiCallError) => void): void {
  onSessionLost = handler;
}
/** Told when an answer shows the account changed meanwhile (disabled, password reset pending, other role). */
export function onAccountChanged(handler: (news: AccountNews) => void): void {
  onAccountNews = handler;
}

export async function call<N extends ActionName>(action: N, params: ParamsOf<N>, options: { signal?: AbortSignal } = {}): Promise<ResultOf<N>> {
  // Params the action's schema refuses never leave: the same 400 the server would answer (field, rule).
  const refusal = await paramsRefusal(action, params);
  if (refusal) throw new ApiCallError(400, refusal.message, { field: refusal.field, rule: refusal.rule }, 400, action);
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  const authed = !PUBLIC_ACTIONS.has(action);
  if (authed && currentToken) headers.Authorization = `Bearer ${currentToken}`;
  let response: Response;
  try {
    response = await fetch('/api', { method: 'POST', headers, body: JSON.stringify({ action, params }), signal: options.signal });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiCallError(0, 'PennyPost server could not be reached.', null, 0, action);
  }
  let body: { code?: unknown; message?: unknown; data?: unknown };
  try {
    body = (await response.json()) as typeof body;
  } catch {
    throw new ApiCallError(response.status || 500, `Unexpected answer from the server (HTTP ${response.status}).`, null, response.status, action);
  }
  const code = typeof body.code === 'number' ? body.code : response.status;
  if (code !== 200) {
    const error = new ApiCallError(code, typeof body.message === 'string' ? body.message : 'Request failed.', body.data ?? null, response.status, action);
    if (authed && SESSION_CODES.has(code)) onSessionLost(error);
    else if (authed) {
      const news = accountNewsOf(error);
      if (news) onAccountNews(news);
    }
    throw error;
  }
  return body.data as ResultOf<N>;
}

/** Upload bytes to a file.upload URL with progress (0..1). Answers the stored file's envelope data. */
export function putBytes(url: string, file: Blob, onProgress?: (fraction: number) => void, signal?: AbortSignal): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    if (currentToken) xhr.setRequestHeader('Authorization', `Bearer ${currentToken}`);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress?.(event.loaded / event.total);
    };
    xhr.onload = () => {
      let body: { code?: number; message?: string; data?: unknown } = {};
      try {
        body = JSON.parse(xhr.responseText) as typeof body;
      } catch {
        /* not JSON */
      }
      if (xhr.status >= 200 && xhr.status < 300 && (body.code === undefined || body.code === 200)) resolve(body.data);
      else reject(new ApiCallError(body.code ?? xhr.status, body.message ?? `Upload failed (HTTP ${xhr.status}).`, body.data ?? null, xhr.status, 'file.put'));
    };
    xhr.onerror = () => reject(new ApiCallError(0, 'PennyPost server could not be reached.', null, 0, 'file.put'));
    xhr.onabort = () => reject(new DOMException('aborted', 'AbortError'));
    signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(file);
  });
}

/** Fetch a protected URL (file bytes) with the token; answers an object URL for <img>/<a>. */
export async function fetchBlobUrl(url: string): Promise<string> {
  const response = await fetch(url, { headers: currentToken ? { Authorization: `Bearer ${currentToken}` } : {} });
  if (!response.ok) throw new ApiCallError(response.status, `Could not load the file (HTTP ${response.status}).`, null, response.status, 'file.get');
  return URL.createObjectURL(await response.blob());
}
