import { Type } from '@sinclair/typebox';
import { defineAction, Params } from '../api/action';
import { OneOf } from '../api/params';
import { commonErrors } from '../lib/errors';
import { Name, TargetId } from './action-params';
import { CHANNEL_TYPES, channelConfigParams, channelConfigShapes, channelTypeInfos, DEFAULT_CHANNEL_TYPE } from './channels';
import { Deleted } from '../api/result';
import { pushErrors } from './errors';
import { ChannelList, ChannelShape, ChannelTestAnswer, ChannelTypeList } from './result-shapes';
import { ADDRESS_MAX } from './schema';
import { LIMITS } from './targets';

/** Every channel type's config fields (server/push/channels/), each optional. */
const ChannelConfig = channelConfigParams();

const createChannel = defineAction({
  summary: 'Create a delivery channel: a WeChat Official Account, this desktop, or a webhook (ntfy, Gotify, Bark, JSON).',
  notes: `${channelConfigShapes()}. ` + `At most ${LIMITS.channelsPerUser} channels per account. Secrets are never returned in full, never logged and never synced.`,
  auth: 'user',
  params: Params({ name: Name, type: OneOf(CHANNEL_TYPES, { description: 'Channel type.' }), config: Type.Optional(ChannelConfig) }),
  result: ChannelShape,
  errors: [[commonErrors.rows.invalid, 'a config field is missing, malformed or does not apply to the type']],
  handler: async (params, ctx) => {
    const push = ctx.app.services.push;
    return push.channelOut(await push.targets.createChannel(ctx.user.id, { name: params.name, type: params.type, config: params.config ?? {} }));
  },
});

const queryChannels = defineAction({
  summary: 'List your channels, oldest first.',
  auth: 'user',
  params: Params({ type: Type.Optional(OneOf(CHANNEL_TYPES, { description: 'Only channels of this type.' })) }),
  result: ChannelList,
  handler: (params, ctx) => {
    const push = ctx.app.services.push;
    const list = push.targets
      .list(ctx.user.id, 'channel')
      .filter((c) => !params.type || c.type === params.type)
      .map((c) => push.channelOut(c));
    return { list, total: list.length };
  },
});

const updateChannel = defineAction({
  summary: 'Rename a channel or change its config (the type is fixed); config fields left out keep their values.',
  notes:
    'A masked secret sent back unchanged (or left out) keeps the stored secret, as long as the channel keeps its destination. ' +
    'Secrets stay where they were entered: a change of the WeChat `apiBase` or of the webhook `url` (or a `format` change that switches the default server) ' +
    'must carry the `appSecret` / `token` again; left out, empty or masked, it is refused (400, `data.field` names the secret) and nothing is stored. ' +
    'Any difference after URL normalisation counts as a new destination (scheme, host, port, path, query, fragment or user info; not a trailing slash). ' +
    'For the same reason the url of a Gotify or Bark channel cannot change while its apps have recipients (their tokens and device keys). ' +
    'Changing the WeChat credentials drops the cached access token.',
  auth: 'user',
  params: Params({
    id: TargetId('Channel id.'),
    name: Type.Optional(Name),
    type: Type.Optional(OneOf(CHANNEL_TYPES, { description: 'Must equal the current type when given.' })),
    config: Type.Optional(ChannelConfig),
  }),
  result: ChannelShape,
  errors: [
    [commonErrors.rows.invalid, 'invalid config, a type change, or a new destination without its secret entered again'],
    [pushErrors.rows.channelNotFound, 'no channel with this id in your account'],
  ],
  handler: async (params, ctx) => {
    const push = ctx.app.services.push;
    return push.channelOut(await push.targets.updateChannel(ctx.user.id, params.id, params));
  },
});

const deleteChannel = defineAction({
  summary: 'Delete a channel that no app uses.',
  auth: 'user',
  params: Params({ id: TargetId('Channel id.') }),
  result: Deleted,
  errors: [
    [pushErrors.rows.channelNotFound, 'no channel with this id in your account'],
    [pushErrors.rows.channelInUse, 'apps still use the channel (data.apps lists them)'],
  ],
  handler: async (params, ctx) => {
    await ctx.app.services.push.targets.deleteChannel(ctx.user.id, params.id);
    return { deleted: true as const };
  },
});

const testChannel = defineAction({
  summary:
    'Check a channel: fetch a WeChat token, probe a webhook receiver, ask Telegram who the bot is, log in to the mail server, post to a group robot or show a desktop notification; optionally send a test message to one address.',
  notes:
    'The answer is 200 whether or not the channel works: `ok` says which, `message` says what went wrong in plain words and what to fix, ' +
    '`class` is the error class (token, recipient, systemic, transient).',
  auth: 'user',
  params: Params({
    id: TargetId('Channel id.'),
    address: Type.Optional(Type.String({ minLength: 1, maxLength: ADDRESS_MAX, description: 'An openid / topic / key / URL to send a test message to.' })),
  }),
  result: ChannelTestAnswer,
  errors: [[pushErrors.rows.channelNotFound, 'no channel with this id in your account']],
  handler: (params, ctx) => ctx.app.services.push.testChannel(ctx.user.id, params.id, params.address),
});

const queryChannelTypes = defineAction({
  summary: 'The channel types this PennyPost delivers through, with the config fields of each (what the UI builds its channel forms from).',
  notes:
    'Each field: `{name, required, secret, kind, options?, minimum?, maximum?, maxLength?, example?}` (kind: text, integer or choice; secrets are returned masked). ' +
    '`recipients` false: apps of the type deliver to this computer and keep no recipients; `templates`: apps may send template messages; ' +
    '`summary`: the config fields that sum a channel up in lists. `default`: the type a new channel starts as.',
  auth: 'user',
  params: Params({}),
  result: ChannelTypeList,
  handler: () => ({ list: channelTypeInfos(), default: DEFAULT_CHANNEL_TYPE }),
});

/** The channel actions of the push domain (./actions.ts puts them in its map). */
export const channelActions = {
  'push.createChannel': createChannel,
  'push.queryChannels': queryChannels,
  'push.updateChannel': updateChannel,
  'push.deleteChannel': deleteChannel,
  'push.testChannel': testChannel,
  'push.queryChannelTypes': queryChannelTypes,
};
