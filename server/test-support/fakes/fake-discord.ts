import type { ServerResponse } from 'node:http';
import { listenFake, sendJson, type FakeServer } from './listen';

/**
 * Discord's webhook API as its documentation describes it, for the discord channel's tests:
 *
 * - `POST /api/webhooks/{id}/{token}[?wait=true]` "Execute Webhook": 204 without `wait`, 200 and
 *   the message object with it
 * - `GET  /api/webhooks/{id}/{token}` "Get Webhook with Token"
 *
 * It checks what Discord checks: a known webhook id (else 404 `{code: 10015, message: "Unknown
 * Webhook"}`), its token (else 401 `{code: 50027, message: "Invalid Webhook Token"}`), a JSON
 * body with content or embeds (else 400 code 50006), the limits (content 2000, 10 embeds, title
 * 256, description 4096, 6000 characters of embeds in all, colour 0–0xFFFFFF: 400 code 50035
 * "Invalid Form Body" with the field's errors), `allowed_mentions.parse` values, and a forum
 * channel's need for `thread_name` (400 code 220001). Answers are programmable (429 with
 * `retry_after` in seconds and a Retry-After header, 500).
 */

export type DiscordStep = { status: 429; retryAfter: number } | { status: 500 } | 'ok';

export interface DiscordSent {
  webhookId: string;
  wait: boolean;
  body: Record<string, any>;
}

interface Embed {
  title?: unknown;
  description?: unknown;
  url?: unknown;
  color?: unknown;
  timestamp?: unknown;
  footer?: { text?: unknown };
}

const invalidForm = (res: ServerResponse, field: string, code: string, message: string) =>
  sendJson(res, { code: 50035, errors: { [field]: { _errors: [{ code, message }] } }, message: 'Invalid Form Body' }, 400);

const textLength = (value: unknown) => (typeof value === 'string' ? value.length : 0);
const textOf = (value: unknown) => (typeof value === 'string' ? value : '');

export class FakeDiscord {
  server!: FakeServer;
  readonly sent: DiscordSent[] = [];
  /** The webhook's channel is a forum (messages need thread_name or thread_id). */
  forum = false;
  private readonly steps: DiscordStep[] = [];
  private nextId = 1_300_000_000_000_000_000n;

  constructor(
    readonly webhookId = '1234567890123456789',
    readonly token = 'fakeDiscordWebhookToken_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ',
  ) {}

  /** The webhook URL Discord would hand out, on this fake. */
  get webhookUrl(): string {
    return `${this.server.url}/api/webhooks/${this.webhookId}/${this.token}`;
  }

  program(...steps: DiscordStep[]): void {
    this.steps.push(...steps);
  }

  async start(): Promise<this> {
    this.server = await listenFake((req, res, body) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const match = /^\/api\/(?:v\d+\/)?webhooks\/([^/]+)\/([^/]+)$/.exec(url.pathname);
      if (!match) {
        sendJson(res, { message: '404: Not Found', code: 0 }, 404);
        return;
      }
      if (match[1] !== this.webhookId) {
        sendJson(res, { message: 'Unknown Webhook', code: 10015 }, 404);
        return;
      }
      if (match[2] !== this.token) {
        sendJson(res, { message: 'Invalid Webhook Token', code: 50027 }, 401);
        return;
      }
      if (req.method === 'GET') {
        sendJson(res, { type: 1, id: this.webhookId, name: 'PennyPost hook', channel_id: '42', guild_id: '7', token: this.token });
        return;
      }
      if (req.method !== 'POST') {
        sendJson(res, { message: '405: Method Not Allowed', code: 0 }, 405);
        return;
      }
      let input: Record<string, any>;
      try {
        input = JSON.parse(body) as Record<string, any>;
      } catch {
        sendJson(res, { code: 50109, message: 'The request body contains invalid JSON.' }, 400);
        return;
      }
      this.execute(res, input, url.searchParams.get('wait') === 'true');
    });
    return this;
  }

  private execute(res: ServerResponse, input: Record<string, any>, wait: boolean): void {
    const embeds: Embed[] = Array.isArray(input.embeds) ? (input.embeds as Embed[]) : [];
    if (textLength(input.content) > 2000) {
      invalidForm(res, 'content', 'BASE_TYPE_MAX_LENGTH', 'Must be 2000 or fewer in length.');
      return;
    }
    if (embeds.length > 10) {
      invalidForm(res, 'embeds', 'BASE_TYPE_MAX_LENGTH', 'Must be 10 or fewer in length.');
      return;
    }
    let total = 0;
    for (const [i, embed] of embeds.entries()) {
      if (textLength(embed.title) > 256) {
        invalidForm(res, `embeds.${i}.title`, 'BASE_TYPE_MAX_LENGTH', 'Must be 256 or fewer in length.');
        return;
      }
      if (textLength(embed.description) > 4096) {
        invalidForm(res, `embeds.${i}.description`, 'BASE_TYPE_MAX_LENGTH', 'Must be 4096 or fewer in length.');
        return;
      }
      if (embed.color !== undefined && !(Number.isInteger(embed.color) && (embed.color as number) >= 0 && (embed.color as number) <= 0xffffff)) {
        invalidForm(res, `embeds.${i}.color`, 'NUMBER_TYPE_MAX', 'int value should be less than or equal to 16777215.');
        return;
      }
      if (embed.url !== undefined && !/^https?:\/\//.test(textOf(embed.url))) {
        invalidForm(res, `embeds.${i}.url`, 'URL_TYPE_INVALID_URL', 'Not a well formed URL.');
        return;
      }
      if (embed.timestamp !== undefined && Number.isNaN(Date.parse(textOf(embed.timestamp)))) {
        invalidForm(res, `embeds.${i}.timestamp`, 'DATE_TIME_TYPE_PARSE', 'Could not parse the timestamp.');
        return;
      }
      total += textLength(embed.title) + textLength(embed.description) + textLength(embed.footer?.text);
    }
    if (total > 6000) {
      invalidForm(res, 'embeds', 'MAX_EMBED_SIZE_EXCEEDED', 'Embed size exceeds maximum size of 6000');
      return;
    }
    const parse: unknown = input.allowed_mentions?.parse;
    if (parse !== undefined && !(Array.isArray(parse) && parse.every((p) => ['roles', 'users', 'everyone'].includes(String(p))))) {
      invalidForm(res, 'allowed_mentions.parse', 'ENUM_TYPE_COERCE', 'Value is not a valid enum value.');
      return;
    }
    if (!textLength(input.content) && embeds.length === 0) {
      sendJson(res, { message: 'Cannot send an empty message', code: 50006 }, 400);
      return;
    }
    if (this.forum && !input.thread_name) {
      sendJson(res, { message: 'Webhooks posted to forum channels must have a thread_name or thread_id', code: 220001 }, 400);
      return;
    }
    const step = this.steps.shift();
    if (step && step !== 'ok') {
      if (step.status === 429) {
        res.setHeader('retry-after', String(Math.ceil(step.retryAfter)));
        sendJson(res, { message: 'You are being rate limited.', retry_after: step.retryAfter, global: false }, 429);
        return;
      }
      sendJson(res, { message: '500: Internal Server Error', code: 0 }, 500);
      return;
    }
    this.sent.push({ webhookId: this.webhookId, wait, body: input });
    if (!wait) {
      res.writeHead(204);
      res.end();
      return;
    }
    const id = String(this.nextId++);
    sendJson(res, { id, type: 0, channel_id: '42', content: input.content ?? '', embeds, webhook_id: this.webhookId });
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
