import type { OutboundScope } from '../../http/outbound-policy';
import { call, CallError } from '../http-client';
import type { Outcome } from '../deliver';
import type { Priority } from '../message-options';
import { isHttpUrl, sameOrigin } from './urls';

/**
 * The webhook channel's HTTP side (its driver is ./webhook.ts): forwards a push to any HTTP
 * receiver, with ready-made bodies for ntfy, Gotify and Bark and a generic JSON shape. Each
 * recipient's address names the destination:
 *
 * | format | channel `url` (base)            | recipient address                         |
 * |--------|---------------------------------|-------------------------------------------|
 * | ntfy   | ntfy server, default ntfy.sh    | a topic, or a full topic URL              |
 * | gotify | Gotify server (required)        | the Gotify application token              |
 * | bark   | Bark server, default api.day.app| the device key                            |
 * | json   | optional base URL               | an absolute URL, or a path under the base |
 */

export const WEBHOOK_FORMATS = ['ntfy', 'gotify', 'bark', 'json'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

export interface WebhookConfig {
  url: string;
  format: WebhookFormat;
  /** Bearer token sent to the receiver (ntfy access token, generic JSON receivers). */
  token: string;
  /** 1 (min) – 5 (max); ntfy takes it as is, Gotify doubled (2–10). 0 = the receiver's default. */
  priority: number;
}

export const DEFAULT_BASE: Record<WebhookFormat, string> = {
  ntfy: 'https://ntfy.sh',
  gotify: '',
  bark: 'https://api.day.app',
  json: '',
};

function originOf(value: string): string {
  try {
    return ` (${new URL(value).origin})`;
  } catch {
    return '';
  }
}

export interface WebhookMessage {
  pushId: string;
  appName: string;
  title: string;
  desp: string;
  /** Link to the message page, when a public base URL is configured. */
  url?: string;
  time: number;
  /** The push's priority; 'normal' leaves the channel's configured priority. */
  priority?: Priority;
  /** The push's group ('' = none): Bark groups by it (else by the app's name). */
  group?: string;
}

/** ntfy's 1–5 for a push: 'normal' keeps the channel's setting (0 = the receiver's default). */
const NTFY_PRIORITY: Record<Priority, number> = { low: 2, normal: 0, high: 4, urgent: 5 };
/** Bark's interruption levels. */
const BARK_LEVEL: Record<Priority, string> = { low: 'passive', normal: '', high: 'timeSensitive', urgent: 'critical' };

/** The 1–5 priority a request carries (0 = none): the push's own, else the channel's. */
function priorityFor(config: WebhookConfig, message: WebhookMessage): number {
  return NTFY_PRIORITY[message.priority ?? 'normal'] || config.priority;
}

function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + '/' + path.replace(/^\/+/, '');
}

interface Request {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The channel has a token but this request leaves the channel url's origin, so it goes without. */
  tokenWithheld: boolean;
}

/** The HTTP request for one recipient. */
export function buildWebhookRequest(config: WebhookConfig, address: string, message: WebhookMessage): Request {
  const request = buildRequest(config, address, message);
  // The token belongs to the channel url it was entered for: a recipient (or test address) that is a
  // full URL on another origin gets the message, never the token.
  const base = config.url || DEFAULT_BASE[config.format];
  const tokenWithheld = !!config.token && !sameOrigin(request.url, base);
  const headers = { ...request.headers };
  if (config.token && !tokenWithheld && config.format !== 'gotify') headers.authorization = `Bearer ${config.token}`;
  return { ...request, headers, tokenWithheld };
}

function buildRequest(config: WebhookConfig, address: string, message: WebhookMessage): Omit<Request, 'tokenWithheld'> {
  const base = config.url || DEFAULT_BASE[config.format];
  const json = { 'content-type': 'application/json; charset=utf-8' };
  const text = message.desp || message.title;
  switch (config.format) {
    case 'ntfy': {
      // JSON publishing (POST to the server root with the topic in the body) keeps UTF-8 titles intact.
      let root = base;
      let topic = address;
      if (isHttpUrl(address)) {
        const url = new URL(address);
        const parts = url.pathname.split('/').filter(Boolean);
        topic = decodeURIComponent(parts.pop() ?? '');
        root = url.origin + (parts.length ? '/' + parts.join('/') : '');
      }
      const body = {
        topic,
        message: text,
        ...(message.desp ? { title: message.title } : {}),
        markdown: true,
        ...(message.url ? { click: message.url } : {}),
        ...(priorityFor(config, message) ? { priority: priorityFor(config, message) } : {}),
      };
      return { url: joinUrl(root, ''), headers: json, body: JSON.stringify(body) };
    }
    case 'gotify': {
      const extras: Record<string, unknown> = { 'client::display': { contentType: 'text/markdown' } };
      if (message.url) extras['client::notification'] = { click: { url: message.url } };
      const body = { title: message.title, message: text, ...(priorityFor(config, message) ? { priority: priorityFor(config, message) * 2 } : {}), extras };
      return { url: joinUrl(base, 'message'), headers: { ...json, 'x-gotify-key': address }, body: JSON.stringify(body) };
    }
    case 'bark': {
      const body = {
        device_key: address,
        ...(message.desp ? { title: message.title } : {}),
        body: text,
        group: message.group || message.appName,
        ...(BARK_LEVEL[message.priority ?? 'normal'] ? { level: BARK_LEVEL[message.priority ?? 'normal'] } : {}),
        ...(message.url ? { url: message.url } : {}),
      };
      return { url: joinUrl(base, 'push'), headers: json, body: JSON.stringify(body) };
    }
    case 'json': {
      const body = {
        pushId: message.pushId,
        app: message.appName,
        title: message.title,
        desp: message.desp,
        ...(message.url ? { url: message.url } : {}),
        priority: message.priority ?? 'normal',
        ...(message.group ? { group: message.group } : {}),
        time: message.time,
        timeIso: new Date(message.time).toISOString(),
      };
      return { url: isHttpUrl(address) ? address : joinUrl(base, address), headers: json, body: JSON.stringify(body) };
    }
  }
}

function snippet(text: string, secrets: string[]): string {
  let out = text.replace(/\s+/g, ' ').trim();
  for (const secret of secrets) if (secret && secret.length >= 6) out = out.split(secret).join('••••');
  return out.length > 160 ? out.slice(0, 160) + '…' : out;
}

/**
 * What a receiver says about a refusal, taken only from its own answer shape: ntfy's `error`,
 * Gotify's `errorDescription` (else `error`), Bark's `message`. A generic JSON receiver has no known
 * shape, so nothing of its answer is quoted — neither is any answer that does not have the shape
 * (an address that is not the receiver it claims to be says nothing through PennyPost).
 */
function receiverWords(format: WebhookFormat, text: string, secrets: string[]): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return '';
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return '';
  const answer = parsed as Record<string, unknown>;
  const words = format === 'ntfy' ? answer.error : format === 'gotify' ? (answer.errorDescription ?? answer.error) : format === 'bark' ? answer.message : undefined;
  return typeof words === 'string' ? snippet(words, secrets) : '';
}

/** Sends one request and classifies the receiver's answer. */
export async function webhookSend(scope: OutboundScope, config: WebhookConfig, address: string, message: WebhookMessage, timeoutMs: number): Promise<Outcome> {
  const request = buildWebhookRequest(config, address, message);
  const secrets = [config.token, address];
  let answer;
  try {
    answer = await call(scope, request.url, { method: 'POST', headers: request.headers, body: request.body, timeoutMs });
  } catch (error) {
    if (error instanceof CallError && error.kind === 'refused') return { ok: false, cls: 'systemic', message: `PennyPost did not send to the receiver: ${error.message}` };
    const reason = error instanceof CallError ? error.message : 'network error';
    return { ok: false, cls: 'transient', message: `The receiver could not be reached: ${reason}.` };
  }
  const { status } = answer;
  const words = receiverWords(config.format, answer.text, secrets);
  const said = words ? ` (receiver said: ${words})` : '';
  if (status >= 200 && status < 300) {
    if (config.format === 'bark') {
      // Bark answers 200 with {code: 400, message} for an unknown device key.
      try {
        const parsed = JSON.parse(answer.text) as { code?: number; message?: string };
        if (typeof parsed.code === 'number' && parsed.code !== 200) {
          return { ok: false, cls: 'recipient', errcode: parsed.code, message: `Bark refused this device key${said}.` };
        }
      } catch {
        // Not JSON: a 2xx from the receiver is a delivery.
      }
    }
    let msgId: string | undefined;
    try {
      const parsed = JSON.parse(answer.text) as { id?: unknown };
      if (typeof parsed.id === 'string' || typeof parsed.id === 'number') msgId = String(parsed.id);
    } catch {
      // no id
    }
    return { ok: true, msgId };
  }
  if (status === 401 || status === 403) {
    if (request.tokenWithheld) {
      return {
        ok: false,
        cls: 'recipient',
        errcode: status,
        message: `The receiver refused the message (HTTP ${status}); the channel's token is only sent to the server of the channel url${originOf(config.url || DEFAULT_BASE[config.format])}, not to this address${said}.`,
      };
    }
    if (config.format === 'gotify') return { ok: false, cls: 'recipient', errcode: status, message: `Gotify refused this application token (HTTP ${status})${said}.` };
    return {
      ok: false,
      cls: 'systemic',
      errcode: status,
      message: `The receiver refused PennyPost's credentials (HTTP ${status}): check the channel's token${said}.`,
    };
  }
  if (status === 404 || status === 410) {
    return { ok: false, cls: 'recipient', errcode: status, message: `The receiver does not know this address (HTTP ${status}): check the recipient and the channel url${said}.` };
  }
  if (status === 429) return { ok: false, cls: 'transient', errcode: status, message: `The receiver asks to slow down (HTTP 429)${said}.` };
  if (status === 408 || status >= 500) return { ok: false, cls: 'transient', errcode: status, message: `The receiver failed (HTTP ${status})${said}.` };
  if (status >= 300 && status < 400) {
    return { ok: false, cls: 'systemic', errcode: status, message: `The receiver redirects (HTTP ${status}); use the final URL in the channel or recipient.` };
  }
  return { ok: false, cls: 'recipient', errcode: status, message: `The receiver refused the message (HTTP ${status})${said}.` };
}

/** Reachability probe for push.testChannel without a recipient. */
export async function webhookProbe(scope: OutboundScope, config: WebhookConfig, timeoutMs: number): Promise<{ ok: boolean; message: string; class?: string }> {
  const base = config.url || DEFAULT_BASE[config.format];
  if (!base) return { ok: false, message: 'This channel has no base url; give an address to send a test message to.' };
  const path = config.format === 'ntfy' ? 'v1/health' : config.format === 'gotify' ? 'health' : config.format === 'bark' ? 'ping' : '';
  try {
    const answer = await call(scope, path ? joinUrl(base, path) : base, { method: 'GET', headers: config.token ? { authorization: `Bearer ${config.token}` } : {}, timeoutMs });
    if (answer.status >= 500) return { ok: false, message: `The receiver answered HTTP ${answer.status}: it is up but failing.` };
    if (answer.status === 404 && path) return { ok: false, message: `The receiver answered 404 at /${path}: is this really a ${config.format} server?` };
    return { ok: true, message: `The receiver is reachable (HTTP ${answer.status}).` };
  } catch (error) {
    if (error instanceof CallError && error.kind === 'refused') return { ok: false, class: 'systemic', message: `PennyPost did not send to the receiver: ${error.message}` };
    return { ok: false, message: `The receiver could not be reached: ${error instanceof CallError ? error.message : 'network error'}.` };
  }
}
