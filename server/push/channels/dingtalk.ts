import { createHmac } from 'node:crypto';
import { commonErrors } from '../../lib/errors';
import type { Outcome } from '../deliver';
import type { Priority } from '../message-options';
import { defineRobotChannel } from './robot-driver';
import { fitBytes, GROUP_RECIPIENT, groupedTitle, mentionsAll, parseRobotUrl, robotAnswer, robotPush, type RobotPush } from './robots';

/**
 * DingTalk custom robots (docs/push.md §3 "DingTalk robot"): the channel holds the robot's webhook
 * URL (its `access_token` is the credential) and, when the robot's security setting is 加签, the
 * signing secret (`SEC…`): every request then carries `timestamp` (ms) and
 * `sign = urlencode(base64(HmacSHA256(key = secret, msg = timestamp + "\n" + secret)))`.
 * Pushes go to the robot's group as `markdown` messages. A declaration over ./robot-driver.ts.
 */

export const DINGTALK_EXAMPLE_URL = 'https://oapi.dingtalk.com/robot/send?access_token=XXXXXX';
const DINGTALK_HOSTS = ['oapi.dingtalk.com'] as const;

/** PennyPost cuts a DingTalk Markdown text here (UTF-8 bytes; DingTalk refuses messages over 20,000). */
export const DINGTALK_TEXT_MAX_BYTES = 18_000;

export interface DingtalkConfig {
  webhookUrl: string;
  signingSecret: string;
}

/** The access token of a DingTalk webhook URL (…/robot/send?access_token=…), or null for another shape. */
function tokenOf(url: URL): string | null {
  if (!/\/robot\/send\/?$/.test(url.pathname)) return null;
  const token = url.searchParams.get('access_token') ?? '';
  return /^[A-Za-z0-9_-]{8,256}$/.test(token) ? token : null;
}

/** DingTalk's signature of a request made at `timestamp` (ms), before URL encoding. */
export function dingtalkSign(secret: string, timestamp: number): string {
  return createHmac('sha256', secret).update(`${timestamp}\n${secret}`, 'utf8').digest('base64');
}

/** The URL a request made at `now` (ms) goes to: the webhook URL, signed when the channel has a secret. */
export function dingtalkUrl(channel: DingtalkConfig, now: number): string {
  if (!channel.signingSecret) return channel.webhookUrl;
  const url = new URL(channel.webhookUrl);
  url.searchParams.set('timestamp', String(now));
  url.searchParams.set('sign', dingtalkSign(channel.signingSecret, now));
  return url.href;
}

export interface DingtalkMessage {
  msgtype: 'markdown';
  markdown: { title: string; text: string };
  at?: { isAtAll: boolean };
}

/** Title colours in DingTalk Markdown (it renders `<font color>`): grey for low, red for high and urgent. */
const TITLE_COLOUR: Record<Priority, string> = { low: '#8c8c8c', normal: '', high: '#d9363e', urgent: '#d9363e' };

/** The push as DingTalk's message: `title` is what the notification shows, `text` a heading, the desp and the page link. */
export function dingtalkMessage(message: RobotPush): DingtalkMessage {
  const title = groupedTitle(message.title, message.group);
  const colour = TITLE_COLOUR[message.priority];
  const head = `#### ${colour ? `<font color="${colour}">${title}</font>` : title}`;
  const textBody = fitBytes(message.desp ? `${head}\n\n` : head, message.desp, message.url ? `\n\n[Details](${message.url})` : '', DINGTALK_TEXT_MAX_BYTES);
  return {
    msgtype: 'markdown',
    markdown: { title: fitBytes(title, '', '', 256), text: textBody },
    ...(mentionsAll(message.priority) ? { at: { isAtAll: true } } : {}),
  };
}

/** What 310000 (a security setting refused the message) means, from DingTalk's errmsg. */
function securityHint(errmsg: string): string {
  if (/keyword/i.test(errmsg)) {
    return "the robot's security setting asks for custom keywords (自定义关键词) and the message has none of them: put one in the app name, the title or the text, or change the robot's security settings";
  }
  if (/\bip\b|whitelist/i.test(errmsg)) {
    return "the robot's security setting allows only some IP addresses (IP地址段): add this computer's public IP address in the robot's security settings";
  }
  if (/sign|timestamp/i.test(errmsg)) {
    return "the robot's security setting signs requests (加签) and the signature did not match: copy the SEC… secret again into the channel's signingSecret, and check this computer's clock (DingTalk allows one hour)";
  }
  return "the robot's security settings (custom keywords, signing secret 加签 or IP range) refused the message: check them in the robot's settings";
}

/** DingTalk's errcodes in the error classes (docs/push.md §3). */
export function dingtalkFailure(errcode: number, errmsg: string): Outcome {
  const said = errmsg ? ` (DingTalk: ${errmsg})` : '';
  switch (errcode) {
    case 310000:
      return { ok: false, cls: 'systemic', errcode, message: `DingTalk refused the message: ${securityHint(errmsg)}${said}.` };
    case 300001:
    case 300005:
    case 400101:
    case 400106:
      return { ok: false, cls: 'systemic', errcode, message: `DingTalk does not know this robot's access token: copy the webhook URL again from the robot's settings${said}.` };
    case 400013:
      return { ok: false, cls: 'systemic', errcode, message: `DingTalk says the robot's group was disbanded${said}.` };
    case 400102:
      return { ok: false, cls: 'systemic', errcode, message: `DingTalk says this robot is switched off: turn it on in the group's robot settings${said}.` };
    case 130101:
    case 410100:
      return { ok: false, cls: 'transient', errcode, retryable: false, message: `DingTalk limits a robot to 20 messages a minute; try again in a minute${said}.` };
    case -1:
      return { ok: false, cls: 'transient', errcode, message: `DingTalk was busy${said}.` };
    default:
      return { ok: false, cls: 'recipient', errcode, message: `DingTalk refused this message (errcode ${errcode})${said}.` };
  }
}

export const dingtalkChannel = defineRobotChannel<'dingtalk', DingtalkConfig, RobotPush, DingtalkMessage>({
  type: 'dingtalk',
  service: 'DingTalk',
  self: GROUP_RECIPIENT,
  noRecipients: "DingTalk robot apps deliver to the robot's group and need no recipients; push to the app key directly.",
  summary: ['webhookUrl'],
  webhookUrl: {
    description:
      "the robot's webhook URL (…/robot/send?access_token=…; any http(s) host with that path, e.g. a proxy). It holds the access token: returned masked as `•••• host …last 4 of the token`.",
    example: DINGTALK_EXAMPLE_URL,
    check(value) {
      const { url } = parseRobotUrl(value, { name: 'DingTalk robot', hosts: DINGTALK_HOSTS, example: DINGTALK_EXAMPLE_URL, credentialOf: tokenOf });
      if (url.searchParams.has('timestamp') || url.searchParams.has('sign')) {
        throw commonErrors.invalid('params.config.webhookUrl: leave out timestamp and sign; PennyPost signs each request with the signingSecret').at('config.webhookUrl');
      }
    },
    credentialOf: tokenOf,
  },
  signingSecret: {
    description:
      "the robot's signing secret (加签, starts with SEC) when its security setting uses one; every request is then signed. Returned masked; a new webhookUrl needs it entered again.",
    shape: /^SEC[A-Za-z0-9]{8,250}$/,
    refusal: "must be the robot's signing secret as DingTalk shows it under 加签 (SEC followed by letters and digits), or empty",
  },
  complete: ({ webhookUrl, signingSecret = '' }) => ({ webhookUrl, signingSecret }),
  render: robotPush,
  body: (_config, push) => dingtalkMessage(push),
  // Signed per attempt: a retry carries a fresh timestamp.
  request: (config, body, now) => ({ url: dingtalkUrl(config, now), body }),
  classify: (answer, config) =>
    robotAnswer(answer, {
      service: 'DingTalk',
      code: ['errcode'],
      text: ['errmsg'],
      noun: 'an errcode',
      secrets: [tokenOf(new URL(config.webhookUrl)) ?? '', config.signingSecret],
      failure: dingtalkFailure,
    }),
  tested: (config) => `DingTalk accepted the robot's webhook${config.signingSecret ? ' and signature' : ''} and posted a test message to its group.`,
});
