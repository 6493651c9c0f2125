import { Type } from '@sinclair/typebox';
import { OneOf } from '../../api/params';
import { commonErrors } from '../../lib/errors';
import type { Outcome } from '../deliver';
import type { Priority } from '../message-options';
import { defineRobotChannel } from './robot-driver';
import { fitBytes, GROUP_RECIPIENT, groupedTitle, mentionsAll, parseRobotUrl, robotAnswer, robotPush, type RobotPush } from './robots';

/**
 * WeCom (企业微信) group robots (docs/push.md §3 "WeCom group robot"): the channel holds the robot's
 * webhook URL, whose `key` is the credential; every push goes to the robot's group as a `markdown`
 * message (WeCom's subset, 4096 bytes) or a `text` message (2048 bytes, the only form that can
 * mention everyone). A declaration over ./robot-driver.ts.
 */

export const WECOM_EXAMPLE_URL = 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=693a91f6-7xxx-4bc4-97a0-0ec2sifa5aaa';
const WECOM_HOSTS = ['qyapi.weixin.qq.com'] as const;
export const WECOM_FORMATS = ['markdown', 'text'] as const;
export type WecomFormat = (typeof WECOM_FORMATS)[number];

/** WeCom's limits on the content of one message (UTF-8 bytes). */
export const WECOM_MARKDOWN_MAX_BYTES = 4096;
export const WECOM_TEXT_MAX_BYTES = 2048;

export interface WecomConfig {
  webhookUrl: string;
  wecomFormat: WecomFormat;
}

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

export const wecomChannel = defineRobotChannel<'wecom', WecomConfig, RobotPush, WecomMessage>({
  type: 'wecom',
  service: 'WeCom',
  self: GROUP_RECIPIENT,
  noRecipients: "WeCom robot apps deliver to the robot's group and need no recipients; push to the app key directly.",
  summary: ['webhookUrl', 'wecomFormat'],
  webhookUrl: {
    description:
      "the group robot's webhook URL (…/cgi-bin/webhook/send?key=…; any http(s) host with that path, e.g. a proxy). It holds the robot's key: returned masked as `•••• host …last 4 of the key`.",
    example: WECOM_EXAMPLE_URL,
    check: (value) => parseRobotUrl(value, { name: 'WeCom group robot', hosts: WECOM_HOSTS, example: WECOM_EXAMPLE_URL, credentialOf: keyOf }),
    credentialOf: keyOf,
  },
  fields: {
    wecomFormat: Type.Optional(
      OneOf(WECOM_FORMATS, {
        description: '"markdown" (default: WeCom\'s Markdown subset, 4096 bytes) or "text" (2048 bytes; shown everywhere, also in WeChat). Urgent pushes go as text with @all.',
      }),
    ),
  },
  complete({ webhookUrl }, input) {
    const format = input.wecomFormat === undefined || input.wecomFormat === '' ? 'markdown' : input.wecomFormat;
    if (!WECOM_FORMATS.includes(format as WecomFormat)) throw commonErrors.invalid('params.config.wecomFormat must be "markdown" or "text"').at('config.wecomFormat');
    return { webhookUrl, wecomFormat: format as WecomFormat };
  },
  render: robotPush,
  body: wecomMessage,
  classify: (answer, config) =>
    robotAnswer(answer, { service: 'WeCom', code: ['errcode'], text: ['errmsg'], noun: 'an errcode', secrets: [keyOf(new URL(config.webhookUrl)) ?? ''], failure: wecomFailure }),
  tested: () => "WeCom accepted the robot's webhook and posted a test message to its group.",
});
