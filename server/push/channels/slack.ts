import { Type } from '@sinclair/typebox';
import type { OutboundScope } from '../../http/outbound-policy';
import { commonErrors } from '../../lib/errors';
import type { Outcome } from '../deliver';
import { call, type CallAnswer } from '../http-client';
import { honouringRateLimit, retryAfterHeader, scrub, seconds, unreachable, type Attempt } from './chat-http';
import { cutText, fitChatText, renderChatText, slackMrkdwn } from './chat-text';
import { maskSecrets, testMessage, text, type ChannelDriver, type OutgoingMessage, testResultOf } from './driver';
import { webhookUrlField } from './fields';
import { destinationKey, isHttpUrl, urlEndpoints } from './urls';

/**
 * Slack incoming webhooks (docs/push.md "Slack"): the channel holds the webhook URL of a Slack app
 * (a secret: it is the credential) and delivers to the Slack channel it was made for, so its apps
 * keep no recipients. A push is a header block (the title), a section in mrkdwn (the desp, from
 * Markdown) and a context line (group and app); `text` is the notification's fallback.
 */

export interface SlackConfig {
  webhookUrl: string;
}

export interface SlackMessage {
  body: Record<string, unknown>;
}

const config = Type.Object({
  webhookUrl: webhookUrlField(
    'Slack incoming webhook URL (https://hooks.slack.com/services/T…/B…/…; any http(s) host with that path, e.g. a proxy). Returned masked: send the masked value back or leave it out to keep it.',
    'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXX…',
  ),
});

const SECRETS = { webhookUrl: 'webhook URL' };

const PATH_SHAPE = /^\/services\/T[A-Z0-9]{2,20}\/B[A-Z0-9]{2,20}\/[A-Za-z0-9]{8,64}\/?$/;

/** Slack's limits: a header's plain text 150 characters, a section's text 3000. */
const HEADER_MAX = 150;
const SECTION_MAX = 3000;

/** The body of one push. Urgent pushes start with <!here> (notifies the channel's active members); the sender's own text is escaped, so it never mentions anyone. */
export function slackBody(message: Pick<OutgoingMessage, 'title' | 'desp' | 'url' | 'priority' | 'group' | 'appName'>): Record<string, unknown> {
  const here = message.priority === 'urgent' ? '<!here> ' : '';
  const render = (markdown: string) => renderChatText(markdown, slackMrkdwn);
  let section = message.desp.trim() ? render(message.desp) : '';
  if (here.length + section.length > SECTION_MAX) {
    const link = message.url ? `\n\n${slackMrkdwn.link(message.url, 'Read the whole message')}` : '';
    section = fitChatText(message.desp, SECTION_MAX - here.length - link.length, render).text + link;
  }
  section = (here + section).trim();
  const context = message.group ? `${message.group} · ${message.appName}` : message.appName;
  const blocks: unknown[] = [{ type: 'header', text: { type: 'plain_text', text: cutText(message.title, HEADER_MAX), emoji: true } }];
  if (section) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: section } });
  if (context) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: slackMrkdwn.escape(cutText(context, 200)) }] });
  return { text: here + slackMrkdwn.escape(cutText(message.title, 1000)), blocks };
}

const secretsOf = (webhookUrl: string) => [webhookUrl, webhookUrl.replace(/\/+$/, '').split('/').pop() ?? ''];

/** Slack answers `ok`, or an error word such as `invalid_payload`, `no_service`, `channel_is_archived`. */
export function slackOutcome(webhookUrl: string, answer: CallAnswer): Attempt {
  const { status } = answer;
  // Slack answers one error word (`invalid_payload`, `no_service`); nothing else an address says is quoted.
  const word = answer.text.trim();
  const said = /^[a-z][a-z0-9_]{1,63}$/.test(word) ? scrub(word, secretsOf(webhookUrl)) : '';
  const quoted = said ? ` (Slack said: ${said})` : '';
  if (status === 200) return { outcome: { ok: true } };
  if (status === 429) {
    const wait = retryAfterHeader(answer) ?? 1;
    return { outcome: { ok: false, cls: 'transient', errcode: 429, message: `Slack asks to slow down: retry after ${seconds(wait * 1000)}.` }, waitMs: Math.ceil(wait * 1000) };
  }
  if (status >= 500 || status === 408) return { outcome: { ok: false, cls: 'transient', errcode: status, message: `Slack failed (HTTP ${status})${quoted}.` } };
  if (status === 404 || status === 410 || status === 403 || status === 401) {
    const why =
      status === 410
        ? 'the Slack channel of this webhook is archived'
        : status === 404
          ? 'Slack does not know this webhook: it was removed, or its app uninstalled; make a new one'
          : 'Slack does not let this webhook post';
    return { outcome: { ok: false, cls: 'systemic', errcode: status, message: `${why} (HTTP ${status})${quoted}.` } };
  }
  if (status >= 300 && status < 400)
    return { outcome: { ok: false, cls: 'systemic', errcode: status, message: `The webhook URL redirects (HTTP ${status}); use the URL Slack shows.` } };
  return { outcome: { ok: false, cls: 'recipient', errcode: status, message: `Slack refused the message (HTTP ${status})${quoted}.` } };
}

export function slackSend(scope: OutboundScope, channel: SlackConfig, message: SlackMessage, timeoutMs: number): Promise<Outcome> {
  const body = JSON.stringify(message.body);
  return honouringRateLimit(timeoutMs, async (left) => {
    try {
      const answer = await call(scope, channel.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', accept: '*/*' },
        body,
        timeoutMs: left,
      });
      return slackOutcome(channel.webhookUrl, answer);
    } catch (error) {
      return { outcome: unreachable('Slack', error) };
    }
  });
}

export const slackChannel: ChannelDriver<SlackConfig, SlackMessage, 'slack'> = {
  type: 'slack',
  config,
  secrets: SECRETS,
  movedBy: ['webhookUrl'],
  summary: [],
  self: { label: 'slack', name: "The webhook's channel", address: 'slack' },

  normalize(input) {
    const webhookUrl = text(input, 'webhookUrl').trim();
    const problem = 'params.config.webhookUrl is required: the incoming webhook URL of your Slack app (https://hooks.slack.com/services/T…/B…/…)';
    if (!isHttpUrl(webhookUrl)) throw commonErrors.invalid(problem).at('config.webhookUrl');
    const url = new URL(webhookUrl);
    if (!PATH_SHAPE.test(url.pathname) || url.search || url.hash || url.username) throw commonErrors.invalid(problem).at('config.webhookUrl');
    return { webhookUrl };
  },

  destination: (channel) => destinationKey(channel.webhookUrl),

  endpoints: (channel) => urlEndpoints('webhookUrl', channel.webhookUrl),

  mask: (channel) => maskSecrets(channel, SECRETS),

  checkAddress() {
    throw commonErrors.invalid('Slack apps deliver to the channel their webhook URL was made for and need no recipients; push to the app key directly.').at('appId');
  },

  recipientLabel: (_channel, address) => address,
  keepsRecipients: () => null,

  render: (message) => ({ body: slackBody(message) }),

  connect: (env) => ({
    delivery: (channel, slack, message) => ({
      send: async (_recipient, timeoutMs) => slackSend(await env.outbound(channel.userId), slack, message, timeoutMs),
    }),

    // Slack's incoming webhooks have no read-only check: a test always posts the test message.
    async test(channel, slack, { timeoutMs, time }) {
      const { title, desp } = testMessage(channel, time);
      const outcome = await slackSend(
        await env.outbound(channel.userId),
        slack,
        { body: slackBody({ title, desp, priority: 'normal', group: '', appName: 'PennyPost' }) },
        timeoutMs,
      );
      return testResultOf(outcome, "Slack posted a test message in the webhook's channel.");
    },
  }),
};
