import type http from 'node:http';
import type { OutboundScope } from '../http/outbound-policy';
import { OutboundCallError, outboundRequest } from '../http/outbound-request';

/**
 * Outbound HTTP for deliveries (server/http/outbound-request.ts with the push channels' limits):
 * keep-alive agents (a push is one request to an already open connection, not a TCP handshake),
 * a hard timeout per call, answers capped at 1 MiB, no redirects, and the outbound policy of the
 * channel's account (server/http/outbound-policy.ts) on every connection. Errors never carry the
 * URL: WeChat URLs hold the access token in the query.
 */

const MAX_ANSWER_BYTES = 1024 * 1024;

export { OutboundCallError as CallError };

export interface CallAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface CallOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

export async function call(scope: OutboundScope, target: string | URL, options: CallOptions): Promise<CallAnswer> {
  const answer = await outboundRequest(scope, target, { ...options, headers: { accept: 'application/json', ...options.headers }, maxBytes: MAX_ANSWER_BYTES });
  return { status: answer.status, headers: answer.headers, text: answer.body.toString('utf8') };
}
