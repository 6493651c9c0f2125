import type { OutboundScope } from '../../http/outbound-policy';
import type { Outcome } from '../deliver';
import { call, type CallAnswer } from '../http-client';
import { honouringRateLimit, jsonOf, retryAfterHeader, scrub, seconds, unreachable, type Attempt } from './chat-http';

/**
 * The Telegram Bot API side of the telegram channel (its driver is ./telegram.ts):
 * `POST {base}/bot<token>/sendMessage` and `GET {base}/bot<token>/getMe`. The bot token is part of
 * the URL path, so nothing here ever puts a URL into a message, and answers are scrubbed of it.
 * Of an answer only Telegram's own `description` is ever quoted (cut short); anything else a server
 * at that address says stays unread.
 */

export const TELEGRAM_DEFAULT_API_BASE = 'https://api.telegram.org';

/** Telegram's limit for a message's text (after its HTML is parsed; the HTML we count is never shorter). */
export const TELEGRAM_TEXT_MAX = 4096;

export interface TelegramConfig {
  botToken: string;
  telegramApiBase: string;
}

export interface TelegramMessage {
  /** In `parse_mode: HTML`. */
  text: string;
  /** Low-priority pushes arrive silently. */
  silent: boolean;
  /** The forum topic a numeric group names. */
  threadId?: number;
}

const endpoint = (config: TelegramConfig, method: string) => `${(config.telegramApiBase || TELEGRAM_DEFAULT_API_BASE).replace(/\/+$/, '')}/bot${config.botToken}/${method}`;

interface TelegramAnswer {
  ok?: boolean;
  result?: { message_id?: number; username?: string };
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

/** Classifies a sendMessage (or getMe) answer. */
export function telegramOutcome(config: TelegramConfig, answer: CallAnswer): Attempt {
  const json = jsonOf(answer) as TelegramAnswer | null;
  if (answer.status === 200 && json?.ok === true) {
    const id = json.result?.message_id;
    return { outcome: { ok: true, ...(id !== undefined ? { msgId: String(id) } : {}) } };
  }
  const status = json?.error_code ?? answer.status;
  const said = typeof json?.description === 'string' ? scrub(json.description, [config.botToken, config.botToken.split(':')[1] ?? '']) : '';
  const quoted = said ? ` (Telegram said: ${said})` : '';
  if (status === 401) {
    return { outcome: { ok: false, cls: 'systemic', errcode: 401, message: "Telegram refused the bot token (401 Unauthorized): check the channel's botToken from @BotFather." } };
  }
  if (status === 404) {
    return {
      outcome: { ok: false, cls: 'systemic', errcode: 404, message: `Telegram does not know this bot token (404): check the channel's botToken and telegramApiBase${quoted}.` },
    };
  }
  if (status === 429) {
    const wait = json?.parameters?.retry_after ?? retryAfterHeader(answer) ?? 1;
    return {
      outcome: { ok: false, cls: 'transient', errcode: 429, message: `Telegram asks to slow down: retry after ${seconds(wait * 1000)}${quoted}.` },
      waitMs: Math.ceil(wait * 1000),
    };
  }
  if (status >= 500 || (answer.status === 200 && json?.ok !== false)) {
    return { outcome: { ok: false, cls: 'transient', errcode: answer.status, message: `Telegram failed (HTTP ${answer.status})${quoted}.` } };
  }
  if (status >= 300 && status < 400) {
    return { outcome: { ok: false, cls: 'systemic', errcode: status, message: `The Bot API address redirects (HTTP ${status}); check the channel's telegramApiBase.` } };
  }
  if (status === 403) {
    return {
      outcome: {
        ok: false,
        cls: 'recipient',
        errcode: 403,
        message: `The bot may not write to this chat: the person blocked it, or the bot is not a member of the group or channel${quoted}.`,
      },
    };
  }
  const migrated = json?.parameters?.migrate_to_chat_id;
  if (migrated !== undefined) {
    return {
      outcome: { ok: false, cls: 'recipient', errcode: status, message: `This group became a supergroup: its chat id is now ${migrated}; add that as the recipient instead.` },
    };
  }
  if (/chat not found/i.test(said)) {
    return {
      outcome: {
        ok: false,
        cls: 'recipient',
        errcode: status,
        message: `Telegram does not know this chat for the bot: check the chat id, and that the person started the bot or the bot was added to the group or channel${quoted}.`,
      },
    };
  }
  return { outcome: { ok: false, cls: 'recipient', errcode: status, message: `Telegram refused the message (${status})${quoted}.` } };
}

/** Sends one message to one chat (waiting out a short rate limit within the call's time). */
export function telegramSend(scope: OutboundScope, config: TelegramConfig, chatId: string, message: TelegramMessage, timeoutMs: number): Promise<Outcome> {
  const body = JSON.stringify({
    chat_id: chatId,
    text: message.text,
    parse_mode: 'HTML',
    link_preview_options: { is_disabled: true },
    ...(message.silent ? { disable_notification: true } : {}),
    ...(message.threadId !== undefined ? { message_thread_id: message.threadId } : {}),
  });
  return honouringRateLimit(timeoutMs, async (left) => {
    try {
      const answer = await call(scope, endpoint(config, 'sendMessage'), { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8' }, body, timeoutMs: left });
      return telegramOutcome(config, answer);
    } catch (error) {
      return { outcome: unreachable('Telegram', error) };
    }
  });
}

/** getMe: whether Telegram takes the token, and the bot's username. */
export async function telegramGetMe(scope: OutboundScope, config: TelegramConfig, timeoutMs: number): Promise<Outcome & { username?: string }> {
  try {
    const answer = await call(scope, endpoint(config, 'getMe'), { method: 'GET', timeoutMs });
    const { outcome } = telegramOutcome(config, answer);
    if (!outcome.ok) return outcome;
    const username = (jsonOf(answer) as TelegramAnswer | null)?.result?.username;
    return { ok: true, ...(typeof username === 'string' ? { username } : {}) };
  } catch (error) {
    return unreachable('Telegram', error);
  }
}
