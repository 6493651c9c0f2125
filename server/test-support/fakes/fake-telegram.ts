import type { ServerResponse } from 'node:http';
import { listenFake, sendJson, type FakeServer } from './listen';

/**
 * The Telegram Bot API as its documentation describes it, for the telegram channel's tests:
 *
 * - `POST /bot<token>/sendMessage` `{chat_id, text, parse_mode?, disable_notification?, message_thread_id?, link_preview_options?}`
 * - `GET  /bot<token>/getMe`
 *
 * It checks what Telegram checks: a token of the right shape (else 404 Not Found), one it knows
 * (else 401 Unauthorized), a JSON body, a non-empty text of at most 4096 characters after its
 * HTML is parsed, and in `parse_mode: HTML` only Telegram's tags, properly nested, with `&`, `<`
 * and `>` escaped as entities ("can't parse entities" otherwise). Chats: known ids answer, others
 * are "chat not found"; a chat can be blocked (403), a forum (its topics are thread ids) or
 * migrated to a supergroup. Answers are programmable per chat (429 with retry_after, 500).
 */

export type TelegramStep = { status: 429; retryAfter: number } | { status: 500 } | 'ok';

export interface TelegramChat {
  /** 403 "bot was blocked by the user" / "bot is not a member of the channel chat". */
  blocked?: 'user' | 'channel';
  /** Forum topics (message_thread_id values). */
  topics?: number[];
  /** The supergroup this group became (400 with migrate_to_chat_id). */
  migratedTo?: number;
}

export interface TelegramSent {
  chatId: string;
  /** As sent (HTML). */
  text: string;
  /** The text a person sees (tags parsed, entities decoded). */
  plain: string;
  parseMode?: string;
  disableNotification?: boolean;
  threadId?: number;
}

const TAGS = new Set(['b', 'strong', 'i', 'em', 'u', 'ins', 's', 'strike', 'del', 'span', 'tg-spoiler', 'a', 'code', 'pre', 'blockquote', 'tg-emoji']);
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

/** Telegram's HTML parser, as strict as the real one: the visible text, or the error it answers. */
export function parseTelegramHtml(html: string): { plain: string } | { error: string } {
  const open: string[] = [];
  let plain = '';
  let i = 0;
  while (i < html.length) {
    const ch = html.charAt(i);
    if (ch === '<') {
      const end = html.indexOf('>', i);
      if (end < 0) return { error: `Bad Request: can't parse entities: Unclosed start tag at byte offset ${i}` };
      const tag = html.slice(i + 1, end);
      const closing = tag.startsWith('/');
      const name = ((closing ? tag.slice(1) : tag).split(/\s/)[0] ?? '').toLowerCase();
      if (!TAGS.has(name)) return { error: `Bad Request: can't parse entities: Unsupported start tag "${name}" at byte offset ${i}` };
      if (closing) {
        if (open.pop() !== name)
          return { error: `Bad Request: can't parse entities: Unmatched end tag at byte offset ${i}, expected "</${open.at(-1) ?? ''}>", found "</${name}>"` };
      } else {
        if (name === 'a' && !/^a href="[^"<>]*"$/.test(tag)) return { error: `Bad Request: can't parse entities: Wrong attribute of tag "a" at byte offset ${i}` };
        open.push(name);
      }
      i = end + 1;
    } else if (ch === '&') {
      const match = /^&(lt|gt|amp|quot|#\d{1,7});/.exec(html.slice(i));
      if (match) {
        const entity = match.at(1)!;
        plain += entity.startsWith('#') ? String.fromCodePoint(Number(entity.slice(1))) : (ENTITIES[entity] ?? '');
        i += match[0].length;
      } else {
        plain += '&';
        i++;
      }
    } else if (ch === '>') {
      return { error: `Bad Request: can't parse entities: Unexpected end tag at byte offset ${i}` };
    } else {
      plain += ch;
      i++;
    }
  }
  if (open.length) return { error: `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "${open.at(-1) ?? ''}"` };
  return { plain };
}

const error = (res: ServerResponse, status: number, description: string, parameters?: Record<string, number>) =>
  sendJson(res, { ok: false, error_code: status, description, ...(parameters ? { parameters } : {}) }, status);

export class FakeTelegram {
  server!: FakeServer;
  readonly chats = new Map<string, TelegramChat>();
  readonly sent: TelegramSent[] = [];
  /** Every request's path (the token is in it: tests check where it went). */
  readonly paths: string[] = [];
  private readonly steps = new Map<string, TelegramStep[]>();
  private messageId = 100;

  constructor(
    readonly token = '123456789:AAfakeTelegramBotTokenForTests_0123',
    readonly username = 'pennypost_test_bot',
  ) {}

  get url(): string {
    return this.server.url;
  }

  /** Answers for the next messages to one chat, before normal behaviour. */
  program(chatId: string, ...steps: TelegramStep[]): void {
    this.steps.set(chatId, [...(this.steps.get(chatId) ?? []), ...steps]);
  }

  async start(): Promise<this> {
    this.server = await listenFake((req, res, body) => {
      const url = new URL(req.url ?? '/', 'http://x');
      this.paths.push(url.pathname);
      const match = /^\/bot([^/]*)\/([A-Za-z]+)$/.exec(url.pathname);
      if (!match || !/^\d+:[A-Za-z0-9_-]+$/.test(match.at(1)!)) {
        error(res, 404, 'Not Found');
        return;
      }
      if (match[1] !== this.token) {
        error(res, 401, 'Unauthorized');
        return;
      }
      if (match[2] === 'getMe') {
        sendJson(res, { ok: true, result: { id: Number(this.token.split(':')[0]), is_bot: true, first_name: 'PennyPost test', username: this.username } });
        return;
      }
      if (match[2] !== 'sendMessage') {
        error(res, 404, 'Not Found');
        return;
      }
      let input: Record<string, unknown>;
      try {
        input = JSON.parse(body) as Record<string, unknown>;
      } catch {
        error(res, 400, 'Bad Request: invalid JSON');
        return;
      }
      this.sendMessage(res, input);
    });
    return this;
  }

  private sendMessage(res: ServerResponse, input: Record<string, unknown>): void {
    const chatId = typeof input.chat_id === 'number' || typeof input.chat_id === 'string' ? String(input.chat_id) : '';
    if (!chatId) {
      error(res, 400, 'Bad Request: chat_id is empty');
      return;
    }
    const raw = typeof input.text === 'string' ? input.text : '';
    let plain = raw;
    if (input.parse_mode === 'HTML') {
      const parsed = parseTelegramHtml(raw);
      if ('error' in parsed) {
        error(res, 400, parsed.error);
        return;
      }
      plain = parsed.plain;
    }
    if (!plain.trim()) {
      error(res, 400, 'Bad Request: message text is empty');
      return;
    }
    if (plain.length > 4096) {
      error(res, 400, 'Bad Request: message is too long');
      return;
    }
    const chat = this.chats.get(chatId);
    if (!chat) {
      error(res, 400, 'Bad Request: chat not found');
      return;
    }
    if (chat.migratedTo !== undefined) {
      error(res, 400, 'Bad Request: group chat was upgraded to a supergroup chat', { migrate_to_chat_id: chat.migratedTo });
      return;
    }
    if (chat.blocked === 'user') {
      error(res, 403, 'Forbidden: bot was blocked by the user');
      return;
    }
    if (chat.blocked === 'channel') {
      error(res, 403, 'Forbidden: bot is not a member of the channel chat');
      return;
    }
    const threadId = input.message_thread_id;
    if (threadId !== undefined && !(typeof threadId === 'number' && chat.topics?.includes(threadId))) {
      error(res, 400, 'Bad Request: message thread not found');
      return;
    }
    const step = this.steps.get(chatId)?.shift();
    if (step && step !== 'ok') {
      if (step.status === 429) {
        error(res, 429, `Too Many Requests: retry after ${step.retryAfter}`, { retry_after: step.retryAfter });
        return;
      }
      error(res, 500, 'Internal Server Error');
      return;
    }
    this.sent.push({
      chatId,
      text: raw,
      plain,
      ...(typeof input.parse_mode === 'string' ? { parseMode: input.parse_mode } : {}),
      ...(input.disable_notification === true ? { disableNotification: true } : {}),
      ...(typeof threadId === 'number' ? { threadId } : {}),
    });
    const id = ++this.messageId;
    sendJson(res, { ok: true, result: { message_id: id, date: Math.floor(Date.now() / 1000), chat: { id: chatId }, text: plain } });
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
