import { Type } from '@sinclair/typebox';
import { OneOf } from '../../api/params';
import type { OutboundScope } from '../../http/outbound-policy';
import { commonErrors, type DomainError } from '../../lib/errors';
import type { Failure, Outcome } from '../deliver';
import { configText, formatTime, maskSecrets, testMessage, text, type ChannelDriver, type OutgoingMessage } from './driver';
import { checkBaseUrl, destinationKey, urlEndpoints } from './urls';
import { WECHAT_DEFAULT_API_BASE, WechatFailure, WechatTokens, wechatSend, wechatTemplates, type WechatConfig, type WechatMessage } from './wechat-api';
import { checkTemplateFields, keywordMarkdown, keywordText } from './wechat-templates';

/**
 * WeChat Official Accounts (docs/push.md): the AppID and AppSecret get an access token (cached
 * per channel, ./wechat-api.ts); recipients are followers' openids; an app sends customer-service
 * text messages or template messages.
 */

const config = Type.Object({
  appId: Type.String({ maxLength: 64, description: 'AppID of the Official Account (or test account).' }),
  appSecret: Type.String({
    maxLength: 128,
    description: 'AppSecret. Returned masked (last 4 characters); send the masked value back or leave it out to keep it (not with a new apiBase: enter it again).',
  }),
  apiBase: Type.Optional(
    Type.String({ maxLength: 512, description: 'API base URL, default https://api.weixin.qq.com (for proxies and tests).', examples: [WECHAT_DEFAULT_API_BASE] }),
  ),
  tokenMode: Type.Optional(OneOf(['stable', 'classic'] as const, { description: '"stable" (POST /cgi-bin/stable_token, default) or "classic" (GET /cgi-bin/token).' })),
});

const SECRETS = { appSecret: 'AppSecret' };

/** WeChat text messages are cut at about 2048 bytes; we stay below with room for the link. */
const CUSTOM_TEXT_MAX_BYTES = 1800;

function truncateBytes(value: string, maxBytes: number): string {
  if (Buffer.byteLength(value, 'utf8') <= maxBytes) return value;
  let out = '';
  let bytes = 0;
  for (const ch of value) {
    const size = Buffer.byteLength(ch, 'utf8');
    if (bytes + size > maxBytes - 3) break;
    out += ch;
    bytes += size;
  }
  return out + '…';
}

/** A custom (text) message: title, desp and the page link, cut to what WeChat shows. */
export function customText(title: string, desp: string, url: string | undefined): string {
  const link = url ? `\n\n${url}` : '';
  const body = desp ? `${title}\n\n${desp}` : title;
  return truncateBytes(body, CUSTOM_TEXT_MAX_BYTES - Buffer.byteLength(link, 'utf8')) + link;
}

/**
 * Template data as WeChat shows it since 2023-05-04: the title, desp and send time each in the key
 * the app maps it to, one line of at most 20 characters (./wechat-templates.ts); the whole text is
 * on the message page the template's url opens.
 */
function templateData(fields: Record<string, string>, message: OutgoingMessage): Record<string, { value: string }> {
  const data: Record<string, { value: string }> = {};
  const put = (key: string | undefined, value: string) => {
    if (key && value) data[key] = { value };
  };
  put(fields.title, keywordText(message.title));
  put(fields.desp, keywordMarkdown(message.desp));
  put(fields.time, keywordText(formatTime(message.time)));
  return data;
}

function failureOf(error: unknown): Failure {
  if (error instanceof WechatFailure) return { cls: error.cls, message: error.message, errcode: error.errcode, retryable: error.retryable };
  throw error;
}

export const wechatChannel: ChannelDriver<WechatConfig, WechatMessage, 'wechat'> = {
  type: 'wechat',
  config,
  secrets: SECRETS,
  movedBy: ['apiBase'],
  summary: ['appId', 'apiBase'],
  templates: true,

  normalize(input) {
    const appId = text(input, 'appId').trim();
    const appSecret = text(input, 'appSecret').trim();
    const apiBase = checkBaseUrl(configText(input.apiBase || WECHAT_DEFAULT_API_BASE), 'apiBase', WECHAT_DEFAULT_API_BASE);
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(appId)) {
      throw commonErrors.invalid('params.config.appId is required: the AppID of the Official Account (e.g. wx0123456789abcdef)').at('config.appId');
    }
    if (!/^[A-Za-z0-9_-]{1,128}$/.test(appSecret)) {
      throw commonErrors.invalid('params.config.appSecret is required: the AppSecret of the Official Account').at('config.appSecret');
    }
    return { appId, appSecret, apiBase, tokenMode: input.tokenMode === 'classic' ? 'classic' : 'stable' };
  },

  destination: (channel) => destinationKey(channel.apiBase || WECHAT_DEFAULT_API_BASE),

  endpoints: (channel) => urlEndpoints('apiBase', channel.apiBase || WECHAT_DEFAULT_API_BASE),

  mask: (channel) => maskSecrets(channel, SECRETS),

  checkAddress(_channel, address) {
    if (!/^[A-Za-z0-9_-]{6,64}$/.test(address)) {
      throw commonErrors.invalid("params.address must be the recipient's openid for this Official Account (letters, digits, _ and -)").at('address');
    }
  },

  recipientLabel: (_channel, address) => address,

  /** A config change keeps the openids (they are the followers'; switching the Official Account is the owner's call). */
  keepsRecipients: () => null,

  render(message, app) {
    if (app.messageType === 'template') {
      return { kind: 'template', templateId: app.templateId, ...(message.url ? { url: message.url } : {}), data: templateData(app.templateFields, message) };
    }
    return { kind: 'custom', content: customText(message.title, message.desp, message.url) };
  },

  connect(env) {
    const tokens = new WechatTokens(env.clock);
    /** One call with the channel's token; when WeChat refuses the token, one fresh token (shared by every caller) and one more try. */
    const withToken = async <T>(scope: OutboundScope, channelId: string, wechat: WechatConfig, timeoutMs: number, run: (token: string) => Promise<T>): Promise<T> => {
      const token = await tokens.get(scope, channelId, wechat, timeoutMs);
      try {
        return await run(token);
      } catch (error) {
        if (!(error instanceof WechatFailure) || error.cls !== 'token') throw error;
      }
      return run(await tokens.get(scope, channelId, wechat, timeoutMs, token));
    };
    return {
      forget: (channelId) => tokens.drop(channelId),

      delivery: (channel, wechat, message) => ({
        prepare: async (timeoutMs) => {
          try {
            await tokens.get(await env.outbound(channel.userId), channel.id, wechat, timeoutMs);
            return null;
          } catch (error) {
            return failureOf(error);
          }
        },
        send: async (recipient, timeoutMs): Promise<Outcome> => {
          const scope = await env.outbound(channel.userId);
          try {
            return { ok: true, msgId: await withToken(scope, channel.id, wechat, timeoutMs, (token) => wechatSend(scope, wechat, token, recipient.address, message, timeoutMs)) };
          } catch (error) {
            return { ok: false, ...failureOf(error) };
          }
        },
      }),

      async checkTemplate(channel, wechat, template, timeoutMs) {
        let templates;
        try {
          const scope = await env.outbound(channel.userId);
          templates = await withToken(scope, channel.id, wechat, timeoutMs, (token) => wechatTemplates(scope, wechat, token, timeoutMs));
        } catch (error) {
          throw templateListRefusal(error);
        }
        return checkTemplateFields(templates, template.templateId, template.given, template.stored);
      },

      async test(channel, wechat, { address, timeoutMs, time }) {
        try {
          const scope = await env.outbound(channel.userId);
          const token = await tokens.get(scope, channel.id, wechat, timeoutMs);
          if (!address) return { ok: true, message: 'WeChat accepted the AppID and AppSecret and issued an access token.' };
          const { title, desp } = testMessage(channel, time);
          await wechatSend(scope, wechat, token, address, { kind: 'custom', content: `${title}\n\n${desp}` }, timeoutMs);
          return { ok: true, message: 'WeChat accepted the credentials and delivered a test message.' };
        } catch (error) {
          if (error instanceof WechatFailure) return { ok: false, message: error.message, class: error.cls, errcode: error.errcode };
          throw error;
        }
      },
    };
  },
};

/**
 * Why an app's template could not be checked, as the save answers it: 503 when WeChat cannot be
 * asked now (busy, unreachable), else 400 with what to fix (credentials, IP whitelist, an account
 * without template messages). Nothing is saved either way.
 */
function templateListRefusal(error: unknown): DomainError {
  const failure = failureOf(error);
  const said = `PennyPost could not read the Official Account's template list to check the template, so the app was not saved: ${failure.message}`;
  if (failure.cls === 'transient') return commonErrors.unavailable(`${said} Try again shortly.`).with({ errcode: failure.errcode ?? null });
  return commonErrors
    .invalid(said)
    .at('templateId')
    .with({ errcode: failure.errcode ?? null });
}
