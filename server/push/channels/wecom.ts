import type { OutboundScope } from '../../http/outbound-policy';
import { Type } from '@sinclair/typebox';
import { OneOf } from '../../api/params';
import { commonErrors } from '../../lib/errors';
import type { Outcome } from '../deliver';
import type { Priority } from '../message-options';
import { maskSecrets, testMessage, text, type ChannelDriver, testResultOf } from './driver';
import { webhookUrlField } from './fields';
import { codeOf, fitBytes, GROUP_RECIPIENT, groupedTitle, maskRobotUrl, mentionsAll, parseRobotUrl, postRobot, redact, robotPush, type RobotPush } from './robots';
import { destinationKey, urlEndpoints } from './urls';

/**
 * WeCom (企业微信) group robots (docs/push.md §3 "WeCom group robot"): the channel holds the robot's
 * webhook URL, whose `key` is the credential; every push goes to the robot's group as a `markdown`
 * message (WeCom's subset, 4096 bytes) or a `text` message (2048 bytes, the only form that can
 * mention everyone).
 */

export const WECOM_EXAMPLE_URL = 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=693a91f6-7xxx-4bc4-97a0-0ec2sifa5aaa';
const WECOM_HOSTS = ['qyapi.weixin.qq.com'] as const;
export const WECOM_FORMATS = ['markdown', 'text'] as const;
export type WecomFormat = (typeof WECOM_FORMATS)[number];

/** WeCom's limits on the content of one message (UTF-8 bytes). */
export const WECOM_MARKDOWN_MAX_BYTES = 4096;
export const WECOM_TEXT_MAX_BYTES = 2048;

const config = Type.Object({
  webhookUrl: webhookUrlField(
    "the group robot's webhook URL (…/cgi-bin/webhook/send?key=…; any http(s) host with that path, e.g. a proxy). It holds the robot's key: returned masked as `•••• host …last 4 of the key`.",
    WECOM_EXAMPLE_URL,
  ),
  wecomFormat: Type.Optional(
    OneOf(WECOM_FORMATS, {
      description: '"markdown" (default: WeCom\'s Markdown subset, 4096 bytes) or "text" (2048 bytes; shown everywhere, also in WeChat). Urgent pushes go as text with @all.',
    }),
  ),
});

export interface WecomConfig {
  webhookUrl: string;
  wecomFormat: WecomFormat;
}

const SECRETS = { webhookUrl: 'webhook URL' };

/** The robot key of a WeCom webhook URL (…/cgi-bin/webhook/send?key=…), or null for another shape. */
function keyOf(url: URL): string | null {
  if (!/\/cgi-bin\/webhook\/send\/?$/.test(url.pathname)) return null;
  const key = url.searchParams.get('key') ?? '';
  return /^[A-Za-z0-9_-]{8,128}$/.test(key) ? key : null;
}

export type WecomMessage = { msgtype: 'markdown'; markdown: { content: string } } | { msgtype: 'text'; text: { content: string; mentioned_list?: string[] } };

/** The title line of a Markdown message: WeCom's font colours say how urgent (comment = grey, warning = orange-red). */
const TITLE_COLOUR: Record<Priority, string> = { low: 'comment', normal: '', high: 'warning', urgent: 'warning' };

/** The push as WeCom's message body: Markdown or text per the channel, text with @all when urgent. */
export function wecomMessage(channel: Pick<WecomConfig, 'wecomFormat'>, message: RobotPush): WecomMessage {
  const title = groupedTitle(message.title, message.group);
  if (channel.wecomFormat === 'text' || mentionsAll(message.priority)) {
    const content = fitBytes(message.desp ? `${title}\n\n` : title, message.desp, message.url ? `\n\n${message.url}` : '', WECOM_TEXT_MAX_BYTES);
    return { msgtype: 'text', text: { content, ...(mentionsAll(message.priority) ? { mentioned_list: ['@all'] } : {}) } };
  }
  const colour = TITLE_COLOUR[message.priority];
  const head = colour ? `<font color="${colour}">**${title}**</font>` : `**${title}**`;
  const content = fitBytes(message.desp ? `${head}\n\n` : head, message.desp, message.url ? `\n\n[Details](${message.url})` : '', WECOM_MARKDOWN_MAX_BYTES);
  return { msgtype: 'markdown', markdown: { content } };
}

/** WeCom's errcodes in the error classes (docs/push.md §3). */
export function wecomFailure(errcode: number, errmsg: string): Outcome {
  const said = errmsg ? ` (WeCom: ${errmsg})` : '';
  switch (errcode) {
    case 93000:
      return {
        ok: false,
        cls: 'systemic',
        errcode,
        message: `WeCom does not know this robot key: the robot was removed or the webhook URL is wrong; copy it again from the group's robot settings${said}.`,
      };
    case 45009:
      return { ok: false, cls: 'transient', errcode, retryable: false, message: `WeCom limits a robot to 20 messages a minute; try again in a minute${said}.` };
    case -1:
      return { ok: false, cls: 'transient', errcode, message: `WeCom was busy${said}.` };
    case 40058:
    case 44004:
      return { ok: false, cls: 'recipient', errcode, message: `WeCom refused the message's content (empty, too long or malformed, errcode ${errcode})${said}.` };
    default:
      return { ok: false, cls: 'recipient', errcode, message: `WeCom refused this message (errcode ${errcode})${said}.` };
  }
}

export async function wecomSend(scope: OutboundScope, channel: WecomConfig, body: WecomMessage, timeoutMs: number): Promise<Outcome> {
  const answer = await postRobot(scope, 'WeCom', channel.webhookUrl, body, timeoutMs);
  if (answer.kind === 'failed') return answer.outcome;
  const errcode = codeOf(answer.body.errcode);
  if (errcode === 0) return { ok: true };
  const errmsg = redact(typeof answer.body.errmsg === 'string' ? answer.body.errmsg : '', [keyOf(new URL(channel.webhookUrl)) ?? '']);
  if (errcode === undefined)
    return { ok: false, cls: 'transient', errcode: answer.status, message: `WeCom answered without an errcode (HTTP ${answer.status}); is the webhook URL right?` };
  return wecomFailure(errcode, errmsg);
}

export const wecomChannel: ChannelDriver<WecomConfig, RobotPush, 'wecom'> = {
  type: 'wecom',
  config,
  secrets: SECRETS,
  movedBy: ['webhookUrl'],
  summary: ['webhookUrl', 'wecomFormat'],
  self: GROUP_RECIPIENT,

  normalize(input) {
    const webhookUrl = text(input, 'webhookUrl').trim();
    parseRobotUrl(webhookUrl, { name: 'WeCom group robot', hosts: WECOM_HOSTS, example: WECOM_EXAMPLE_URL, credentialOf: keyOf });
    const format = input.wecomFormat === undefined || input.wecomFormat === '' ? 'markdown' : input.wecomFormat;
    if (!WECOM_FORMATS.includes(format as WecomFormat)) throw commonErrors.invalid('params.config.wecomFormat must be "markdown" or "text"').at('config.wecomFormat');
    return { webhookUrl, wecomFormat: format as WecomFormat };
  },

  destination: (channel) => destinationKey(channel.webhookUrl),

  endpoints: (channel) => urlEndpoints('webhookUrl', channel.webhookUrl),

  mask: (channel) => ({ ...maskSecrets(channel, SECRETS), webhookUrl: maskRobotUrl(channel.webhookUrl, keyOf) }),

  checkAddress() {
    throw commonErrors.invalid("WeCom robot apps deliver to the robot's group and need no recipients; push to the app key directly.").at('appId');
  },
  recipientLabel: (_channel, address) => address,
  keepsRecipients: () => null,

  render: robotPush,

  connect: (env) => ({
    delivery: (channel, wecom, message) => {
      const body = wecomMessage(wecom, message);
      return { send: async (_recipient, timeoutMs) => wecomSend(await env.outbound(channel.userId), wecom, body, timeoutMs) };
    },

    async test(channel, wecom, { timeoutMs, time }) {
      const outcome = await wecomSend(await env.outbound(channel.userId), wecom, wecomMessage(wecom, { ...testMessage(channel, time), priority: 'normal', group: '' }), timeoutMs);
      return testResultOf(outcome, "WeCom accepted the robot's webhook and posted a test message to its group.");
    },
  }),
};
