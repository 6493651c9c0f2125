import { commonErrors } from '../../lib/errors';
import type { CallAnswer } from '../http-client';
import { retryAfterHeader, scrub, seconds, type Attempt } from './chat-http';
import { cutText, fitChatText, renderChatText, slackMrkdwn } from './chat-text';
import type { OutgoingMessage } from './driver';
import { defineRobotChannel } from './robot-driver';
import { isHttpUrl } from './urls';

/**
 * Slack incoming webhooks (docs/push.md "Slack"): the channel holds the webhook URL of a Slack app
 * (a secret: it is the credential) and delivers to the Slack channel it was made for, so its apps
 * keep no recipients. A push is a header block (the title), a section in mrkdwn (the desp, from
 * Markdown) and a context line (group and app); `text` is the notification's fallback. A
 * declaration over ./robot-driver.ts.
 */

export interface SlackConfig {
  webhookUrl: string;
}

export interface SlackMessage {
  body: Record<string, unknown>;
}

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

export const slackChannel = defineRobotChannel<'slack', SlackConfig, SlackMessage, Record<string, unknown>>({
  type: 'slack',
  service: 'Slack',
  self: { label: 'slack', name: "The webhook's channel", address: 'slack' },
  noRecipients: 'Slack apps deliver to the channel their webhook URL was made for and need no recipients; push to the app key directly.',
  summary: [],
  webhookUrl: {
    description:
      'Slack incoming webhook URL (https://hooks.slack.com/services/T…/B…/…; any http(s) host with that path, e.g. a proxy). Returned masked: send the masked value back or leave it out to keep it.',
    example: 'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXX…',
    check(webhookUrl) {
      const problem = 'params.config.webhookUrl is required: the incoming webhook URL of your Slack app (https://hooks.slack.com/services/T…/B…/…)';
      if (!isHttpUrl(webhookUrl)) throw commonErrors.invalid(problem).at('config.webhookUrl');
      const url = new URL(webhookUrl);
      if (!PATH_SHAPE.test(url.pathname) || url.search || url.hash || url.username) throw commonErrors.invalid(problem).at('config.webhookUrl');
    },
  },
  render: (message) => ({ body: slackBody(message) }),
  body: (_config, message) => message.body,
  headers: { accept: '*/*' },
  classify: (answer, config) => slackOutcome(config.webhookUrl, answer),
  // Slack's incoming webhooks have no read-only check: a test always posts the test message.
  tested: () => "Slack posted a test message in the webhook's channel.",
});
