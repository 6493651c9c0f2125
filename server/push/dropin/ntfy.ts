import type { Request } from 'express';
import { MAX_PARSE_DEPTH, textNestsDeeperThan } from '../../http/json-depth';
import { commonErrors } from '../../lib/errors';
import type { SendAnswer } from '../send/answer';
import { pushIdOf, text, titleAndDesp, withClick, type Shaped } from './common';

/**
 * ntfy (docs/push.md "Drop-in for other push clients"): `PUT/POST /{appKey}` with the message as the
 * body and the options as headers (`Title`/`X-Title`/`t`…) or query parameters, RFC 2047 encoded
 * header values included; and ntfy's JSON publishing, `POST /` with `{topic: appKey, message, …}`.
 * `Priority` is PennyPost's priority (ntfy's 1–5 and words), `Click` a link in the text, `Delay` /
 * `In` the /send field `delay` and `At` the field `at` (passed on as given). Tags, markdown, icons,
 * attachments, actions, e-mail and calls are ignored. Answers ntfy's message JSON.
 */

/** One ntfy option: its header names (ntfy reads any of them) and its query names. */
const PARAMS = {
  title: ['x-title', 'title', 'ti', 't'],
  message: ['x-message', 'message', 'm'],
  priority: ['x-priority', 'priority', 'prio', 'p'],
  tags: ['x-tags', 'tags', 'tag', 'ta'],
  click: ['x-click', 'click'],
  markdown: ['x-markdown', 'markdown', 'md'],
  delay: ['x-delay', 'delay', 'x-in', 'in'],
  at: ['x-at', 'at'],
} as const;

type Param = keyof typeof PARAMS;

/**
 * Headers that only ntfy clients send: any of them turns a POST to /{appKey} into an ntfy publish.
 * (`Priority` alone does not: browsers send RFC 9218's `Priority: u=…`; the one-letter names neither.)
 */
const SIGNAL_HEADERS = [
  'x-title',
  'title',
  'x-message',
  'message',
  'x-priority',
  'x-tags',
  'tags',
  'x-click',
  'click',
  'x-markdown',
  'markdown',
  'x-delay',
  'delay',
  'x-at',
  'at',
  'x-in',
  'in',
];

export function hasNtfyHeaders(req: Request): boolean {
  return SIGNAL_HEADERS.some((name) => req.headers[name] !== undefined);
}

/** ntfy's message in the query (`?message=…`, `?m=…`): PennyPost's /send has no such field, so it marks an ntfy publish. */
export function hasNtfyMessageQuery(req: Request): boolean {
  return ['message', 'm'].some((name) => req.query[name] !== undefined);
}

/** What ntfy publishes when there is no message at all (`curl -X POST ntfy.sh/topic`). */
export const EMPTY_MESSAGE = 'triggered';

/**
 * Header values as sent: RFC 2047 encoded words (`=?UTF-8?B?…?=`, `=?UTF-8?Q?…?=`) decoded, and raw
 * UTF-8 (which Node reads as Latin-1) read as UTF-8.
 */
export function decodeHeader(value: string): string {
  if (value.includes('=?')) {
    return value.replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (whole, charset: string, encoding: string, data: string) => {
      try {
        const bytes =
          encoding.toUpperCase() === 'B'
            ? Buffer.from(data, 'base64')
            : Buffer.from(
                data.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
                'latin1',
              );
        return new TextDecoder(charset, { fatal: true }).decode(bytes);
      } catch {
        return whole;
      }
    });
  }
  // eslint-disable-next-line no-control-regex -- looking for non-ASCII bytes (0x80–0xFF) of a Latin-1 read header
  if (/[\u0080-\u00ff]/.test(value) && !/[^\u0000-\u00ff]/.test(value)) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(value, 'latin1'));
    } catch {
      return value;
    }
  }
  return value;
}

/** An option from the headers (any of its names), else from the query (its names without `x-`). */
function param(req: Request, name: Param): string {
  for (const header of PARAMS[name]) {
    const value = req.headers[header];
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined && first !== '') return decodeHeader(first);
  }
  for (const key of PARAMS[name]) {
    if (key.startsWith('x-')) continue;
    const value = req.query[key];
    if (typeof value === 'string' && value !== '') return value;
    if (Array.isArray(value)) throw commonErrors.invalid(`"${key}" was given more than once; send it once.`).at(key);
  }
  return '';
}

export interface NtfyRequest {
  appKey: string;
  input: Record<string, unknown>;
  /** What the answer echoes. */
  echo: { title: string; message: string; tags: string[]; click: string };
}

interface NtfyOptions {
  title: string;
  message: string;
  priority: string;
  tags: string[];
  click: string;
  delay: string;
  at: string;
}

function ntfyRequest(appKey: string, options: NtfyOptions): NtfyRequest {
  const derived = titleAndDesp(options.title, options.message);
  // RFC 9218's `Priority: u=3, i` (sent by browsers) is not ntfy's priority.
  const priority = /^u=/i.test(options.priority.trim()) ? '' : options.priority;
  const input: Record<string, unknown> = {
    title: derived.title,
    desp: withClick(derived.desp, options.click),
    ...(priority ? { priority } : {}),
    ...(options.delay ? { delay: options.delay } : {}),
    ...(options.at ? { at: options.at } : {}),
  };
  return { appKey, input, echo: { title: options.title, message: options.message, tags: options.tags, click: options.click } };
}

const tagList = (value: string): string[] =>
  value
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean);

/**
 * `PUT/POST /{appKey}`: the message is `X-Message`/`Message`/`?message=`/`?m=` when given (ntfy lets
 * it win over the body, with `\n` as a line break), else the body as sent (JSON text included),
 * else "triggered"; the options come from headers or the query.
 */
export function ntfyPublish(req: Request, appKey: string, body: string): NtfyRequest {
  const given = param(req, 'message').replace(/\\n/g, '\n');
  return ntfyRequest(appKey, {
    title: param(req, 'title'),
    message: given !== '' ? given : body.trim() !== '' ? body : EMPTY_MESSAGE,
    priority: param(req, 'priority'),
    tags: tagList(param(req, 'tags')),
    click: param(req, 'click'),
    delay: param(req, 'delay'),
    at: param(req, 'at'),
  });
}

/**
 * `POST /` (ntfy's JSON publishing): `{topic, message, title, priority, tags, click, delay, …}`,
 * whatever the content type says. As in ntfy, each JSON field that is set wins over the same
 * option sent as a header beside it (Apprise sends `X-Priority`, `X-Click`, `X-Delay`, `X-Tags`
 * headers with its JSON), and a missing message is "triggered".
 */
export function ntfyJsonPublish(body: string, req?: Request): NtfyRequest {
  if (textNestsDeeperThan(body)) throw commonErrors.invalid(`The JSON body nests deeper than ${MAX_PARSE_DEPTH} levels.`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw commonErrors.invalid('Send a JSON object like {"topic": "<app key>", "message": "…", "title": "…"} to publish here.');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw commonErrors.invalid('The JSON body must be an object like {"topic": "<app key>", "message": "…"}.');
  const fields = parsed as Record<string, unknown>;
  const topic = text(fields, 'topic');
  if (!topic) throw commonErrors.invalid('topic is required: the app key to push to.').at('topic');
  const tags: unknown = fields.tags;
  if (tags !== undefined && !(Array.isArray(tags) && tags.every((tag) => typeof tag === 'string'))) throw commonErrors.invalid('tags must be a list of words.').at('tags');
  const beside = (name: Param) => (req ? param(req, name) : '');
  const priority = text(fields, 'priority');
  return ntfyRequest(topic, {
    title: text(fields, 'title') || beside('title'),
    message: text(fields, 'message') || EMPTY_MESSAGE,
    // ntfy's JSON has no priority 0: 0 is "not set", as in its own server.
    priority: priority !== '' && priority !== '0' ? priority : beside('priority'),
    tags: tags && tags.length > 0 ? tags : tagList(beside('tags')),
    click: text(fields, 'click') || beside('click'),
    delay: text(fields, 'delay') || text(fields, 'in') || beside('delay'),
    at: text(fields, 'at') || beside('at'),
  });
}

/** ntfy's error shape: `{code, http, error}` (code = the HTTP status × 100). */
export function ntfyError(result: SendAnswer): Shaped {
  return {
    status: result.status,
    headers: result.headers,
    body: { code: result.status * 100, http: result.status, error: result.body.message, ...(result.body.data ? { pennypost: result.body } : {}) },
  };
}

/** ntfy's message JSON (`id` is the push id; it expires with PennyPost's history); PennyPost's answer rides along as `pennypost`. */
export function ntfyAnswer(result: SendAnswer, request: NtfyRequest, now: number, retentionDays: number): Shaped {
  if (result.body.code !== 0) return ntfyError(result);
  // A scheduled push answers with the time it will go out, as ntfy does for delayed messages.
  const data = result.body.data as { scheduled?: boolean; at?: number } | null;
  const time = Math.floor((data?.scheduled && typeof data.at === 'number' ? data.at : now) / 1000);
  const { echo } = request;
  return {
    status: 200,
    headers: result.headers,
    body: {
      id: pushIdOf(result),
      time,
      expires: time + retentionDays * 86_400,
      event: 'message',
      topic: request.appKey,
      ...(echo.title ? { title: echo.title } : {}),
      message: echo.message,
      ...(echo.tags.length ? { tags: echo.tags } : {}),
      ...(echo.click ? { click: echo.click } : {}),
      pennypost: result.body,
    },
  };
}
