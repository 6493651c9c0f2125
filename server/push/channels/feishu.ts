import { createHmac } from 'node:crypto';
import type { Outcome } from '../deliver';
import type { Priority } from '../message-options';
import { defineRobotChannel } from './robot-driver';
import { fitBytes, GROUP_RECIPIENT, groupedTitle, mentionsAll, parseRobotUrl, robotAnswer, robotPush, type RobotPush } from './robots';

/**
 * Feishu / Lark custom bots (docs/push.md §3 "Feishu / Lark bot"): the channel holds the bot's
 * webhook URL (…/open-apis/bot/v2/hook/{id}; the id is the credential, the host says Feishu or
 * Lark) and, when the bot's security setting is "signature verification", its secret: the body
 * then carries `timestamp` (seconds, a string) and `sign = base64(HmacSHA256(key = timestamp + "\n"
 * + secret, msg = ""))`. Pushes go to the bot's group as `interactive` cards: the title in a
 * coloured header, the desp as the card's Markdown, a button to the message page. A declaration
 * over ./robot-driver.ts.
 */

export const FEISHU_EXAMPLE_URL = 'https://open.feishu.cn/open-apis/bot/v2/hook/xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx';
const FEISHU_HOSTS = ['open.feishu.cn', 'open.larksuite.com'] as const;

/** PennyPost cuts a card's Markdown here (UTF-8 bytes): Feishu refuses request bodies over 20 KB. */
export const FEISHU_MARKDOWN_MAX_BYTES = 16_000;

export interface FeishuConfig {
  webhookUrl: string;
  signingSecret: string;
}

/** The hook id of a Feishu/Lark webhook URL (…/open-apis/bot/v2/hook/{id}), or null for another shape. */
function hookIdOf(url: URL): string | null {
  const match = /\/open-apis\/bot\/v2\/hook\/([A-Za-z0-9_-]{8,128})\/?$/.exec(url.pathname);
  return match?.[1] ?? null;
}

/** What the service calls itself in messages: the URL decides. */
export function feishuName(webhookUrl: string): string {
  try {
    return new URL(webhookUrl).hostname.endsWith('larksuite.com') ? 'Lark' : 'Feishu';
  } catch {
    return 'Feishu';
  }
}

/** Feishu's signature of a request made at `timestamp` (seconds): the HMAC key is timestamp + "\n" + secret, the message empty. */
export function feishuSign(secret: string, timestamp: number): string {
  return createHmac('sha256', `${timestamp}\n${secret}`).update('').digest('base64');
}

/** Card header colours (Feishu's templates) per priority. */
const HEADER_TEMPLATE: Record<Priority, string> = { low: 'grey', normal: 'blue', high: 'orange', urgent: 'red' };

export interface FeishuCard {
  msg_type: 'interactive';
  card: {
    config: { wide_screen_mode: boolean };
    header: { title: { tag: 'plain_text'; content: string }; template: string };
    elements: Array<
      { tag: 'markdown'; content: string } | { tag: 'action'; actions: Array<{ tag: 'button'; text: { tag: 'plain_text'; content: string }; type: string; url: string }> }
    >;
  };
}

/** The push as a Feishu card: header = title (coloured by priority), Markdown = desp (@all first when urgent), a Details button. */
export function feishuCard(message: RobotPush): FeishuCard {
  const mention = mentionsAll(message.priority) ? '<at id=all></at> ' : '';
  const content = fitBytes(mention, message.desp || message.title, '', FEISHU_MARKDOWN_MAX_BYTES);
  return {
    msg_type: 'interactive',
    card: {
      config: { wide_screen_mode: true },
      header: { title: { tag: 'plain_text', content: fitBytes(groupedTitle(message.title, message.group), '', '', 512) }, template: HEADER_TEMPLATE[message.priority] },
      elements: [
        { tag: 'markdown', content },
        ...(message.url
          ? [{ tag: 'action' as const, actions: [{ tag: 'button' as const, text: { tag: 'plain_text' as const, content: 'Details' }, type: 'default', url: message.url }] }]
          : []),
      ],
    },
  };
}

/** The body of a request made at `now` (ms): the card, with timestamp and sign when the channel has a secret. */
export function feishuBody(channel: FeishuConfig, card: FeishuCard, now: number): Record<string, unknown> {
  if (!channel.signingSecret) return { ...card };
  const timestamp = Math.floor(now / 1000);
  return { timestamp: String(timestamp), sign: feishuSign(channel.signingSecret, timestamp), ...card };
}

/** Feishu's codes in the error classes (docs/push.md §3). */
export function feishuFailure(service: string, code: number, msg: string): Outcome {
  const said = msg ? ` (${service}: ${msg})` : '';
  switch (code) {
    case 19021:
      return {
        ok: false,
        cls: 'systemic',
        errcode: code,
        message: `${service} refused the signature: the bot's security setting verifies signatures (签名校验); copy its secret again into the channel's signingSecret, and check this computer's clock (${service} allows one hour)${said}.`,
      };
    case 19022:
      return {
        ok: false,
        cls: 'systemic',
        errcode: code,
        message: `${service} refused this computer's IP address: add it to the bot's IP whitelist in its security settings${said}.`,
      };
    case 19024:
      return {
        ok: false,
        cls: 'systemic',
        errcode: code,
        message: `The bot's security setting asks for custom keywords and the message has none of them: put one in the title or text, or change the bot's security settings${said}.`,
      };
    case 19001:
      return {
        ok: false,
        cls: 'systemic',
        errcode: code,
        message: `${service} does not know this webhook: the bot was removed or the webhook URL is wrong; copy it again from the bot's settings${said}.`,
      };
    case 9499:
    case 11232:
      return { ok: false, cls: 'transient', errcode: code, message: `${service} asks to send more slowly (a bot may post 100 messages a minute, 5 a second)${said}.` };
    default:
      return { ok: false, cls: 'recipient', errcode: code, message: `${service} refused this message (code ${code})${said}.` };
  }
}

export const feishuChannel = defineRobotChannel<'feishu', FeishuConfig, RobotPush, FeishuCard>({
  type: 'feishu',
  service: (config) => feishuName(config.webhookUrl),
  self: GROUP_RECIPIENT,
  noRecipients: "Feishu/Lark bot apps deliver to the bot's group and need no recipients; push to the app key directly.",
  summary: ['webhookUrl'],
  webhookUrl: {
    description:
      "the bot's webhook URL (…/open-apis/bot/v2/hook/…; open.feishu.cn for Feishu, open.larksuite.com for Lark, or any http(s) host with that path). It holds the hook id: returned masked as `•••• host …last 4 of the id`.",
    example: FEISHU_EXAMPLE_URL,
    check: (value) => parseRobotUrl(value, { name: 'Feishu/Lark bot', hosts: FEISHU_HOSTS, example: FEISHU_EXAMPLE_URL, credentialOf: hookIdOf }),
    credentialOf: hookIdOf,
  },
  signingSecret: {
    description:
      "the bot's secret when its security setting is signature verification (签名校验); every request is then signed. Returned masked; a new webhookUrl needs it entered again.",
    shape: /^[A-Za-z0-9_-]{8,256}$/,
    refusal: "must be the bot's secret as Feishu/Lark shows it under signature verification (letters and digits), or empty",
  },
  complete: ({ webhookUrl, signingSecret = '' }) => ({ webhookUrl, signingSecret }),
  render: robotPush,
  body: (_config, push) => feishuCard(push),
  // Signed per attempt: a retry carries a fresh timestamp.
  request: (config, card, now) => ({ url: config.webhookUrl, body: feishuBody(config, card, now) }),
  // The v2 hook answers {code, msg, data}; older answers carry {StatusCode, StatusMessage}.
  classify: (answer, config) => {
    const service = feishuName(config.webhookUrl);
    return robotAnswer(answer, {
      service,
      code: ['code', 'StatusCode'],
      text: ['msg', 'StatusMessage'],
      noun: 'a code',
      secrets: [hookIdOf(new URL(config.webhookUrl)) ?? '', config.signingSecret],
      failure: (code, said) => feishuFailure(service, code, said),
    });
  },
  tested: (config) => `${feishuName(config.webhookUrl)} accepted the bot's webhook${config.signingSecret ? ' and signature' : ''} and posted a test card to its group.`,
});
