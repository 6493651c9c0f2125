import { nestsDeeperThan } from '../http/json-depth';
import type { OutboundRefusal, OutboundScope } from '../http/outbound-policy';
import { OutboundCallError, outboundRequest, sizeInWords } from '../http/outbound-request';
import { commonErrors } from '../lib/errors';

/**
 * The few CouchDB calls sync makes itself (besides RxDB's replication): check the server and
 * the credentials, create databases, read and write the ledger's owner document. Every error
 * comes back in plain words; the password is never part of a message. The requests go through the
 * outbound policy of the account (server/http/outbound-policy.ts), and an answer is read up to
 * COUCH_SMALL_ANSWER_BYTES: CouchDB answers these in a few hundred bytes, so a server that sends
 * more is not one (or not a CouchDB), and is answered 502 without its answer filling the memory.
 */
export interface CouchTarget {
  url: string;
  username: string;
  password: string;
  timeoutMs: number;
  /** The outbound policy of the account the requests are made for. */
  scope: OutboundScope;
}

/** The largest answer of the calls made here (docs/security.md, "Outbound requests"). */
export const COUCH_SMALL_ANSWER_BYTES = 1024 * 1024;

export function authHeader(target: Pick<CouchTarget, 'username' | 'password'>): string {
  return 'Basic ' + Buffer.from(`${target.username}:${target.password}`, 'utf8').toString('base64');
}

/**
 * A CouchDB answer's JSON, null when empty. CouchDB answers objects (an error has `error` and
 * `reason`); the fields are the server's, so each is checked where it is used.
 */
export type CouchBody = ({ reason?: string } & Record<string, unknown>) | null;

/** CouchDB's `reason` of an answer, the one field of it quoted in messages: text only, one line, cut to 200 characters. */
export function reasonOf(body: CouchBody, fallback: string): string {
  const reason = body && typeof body === 'object' && typeof body.reason === 'string' ? body.reason.replace(/\s+/g, ' ').trim() : '';
  if (!reason) return fallback;
  return reason.length > 200 ? `${reason.slice(0, 200)}…` : reason;
}

export class CouchError extends Error {
  constructor(
    message: string,
    readonly kind: 'unreachable' | 'auth' | 'forbidden' | 'too-large' | 'refused' | 'other',
    readonly status = 0,
    /** `refused`: the outbound policy's refusal of the address. */
    readonly refusal?: OutboundRefusal,
  ) {
    super(message);
  }
}

/** The words of an answer larger than `maxBytes` (the same for every CouchDB call, replication included). */
export function tooLargeMessage(maxBytes: number): string {
  return `The CouchDB server sent an answer larger than ${sizeInWords(maxBytes)}, more than PennyPost reads of one answer; it was not read to the end. Check that the address is your CouchDB server.`;
}

export async function couchFetch(target: CouchTarget, path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: CouchBody }> {
  let answer;
  try {
    answer = await outboundRequest(target.scope, target.url + path, {
      method: init.method ?? 'GET',
      headers: { authorization: authHeader(target), accept: 'application/json', ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      timeoutMs: target.timeoutMs,
      maxBytes: COUCH_SMALL_ANSWER_BYTES,
    });
  } catch (error) {
    if (error instanceof OutboundCallError && error.kind === 'too-large') throw new CouchError(tooLargeMessage(COUCH_SMALL_ANSWER_BYTES), 'too-large');
    if (error instanceof OutboundCallError && error.refusal) throw new CouchError(error.refusal.message, 'refused', 0, error.refusal);
    const reason = error instanceof OutboundCallError ? (error.kind === 'timeout' ? `no answer within ${target.timeoutMs} ms` : (error.code ?? 'network error')) : 'network error';
    throw new CouchError(`Cannot reach the CouchDB server at ${target.url} (${reason}).`, 'unreachable');
  }
  // JSON.parse of a megabyte of nested brackets holds the thread: no CouchDB answer nests that deep.
  if (nestsDeeperThan(answer.body)) throw new CouchError(`${target.url} answered something that is not CouchDB (HTTP ${answer.status}).`, 'other', answer.status);
  const text = answer.body.toString('utf8');
  let body: CouchBody;
  try {
    body = text ? (JSON.parse(text) as CouchBody) : null;
  } catch {
    throw new CouchError(`${target.url} answered something that is not CouchDB (HTTP ${answer.status}).`, 'other', answer.status);
  }
  if (answer.status === 401) throw new CouchError('CouchDB refused the username or password.', 'auth', 401);
  if (answer.status === 403) {
    throw new CouchError(`CouchDB does not allow user "${target.username}" to do this (${reasonOf(body, 'forbidden')}).`, 'forbidden', 403);
  }
  return { status: answer.status, body };
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
    throw new CouchError(`CouchDB could not create database ${name} (HTTP ${created.status}: ${reasonOf(created.body, '')}).`, 'other', created.status);
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

/**
 * Maps a CouchError to a domain error in CouchDB's words: the user's input (400, 403), the server
 * (502, an answer too large included), or the outbound policy's refusal of the address (blaming `url`).
 */
export function toDomainError(error: unknown): unknown {
  if (!(error instanceof CouchError)) return error;
  if (error.refusal) return error.refusal.toDomainError('url');
  if (error.kind === 'auth') return commonErrors.invalid(error.message).at('password');
  if (error.kind === 'forbidden') return commonErrors.forbidden(error.message);
  return commonErrors.badGateway(error.message);
}
