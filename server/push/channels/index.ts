import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import type { ChannelDriver } from './driver';
import { desktopChannel } from './desktop';
import { dingtalkChannel } from './dingtalk';
import { feishuChannel } from './feishu';
import { emailChannel } from './email';
import { discordChannel } from './discord';
import { slackChannel } from './slack';
import { telegramChannel } from './telegram';
import { webhookChannel } from './webhook';
import { wechatChannel } from './wechat';
import { wecomChannel } from './wecom';
import { wecomAppChannel } from './wecom-app';

/**
 * The channel types PennyPost delivers through, one driver each (./driver.ts says what a driver
 * owns). To add one: write `./<type>.ts` with its test, and list it here. The order is the order
 * of the `type` enum in the API.
 */
const DRIVERS = [
  wechatChannel,
  desktopChannel,
  webhookChannel,
  wecomChannel,
  wecomAppChannel,
  dingtalkChannel,
  feishuChannel,
  telegramChannel,
  discordChannel,
  slackChannel,
  emailChannel,
] as const;

export type ChannelType = (typeof DRIVERS)[number]['type'];
export const CHANNEL_TYPES: readonly ChannelType[] = DRIVERS.map((driver) => driver.type);

/** Any driver, for code that works with every type (its configs are opaque objects there). */
export type AnyChannelDriver = ChannelDriver<object>;

const byType = new Map<string, AnyChannelDriver>(DRIVERS.map((driver) => [driver.type, driver]));

/** The driver of a stored channel type (a type no driver knows is a bug: the API only takes known ones). */
export function channelDriver(type: string): AnyChannelDriver {
  const driver = byType.get(type);
  if (!driver) throw new Error(`push: no channel driver for type "${type}"`);
  return driver;
}

export function channelDrivers(): readonly AnyChannelDriver[] {
  return DRIVERS;
}

/** The type a new channel starts as in the UI: the one that needs no settings. */
export const DEFAULT_CHANNEL_TYPE: ChannelType = desktopChannel.type;

/** A JSON schema without TypeBox's markers, its description and examples: what two drivers must agree on to share a field name. */
function shape(schema: TSchema): string {
  const { description: _description, examples: _examples, ...rest } = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  return JSON.stringify(rest);
}

/**
 * `params.config` of push.createChannel and push.updateChannel: every driver's config fields, each
 * optional (an update sends what changes; a new channel's required fields are the driver's check),
 * described with the type they belong to. Unknown fields are refused.
 */
export function channelConfigParams(): TObject {
  const fields = new Map<string, { schema: TSchema; descriptions: string[] }>();
  for (const driver of DRIVERS) {
    for (const [key, schema] of Object.entries(driver.config.properties as Record<string, TSchema>)) {
      const description = `${driver.type}: ${schema.description ?? ''}`;
      const known = fields.get(key);
      if (known && shape(known.schema) !== shape(schema)) {
        throw new Error(`push: channel types disagree on config field "${key}"; give one of them another name`);
      }
      if (known) known.descriptions.push(description);
      else fields.set(key, { schema, descriptions: [description] });
    }
  }
  const properties: Record<string, TSchema> = {};
  for (const [key, { schema, descriptions }] of fields) {
    const { examples: _examples, ...plain } = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
    properties[key] = Type.Optional(Type.Unsafe({ ...plain, description: descriptions.join(' ') }));
  }
  return Type.Object(properties, { additionalProperties: false, description: 'Settings of the channel type; see docs/push.md.' });
}

/** The config of each type in a line, for docs/api.md: "wechat config: `{appId, appSecret, apiBase?, tokenMode?}`; …". */
export function channelConfigShapes(): string {
  return DRIVERS.map((driver) => {
    const required = new Set(driver.config.required ?? []);
    const fields = Object.keys(driver.config.properties).map((key) => (required.has(key) ? key : `${key}?`));
    return `${driver.type} config: \`{${fields.join(', ')}}\``;
  }).join('; ');
}

/** One config field as the UI's channel form needs it. */
export interface ChannelField {
  name: string;
  required: boolean;
  /** Sealed at rest and returned masked. */
  secret: boolean;
  kind: 'text' | 'integer' | 'choice';
  /** choice: the values. */
  options?: string[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  /** Shown as the placeholder. */
  example?: string;
}

/** A channel type as push.queryChannelTypes describes it (the UI renders its forms from it). */
export interface ChannelTypeInfo {
  type: ChannelType;
  fields: ChannelField[];
  /** Apps of this type keep recipients (false: it delivers to this computer). */
  recipients: boolean;
  /** Apps of this type may send template messages. */
  templates: boolean;
  /** Config fields that sum a channel up in lists. */
  summary: string[];
}

interface JsonField {
  type?: string;
  enum?: string[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  examples?: unknown[];
}

function fieldOf(name: string, schema: JsonField, required: boolean, secret: boolean): ChannelField {
  const kind = schema.enum ? 'choice' : schema.type === 'integer' || schema.type === 'number' ? 'integer' : 'text';
  return {
    name,
    required,
    secret,
    kind,
    ...(schema.enum ? { options: [...schema.enum] } : {}),
    ...(schema.minimum !== undefined ? { minimum: schema.minimum } : {}),
    ...(schema.maximum !== undefined ? { maximum: schema.maximum } : {}),
    ...(schema.maxLength !== undefined ? { maxLength: schema.maxLength } : {}),
    ...(typeof schema.examples?.[0] === 'string' ? { example: schema.examples[0] } : {}),
  };
}

function channelTypeInfo(type: ChannelType, driver: AnyChannelDriver): ChannelTypeInfo {
  const schema = JSON.parse(JSON.stringify(driver.config)) as { properties?: Record<string, JsonField>; required?: string[] };
  const required = new Set(schema.required ?? []);
  return {
    type,
    fields: Object.entries(schema.properties ?? {}).map(([name, field]) => fieldOf(name, field, required.has(name), name in driver.secrets)),
    recipients: !driver.self,
    templates: driver.templates === true,
    summary: [...driver.summary],
  };
}

/** Every channel type, described for the UI. */
export function channelTypeInfos(): ChannelTypeInfo[] {
  return DRIVERS.map((driver) => channelTypeInfo(driver.type, driver));
}
