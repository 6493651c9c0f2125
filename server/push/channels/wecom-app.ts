import { Type } from '@sinclair/typebox';
import type { OutboundScope } from '../../http/outbound-policy';
import { OneOf } from '../../api/params';
import { commonErrors } from '../../lib/errors';
import type { Failure, Outcome } from '../deliver';
import type { Priority } from '../message-options';
import { configText, formatTime, maskSecrets, testMessage, text, type ChannelDriver, type ChannelRef, type OutgoingMessage } from './driver';
import { ApiFailure } from './errcode-api';
import { fitBytes, groupedTitle, truncateBytes } from './robots';
import { checkBaseUrl, destinationKey, urlEndpoints } from './urls';
import {
  notAMember,
  unlicensed,
  WECOM_ALL,
  WECOM_APP_FORMATS,
  WECOM_DEFAULT_API_BASE,
  WECOM_TOUSER_MAX,
  wecomAgentName,
  wecomAppSend,
  WecomTokens,
  type Refusal,
  type WecomAppConfig,
  type WecomAppFormat,
  type WecomAppMessage,
} from './wecom-app-api';
import { plainText } from './wechat-templates';

/**
 * WeCom (企业微信) application messages (docs/push.md §3 "WeCom application"): a self-built app of a
 * WeCom company — its corp ID, AgentId and Secret — sends to members by their account (userid), or
 * to everyone it can reach (`@all`). Through WeCom's WeChat plug-in (微信插件) members who follow the
 * company in WeChat get the messages in personal WeChat, which is how ServerChan and PushPlus reach
 * WeChat reliably. Text cards and text show there; Markdown only in the WeCom app.
 */

const config = Type.Object({
  corpId: Type.String({
    maxLength: 64,
    description: "The company's Corp ID (admin console: My company → Company info → Company ID).",
    examples: ['ww0123456789abcdef'],
  }),
  agentId: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: "The app's AgentId (admin console: App management → the app)." }),
  corpSecret: Type.String({
    maxLength: 128,
    description:
      "The app's Secret (App management → the app → Secret). Returned masked (last 4 characters); send the masked value back or leave it out to keep it (not with a new wecomApiBase: enter it again).",
  }),
  wecomApiBase: Type.Optional(
    Type.String({ maxLength: 512, description: 'API base URL, default https://qyapi.weixin.qq.com (for proxies and tests).', examples: [WECOM_DEFAULT_API_BASE] }),
  ),
  wecomAppFormat: Type.Optional(
    OneOf(WECOM_APP_FORMATS, {
      description:
        '"textcard" (default: title, text and a link to the message page; text without a public base URL), "text", or "markdown" (shown in the WeCom app only, not in WeChat).',
    }),
  ),
});

const SECRETS = { corpSecret: 'Secret' };

/** WeCom's limits on one message (UTF-8 bytes). */
export const WECOM_APP_TEXT_MAX_BYTES = 2048;
export const WECOM_APP_MARKDOWN_MAX_BYTES = 2048;
export const TEXTCARD_TITLE_MAX_BYTES = 128;
export const TEXTCARD_DESCRIPTION_MAX_BYTES = 512;

/** A member's account (userid): 1–64 of letters, digits, `_ - @ .`, starting with a letter or digit. */
const USER_ID = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/;

/** A push as the driver keeps it: the message is built at delivery, where the channel's form is known. */
export type WecomAppPush = Pick<OutgoingMessage, 'title' | 'desp' | 'url' | 'priority' | 'group' | 'time' | 'appName'>;

const escapeHtml = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Text escaped for a text card's description, cut to `maxBytes` after escaping (never inside an entity), `…` when cut. */
function escapedWithin(value: string, maxBytes: number): string {
  const whole = escapeHtml(value);
  if (Buffer.byteLength(whole, 'utf8') <= maxBytes) return whole;
  let out = '';
  let size = 0;
  const room = maxBytes - Buffer.byteLength('…', 'utf8');
  for (const ch of value) {
    const piece = escapeHtml(ch);
    const bytes = Buffer.byteLength(piece, 'utf8');
    if (size + bytes > room) break;
    out += piece;
    size += bytes;
  }
  return out + '…';
}

/** How a text card's words show: WeCom's classes `gray`, `normal` and `highlight`. */
const DESP_CLASS: Record<Priority, string> = { low: 'gray', normal: 'normal', high: 'highlight', urgent: 'highlight' };
/** The Markdown title's colour: WeCom's `comment` (grey) and `warning` (orange-red). */
const TITLE_COLOUR: Record<Priority, string> = { low: 'comment', normal: '', high: 'warning', urgent: 'warning' };

/** The push in the channel's form: a text card linking to the message page, text, or Markdown. */
export function wecomAppMessage(format: WecomAppFormat, push: WecomAppPush): WecomAppMessage {
  const title = groupedTitle(push.title, push.group);
  if (format === 'textcard' && push.url) {
    const head = `<div class="gray">${escapeHtml(`${push.appName} · ${formatTime(push.time)}`)}</div>`;
    const open = `<div class="${DESP_CLASS[push.priority]}">`;
    const close = '</div>';
    const desp = plainText(push.desp);
    const room = TEXTCARD_DESCRIPTION_MAX_BYTES - Buffer.byteLength(head + open + close, 'utf8');
    const description = desp && room > 3 ? head + open + escapedWithin(desp, room) + close : truncateBytes(head, TEXTCARD_DESCRIPTION_MAX_BYTES);
    // The card's title is one line.
    const cardTitle = truncateBytes(title.replace(/\s+/gu, ' ').trim(), TEXTCARD_TITLE_MAX_BYTES);
    return { msgtype: 'textcard', textcard: { title: cardTitle, description, url: push.url } };
  }
  if (format === 'markdown') {
    const colour = TITLE_COLOUR[push.priority];
    const bold = `**${title}**`;
    const head = colour ? `<font color="${colour}">${bold}</font>` : bold;
    const content = fitBytes(push.desp ? `${head}\n\n` : head, push.desp, push.url ? `\n\n[Details](${push.url})` : '', WECOM_APP_MARKDOWN_MAX_BYTES);
    return { msgtype: 'markdown', markdown: { content } };
  }
  const desp = plainText(push.desp);
  const content = fitBytes(desp ? `${title}\n\n` : title, desp, push.url ? `\n\n${push.url}` : '', WECOM_APP_TEXT_MAX_BYTES);
  return { msgtype: 'text', text: { content } };
}

const failureOf = (error: unknown): Refusal => {
  if (error instanceof ApiFailure) {
    const failure: Failure = { cls: error.cls, message: error.message, ...(error.errcode === undefined ? {} : { errcode: error.errcode }), retryable: error.retryable };
    return { ok: false, ...failure };
  }
  throw error;
};

export const wecomAppChannel: ChannelDriver<WecomAppConfig, WecomAppPush, 'wecom-app'> = {
  type: 'wecom-app',
  config,
  secrets: SECRETS,
  movedBy: ['wecomApiBase'],
  summary: ['corpId', 'agentId'],

  normalize(input) {
    const corpId = text(input, 'corpId').trim();
    const corpSecret = text(input, 'corpSecret').trim();
    const agentText = text(input, 'agentId').trim();
    const agentId = /^\d{1,10}$/.test(agentText) ? Number(agentText) : NaN;
    const wecomApiBase = checkBaseUrl(configText(input.wecomApiBase || WECOM_DEFAULT_API_BASE), 'wecomApiBase', WECOM_DEFAULT_API_BASE);
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(corpId)) {
      throw commonErrors.invalid('params.config.corpId is required: the Corp ID of the WeCom company (My company → Company info, e.g. ww0123456789abcdef)').at('config.corpId');
    }
    if (!(agentId >= 1 && agentId <= 2_147_483_647)) {
      throw commonErrors.invalid("params.config.agentId is required: the app's AgentId, a number such as 1000002 (App management → the app)").at('config.agentId');
    }
    if (!/^[A-Za-z0-9_-]{1,128}$/.test(corpSecret)) {
      throw commonErrors.invalid("params.config.corpSecret is required: the app's Secret (App management → the app → Secret)").at('config.corpSecret');
    }
    const format = input.wecomAppFormat === undefined || input.wecomAppFormat === '' ? 'textcard' : input.wecomAppFormat;
    if (!WECOM_APP_FORMATS.includes(format as WecomAppFormat)) {
      throw commonErrors.invalid('params.config.wecomAppFormat must be "textcard", "text" or "markdown"').at('config.wecomAppFormat');
    }
    return { corpId, agentId, corpSecret, wecomApiBase, wecomAppFormat: format as WecomAppFormat };
  },

  destination: (channel) => destinationKey(channel.wecomApiBase || WECOM_DEFAULT_API_BASE),

  endpoints: (channel) => urlEndpoints('wecomApiBase', channel.wecomApiBase || WECOM_DEFAULT_API_BASE),

  mask: (channel) => maskSecrets(channel, SECRETS),

  checkAddress(_channel, address) {
    if (address !== WECOM_ALL && !USER_ID.test(address)) {
      throw commonErrors
        .invalid("params.address must be a member's account (userid) in WeCom — letters, digits, _ - @ . — or @all for every member the app can reach")
        .at('address');
    }
  },

  recipientLabel: (_channel, address) => address,

  /** A config change keeps the members (switching the company or the app is the owner's call, as with WeChat's openids). */
  keepsRecipients: () => null,

  render: (message) => ({
    title: message.title,
    desp: message.desp,
    ...(message.url ? { url: message.url } : {}),
    priority: message.priority,
    group: message.group,
    time: message.time,
    appName: message.appName,
  }),

  connect(env) {
    const tokens = new WecomTokens(env.clock);

    /**
     * One call to the members of `touser`, each member's outcome by its id; a refused token gets
     * one fresh token (shared by every caller) and one more try.
     */
    const call = async (
      scope: OutboundScope,
      channel: ChannelRef,
      wecom: WecomAppConfig,
      touser: string[],
      message: WecomAppMessage,
      timeoutMs: number,
    ): Promise<Map<string, Outcome>> => {
      const each = (outcome: (id: string) => Outcome) => new Map(touser.map((id) => [id, outcome(id)]));
      let answer;
      try {
        const token = await tokens.get(scope, channel.id, wecom, timeoutMs);
        answer = await wecomAppSend(scope, wecom, token, touser, message, timeoutMs);
        if (!answer.ok && answer.token) answer = await wecomAppSend(scope, wecom, await tokens.get(scope, channel.id, wecom, timeoutMs, token), touser, message, timeoutMs);
      } catch (error) {
        const refusal = failureOf(error);
        return each(() => refusal);
      }
      const settled = answer;
      if (!settled.ok) return each(() => settled.outcome);
      return each((id): Outcome => {
        const lower = id.toLowerCase();
        if (settled.invalid.has(lower)) return notAMember();
        if (settled.unlicensed.has(lower)) return unlicensed();
        return { ok: true, ...(settled.msgId ? { msgId: settled.msgId } : {}) };
      });
    };

    /** Sends to many members: `@all` in a call of its own (WeCom ignores the others beside it), the rest 1,000 a call. */
    const sendTo = async (scope: OutboundScope, channel: ChannelRef, wecom: WecomAppConfig, addresses: string[], message: WecomAppMessage, timeoutMs: number) => {
      const outcomes = new Array<Outcome>(addresses.length);
      const groups: Array<Array<{ address: string; index: number }>> = [];
      const entries = addresses.map((address, index) => ({ address, index }));
      const all = entries.filter(({ address }) => address === WECOM_ALL);
      if (all.length > 0) groups.push(all);
      const members = entries.filter(({ address }) => address !== WECOM_ALL);
      for (let start = 0; start < members.length; start += WECOM_TOUSER_MAX) groups.push(members.slice(start, start + WECOM_TOUSER_MAX));
      for (const group of groups) {
        const byId = await call(scope, channel, wecom, [...new Set(group.map(({ address }) => address))], message, timeoutMs);
        for (const { address, index } of group) outcomes[index] = byId.get(address) ?? notAMember();
      }
      return outcomes;
    };

    /** Sends to one member (or `@all`). */
    const sendToOne = async (scope: OutboundScope, channel: ChannelRef, wecom: WecomAppConfig, address: string, message: WecomAppMessage, timeoutMs: number) => {
      const outcome = (await sendTo(scope, channel, wecom, [address], message, timeoutMs)).at(0);
      if (outcome === undefined) throw new Error('WeCom app: a send to one address gave no outcome');
      return outcome;
    };

    return {
      forget: (channelId) => tokens.drop(channelId),

      delivery: (channel, wecom, push) => {
        const message = wecomAppMessage(wecom.wecomAppFormat, push);
        return {
          prepare: async (timeoutMs) => {
            try {
              await tokens.get(await env.outbound(channel.userId), channel.id, wecom, timeoutMs);
              return null;
            } catch (error) {
              const { ok: _ok, ...failure } = failureOf(error);
              return failure;
            }
          },
          send: async (recipient, timeoutMs) => sendToOne(await env.outbound(channel.userId), channel, wecom, recipient.address, message, timeoutMs),
          sendBatch: async (recipients, timeoutMs) =>
            sendTo(
              await env.outbound(channel.userId),
              channel,
              wecom,
              recipients.map((r) => r.address),
              message,
              timeoutMs,
            ),
          batchMax: WECOM_TOUSER_MAX,
        };
      },

      async test(channel, wecom, { address, timeoutMs, time }) {
        try {
          const scope = await env.outbound(channel.userId);
          const token = await tokens.get(scope, channel.id, wecom, timeoutMs);
          const name = await wecomAgentName(scope, wecom, token, timeoutMs);
          const app = name ? `"${name}" (AgentId ${wecom.agentId})` : `AgentId ${wecom.agentId}`;
          if (!address) return { ok: true, message: `WeCom accepted the corp ID and the Secret of the app ${app}.` };
          const { title, desp } = testMessage(channel, time);
          const outcome = await sendToOne(scope, channel, wecom, address, { msgtype: 'text', text: { content: `${title}\n\n${desp}` } }, timeoutMs);
          if (outcome.ok) return { ok: true, message: `WeCom delivered a test message from the app ${app} to ${address}.` };
          return { ok: false, message: outcome.message, class: outcome.cls, ...(outcome.errcode === undefined ? {} : { errcode: outcome.errcode }) };
        } catch (error) {
          const refusal = failureOf(error);
          return { ok: false, message: refusal.message, class: refusal.cls, ...(refusal.errcode === undefined ? {} : { errcode: refusal.errcode }) };
        }
      },
    };
  },
};
