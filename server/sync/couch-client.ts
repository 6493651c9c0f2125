import { commonErrors } from '../lib/errors';

/**
 * The few CouchDB calls sync makes itself (besides RxDB's replication): check the server and
 * the credentials, create databases, read and write the ledger's owner document. Every error
 * comes back in plain words; the password is never part of a message.
 */
export interface CouchTarget {
  url: string;
  username: string;
  password: string;
  timeoutMs: number;
}

export function authHeader(target: Pick<CouchTarget, 'username' | 'password'>): string {
  return 'Basic ' + Buffer.from(`${target.username}:${target.password}`, 'utf8').toString('base64');
}

/**
 * A CouchDB answer's JSON, null when empty. CouchDB answers objects (an error has `error` and
 * `reason`); the fields are the server's, so each is checked where it is used.
 */
export type CouchBody = ({ reason?: string } & Record<string, unknown>) | null;

export class CouchError extends Error {
  constructor(
    message: string,
    readonly kind: 'unreachable' | 'auth' | 'forbidden' | 'other',
    readonly status = 0,
  ) {
    super(message);
  }
}

export async function couchFetch(target: CouchTarget, path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: CouchBody }> {
  let response: Response;
  try {
    response = await fetch(target.url + path, {
      method: init.method ?? 'GET',
      headers: { authorization: authHeader(target), accept: 'application/json', ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      signal: AbortSignal.timeout(target.timeoutMs),
    });
  } catch (error) {
    const name = (error as Error).name;
    const reason = name === 'TimeoutError' ? `no answer within ${target.timeoutMs} ms` : ((error as { cause?: { code?: string } }).cause?.code ?? 'network error');
    throw new CouchError(`Cannot reach the CouchDB server at ${target.url} (${reason}).`, 'unreachable');
  }
  const text = await response.text();
  let body: CouchBody;
  try {
    body = text ? (JSON.parse(text) as CouchBody) : null;
  } catch {
    throw new CouchError(`${target.url} answered something that is not CouchDB (HTTP ${response.status}).`, 'other', response.status);
  }
  if (response.status === 401) throw new CouchError('CouchDB refused the username or password.', 'auth', 401);
  if (response.status === 403) {
    throw new CouchError(`CouchDB does not allow user "${target.username}" to do this (${body?.reason ?? 'forbidden'}).`, 'forbidden', 403);
  }
  return { status: response.status, body };
}

/** Creates the database unless it exists; a clear error when the credentials cannot. */
export async function ensureDatabase(target: CouchTarget, name: string): Promise<'created' | 'exists'> {
  const head = await couchFetch(target, encodeURIComponent(name));
  if (head.status === 200) return 'exists';
  if (head.status !== 404) throw new CouchError(`CouchDB answered HTTP ${head.status} for database ${name}.`, 'other', head.status);
  try {
    const created = await couchFetch(target, encodeURIComponent(name), { method: 'PUT' });
    if (created.status === 201 || created.status === 202) return 'created';
    if (created.status === 412) return 'exists';
    throw new CouchError(`CouchDB could not create database ${name} (HTTP ${created.status}: ${created.body?.reason ?? ''}).`, 'other', created.status);
  } catch (error) {
    if (error instanceof CouchError && (error.kind === 'forbidden' || error.kind === 'auth')) {
      throw new CouchError(
        `The database ${name} does not exist and user "${target.username}" may not create it. Ask the CouchDB admin to create it, or use admin credentials once.`,
        'forbidden',
        403,
      );
    }
    throw error;
  }
}

/** Maps a CouchError to a domain error in CouchDB's words: the user's input (400, 403) or the server (502). */
export function toDomainError(error: unknown): unknown {
  if (!(error instanceof CouchError)) return error;
  if (error.kind === 'auth') return commonErrors.invalid(error.message).at('password');
  if (error.kind === 'forbidden') return commonErrors.forbidden(error.message);
  return commonErrors.badGateway(error.message);
}
