import type { TObject } from '@sinclair/typebox';
import type { Endpoint, OutboundScope } from '../../http/outbound-policy';
import type { Clock } from '../../lib/clock';
import type { DomainError } from '../../lib/errors';
import type { DeliveryTarget, Failure, Outcome } from '../deliver';
import type { DesktopHub } from '../desktop';
import { maskSecret } from '../keys';
import type { Priority } from '../message-options';
import type { MessageType } from '../schema';

/**
 * A channel driver: everything PennyPost knows about one channel type (WeChat, desktop, webhook…).
 * The push service, the channel store and the UI's channel forms ask the driver and never name a
 * type. Adding a channel type is one driver file in this folder, its entry in ./index.ts and its test.
 *
 * Configs reach a driver open (secrets readable); they are sealed at rest by the service with its
 * own key (server/push/secret-box.ts), for the fields the driver names in `secrets`.
 */
export interface ChannelDriver<Config extends object = Record<string, unknown>, Payload = unknown, Type extends string = string> {
  /** The type name: stored with each channel, shown in answers, key of the UI's labels. */
  readonly type: Type;
  /**
   * The config as a TypeBox object: required fields are the ones a new channel needs. The action
   * params take each field optionally (an update sends what changes); the UI builds its form from it.
   */
  readonly config: TObject;
  /** Secret config fields, with the name a person knows each by ('AppSecret'): sealed, masked, tied to the destination. */
  readonly secrets: Readonly<Record<string, string>>;
  /** The config fields whose change sends the channel somewhere else (named when a secret must be entered again). */
  readonly movedBy: readonly string[];
  /** Config fields that sum a channel up in lists (e.g. AppID and API address). */
  readonly summary: readonly string[];
  /** Apps of this type may send template messages (messageType 'template' needs a templateId). */
  readonly templates?: boolean;
  /**
   * A channel that delivers to one place of its own (this computer) keeps no recipients: every push
   * goes to `self` (and checkAddress refuses any address).
   */
  readonly self?: Recipient;
  /**
   * Delivers inside this process and cannot fail (nothing leaves the machine): the push is recorded
   * as delivered before it runs — one disk write instead of journal + row (docs/push.md §9). Its
   * `send` must answer ok at once; a full disk shows nothing.
   */
  readonly inProcess?: boolean;

  /**
   * Checks and completes a config: the stored fields merged with the given ones (masked secrets
   * already replaced by the stored ones). Throws a DomainError `.at('config.<field>')`.
   */
  normalize(input: Readonly<Record<string, unknown>>): Config;
  /** Where the channel's requests go, comparable ('' for none): a change of it needs the secrets again. */
  destination(config: Config): string;
  /**
   * The hosts and ports the channel connects to, each with the config field that names it (none
   * for a channel that stays in this process). Checked against the outbound policy when the config
   * is saved (server/http/outbound-policy.ts); every connection is checked again when it is made.
   */
  endpoints(config: Config): Endpoint[];
  /** The host and port a recipient address names itself (a full URL), for the same check; null when it names none. */
  recipientEndpoint?(config: Config, address: string): Endpoint | null;
  /** The config as answers show it: secrets masked. */
  mask(config: Config): Record<string, unknown>;
  /** Checks a recipient address (already trimmed); throws a DomainError `.at('address')`. */
  checkAddress(config: Config, address: string): void;
  /** How a recipient shows in answers and results (credentials masked). */
  recipientLabel(config: Config, address: string): string;
  /**
   * Whether stored recipients still mean something after `change`: the channel's config changing
   * from `from` to `to` ('config'), or an app moving to another channel of this type ('channel').
   * A DomainError to refuse with (blaming `config.<field>` or `channelId`), or null.
   */
  keepsRecipients(from: Config, to: Config, change: 'config' | 'channel'): DomainError | null;

  /** The message in the channel's own form, once per push (shared by every recipient). */
  render(message: OutgoingMessage, app: AppForm): Payload;
  /** The driver's live side on one server (caches such as access tokens live there). */
  connect(env: ChannelEnv): ChannelLink<Config, Payload>;
}

/** A push as the service hands it to a channel. */
export interface OutgoingMessage {
  id: string;
  userId: string;
  appId: string;
  appName: string;
  title: string;
  desp: string;
  /** How urgent (the sender's `priority`; 'normal' when not given): each driver maps it to its channel's notion. */
  priority: Priority;
  /** The thread or group it belongs to ('' = none), for channels that have threads or groups. */
  group: string;
  /** When it was sent (ms). */
  time: number;
  /** Link to the message page for messages that leave this machine (only with a public base URL). */
  url?: string;
  /** Path of the message page on this server (/m/{token}). */
  pagePath: string;
}

/** What an app asks of the channel's message form (channels with `templates`). */
export interface AppForm {
  messageType: MessageType | '';
  templateId: string;
  /** Template data keys for title, desp and time. */
  templateFields: Record<string, string>;
}

/** An app's template as it is being saved (push.createApp / push.updateApp with messageType 'template'). */
export interface TemplateCheck {
  templateId: string;
  /** The template fields the request gives; a part left out is not in it. */
  given: Partial<Record<'title' | 'desp' | 'time', string>>;
  /** The app's stored template fields (an update): kept where they still fit the template. */
  stored: Record<string, string>;
}

export interface Recipient extends DeliveryTarget {
  address: string;
}

/** The channel a link works for. */
export interface ChannelRef {
  id: string;
  name: string;
  userId: string;
}

/** Delivers one rendered message (server/push/deliver.ts runs it with retries and deadlines). */
export interface Delivery {
  /** Runs once before any send (e.g. fetching an access token); a Failure fails everyone. */
  prepare?(timeoutMs: number): Promise<Failure | null>;
  send(recipient: Recipient, timeoutMs: number): Promise<Outcome>;
  /**
   * Sends to many recipients in one call, for channels whose API takes a list (WeCom applications):
   * one outcome per recipient, in order. Delivery uses it for pushMode 'all', at most `batchMax`
   * recipients a call, and `send` for failover.
   */
  sendBatch?(recipients: Recipient[], timeoutMs: number): Promise<Outcome[]>;
  batchMax?: number;
}

/** The answer of push.testChannel (without its duration). */
export interface ChannelTestResult {
  ok: boolean;
  message: string;
  class?: string;
  errcode?: number;
}

export interface ChannelTest {
  /** Where to send a test message; without it the driver only checks the channel. */
  address?: string;
  timeoutMs: number;
  /** Now (ms). */
  time: number;
}

/** What the push service lends its channels: one per server. */
export interface ChannelEnv {
  clock: Clock;
  /** The in-process feed of desktop pushes (the UI's live feed and the Electron shell follow it). */
  desktop: DesktopHub;
  /**
   * The outbound policy for an account's requests as of now (server/http/outbound-policy.ts): every
   * request a channel makes goes through the scope of the channel's account, asked when it starts.
   */
  outbound: (userId: string) => Promise<OutboundScope>;
}

/** A driver's live side on one server. */
export interface ChannelLink<Config, Payload> {
  delivery(channel: ChannelRef, config: Config, payload: Payload): Delivery;
  /** Checks the channel, and sends its test message when an address is given. */
  test(channel: ChannelRef, config: Config, test: ChannelTest): Promise<ChannelTestResult>;
  /**
   * Checks an app's template when the app is saved (channels with `templates`; WeChat asks the
   * account's template list) and answers the template fields to store, defaults filled in. Throws a
   * DomainError naming the field (400), or 503 when the service cannot be asked now.
   */
  checkTemplate?(channel: ChannelRef, config: Config, template: TemplateCheck, timeoutMs: number): Promise<Record<string, string>>;
  /** The channel's config changed or it was deleted: drop what is cached for it. */
  forget?(channelId: string): void;
  /**
   * The server is stopping (after the last delivery finished): release what the link holds —
   * open connections, pools, timers — so nothing outlives the server or keeps the process alive.
   */
  close?(): Promise<void>;
}

/** Masks the driver's secret fields ('' stays ''). */
export function maskSecrets(config: object, secrets: Readonly<Record<string, string>>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...config };
  for (const key of Object.keys(secrets)) if (key in out) out[key] = maskSecret(configText(out[key]));
  return out;
}

/** `2026-01-05 09:30:00` in this computer's time zone (the time in messages). */
export function formatTime(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** push.testChannel's answer from a delivery outcome: `okMessage` when it went through, else the failure as delivery classes it. */
export function testResultOf(outcome: Outcome, okMessage: string): ChannelTestResult {
  return outcome.ok ? { ok: true, message: okMessage } : { ok: false, message: outcome.message, class: outcome.cls, errcode: outcome.errcode };
}

/** The test message of push.testChannel. */
export function testMessage(channel: ChannelRef, time: number): { title: string; desp: string } {
  return { title: 'PennyPost test message', desp: `This is a test of the channel "${channel.name}", sent ${formatTime(time)}.` };
}

/**
 * A config value as text: '' when absent. Config fields are strings and numbers by the drivers'
 * schemas; other scalars are written out as String() writes them, anything else as JSON.
 */
export function configText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

/** A string field of a config input ('' when absent). */
export const text = (input: Readonly<Record<string, unknown>>, key: string): string => configText(input[key]);
