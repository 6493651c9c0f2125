import type { OutboundScope } from '../../http/outbound-policy';
import { createHmac } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { commonErrors } from '../../lib/errors';
import type { Outcome } from '../deliver';
import type { Priority } from '../message-options';
import { maskSecrets, testMessage, text, type ChannelDriver, testResultOf } from './driver';
import { signingSecretField, webhookUrlField } from './fields';
import { codeOf, fitBytes, GROUP_RECIPIENT, groupedTitle, maskRobotUrl, mentionsAll, parseRobotUrl, postRobot, redact, robotPush, type RobotPush } from './robots';
import { destinationKey, urlEndpoints } from './urls';

/**
 * DingTalk custom robots (docs/push.md §3 "DingTalk robot"): the channel holds the robot's webhook
 * URL (its `access_token` is the credential) and, when the robot's security setting is 加签, the
 * signing secret (`SEC…`): every request then carries `timestamp` (ms) and
 * `sign = urlencode(base64(HmacSHA256(key = secret, msg = timestamp + "\n" + secret)))`.
 * Pushes go to the robot's group as `markdown` messages.
 */

export const DINGTALK_EXAMPLE_URL = 'https://oapi.dingtalk.com/robot/send?access_token=XXXXXX';
const DINGTALK_HOSTS = ['oapi.dingtalk.com'] as const;

/** PennyPost cuts a DingTalk Markdown text here (UTF-8 bytes; DingTalk refuses messages over 20,000). */
export const DINGTALK_TEXT_MAX_BYTES = 18_000;

const config = Type.Object({
  webhookUrl: webhookUrlField(
    "the robot's webhook URL (…/robot/send?access_token=…; any http(s) host with that path, e.g. a proxy). It holds the access token: returned masked as `•••• host …last 4 of the token`.",
    DINGTALK_EXAMPLE_URL,
  ),
  signingSecret: signingSecretField(
    "the robot's signing secret (加签, starts with SEC) when its security setting uses one; every request is then signed. Returned masked; a new webhookUrl needs it entered again.",
  ),
});

export interface DingtalkConfig {
  webhookUrl: string;
  signingSecret: string;
}

const SECRETS = { webhookUrl: 'webhook URL', signingSecret: 'signing secret' };

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

export async function dingtalkSend(scope: OutboundScope, channel: DingtalkConfig, body: DingtalkMessage, now: number, timeoutMs: number): Promise<Outcome> {
  const answer = await postRobot(scope, 'DingTalk', dingtalkUrl(channel, now), body, timeoutMs);
  if (answer.kind === 'failed') return answer.outcome;
  const errcode = codeOf(answer.body.errcode);
  if (errcode === 0) return { ok: true };
  if (errcode === undefined)
    return { ok: false, cls: 'transient', errcode: answer.status, message: `DingTalk answered without an errcode (HTTP ${answer.status}); is the webhook URL right?` };
  const errmsg = redact(typeof answer.body.errmsg === 'string' ? answer.body.errmsg : '', [tokenOf(new URL(channel.webhookUrl)) ?? '', channel.signingSecret]);
  return dingtalkFailure(errcode, errmsg);
}

export const dingtalkChannel: ChannelDriver<DingtalkConfig, RobotPush, 'dingtalk'> = {
  type: 'dingtalk',
  config,
  secrets: SECRETS,
  movedBy: ['webhookUrl'],
  summary: ['webhookUrl'],
  self: GROUP_RECIPIENT,

  normalize(input) {
    const webhookUrl = text(input, 'webhookUrl').trim();
    const { url } = parseRobotUrl(webhookUrl, { name: 'DingTalk robot', hosts: DINGTALK_HOSTS, example: DINGTALK_EXAMPLE_URL, credentialOf: tokenOf });
    if (url.searchParams.has('timestamp') || url.searchParams.has('sign')) {
      throw commonErrors.invalid('params.config.webhookUrl: leave out timestamp and sign; PennyPost signs each request with the signingSecret').at('config.webhookUrl');
    }
    const signingSecret = text(input, 'signingSecret').trim();
    if (signingSecret && !/^SEC[A-Za-z0-9]{8,250}$/.test(signingSecret)) {
      throw commonErrors
        .invalid("params.config.signingSecret must be the robot's signing secret as DingTalk shows it under 加签 (SEC followed by letters and digits), or empty")
        .at('config.signingSecret');
    }
    return { webhookUrl, signingSecret };
  },

  destination: (channel) => destinationKey(channel.webhookUrl),

  endpoints: (channel) => urlEndpoints('webhookUrl', channel.webhookUrl),

  mask: (channel) => ({ ...maskSecrets(channel, SECRETS), webhookUrl: maskRobotUrl(channel.webhookUrl, tokenOf) }),

  checkAddress() {
    throw commonErrors.invalid("DingTalk robot apps deliver to the robot's group and need no recipients; push to the app key directly.").at('appId');
  },
  recipientLabel: (_channel, address) => address,
  keepsRecipients: () => null,

  render: robotPush,

  connect: ({ clock, outbound }) => ({
    delivery: (channel, dingtalk, message) => {
      const body = dingtalkMessage(message);
      // Signed per attempt: a retry carries a fresh timestamp.
      return { send: async (_recipient, timeoutMs) => dingtalkSend(await outbound(channel.userId), dingtalk, body, clock.now(), timeoutMs) };
    },

    async test(channel, dingtalk, { timeoutMs, time }) {
      const outcome = await dingtalkSend(
        await outbound(channel.userId),
        dingtalk,
        dingtalkMessage({ ...testMessage(channel, time), priority: 'normal', group: '' }),
        clock.now(),
        timeoutMs,
      );
      return testResultOf(outcome, `DingTalk accepted the robot's webhook${dingtalk.signingSecret ? ' and signature' : ''} and posted a test message to its group.`);
    },
  }),
};
