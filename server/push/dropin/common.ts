import { createHash } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { checkJsonShape } from '../../api/validation';
import { commonErrors } from '../../lib/errors';
import { textField, type SendAnswer } from '../send/answer';

/**
 * What every drop-in form shares (docs/push.md "Drop-in for other push clients"): the webhook's CORS
 * headers, reading request fields, and turning another ecosystem's "message without a title" into
 * PennyPost's title + desp.
 */

/** Largest body of any webhook form (as /send). */
export const DROPIN_BODY_LIMIT = '4mb';

/** Request headers other clients send (ntfy's, Gotify's key, bearer tokens), allowed in browser preflights. */
const ALLOWED_HEADERS = [
  'Content-Type',
  'Authorization',
  'X-Gotify-Key',
  'Title',
  'X-Title',
  'Message',
  'X-Message',
  'Priority',
  'X-Priority',
  'Tags',
  'X-Tags',
  'Click',
  'X-Click',
  'Markdown',
  'X-Markdown',
  'Delay',
  'X-Delay',
  'At',
  'X-At',
  'In',
  'X-In',
];

/** The headers of every webhook answer, refusals included: readable from any origin, never cached. */
export function webhookCors(methods: readonly string[]): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Methods': methods.join(', '),
    'Access-Control-Allow-Headers': ALLOWED_HEADERS.join(', '),
    'Access-Control-Max-Age': '86400',
    // helmet sets same-origin for everything; a webhook answer must be readable cross-origin.
    'Cross-Origin-Resource-Policy': 'cross-origin',
    'Cache-Control': 'no-store',
  };
}

/** OPTIONS (CORS preflight) and HEAD probes of a webhook form: 204, no push, before the wrapper reads anything. */
export function answerProbe(headers: Record<string, string>) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== 'OPTIONS' && req.method !== 'HEAD') {
      next();
      return;
    }
    res.set(headers).status(204).end();
  };
}

/** The query string as /send input (repeated fields stay arrays, which /send refuses). */
export function queryInput(req: Request): Record<string, unknown> {
  return { ...(req.query as Record<string, unknown>) };
}

/** A parsed JSON or form body as an object of fields; anything else is refused with `example` as the hint. */
export function objectBody(body: unknown, example: string): Record<string, unknown> {
  if (body === undefined || body === null || body === '') return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw commonErrors.invalid(`The JSON body must be an object like ${example}.`);
  const problem = checkJsonShape(body);
  if (problem) throw commonErrors.invalid(`Invalid body: ${problem}.`);
  return body as Record<string, unknown>;
}

/** `a=1&b=2` as fields; a field given twice becomes an array (refused by /send like any repeated field). */
export function formFields(text: string): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  const params = new URLSearchParams(text);
  let count = 0;
  for (const [key, value] of params) {
    if (++count > 100) throw commonErrors.invalid('The form body has more than 100 fields.');
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') continue;
    const existing = fields[key];
    fields[key] = existing === undefined ? value : Array.isArray(existing) ? [...(existing as string[]), value] : [existing, value];
  }
  return fields;
}

/** One header's value ('' when absent; a repeated header's first value). */
export function header(req: Request, name: string): string {
  const value = req.headers[name.toLowerCase()];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** Longest title made from a message's first line when the caller sent no title. */
const DERIVED_TITLE_MAX = 100;

/**
 * PennyPost needs a title; Gotify, Bark and ntfy do not. A message without a title keeps the message
 * as its desp and takes its first line as the title (cut at 100 characters with "…"); when that line
 * is the whole message, the title alone carries it (desp '').
 */
export function titleAndDesp(title: string, message: string): { title: string; desp: string } {
  if (title.trim() !== '') return { title, desp: message };
  const text = message.trim();
  const newline = text.search(/\r?\n/);
  const firstLine = (newline === -1 ? text : text.slice(0, newline)).trim();
  if (firstLine === text && firstLine.length <= DERIVED_TITLE_MAX) return { title: firstLine, desp: '' };
  const cut = firstLine.length > DERIVED_TITLE_MAX ? firstLine.slice(0, DERIVED_TITLE_MAX - 1) + '…' : firstLine;
  return { title: cut, desp: message };
}

/**
 * Gotify, Bark and ntfy take a title of any length, PennyPost's /send at most `max` characters (it
 * refuses longer ones). For those forms a longer title is cut for display with "…", and the whole
 * title starts the text, so nothing the sender wrote is lost.
 */
export function foldLongTitle(input: Record<string, unknown>, max: number): Record<string, unknown> {
  const title = input.title;
  if (typeof title !== 'string' || title.length <= max) return input;
  const desp = typeof input.desp === 'string' ? input.desp : '';
  return { ...input, title: title.slice(0, Math.max(1, max - 1)) + '…', desp: desp.trim() === '' ? title : `${title}\n\n${desp}` };
}

/**
 * A click URL from another client (Bark `url`, ntfy `Click`, Gotify's `client::notification.click.url`):
 * PennyPost's channels link to the message page, so the caller's link goes into the text, as a
 * Markdown autolink on its own line. Only http(s) URLs; anything else is left out.
 */
export function withClick(desp: string, click: string): string {
  const url = click.trim();
  if (!/^https?:\/\/[^\s<>]+$/i.test(url)) return desp;
  return desp.trim() === '' ? `<${url}>` : `${desp}\n\n<${url}>`;
}

/**
 * `at` / `delay` as the caller gave them (scheduled pushes, docs/push.md "Scheduled pushes"): every
 * form takes them, including those whose own service has no such thing (Gotify, Bark); /send reads them.
 */
export function scheduleFields(fields: Record<string, unknown>): { at?: unknown; delay?: unknown } {
  return { ...(fields.at !== undefined ? { at: fields.at } : {}), ...(fields.delay !== undefined ? { delay: fields.delay } : {}) };
}

/** Reads a text field of another client's input ('' when absent; numbers as text; a repeated field or an object is refused like on /send). */
export function text(input: Record<string, unknown>, name: string): string {
  return textField(input, name) ?? '';
}

/** The push id of a /send answer that recorded a push, else ''. */
export function pushIdOf(result: SendAnswer): string {
  const data = result.body.data as { pushId?: unknown } | null;
  return data && typeof data.pushId === 'string' ? data.pushId : '';
}

/** An answer in another ecosystem's shape. */
export interface Shaped {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export function sendShaped(res: Response, shaped: Shaped): void {
  res.set(shaped.headers).status(shaped.status).json(shaped.body);
}

/** A 48-bit number standing for a text id, for ecosystems whose ids are integers (Gotify). */
export function numericId(text: string): number {
  return parseInt(createHash('sha256').update(text).digest('hex').slice(0, 12), 16);
}
