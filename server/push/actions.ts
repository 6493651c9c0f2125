import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params } from '../api/action';
import { Ms, OneOf, Page, PageSize } from '../api/params';
import { commonErrors } from '../lib/errors';
import { Name, TargetId } from './action-params';
import { channelActions } from './channel-actions';
import { scheduledActions } from './scheduled-actions';
import { Deleted } from '../api/result';
import { pushErrors } from './errors';
import { AppList, AppShape, FeedList, MessageList, MessageShape, RecipientList, RecipientShape, Removed } from './result-shapes';
import { ADDRESS_MAX, MESSAGE_STATUSES, MESSAGE_TYPES, NAME_MAX, PUSH_MODES, REMARK_MAX, TEMPLATE_ID_MAX } from './schema';
import type { PushService } from './service';
import { LIMITS } from './targets';

declare module '../app-context' {
  interface ServiceMap {
    push: PushService;
  }
}

const TemplateFields = Type.Object(
  {
    title: Type.Optional(Type.String({ maxLength: 32, pattern: '^[A-Za-z0-9_]*$', hint: 'templateField' })),
    desp: Type.Optional(Type.String({ maxLength: 32, pattern: '^[A-Za-z0-9_]*$', hint: 'templateField' })),
    time: Type.Optional(Type.String({ maxLength: 32, pattern: '^[A-Za-z0-9_]*$', hint: 'templateField' })),
  },
  {
    additionalProperties: false,
    description:
      "Template data keys that receive the title, desp and send time (each value one line, at most 20 characters); checked against the Official Account's template list. " +
      'Parts left out are taken from the template: the time into its time keyword, the title and desp into its text keywords, never first or remark (WeChat no longer shows them); "" leaves one out.',
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
    channelId: TargetId("Channel that delivers this app's pushes."),
    messageType: Type.Optional(OneOf(MESSAGE_TYPES, { description: 'WeChat message form.', default: 'custom' })),
    templateId: Type.Optional(Type.String({ maxLength: TEMPLATE_ID_MAX, default: '', description: 'WeChat template ID (required for template messages).' })),
    templateFields: Type.Optional(TemplateFields),
    pushMode: Type.Optional(OneOf(PUSH_MODES, { description: 'Delivery mode.', default: 'all' })),
  }),
  result: AppShape,
  errors: [
    [
      commonErrors.rows.invalid,
      'template messages without templateId, a bad field, a template the Official Account does not have, a templateFields key the template lacks or that WeChat does not show (first, remark), a template list WeChat refused to give, or a channel secret this server cannot open',
    ],
    [commonErrors.rows.unavailable, 'WeChat could not be asked for the template list now (busy, unreachable); nothing was saved'],
    [pushErrors.rows.channelNotFound, 'no channel with this id in your account'],
  ],
  handler: async (params, ctx) => {
    const push = ctx.app.services.push;
    const doc = await push.createApp(ctx.user.id, {
      name: params.name,
      channelId: params.channelId,
      messageType: params.messageType ?? 'custom',
      templateId: params.templateId ?? '',
      templateFields: params.templateFields,
      pushMode: params.pushMode ?? 'all',
    });
    return push.appOut(doc);
  },
});

const queryApps = defineAction({
  summary: 'List your apps (with their appKey and /send URL), oldest first.',
  auth: 'user',
  params: Params({ channelId: Type.Optional(TargetId('Only apps of this channel.')) }),
  result: AppList,
  handler: (params, ctx) => {
    const push = ctx.app.services.push;
    const list = push.targets
      .list(ctx.user.id, 'app')
      .filter((a) => !params.channelId || a.channelId === params.channelId)
      .map((a) => push.appOut(a));
    return { list, total: list.length };
  },
});

const updateApp = defineAction({
  summary: 'Change an app: name, channel, message form, template, push mode. The appKey stays (see push.resetAppKey).',
  auth: 'user',
  params: Params({
    id: TargetId('App id.'),
    name: Type.Optional(Name),
    channelId: Type.Optional(TargetId('New channel.')),
    messageType: Type.Optional(OneOf(MESSAGE_TYPES, { description: 'WeChat message form.' })),
    templateId: Type.Optional(Type.String({ maxLength: TEMPLATE_ID_MAX })),
    templateFields: Type.Optional(TemplateFields),
    pushMode: Type.Optional(OneOf(PUSH_MODES, { description: 'Delivery mode.' })),
  }),
  result: AppShape,
  errors: [
    [
      commonErrors.rows.invalid,
      "template without templateId, a template or templateFields that do not fit the Official Account's template list (as push.createApp), a channel of another type while recipients exist, or Gotify/Bark recipients moving to another server",
    ],
    [commonErrors.rows.unavailable, 'WeChat could not be asked for the template list now; nothing was saved'],
    [pushErrors.rows.appNotFound, 'no app with this id in your account'],
    [pushErrors.rows.channelNotFound, 'no channel with the new channelId in your account'],
  ],
  handler: async (params, ctx) => {
    const push = ctx.app.services.push;
    return push.appOut(await push.updateApp(ctx.user.id, params.id, { ...params, templateFields: params.templateFields }));
  },
});

const deleteApp = defineAction({
  summary: 'Delete an app and its recipients; its key stops working at once. Its message history stays until retention removes it.',
  auth: 'user',
  params: Params({ id: TargetId('App id.') }),
  result: Deleted,
  errors: [[pushErrors.rows.appNotFound, 'no app with this id in your account']],
  handler: async (params, ctx) => {
    await ctx.app.services.push.targets.deleteApp(ctx.user.id, params.id);
    return { deleted: true as const };
  },
});

const resetAppKey = defineAction({
  summary: 'Give an app a new appKey; the old key answers 404 from now on, and pushes scheduled with it are not sent (each recorded as failed, with the reason).',
  auth: 'user',
  params: Params({ id: TargetId('App id.') }),
  result: AppShape,
  errors: [[pushErrors.rows.appNotFound, 'no app with this id in your account']],
  handler: async (params, ctx) => {
    const push = ctx.app.services.push;
    return push.appOut(await push.resetAppKey(ctx.user.id, params.id));
  },
});

const addRecipient = defineAction({
  summary: 'Add a recipient to an app: an openid (WeChat), or a topic / token / device key / URL (webhook).',
  notes:
    'ntfy: a topic or a full topic URL; Gotify: the application token; Bark: the device key; JSON: a URL or a path under the channel url. ' +
    "The channel token goes only to addresses on the channel url's origin; a full URL elsewhere gets the message without it. " +
    `Desktop apps need no recipients. At most ${LIMITS.recipientsPerApp} per app; the same address twice is refused (409).`,
  auth: 'user',
  params: Params({
    appId: TargetId('App id.'),
    address: Type.String({ minLength: 1, maxLength: ADDRESS_MAX, description: 'Where to deliver (see notes).' }),
    name: Type.Optional(Type.String({ maxLength: NAME_MAX, default: '', description: 'Who this is (shown in results).' })),
    remark: Type.Optional(Type.String({ maxLength: REMARK_MAX, default: '', description: 'Free note.' })),
  }),
  result: RecipientShape,
  errors: [
    [commonErrors.rows.invalid, 'the address does not fit the channel type, or the app is a desktop app'],
    [pushErrors.rows.appNotFound, 'no app with this id in your account'],
    [pushErrors.rows.recipientExists, 'the address is already a recipient of this app'],
  ],
  handler: async (params, ctx) => {
    const push = ctx.app.services.push;
    return push.recipientOut(await push.targets.addRecipient(ctx.user.id, { appId: params.appId, address: params.address, name: params.name ?? '', remark: params.remark ?? '' }));
  },
});

const queryRecipients = defineAction({
  summary: "List an app's recipients in delivery order (oldest first).",
  auth: 'user',
  params: Params({ appId: TargetId('App id.') }),
  result: RecipientList,
  errors: [[pushErrors.rows.appNotFound, 'no app with this id in your account']],
  handler: (params, ctx) => {
    const push = ctx.app.services.push;
    const list = push.recipientsOut(push.targets.owned(ctx.user.id, 'app', params.appId));
    return { list, total: list.length };
  },
});

const removeRecipient = defineAction({
  summary: 'Remove a recipient from its app.',
  auth: 'user',
  params: Params({ id: TargetId('Recipient id.') }),
  result: Removed,
  errors: [[pushErrors.rows.recipientNotFound, 'no recipient with this id in your account']],
  handler: async (params, ctx) => {
    await ctx.app.services.push.targets.removeRecipient(ctx.user.id, params.id);
    return { removed: true as const };
  },
});

const queryMessages = defineAction({
  summary: 'Push history, newest first, with filters and paging.',
  notes:
    'startDate and endDate are inclusive bounds on createdAt (ms). status: success (all delivered), partial, failed (none delivered), empty (no recipients). ' +
    'History is kept settings push.retentionDays days (default 30). Scheduled pushes appear here once sent (or settled as not sent), under the id /send answered with; ' +
    'the waiting ones are listed by push.queryScheduled.',
  auth: 'user',
  params: Params({
    appId: Type.Optional(TargetId('Only pushes of this app (deleted apps included).')),
    startDate: Type.Optional(Ms('Earliest createdAt, inclusive.')),
    endDate: Type.Optional(Ms('Latest createdAt, inclusive.')),
    status: Type.Optional(OneOf(MESSAGE_STATUSES, { description: 'Only pushes with this outcome.' })),
    page: Type.Optional(Page()),
    pageSize: Type.Optional(PageSize(100, 20)),
  }),
  result: MessageList,
  errors: [
    [pushErrors.rows.startAfterEnd, 'startDate after endDate'],
    [pushErrors.rows.appNotFound, "appId names another account's app"],
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
  params: Params({ id: TargetId('Push id (data.pushId of the /send answer).') }),
  result: MessageShape,
  errors: [[pushErrors.rows.messageNotFound, 'no push with this id in your account (or it was pruned)']],
  handler: (params, ctx) => ctx.app.services.push.getMessage(ctx.user.id, params.id),
});

const recentFeed = defineAction({
  summary: "The live feed's history: your newest pushes delivered to desktop apps, newest first, with their Markdown rendered.",
  notes:
    'What GET /events/push sent before this window opened (the UI loads it, then follows the stream; the ids are the same, so a replayed event is recognised). ' +
    '`html` is `desp` rendered from Markdown through the message page\'s allow-list (sanitised; "" for an empty desp).',
  auth: 'user',
  params: Params({ limit: Type.Optional(PageSize(100, 50, 'How many (max 100).')) }),
  result: FeedList,
  handler: (params, ctx) => ctx.app.services.push.recentFeed(ctx.user.id, params.limit ?? 50),
});

export const pushActions = defineActions({
  ...channelActions,
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
  'push.recentFeed': recentFeed,
  ...scheduledActions,
});
