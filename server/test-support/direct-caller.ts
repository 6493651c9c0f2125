import { randomUUID } from 'node:crypto';
import type { ActionCaller } from '../api/call-action';
import { actionOfBody, wireField } from '../api/router';
import { envelope, errorEnvelope, type Envelope } from '../http/envelope';
import { answerableError } from '../http/failures';
import type { Logger } from '../lib/logger';

export interface ApiAnswer<T = any> extends Envelope<T> {
  status: number;
  headers: Headers;
}

/** Anything that answers actions as /api does: a TestServer or an InProcessApp (in-process.ts). */
export interface ApiCaller {
  /** The action with its params; `token` is the caller's bearer token. */
  api: <T = any>(action: string, params?: unknown, token?: string) => Promise<ApiAnswer<T>>;
}

/**
 * Answers actions through `call` (the /api pipeline) without the wire, exactly as a client reads
 * /api: the body goes through JSON and the router's body checks, errors become the same
 * envelopes with their row's status and headers, and the answer goes through JSON.
 */
export function directCaller(call: ActionCaller, log: Logger): ApiCaller {
  return {
    api: async (action, params = {}, token) => {
      const requestId = randomUUID();
      let answer: Envelope;
      let status = 200;
      let headers: Headers;
      try {
        const body = actionOfBody(JSON.parse(JSON.stringify({ action, params })));
        const data = await call({ ...body, token: token ?? null, requestId, clientAddress: '127.0.0.1', fromThisComputer: true });
        answer = envelope(200, 'ok', data);
        headers = new Headers({ 'cache-control': 'no-store' });
      } catch (error) {
        const known = answerableError(error, { log, requestId, what: 'action', fields: { action } });
        answer = errorEnvelope(known, wireField);
        status = known.status;
        headers = new Headers({ 'cache-control': 'no-store', ...known.headers });
      }
      return { ...(JSON.parse(JSON.stringify(answer)) as Envelope), status, headers } as ApiAnswer;
    },
  };
}
