import { commonErrors } from '../../lib/errors';
import type { Outcome } from '../deliver';
import type { CallAnswer } from '../http-client';
import { jsonOf, type Attempt } from './chat-http';
import type { Priority } from '../message-options';
import type { OutgoingMessage, Recipient } from './driver';
import { isHttpUrl } from './urls';

/**
 * What the group-robot channels (WeCom, DingTalk, Feishu/Lark: ./wecom.ts, ./dingtalk.ts,
 * ./feishu.ts) share: a webhook URL that embeds the robot's key (a secret, masked so that the
 * service still shows), the one recipient (the robot's group), byte-exact truncation that keeps the
 * message page link, and how their JSON answers read (robotAnswer). The drivers are declarations
 * over ./robot-driver.ts, like Discord's and Slack's.
 */

/** The one recipient of a robot channel: the group its webhook posts to. */
export const GROUP_RECIPIENT: Recipient = { label: 'group', name: 'The robot’s group', address: 'group' };

/**
 * A push as a robot driver keeps it (its render): the body is built at delivery, where the channel's
 * settings (format, signing secret, the time to sign with) are known.
 */
export type RobotPush = Pick<OutgoingMessage, 'title' | 'desp' | 'url' | 'priority' | 'group'>;

/** The parts of a push a robot message carries. */
export const robotPush = (message: OutgoingMessage): RobotPush => ({
  title: message.title,
  desp: message.desp,
  ...(message.url ? { url: message.url } : {}),
  priority: message.priority,
  group: message.group,
});

/** The official hosts of the robot services, to tell a URL pasted into the wrong channel type. */
const SERVICE_HOSTS = new Map([
  ['qyapi.weixin.qq.com', 'WeCom (企业微信) group robot'],
  ['oapi.dingtalk.com', 'DingTalk robot'],
  ['open.feishu.cn', 'Feishu robot'],
  ['open.larksuite.com', 'Lark robot'],
]);

/** A checked robot webhook URL and its credential (the key, access token or hook id). */
export interface RobotUrl {
  url: URL;
  credential: string;
}

/**
 * Checks a robot webhook URL: an http(s) URL whose path and query have the service's shape (any
 * host, so a proxy or a local fake can stand in; the service's own host must be https), and not
 * another service's URL. `credentialOf` reads the credential or returns null when the shape is
 * wrong. Throws a 400 at config.webhookUrl that shows an example, never the URL given.
 */
export function parseRobotUrl(value: string, service: { name: string; hosts: readonly string[]; example: string; credentialOf: (url: URL) => string | null }): RobotUrl {
  const fail = (why: string) => commonErrors.invalid(`params.config.webhookUrl ${why}`).at('config.webhookUrl');
  if (!value) throw fail(`is required: the ${service.name}'s webhook URL, e.g. ${service.example}`);
  if (!isHttpUrl(value)) throw fail(`must be an http(s) URL, e.g. ${service.example}`);
  const url = new URL(value);
  const other = SERVICE_HOSTS.get(url.hostname);
  if (other && !service.hosts.includes(url.hostname)) throw fail(`is the webhook URL of a ${other}: create a channel of that type for it`);
  if (service.hosts.includes(url.hostname) && url.protocol !== 'https:') throw fail(`must start with https:// for ${url.hostname}`);
  if (url.username || url.password) throw fail('must not carry a user name or password');
  const credential = service.credentialOf(url);
  if (credential === null) throw fail(`does not have the shape of a ${service.name}'s webhook URL, e.g. ${service.example}`);
  return { url, credential };
}

/**
 * A webhook URL as answers show it: `••••` (so that sending it back keeps the stored one), the host
 * (which service, or which proxy) and the last 4 characters of its credential.
 */
export function maskRobotUrl(value: string, credentialOf: (url: URL) => string | null): string {
  if (!value) return '';
  try {
    const url = new URL(value);
    const credential = credentialOf(url) ?? '';
    return `•••• ${url.host} ${credential.length > 8 ? '…' + credential.slice(-4) : '…'}`;
  } catch {
    return '••••';
  }
}

/** Cuts text to at most `maxBytes` UTF-8 bytes, ending with `…` when cut (never mid-character). */
export function truncateBytes(value: string, maxBytes: number): string {
  if (Buffer.byteLength(value, 'utf8') <= maxBytes) return value;
  let out = '';
  let bytes = 0;
  const limit = Math.max(0, maxBytes - 3);
  for (const ch of value) {
    const size = Buffer.byteLength(ch, 'utf8');
    if (bytes + size > limit) break;
    out += ch;
    bytes += size;
  }
  return out + '…';
}

/**
 * A message body within `maxBytes`: `head` (the title line), then `body` cut to what is left, then
 * `tail` (the page link) always kept whole. With a cut body the tail says the rest is on the page.
 */
export function fitBytes(head: string, body: string, tail: string, maxBytes: number): string {
  const whole = head + body + tail;
  if (Buffer.byteLength(whole, 'utf8') <= maxBytes) return whole;
  const room = maxBytes - Buffer.byteLength(head + tail, 'utf8');
  if (room <= 3) return truncateBytes(head + tail, maxBytes);
  return head + truncateBytes(body, room) + tail;
}

/** The title as robots show it: `[group] title` when the push has a group. */
export function groupedTitle(title: string, group: string): string {
  return group ? `[${group}] ${title}` : title;
}

/** Replaces secrets inside a service's text (errmsg) and cuts it for messages. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text.replace(/\s+/g, ' ').trim();
  for (const secret of secrets) if (secret && secret.length >= 6) out = out.split(secret).join('••••');
  return out.length > 200 ? out.slice(0, 200) + '…' : out;
}

/** How a group robot's answer reads: where its code and its text are, and what its codes mean. */
export interface RobotAnswerShape {
  service: string;
  /** The fields that may hold the code (0 = delivered), first found wins. */
  code: readonly string[];
  /** The fields that may hold the service's words, first found wins. */
  text: readonly string[];
  /** What the code is called when it is missing ('an errcode'). */
  noun: string;
  /** The channel's secrets, cut out of the service's words before they are quoted. */
  secrets: readonly string[];
  /** A code other than 0 in the error classes, with the service's words (already redacted). */
  failure(code: number, said: string): Outcome;
}

/**
 * A group robot's answer in the error classes: a JSON object under HTTP 500 (and not 429) is read
 * for its code; 429, 5xx and 408 are transient, 401/403/404 and 3xx systemic, other non-JSON
 * answers transient.
 */
export function robotAnswer(answer: CallAnswer, shape: RobotAnswerShape): Attempt {
  const { status } = answer;
  const { service } = shape;
  const json = jsonOf(answer);
  if (json && status < 500 && status !== 429) {
    const code = shape.code.map((field) => codeOf(json[field])).find((value) => value !== undefined);
    if (code === 0) return { outcome: { ok: true } };
    if (code === undefined)
      return { outcome: { ok: false, cls: 'transient', errcode: status, message: `${service} answered without ${shape.noun} (HTTP ${status}); is the webhook URL right?` } };
    const said = shape.text.map((field) => json[field]).find((value) => typeof value === 'string');
    return { outcome: shape.failure(code, redact(typeof said === 'string' ? said : '', shape.secrets)) };
  }
  if (status === 429) return { outcome: { ok: false, cls: 'transient', errcode: status, message: `${service} asks to slow down (HTTP 429).` } };
  if (status >= 500 || status === 408) return { outcome: { ok: false, cls: 'transient', errcode: status, message: `${service} failed (HTTP ${status}).` } };
  if (status === 404 || status === 401 || status === 403) {
    return { outcome: { ok: false, cls: 'systemic', errcode: status, message: `${service} does not know this webhook (HTTP ${status}): check the channel's webhook URL.` } };
  }
  if (status >= 300 && status < 400) {
    return { outcome: { ok: false, cls: 'systemic', errcode: status, message: `The webhook URL redirects (HTTP ${status}): use the robot's own webhook URL.` } };
  }
  return {
    outcome: { ok: false, cls: 'transient', errcode: status, message: `${service} answered something that is not its JSON (HTTP ${status}); is the channel's webhook URL right?` },
  };
}

/** The numeric code of an answer field ('' and absent → undefined). */
export function codeOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
  return undefined;
}

/** Which priorities mention everyone in the group. */
export const mentionsAll = (priority: Priority): boolean => priority === 'urgent';
