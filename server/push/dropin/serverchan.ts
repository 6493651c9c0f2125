import type { Request } from 'express';
import type { SendAnswer } from '../send/answer';
import { objectBody, pushIdOf, queryInput } from './common';

/**
 * ServerChan (Turbo and ServerChan³) on PennyPost's own /send forms (docs/push.md "Drop-in for other
 * push clients"): ServerChan³ sendkeys `sctp{uid}t{key}`, and ServerChan's `pushid` / `readkey`
 * beside PennyPost's answer. ServerChan's extra fields (`short`, `tags`, `noip`, `channel`,
 * `openid`) are accepted and have no effect: /send ignores fields it does not know.
 */

/** ServerChan³'s sendkey shape: `sctp` + the account's uid (digits) + `t` + the key. */
const SCTP_KEY = /^sctp\d+t(.+)$/;

/** The app key inside a ServerChan³ sendkey (`sctp42tPP…` → `PP…`); any other key as given. */
export function appKeyOf(sendkey: string): string {
  return SCTP_KEY.exec(sendkey)?.[1] ?? sendkey;
}

/** The ServerChan³ form of an app key (the uid is free; PennyPost shows 1). */
export function serverChanV3Key(appKey: string, uid = '1'): string {
  return `sctp${uid}t${appKey}`;
}

/** The /send input of a request: the query string, and for POST the JSON, form or multipart body over it. */
export function sendInput(req: Request): Record<string, unknown> {
  const input = queryInput(req);
  if (req.method === 'POST') Object.assign(input, objectBody(req.body, '{"title": "…", "desp": "…"}'));
  return input;
}

/**
 * PennyPost's answer with ServerChan's fields added: `data.pushid` and `data.readkey` whenever a push
 * was recorded; on success also `data.error: "SUCCESS"`, `data.errno: 0` (Turbo) and `errno: 0` (ServerChan³).
 * The `readkey` is the secret half of the push's page token (/m/{pushid}.{readkey}): ServerChan's reads
 * a push's status, PennyPost's its message page, where the push's outcome is also kept.
 */
export function withServerChanFields(result: SendAnswer): SendAnswer {
  const pushId = pushIdOf(result);
  if (!pushId) return result;
  const ok = result.body.code === 0;
  const data = { ...(result.body.data as Record<string, unknown>), pushid: pushId, readkey: result.readKey ?? '', ...(ok ? { error: 'SUCCESS', errno: 0 } : {}) };
  return { ...result, body: { ...result.body, data, ...(ok ? { errno: 0 } : {}) } };
}
