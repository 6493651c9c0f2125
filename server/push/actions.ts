import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params } from '../api/action';
import { ID_MAX_LENGTH } from '../lib/ids';
import { ADDRESS_MAX, CHANNEL_TYPES, MESSAGE_STATUSES, MESSAGE_TYPES, NAME_MAX, PUSH_MODES, REMARK_MAX, TEMPLATE_ID_MAX } from './schema';
import type { PushService } from './service';
import { LIMITS } from './targets';
import { WEBHOOK_FORMATS } from './webhook';

declare module '../app-context' {
  interface ServiceMap {
    push: PushService;
  }
}

const Id = (description: string) => Type.String({ minLength: 1, maxLength: ID_MAX_LENGTH, description });
const Name = Type.String({ minLength: 1, maxLength: NAME_MAX, pattern: '\\S', description: 'Display name.' });
/** A string enum (validation says "must be one of …", docs list the values). */
const literals = <T extends readonly string[]>(values: T, description: string, defaultValue?: T[number]) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], description, ...(defaultValue !== undefined ? { default: defaultValue } : {}) });

const ChannelConfig = Type.Object(
  {
    appId: Type.Optional(Type.String({ maxLength: 64, description: 'wechat: AppID of the Official Account (or test account).' })),
    appSecret: Type.Optional(Type.String({ maxLength: 128, description: 'wechat: AppSecret. Returned masked (last 4 characters); send the masked value back or leave it out to keep it (not with a new apiBase: enter it again).' })),
    apiBase: Type.Optional(Type.String({ maxLength: 512, description: 'wechat: API base URL, default https://api.weixin.qq.com (for proxies and tests).' })),
    tokenMode: Type.Optional(literals(['stable', 'classic'] as const, 'wechat: "stable" (POST /cgi-bin/stable_token, default) or "classic" (GET /cgi-bin/token).')),
    url: Type.Optional(Type.String({ maxLength: 2048, description: 'webhook: base URL of the receiver (ntfy default https://ntfy.sh, Bark default https://api.day.app, required for Gotify).' })),
    format: Type.Optional(literals(WEBHOOK_FORMATS, 'webhook: body shape.')),
    token: Type.Optional(Type.String({ maxLength: 512, description: 'webhook: bearer token for the receiver (ntfy access token, JSON receivers), sent only to the origin of the channel url (a JSON channel with a token needs a url). Returned masked.' })),
    priority: Type.Optional(Type.Integer({ minimum: 0, maximum: 5, description: 'webhook: 1–5 (ntfy as is, Gotify doubled), 0 = receiver default.' })),
  },
  { additionalProperties: false, description: 'Settings of the channel type; see docs/push.md.' },
);

const CHANNEL = '`{id, name, type, config, appCount, createdAt, updatedAt}` — secrets in `config` are masked (`••••` + last 4).';
const APP =
  '`{id, name, channelId, channelType, messageType, templateId, templateFields, pushMode, appKey, sendUrl, recipientCount, createdAt, updatedAt}`';
const RECIPIENT = '`{id, appId, address, name, remark, createdAt}` — Gotify tokens and Bark keys are masked.';

const createChannel = defineAction({
  summary: 'Create a delivery channel: a WeChat Official Account, this desktop, or a webhook (ntfy, Gotify, Bark, JSON).',
  notes:
    'wechat config: `{appId, appSecret, apiBase?, tokenMode?}`; webhook config: `{format, url?, token?, priority?}`; desktop: `{}`. ' +
    `At most ${LIMITS.channelsPerUser} channels per account. Secrets are never returned in full, never logged and never synced.`,
  auth: 'user',
  params: Params({ name: Name, type: literals(CHANNEL_TYPES, 'Channel type.'), config: Type.Optional(ChannelConfig) }),
  returns: CHANNEL,
  errors: [[400, 'a config field is missing, malformed or does not apply to the type']],
  handler: async (params, ctx) => {
    const push = ctx.app.services.push;
    return push.channelOut(await push.targets.createChannel(ctx.user.id, { name: params.name, type: params.type, config: params.config ?? {} }));
  },
});

const queryChannels = defineAction({
  summary: 'List your channels, oldest first.',
  auth: 'user',
  params: Params({ type: Type.Optional(literals(CHANNEL_TYPES, 'Only channels of this type.')) }),
  returns: `\`{list, total}\`, list of ${CHANNEL}`,
  handler: (params, ctx) => {
    const push = ctx.app.services.push;
    const list = push.targets.list(ctx.user.id, 'channel').filter((c) => !params.type || c.type === params.type).map((c) => push.channelOut(c));
    return { list, total: list.length };
  },
});

const updateChannel = defineAction({
  summary: "Rename a channel or change its config (the type is fixed); config fields left out keep their values.",
  notes:
    'A masked secret sent back unchanged (or left out) keeps the stored secret, as long as the channel keeps its destination. ' +
    'Secrets stay where they were entered: a change of the WeChat `apiBase` or of the webhook `url` (or a `format` change that switches the default server) ' +
    'must carry the `appSecret` / `token` again; left out, empty or masked, it is refused (400, `data.field` names the secret) and nothing is stored. ' +
    'Any difference after URL normalisation counts as a new destination (scheme, host, port, path, query, fragment or user info; not a trailing slash). ' +
    'For the same reason the url of a Gotify or Bark channel cannot change while its apps have recipients (their tokens and device keys). ' +
    'Changing the WeChat credentials drops the cached access token.',
  auth: 'user',
  params: Params({
    id: Id('Channel id.'),
    name: Type.Optional(Name),
    type: Type.Optional(literals(CHANNEL_TYPES, 'Must equal the current type when given.')),
    config: Type.Optional(ChannelConfig),
  }),
  returns: CHANNEL,
  errors: [
    [400, 'invalid config, a type change, or a new destination without its secret entered again'],
    [404, 'no channel with this id in your account'],
  ],
  handler: async (params, ctx) => {
    const push = ctx.app.services.push;
    return push.channelOut(await push.targets.updateChannel(ctx.user.id, params.id, params));
  },
});

const deleteChannel = defineAction({
  summary: 'Delete a channel that no app uses.',
  auth: 'user',
  params: Params({ id: Id('Channel id.') }),
  returns: '`{deleted: true}`',
  errors: [
    [404, 'no channel with this id in your account'],
    [409, 'apps still use the channel (data.apps lists them)'],
  ],
  handler: async (params, ctx) => {
    await ctx.app.services.push.targets.deleteChannel(ctx.user.id, params.id);
    return { deleted: true };
  },
});

const testChannel = defineAction({
  summary: 'Check a channel: fetch a WeChat token, probe a webhook receiver, or show a desktop notification; optionally send a test message to one address.',
  notes:
    'The answer is 200 whether or not the channel works: `ok` says which, `message` says what went wrong in plain words and what to fix, ' +
    '`class` is the error class (token, recipient, systemic, transient).',
  auth: 'user',
  params: Params({
    id: Id('Channel id.'),
    address: Type.Optional(Type.String({ minLength: 1, maxLength: ADDRESS_MAX, description: 'An openid / topic / key / URL to send a test message to.' })),
  }),
  returns: '`{ok, message, class?, errcode?, ms}`',
  errors: [[404, 'no channel with this id in your account']],
  handler: (params, ctx) => ctx.app.services.push.testChannel(ctx.user.id, params.id, params.address),
});

const TemplateFields = Type.Object(
  {
    title: Type.Optional(Type.String({ maxLength: 32, pattern: '^[A-Za-z0-9_]*$' })),
    desp: Type.Optional(Type.String({ maxLength: 32, pattern: '^[A-Za-z0-9_]*$' })),
    time: Type.Optional(Type.String({ maxLength: 32, pattern: '^[A-Za-z0-9_]*$' })),
  },
  {
    additionalProperties: false,
    description: 'Template data keys that receive the title, desp and send time; default {"title":"title","desp":"content","time":"time"}; "" leaves one out.',
  },
);

const createApp = defineAction({
  summary: 'Create an app on a channel; the answer carries its fresh appKey and the /send URL.',
  notes:
    'appKey: `PP` + 24 base62 characters from the system CSPRNG (≈143 bits). messageType applies to WeChat channels. ' +
    'pushMode "all" delivers to every recipient in parallel; "first" tries recipients in order and stops at the first delivery (failover). ' +
    `At most ${LIMITS.appsPerUser} apps per account.`,
  auth: 'user',
  params: Params({
    name: Name,
    channelId: Id('Channel that delivers this app\'s pushes.'),
    messageType: Type.Optional(literals(MESSAGE_TYPES, 'WeChat message form.', 'custom')),
    templateId: Type.Optional(Type.String({ maxLength: TEMPLATE_ID_MAX, default: '', description: 'WeChat template ID (required for template messages).' })),
    templateFields: Type.Optional(TemplateFields),
    pushMode: Type.Optional(literals(PUSH_MODES, 'Delivery mode.', 'all')),
  }),
  returns: APP,
  errors: [
    [400, 'template messages without templateId, or a bad field'],
    [404, 'no channel with this id in your account'],
  ],
  handler: async (params, ctx) => {
    const push = ctx.app.services.push;
    const doc = await push.targets.createApp(ctx.user.id, {
      name: params.name,
      channelId: params.channelId,
      messageType: params.messageType ?? 'custom',
      templateId: params.templateId ?? '',
      templateFields: params.templateFields as Record<string, string> | undefined,
      pushMode: params.pushMode ?? 'all',
    });
    return push.appOut(doc);
  },
});

const queryApps = defineAction({
  summary: 'List your apps (with their appKey and /send URL), oldest first.',
  auth: 'user',
  params: Params({ channelId: Type.Optional(Id('Only apps of this channel.')) }),
  returns: `\`{list, total}\`, list of ${APP}`,
  handler: (params, ctx) => {
    const push = ctx.app.services.push;
    const list = push.targets.list(ctx.user.id, 'app').filter((a) => !params.channelId || a.channelId === params.channelId).map((a) => push.appOut(a));
    return { list, total: list.length };
  },
});

const updateApp = defineAction({
  summary: 'Change an app: name, channel, message form, template, push mode. The appKey stays (see push.resetAppKey).',
  auth: 'user',
  params: Params({
    id: Id('App id.'),
    name: Type.Optional(Name),
    channelId: Type.Optional(Id('New channel.')),
    messageType: Type.Optional(literals(MESSAGE_TYPES, 'WeChat message form.')),
    templateId: Type.Optional(Type.String({ maxLength: TEMPLATE_ID_MAX })),
    templateFields: Type.Optional(TemplateFields),
    pushMode: Type.Optional(literals(PUSH_MODES, 'Delivery mode.')),
  }),
  returns: APP,
  errors: [
    [400, 'template without templateId, a channel of another type while recipients exist, or Gotify/Bark recipients moving to another server'],
    [404, 'no app (or channel) with this id in your account'],
  ],
  handler: async (params, ctx) => {
    const push = ctx.app.services.push;
    return push.appOut(await push.targets.updateApp(ctx.user.id, params.id, { ...params, templateFields: params.templateFields as Record<string, string> | undefined }));
  },
});

const deleteApp = defineAction({
  summary: 'Delete an app and its recipients; its key stops working at once. Its message history stays until retention removes it.',
  auth: 'user',
  params: Params({ id: Id('App id.') }),
  returns: '`{deleted: true}`',
  errors: [[404, 'no app with this id in your account']],
  handler: async (params, ctx) => {
    await ctx.app.services.push.targets.deleteApp(ctx.user.id, params.id);
    return { deleted: true };
  },
});

const resetAppKey = defineAction({
  summary: 'Give an app a new appKey; the old key answers 404 from now on.',
  auth: 'user',
  params: Params({ id: Id('App id.') }),
  returns: APP,
  errors: [[404, 'no app with this id in your account']],
  handler: async (params, ctx) => {
    const push = ctx.app.services.push;
    return push.appOut(await push.targets.resetAppKey(ctx.user.id, params.id));
  },
});

const addRecipient = defineAction({
  summary: 'Add a recipient to an app: an openid (WeChat), or a topic / token / device key / URL (webhook).',
  notes:
    'ntfy: a topic or a full topic URL; Gotify: the application token; Bark: the device key; JSON: a URL or a path under the channel url. ' +
    'The channel token goes only to addresses on the channel url\'s origin; a full URL elsewhere gets the message without it. ' +
    `Desktop apps need no recipients. At most ${LIMITS.recipientsPerApp} per app; the same address twice is refused (409).`,
  auth: 'user',
  params: Params({
    appId: Id('App id.'),
    address: Type.String({ minLength: 1, maxLength: ADDRESS_MAX, description: 'Where to deliver (see notes).' }),
    name: Type.Optional(Type.String({ maxLength: NAME_MAX, default: '', description: 'Who this is (shown in results).' })),
    remark: Type.Optional(Type.String({ maxLength: REMARK_MAX, default: '', description: 'Free note.' })),
  }),
  returns: RECIPIENT,
  errors: [
    [400, 'the address does not fit the channel type, or the app is a desktop app'],
    [404, 'no app with this id in your account'],
    [409, 'the address is already a recipient of this app'],
  ],
  handler: async (params, ctx) => {
    const push = ctx.app.services.push;
    return push.recipientOut(
      await push.targets.addRecipient(ctx.user.id, { appId: params.appId, address: params.address, name: params.name ?? '', remark: params.remark ?? '' }),
    );
  },
});

const queryRecipients = defineAction({
  summary: "List an app's recipients in delivery order (oldest first).",
  auth: 'user',
  params: Params({ appId: Id('App id.') }),
  returns: `\`{list, total}\`, list of ${RECIPIENT}`,
  errors: [[404, 'no app with this id in your account']],
  handler: (params, ctx) => {
    const push = ctx.app.services.push;
    const app = push.targets.owned(ctx.user.id, 'app', params.appId, 'App');
    const list = push.targets.recipientsOf(app.id).map((r) => push.recipientOut(r));
    return { list, total: list.length };
  },
});

const removeRecipient = defineAction({
  summary: 'Remove a recipient from its app.',
  auth: 'user',
  params: Params({ id: Id('Recipient id.') }),
  returns: '`{removed: true}`',
  errors: [[404, 'no recipient with this id in your account']],
  handler: async (params, ctx) => {
    await ctx.app.services.push.targets.removeRecipient(ctx.user.id, params.id);
    return { removed: true };
  },
});

const ms = (description: string) => Type.Integer({ minimum: 0, maximum: 8.64e15, description });

const queryMessages = defineAction({
  summary: 'Push history, newest first, with filters and paging.',
  notes:
    'startDate and endDate are inclusive bounds on createdAt (ms). status: success (all delivered), partial, failed (none delivered), empty (no recipients). ' +
    'History is kept settings push.retentionDays days (default 30).',
  auth: 'user',
  params: Params({
    appId: Type.Optional(Id('Only pushes of this app (deleted apps included).')),
    startDate: Type.Optional(ms('Earliest createdAt, inclusive.')),
    endDate: Type.Optional(ms('Latest createdAt, inclusive.')),
    status: Type.Optional(literals(MESSAGE_STATUSES, 'Only pushes with this outcome.')),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, default: 1 })),
    pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  }),
  returns:
    '`{list, total, page, pageSize}`; list items `{id, appId, appName, channelType, title, despPreview, status, summary, total, success, failed, createdAt, finishedAt, url}` (`url`: the message page)',
  errors: [
    [400, 'startDate after endDate'],
    [404, "appId names another account's app"],
  ],
  handler: (params, ctx) =>
    ctx.app.services.push.queryMessages(ctx.user.id, {
      appId: params.appId,
      startDate: params.startDate,
      endDate: params.endDate,
      status: params.status,
      page: params.page ?? 1,
      pageSize: params.pageSize ?? 20,
    }),
});

const getMessage = defineAction({
  summary: 'One push with its full text and the result of every recipient.',
  auth: 'user',
  params: Params({ id: Id('Push id (data.pushId of the /send answer).') }),
  returns:
    '`{id, appId, appName, channelType, title, desp, status, summary, total, success, failed, results, caller, createdAt, finishedAt, url}`; results `[{recipient, name?, ok, class, errcode?, errmsg?, msgId?, attempts}]`',
  errors: [[404, 'no push with this id in your account (or it was pruned)']],
  handler: (params, ctx) => ctx.app.services.push.getMessage(ctx.user.id, params.id),
});

export const pushActions = defineActions({
  'push.createChannel': createChannel,
  'push.queryChannels': queryChannels,
  'push.updateChannel': updateChannel,
  'push.deleteChannel': deleteChannel,
  'push.testChannel': testChannel,
  'push.createApp': createApp,
  'push.queryApps': queryApps,
  'push.updateApp': updateApp,
  'push.deleteApp': deleteApp,
  'push.resetAppKey': resetAppKey,
  'push.addRecipient': addRecipient,
  'push.queryRecipients': queryRecipients,
  'push.removeRecipient': removeRecipient,
  'push.queryMessages': queryMessages,
  'push.getMessage': getMessage,
});
