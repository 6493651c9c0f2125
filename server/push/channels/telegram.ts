import { Type } from '@sinclair/typebox';
import { commonErrors } from '../../lib/errors';
import { configText, maskSecrets, testMessage, text, type ChannelDriver, type OutgoingMessage, testResultOf } from './driver';
import { cutText, fitChatText, renderChatText, telegramHtml } from './chat-text';
import { TELEGRAM_DEFAULT_API_BASE, TELEGRAM_TEXT_MAX, telegramGetMe, telegramSend, type TelegramConfig, type TelegramMessage } from './telegram-api';
import { checkBaseUrl, destinationKey, urlEndpoints } from './urls';

/**
 * Telegram bots (docs/push.md "Telegram"): the channel holds the bot token from @BotFather; each
 * recipient is a chat the bot may write to (a person's or group's numeric id, a channel's
 * -100… id or @username). A push is one sendMessage in Telegram's HTML subset.
 */

const config = Type.Object({
  botToken: Type.String({
    maxLength: 128,
    description:
      'bot token from @BotFather (123456789:AA…). Returned masked (last 4 characters); send the masked value back or leave it out to keep it (not with a new telegramApiBase: enter it again).',
  }),
  telegramApiBase: Type.Optional(
    Type.String({
      maxLength: 512,
      description: 'Bot API base URL, default https://api.telegram.org (a local Bot API server, proxies, tests).',
      examples: [TELEGRAM_DEFAULT_API_BASE],
    }),
  ),
});

const SECRETS = { botToken: 'bot token' };

const TOKEN_SHAPE = /^\d{3,20}:[A-Za-z0-9_-]{20,100}$/;
/** A person's or group's id, a channel's or supergroup's -100… id, or a public @username. */
const CHAT_SHAPE = /^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/;
/** A numeric group is a forum topic's message_thread_id. */
const TOPIC_SHAPE = /^\d{1,12}$/;

const TITLE_MAX = 256;

/** The message's HTML: bold title (a non-numeric group in brackets before it), the desp, and when it had to be cut, the page link. */
export function telegramText(message: Pick<OutgoingMessage, 'title' | 'desp' | 'group' | 'url'>): string {
  const prefix = message.group && !TOPIC_SHAPE.test(message.group) ? `[${message.group}] ` : '';
  const header = `<b>${telegramHtml.escape(cutText(prefix + message.title, TITLE_MAX))}</b>`;
  if (!message.desp.trim()) return header;
  const render = (markdown: string) => renderChatText(markdown, telegramHtml);
  const whole = render(message.desp);
  if (header.length + 2 + whole.length <= TELEGRAM_TEXT_MAX) return whole ? `${header}\n\n${whole}` : header;
  const link = message.url ? `\n\n${telegramHtml.link(message.url, 'Read the whole message')}` : '';
  const { text: body } = fitChatText(message.desp, TELEGRAM_TEXT_MAX - header.length - 2 - link.length, render);
  return `${header}\n\n${body}${link}`;
}

export const telegramChannel: ChannelDriver<TelegramConfig, TelegramMessage, 'telegram'> = {
  type: 'telegram',
  config,
  secrets: SECRETS,
  movedBy: ['telegramApiBase'],
  summary: ['telegramApiBase'],

  normalize(input) {
    const botToken = text(input, 'botToken').trim();
    const telegramApiBase = checkBaseUrl(configText(input.telegramApiBase || TELEGRAM_DEFAULT_API_BASE), 'telegramApiBase', TELEGRAM_DEFAULT_API_BASE);
    if (!TOKEN_SHAPE.test(botToken)) {
      throw commonErrors.invalid('params.config.botToken is required: the bot token @BotFather gave you (digits, a colon, then letters, digits, _ and -)').at('config.botToken');
    }
    return { botToken, telegramApiBase };
  },

  destination: (channel) => destinationKey(channel.telegramApiBase || TELEGRAM_DEFAULT_API_BASE),

  endpoints: (channel) => urlEndpoints('telegramApiBase', channel.telegramApiBase || TELEGRAM_DEFAULT_API_BASE),

  mask: (channel) => maskSecrets(channel, SECRETS),

  checkAddress(_channel, address) {
    if (!CHAT_SHAPE.test(address)) {
      throw commonErrors
        .invalid('params.address must be a Telegram chat id (a number such as 123456789, or -100… for a channel or supergroup) or a public @channelusername')
        .at('address');
    }
  },

  recipientLabel: (_channel, address) => address,

  /** Chat ids are Telegram's own and mean the same for any bot (whether the new bot may write there is its owner's call). */
  keepsRecipients: () => null,

  render: (message) => ({
    text: telegramText(message),
    silent: message.priority === 'low',
    ...(TOPIC_SHAPE.test(message.group) ? { threadId: Number(message.group) } : {}),
  }),

  connect: (env) => ({
    delivery: (channel, telegram, message) => ({
      send: async (recipient, timeoutMs) => telegramSend(await env.outbound(channel.userId), telegram, recipient.address, message, timeoutMs),
    }),

    async test(channel, telegram, { address, timeoutMs, time }) {
      const scope = await env.outbound(channel.userId);
      if (address === undefined) {
        const me = await telegramGetMe(scope, telegram, timeoutMs);
        if (!me.ok) return { ok: false, message: me.message, class: me.cls, errcode: me.errcode };
        return { ok: true, message: `Telegram accepted the bot token: this is the bot ${me.username ? '@' + me.username : '(no username)'}.` };
      }
      if (!CHAT_SHAPE.test(address)) return { ok: false, message: 'The address must be a Telegram chat id or a public @channelusername.', class: 'recipient' };
      const { title, desp } = testMessage(channel, time);
      const outcome = await telegramSend(scope, telegram, address, { text: telegramText({ title, desp, group: '' }), silent: false }, timeoutMs);
      return testResultOf(outcome, 'Telegram delivered a test message to this chat.');
    },
  }),
};
