import { commonErrors } from '../../lib/errors';
import { call, type CallAnswer } from '../http-client';
import type { Priority } from '../message-options';
import { jsonOf, retryAfterHeader, scrub, seconds, unreachable, type Attempt } from './chat-http';
import { cutText } from './chat-text';
import type { OutgoingMessage } from './driver';
import { defineRobotChannel } from './robot-driver';
import { isHttpUrl } from './urls';

/**
 * Discord incoming webhooks (docs/push.md "Discord"): the channel holds the webhook URL a Discord
 * channel's Integrations page hands out (a secret: it is the credential) and delivers to that
 * channel, so its apps keep no recipients. A push is one message with an embed (title, Markdown
 * description, page link, a colour per priority); `?wait=true` makes Discord answer its id. A
 * declaration over ./robot-driver.ts.
 */

export interface DiscordConfig {
  webhookUrl: string;
}

export interface DiscordMessage {
  body: Record<string, unknown>;
}

const PATH_SHAPE = /^\/api\/(v\d{1,2}\/)?webhooks\/\d{5,25}\/[A-Za-z0-9_-]{20,200}\/?$/;

/** Discord's limits: embed title 256, description 4096. */
const TITLE_MAX = 256;
const DESCRIPTION_MAX = 4096;

/** Embed colours: grey, Discord's blurple, orange, red. */
export const DISCORD_COLOURS: Record<Priority, number> = { low: 0x95a5a6, normal: 0x5865f2, high: 0xe67e22, urgent: 0xed4245 };

/** The body of one push: urgent pushes mention @here (deliberately allowed); nothing else may ping anyone. */
export function discordBody(message: Pick<OutgoingMessage, 'title' | 'desp' | 'url' | 'priority' | 'group' | 'appName' | 'time'>): Record<string, unknown> {
  let description = message.desp.trim() ? message.desp : '';
  if (description.length > DESCRIPTION_MAX) {
    const link = message.url ? `\n\n[Read the whole message](${message.url})` : '';
    description = cutText(description, DESCRIPTION_MAX - link.length) + link;
  }
  const footer = message.group ? `${message.group} · ${message.appName}` : message.appName;
  const urgent = message.priority === 'urgent';
  return {
    ...(urgent ? { content: '@here' } : {}),
    allowed_mentions: { parse: urgent ? ['everyone'] : [] },
    embeds: [
      {
        title: cutText(message.title, TITLE_MAX),
        ...(description ? { description } : {}),
        ...(message.url ? { url: message.url } : {}),
        color: DISCORD_COLOURS[message.priority],
        timestamp: new Date(message.time).toISOString(),
        ...(footer ? { footer: { text: cutText(footer, 2048) } } : {}),
      },
    ],
  };
}

/** The webhook URL's own token (its last path segment), cut out of anything Discord says back. */
const secretsOf = (webhookUrl: string) => [webhookUrl, webhookUrl.replace(/\/+$/, '').split('/').pop() ?? ''];

export function discordOutcome(webhookUrl: string, answer: CallAnswer): Attempt {
  const { status } = answer;
  const json = jsonOf(answer) as { id?: unknown; code?: number; message?: string; retry_after?: number } | null;
  if (status === 204) return { outcome: { ok: true } };
  if (status >= 200 && status < 300) return { outcome: { ok: true, ...(typeof json?.id === 'string' ? { msgId: json.id } : {}) } };
  // Only Discord's own error fields are quoted: whatever else an address answers stays unread.
  const said = typeof json?.message === 'string' ? scrub(`${typeof json.code === 'number' ? `${json.code} ` : ''}${json.message}`, secretsOf(webhookUrl)) : '';
  const quoted = said ? ` (Discord said: ${said})` : '';
  const code = json?.code;
  if (status === 429) {
    const wait = json?.retry_after ?? retryAfterHeader(answer) ?? 1;
    return { outcome: { ok: false, cls: 'transient', errcode: 429, message: `Discord asks to slow down: retry after ${seconds(wait * 1000)}.` }, waitMs: Math.ceil(wait * 1000) };
  }
  if (status >= 500 || status === 408) return { outcome: { ok: false, cls: 'transient', errcode: status, message: `Discord failed (HTTP ${status})${quoted}.` } };
  if (status === 401 || status === 404) {
    return {
      outcome: {
        ok: false,
        cls: 'systemic',
        errcode: code ?? status,
        message: `Discord does not know this webhook (HTTP ${status}): it was deleted or the URL is wrong; copy it again from the channel's Integrations → Webhooks${quoted}.`,
      },
    };
  }
  if (status === 403) return { outcome: { ok: false, cls: 'systemic', errcode: code ?? status, message: `Discord does not let this webhook post here (HTTP 403)${quoted}.` } };
  if (code === 220001 || code === 220003) {
    return {
      outcome: {
        ok: false,
        cls: 'systemic',
        errcode: code,
        message: `This webhook belongs to a forum channel, where every message needs a thread; use the webhook of a text channel${quoted}.`,
      },
    };
  }
  if (status >= 300 && status < 400)
    return { outcome: { ok: false, cls: 'systemic', errcode: status, message: `The webhook URL redirects (HTTP ${status}); use the URL Discord shows.` } };
  return { outcome: { ok: false, cls: 'recipient', errcode: code ?? status, message: `Discord refused the message (HTTP ${status})${quoted}.` } };
}

function withWait(webhookUrl: string): URL {
  const url = new URL(webhookUrl);
  url.searchParams.set('wait', 'true');
  return url;
}

export const discordChannel = defineRobotChannel<'discord', DiscordConfig, DiscordMessage, Record<string, unknown>>({
  type: 'discord',
  service: 'Discord',
  self: { label: 'discord', name: "The webhook's channel", address: 'discord' },
  noRecipients: 'Discord apps deliver to the channel their webhook URL names and need no recipients; push to the app key directly.',
  summary: [],
  webhookUrl: {
    description:
      'Discord webhook URL (https://discord.com/api/webhooks/{id}/{token}; any http(s) host with that path, e.g. a proxy). Returned masked: send the masked value back or leave it out to keep it.',
    example: 'https://discord.com/api/webhooks/123456789012345678/abcDEF…',
    check(webhookUrl) {
      const problem = 'params.config.webhookUrl is required: the webhook URL from the Discord channel’s Integrations → Webhooks (https://discord.com/api/webhooks/{id}/{token})';
      if (!isHttpUrl(webhookUrl)) throw commonErrors.invalid(problem).at('config.webhookUrl');
      const url = new URL(webhookUrl);
      const query = [...url.searchParams.keys()];
      if (!PATH_SHAPE.test(url.pathname) || url.hash || url.username || query.some((key) => key !== 'thread_id') || !/^\d*$/.test(url.searchParams.get('thread_id') ?? '')) {
        throw commonErrors.invalid(problem).at('config.webhookUrl');
      }
    },
  },
  render: (message) => ({ body: discordBody(message) }),
  body: (_config, message) => message.body,
  request: (config, body) => ({ url: withWait(config.webhookUrl), body }),
  classify: (answer, config) => discordOutcome(config.webhookUrl, answer),
  tested: () => "Discord posted a test message in the webhook's channel.",

  // Without an address a test reads the webhook (Discord answers its name) and posts nothing.
  async probe(scope, discord, timeoutMs) {
    try {
      const answer = await call(scope, discord.webhookUrl, { method: 'GET', timeoutMs });
      const { outcome } = discordOutcome(discord.webhookUrl, answer);
      if (!outcome.ok) return { ok: false, message: outcome.message, class: outcome.cls, errcode: outcome.errcode };
      const name = (jsonOf(answer) as { name?: unknown } | null)?.name;
      return { ok: true, message: `Discord knows this webhook${typeof name === 'string' ? ` ("${scrub(name, [])}")` : ''}.` };
    } catch (error) {
      const failure = unreachable('Discord', error);
      return { ok: false, message: failure.message, class: failure.cls };
    }
  },
});
