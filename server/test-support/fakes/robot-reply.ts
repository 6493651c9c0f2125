import type { ServerResponse } from 'node:http';
import { sendJson } from './listen';

/** What a robot fake (WeCom, DingTalk, Feishu) answers: a JSON body, or a bare HTTP status. */
export type FakeReply = { json: unknown } | { status: number };

/** Sends a fake's reply. */
export function sendReply(res: ServerResponse, reply: FakeReply): void {
  if ('json' in reply) sendJson(res, reply.json);
  else res.writeHead(reply.status).end(reply.status === 404 ? '' : 'upstream failure');
}
