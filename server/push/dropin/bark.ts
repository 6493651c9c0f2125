import type { Request } from 'express';
import { commonErrors } from '../../lib/errors';
import type { SendAnswer } from '../send/answer';
import { objectBody, scheduleFields, text, titleAndDesp, withClick, type Shaped } from './common';

/**
 * Bark (docs/push.md "Drop-in for other push clients"): `/{appKey}/{body}`,
 * `/{appKey}/{title}/{body}`, `/{appKey}/{title}/{subtitle}/{body}` (GET or POST), `/{appKey}` with a
 * `body` field, and `POST /push` with `{device_key | device_keys, title, body, …}`. `level` becomes
 * the priority, `group` the group, `url` a link in the text; Bark's other fields (sound, icon,
 * isArchive, badge, copy, call, ciphertext…) mean nothing to PennyPost's channels and are ignored.
 * Answers `{code: 200, message: "success", timestamp}` like Bark; failures carry PennyPost's code.
 */

/** Bark's levels; other values are ignored rather than refused (Bark itself ignores them). */
const LEVELS = new Set(['passive', 'active', 'timesensitive', 'critical']);

/** The /send input of Bark fields (query and body merged) and the path's title/subtitle/body. */
export function barkInput(fields: Record<string, unknown>, path: readonly string[] = []): Record<string, unknown> {
  const fromPath =
    path.length === 1 ? { body: path[0] } : path.length === 2 ? { title: path[0], body: path[1] } : path.length === 3 ? { title: path[0], subtitle: path[1], body: path[2] } : {};
  const pick = (name: 'title' | 'subtitle' | 'body'): string => text(fields, name) || (fromPath as Record<string, string | undefined>)[name] || '';
  // Bark's `markdown` field replaces the body; PennyPost's desp is Markdown anyway.
  const body = text(fields, 'markdown') || pick('body');
  const subtitle = pick('subtitle');
  const message = subtitle && body ? `${subtitle}\n\n${body}` : subtitle || body;
  const derived = titleAndDesp(pick('title'), message);
  const level = text(fields, 'level').trim();
  const group = text(fields, 'group');
  return {
    title: derived.title,
    desp: withClick(derived.desp, text(fields, 'url')),
    ...(LEVELS.has(level.toLowerCase()) ? { priority: level } : {}),
    ...(group ? { group } : {}),
    ...scheduleFields(fields),
  };
}

/** The fields of a Bark request: the query, and for POST the JSON or form body over it. */
export function barkFields(req: Request): Record<string, unknown> {
  const fields = { ...(req.query as Record<string, unknown>) };
  if (req.method === 'POST') Object.assign(fields, objectBody(req.body, '{"device_key": "…", "title": "…", "body": "…"}'));
  return fields;
}

/** The keys of `POST /push`: `device_key`, or the `device_keys` array (1–20). */
export function barkKeys(fields: Record<string, unknown>): [string, ...string[]] {
  const many = fields.device_keys;
  if (Array.isArray(many)) {
    if (many.length === 0 || many.length > 20 || !many.every((key) => typeof key === 'string' && key)) {
      throw commonErrors.invalid('device_keys must be a list of 1–20 keys.').at('device_keys');
    }
    return many as [string, ...string[]];
  }
  const one = text(fields, 'device_key');
  if (!one) throw commonErrors.invalid('device_key is required: the app key to push to.').at('device_key');
  return [one];
}

/** Bark's answer: code 200 and "success", else PennyPost's status, code and message. */
export function barkAnswer(result: SendAnswer, now: number): Shaped {
  const timestamp = Math.floor(now / 1000);
  if (result.body.code === 0) return { status: 200, headers: result.headers, body: { code: 200, message: 'success', timestamp, pennypost: result.body } };
  return {
    status: result.status,
    headers: result.headers,
    body: { code: result.body.code, message: result.body.message, timestamp, ...(result.body.data ? { pennypost: result.body } : {}) },
  };
}
