import { STATUS_CODES } from 'node:http';
import type { Request } from 'express';
import { commonErrors } from '../../lib/errors';
import type { Priority } from '../message-options';
import type { SendAnswer } from '../send/answer';
import { header, numericId, objectBody, pushIdOf, queryInput, scheduleFields, text, titleAndDesp, withClick, type Shaped } from './common';

/**
 * Gotify's `POST /message` (docs/push.md "Drop-in for other push clients"): the app key is the
 * application token (`?token=`, `X-Gotify-Key`, or `Authorization: Bearer`, as Gotify's server takes
 * it); JSON or form `title`, `message`, `priority` (0–10), `extras`. Answers a Gotify Message on
 * success and a Gotify error `{error, errorCode, errorDescription}` otherwise.
 */

export interface GotifyRequest {
  appKey: string;
  input: Record<string, unknown>;
  /** What the answer echoes. */
  echo: { title: string; message: string; priority: number; extras?: Record<string, unknown> };
}

/** The application token: `?token=`, then `X-Gotify-Key`, then `Authorization: Bearer …` ('' when none). */
function tokenOf(req: Request): string {
  const query = req.query.token;
  if (typeof query === 'string' && query) return query;
  const key = header(req, 'x-gotify-key');
  if (key) return key;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header(req, 'authorization'));
  return bearer?.[1] ?? '';
}

/** Gotify's 0–10 (its Android app: 0–3 quiet, 4–7 with sound, 8–10 pop up) as PennyPost's four priorities. */
export function gotifyPriority(value: number): Priority {
  if (value <= 3) return 'low';
  if (value <= 7) return 'normal';
  if (value <= 9) return 'high';
  return 'urgent';
}

function priorityOf(raw: unknown): number | null {
  if (raw === undefined || raw === null || raw === '') return null;
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!Number.isSafeInteger(value)) throw commonErrors.invalid('priority must be a whole number (Gotify counts 0–10).').at('priority');
  return value;
}

/** A nested extras value (`extras["client::notification"].click.url`), '' when absent or not text. */
function extra(extras: Record<string, unknown> | undefined, namespace: string, ...path: string[]): string {
  let value: unknown = extras?.[namespace];
  for (const key of path) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' ? value : '';
}

/** The /send input of a Gotify request: the query (but the token) with the body over it. */
export function gotifyRequest(req: Request): GotifyRequest {
  const appKey = tokenOf(req);
  if (!appKey) throw commonErrors.unauthorized('you need to provide a valid access token or user credentials to access this api');
  const fields = { ...queryInput(req), ...objectBody(req.body, '{"title": "…", "message": "…", "priority": 5}') };
  delete fields.token;
  const message = text(fields, 'message');
  const title = text(fields, 'title');
  const priority = priorityOf(fields.priority);
  const rawExtras = fields.extras;
  if (rawExtras !== undefined && (rawExtras === null || typeof rawExtras !== 'object' || Array.isArray(rawExtras))) {
    throw commonErrors.invalid('extras must be an object like {"client::notification": {"click": {"url": "https://…"}}}.').at('extras');
  }
  const extras = rawExtras as Record<string, unknown> | undefined;
  const derived = titleAndDesp(title, message);
  const input: Record<string, unknown> = {
    title: derived.title,
    desp: withClick(derived.desp, extra(extras, 'client::notification', 'click', 'url')),
    ...(priority === null ? {} : { priority: gotifyPriority(priority) }),
    ...scheduleFields(fields),
  };
  return { appKey, input, echo: { title: derived.title, message, priority: priority ?? 0, ...(extras ? { extras } : {}) } };
}

/** Gotify's error shape. PennyPost's 404 for an unknown key is Gotify's 401 for an unknown token. */
export function gotifyError(result: SendAnswer): Shaped {
  const status = result.status === 404 ? 401 : result.status;
  return {
    status,
    headers: result.headers,
    body: {
      error: STATUS_CODES[status] ?? 'Error',
      errorCode: status,
      errorDescription: result.body.message,
      ...(result.body.data ? { pennypost: result.body } : {}),
    },
  };
}

/** A Gotify Message on success (ids are numbers standing for the push and the app); PennyPost's answer rides along as `pennypost`. */
export function gotifyAnswer(result: SendAnswer, request: GotifyRequest, now: number): Shaped {
  if (result.body.code !== 0) return gotifyError(result);
  const pushId = pushIdOf(result);
  return {
    status: 200,
    headers: result.headers,
    body: {
      id: numericId(pushId),
      appid: numericId(`app:${request.appKey}`),
      message: request.echo.message,
      title: request.echo.title,
      priority: request.echo.priority,
      date: new Date(now).toISOString(),
      ...(request.echo.extras ? { extras: request.echo.extras } : {}),
      pennypost: result.body,
    },
  };
}
