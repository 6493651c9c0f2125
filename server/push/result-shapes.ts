import { Type, type Static, type TLiteral, type TSchema } from '@sinclair/typebox';
import { Result, Shape } from '../api/result';
import { channelDrivers, CHANNEL_TYPES, type AnyChannelDriver } from './channels';
import { PRIORITIES } from './message-options';
import { MESSAGE_STATUSES, MESSAGE_TYPES, PUSH_MODES, RESULT_CLASSES } from './schema';

/**
 * Result shapes of the push domain's actions (server/api/result.ts); the presenters are typed by
 * them. Channel configs hold secrets (AppSecrets, tokens, webhook URLs with their keys, SMTP
 * passwords): each type's config is a closed object whose secret fields must be masked, so a
 * secret or an internal field that slipped into an answer fails the result check.
 */

const oneOf = <T extends string>(values: readonly T[], description?: string) =>
  Type.Union(
    values.map((v): TLiteral<T> => Type.Literal(v)),
    description ? { description } : {},
  );

const Ms = (description = 'ms') => Type.Integer({ description });
const ChannelType = oneOf(CHANNEL_TYPES);

// ── channels ───────────────────────────────────────────────────────────────────────────────────────

/** What a secret reads as in answers: '' when not set, else `••••` and at most its last 4 characters (a robot URL: `•••• host …last 4`). */
const MASKED = '^(••••.{0,300})?$';

interface FieldJson {
  type?: string;
  enum?: string[];
  description?: string;
}

/** One config field as answers carry it: its type (the value as stored), a secret masked. */
function answeredField(schema: FieldJson, secret: boolean): TSchema {
  const description = schema.description ?? '';
  if (secret) return Type.String({ pattern: MASKED, description: `${description} Masked: \`••••\` + its last 4 characters ('' when not set).`.trim() });
  if (schema.enum)
    return Type.Union(
      schema.enum.map((v) => Type.Literal(v)),
      { description },
    );
  if (schema.type === 'integer') return Type.Integer({ description });
  if (schema.type === 'number') return Type.Number({ description });
  if (schema.type === 'boolean') return Type.Boolean({ description });
  return Type.String({ description });
}

const shapeName = (type: string) => `${type.replace(/(^|-)([a-z])/g, (_m, _dash: string, c: string) => c.toUpperCase())}ChannelConfig`;

/** A channel type's config as answers show it: the driver's fields, secrets masked; nothing else. */
function configShape(driver: AnyChannelDriver): TSchema {
  const schema = JSON.parse(JSON.stringify(driver.config)) as { properties?: Record<string, FieldJson>; required?: string[] };
  const required = new Set(schema.required ?? []);
  const properties: Record<string, TSchema> = {};
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    const answered = answeredField(field, name in driver.secrets);
    properties[name] = required.has(name) ? answered : Type.Optional(answered);
  }
  return Shape(shapeName(driver.type), properties, `The config of a \`${driver.type}\` channel as answers show it (secrets masked).`);
}

/**
 * The channel's config: one closed shape per type. Its static type stays a map of fields: which
 * fields a channel has depends on its type, and the UI reads them by the names push.queryChannelTypes gives.
 */
const ChannelConfig = Type.Unsafe<Record<string, unknown>>({
  anyOf: channelDrivers().map(configShape),
  description: "the type's config fields; secrets masked (`••••` + last 4)",
});

export const ChannelShape = Shape(
  'Channel',
  {
    id: Type.String(),
    name: Type.String(),
    type: ChannelType,
    config: ChannelConfig,
    appCount: Type.Integer({ description: 'apps that deliver through it' }),
    createdAt: Ms(),
    updatedAt: Ms(),
  },
  'A delivery channel (a WeChat Official Account, this desktop, a webhook receiver, a robot, a mail account…); secrets in `config` are masked.',
);
export type ChannelView = Static<typeof ChannelShape>;

export const ChannelList = Result({ list: Type.Array(ChannelShape), total: Type.Integer() });

export const ChannelTestAnswer = Result(
  {
    ok: Type.Boolean({ description: 'whether the channel works' }),
    message: Type.String({ description: 'what went wrong in plain words and what to fix (or what worked)' }),
    class: Type.Optional(Type.String({ description: 'the error class: token, recipient, systemic or transient' })),
    errcode: Type.Optional(Type.Integer({ description: "the service's error code" })),
    ms: Type.Integer({ description: 'how long the check took, ms' }),
  },
  { description: 'answered with 200 whether or not the channel works' },
);

const ChannelFieldShape = Shape(
  'ChannelField',
  {
    name: Type.String(),
    required: Type.Boolean(),
    secret: Type.Boolean({ description: 'sealed at rest and returned masked' }),
    kind: oneOf(['text', 'integer', 'choice'] as const),
    options: Type.Optional(Type.Array(Type.String(), { description: 'choice: the values' })),
    minimum: Type.Optional(Type.Number()),
    maximum: Type.Optional(Type.Number()),
    maxLength: Type.Optional(Type.Integer()),
    example: Type.Optional(Type.String({ description: 'shown as the placeholder' })),
  },
  'One config field of a channel type, as the channel form needs it.',
);

export const ChannelTypeInfoShape = Shape(
  'ChannelTypeInfo',
  {
    type: ChannelType,
    fields: Type.Array(ChannelFieldShape),
    recipients: Type.Boolean({ description: 'false: apps of the type deliver to this computer and keep no recipients' }),
    templates: Type.Boolean({ description: 'apps may send template messages' }),
    summary: Type.Array(Type.String(), { description: 'the config fields that sum a channel up in lists' }),
  },
  'A channel type this PennyPost delivers through, with its config fields.',
);

export const ChannelTypeList = Result({
  list: Type.Array(ChannelTypeInfoShape),
  default: oneOf(CHANNEL_TYPES, 'the type a new channel starts as'),
});

// ── apps and recipients ────────────────────────────────────────────────────────────────────────────

export const AppShape = Shape(
  'PushApp',
  {
    id: Type.String(),
    name: Type.String(),
    channelId: Type.String(),
    channelType: Type.Union([ChannelType, Type.Literal('')], { description: "the channel's type ('' when the channel is gone)" }),
    messageType: Type.Union([oneOf(MESSAGE_TYPES), Type.Literal('')], { description: 'WeChat message form' }),
    templateId: Type.String({ description: 'WeChat template ID' }),
    templateFields: Result(
      { title: Type.Optional(Type.String()), desp: Type.Optional(Type.String()), time: Type.Optional(Type.String()) },
      { description: 'template data keys that receive the title, desp and send time' },
    ),
    pushMode: Type.Union([oneOf(PUSH_MODES), Type.Literal('')], { description: 'all: every recipient; first: in order until one is delivered' }),
    appKey: Type.String({ description: 'the key of its /send URL' }),
    sendUrl: Type.String(),
    recipientCount: Type.Integer(),
    createdAt: Ms(),
    updatedAt: Ms(),
  },
  'An app: what /send/{appKey} pushes as, on one channel, to its recipients.',
);
export type AppView = Static<typeof AppShape>;

export const AppList = Result({ list: Type.Array(AppShape), total: Type.Integer() });

export const RecipientShape = Shape(
  'Recipient',
  {
    id: Type.String(),
    appId: Type.String(),
    address: Type.String({ description: 'openid, topic, URL…; Gotify tokens and Bark keys are masked' }),
    name: Type.String(),
    remark: Type.String(),
    createdAt: Ms(),
  },
  "One of an app's recipients.",
);
export type RecipientView = Static<typeof RecipientShape>;

export const RecipientList = Result({ list: Type.Array(RecipientShape), total: Type.Integer() }, { description: 'in delivery order' });

export const Removed = Result({ removed: Type.Literal(true) });

// ── history ────────────────────────────────────────────────────────────────────────────────────────

const messageFields = {
  id: Type.String(),
  appId: Type.String(),
  appName: Type.String(),
  channelType: Type.String(),
  title: Type.String(),
  status: oneOf(MESSAGE_STATUSES, 'success (all delivered), partial, failed (none delivered), empty (no recipients)'),
  summary: Type.String({ description: 'the plain-words summary the /send answer carried' }),
  total: Type.Integer(),
  success: Type.Integer(),
  failed: Type.Integer(),
  createdAt: Ms(),
  finishedAt: Ms(),
  url: Type.String({ description: 'the message page' }),
};

export const MessageSummaryShape = Shape(
  'PushMessageSummary',
  { ...messageFields, despPreview: Type.String({ description: 'the first 140 characters of desp' }) },
  'A push in the history list.',
);
export type MessageSummaryView = Static<typeof MessageSummaryShape>;

export const MessageList = Result(
  { list: Type.Array(MessageSummaryShape), total: Type.Integer(), page: Type.Integer(), pageSize: Type.Integer() },
  { description: 'newest first' },
);

export const DeliveryResultShape = Shape(
  'DeliveryResult',
  {
    recipient: Type.String({ description: 'the address as answers show it (credentials masked)' }),
    name: Type.Optional(Type.String()),
    ok: Type.Boolean(),
    class: oneOf(RESULT_CLASSES),
    errcode: Type.Optional(Type.Integer()),
    errmsg: Type.Optional(Type.String()),
    msgId: Type.Optional(Type.String()),
    attempts: Type.Optional(Type.Integer()),
  },
  "One recipient's delivery outcome.",
);

export const MessageShape = Shape(
  'PushMessage',
  {
    ...messageFields,
    desp: Type.String(),
    html: Type.String({ description: "`desp` rendered from Markdown through the message page's allow-list (as in push.recentFeed)" }),
    results: Type.Array(DeliveryResultShape),
    caller: Type.String({ description: 'address of the /send caller' }),
  },
  'One push with its full text and the result of every recipient.',
);
export type MessageView = Static<typeof MessageShape>;

export const FeedItemShape = Shape(
  'FeedItem',
  {
    id: Type.String(),
    appId: Type.String(),
    appName: Type.String(),
    title: Type.String(),
    desp: Type.String({ description: 'Markdown' }),
    html: Type.String({ description: "`desp` rendered from Markdown through the message page's allow-list ('' when desp is blank)" }),
    url: Type.String({ description: 'the message page' }),
    createdAt: Ms(),
  },
  "A message of the desktop feed: the shape of the live feed's events.",
);
export type FeedItemView = Static<typeof FeedItemShape>;

export const FeedList = Result({ list: Type.Array(FeedItemShape) }, { description: 'newest first' });

// ── scheduled pushes ───────────────────────────────────────────────────────────────────────────────

export const ScheduledShape = Shape(
  'ScheduledPush',
  {
    id: Type.String(),
    appId: Type.String(),
    appName: Type.String({ description: "the app's current name" }),
    title: Type.String(),
    priority: oneOf(PRIORITIES),
    group: Type.String(),
    at: Ms('when it is due, ms'),
    createdAt: Ms(),
    sending: Type.Boolean({ description: 'being delivered (it can no longer be cancelled)' }),
  },
  'A scheduled push still waiting.',
);

export const ScheduledList = Result({ list: Type.Array(ScheduledShape), total: Type.Integer(), page: Type.Integer(), pageSize: Type.Integer() }, { description: 'soonest first' });

export const ScheduledCancelled = Result({ cancelled: Type.Literal(true), id: Type.String(), at: Ms('when it was due, ms') });
