import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { listenFake, type FakeServer } from './listen';

/**
 * The incoming-webhook services behind PennyPost's robot channels, as their documentation describes
 * them, for the push tests: one fake (FakeRobot: the server, the hooks it knows, programmed answers,
 * the messages accepted, per-minute and per-second limits) and one small class per service with
 * its own routes, checks and answer shapes — WeCom and DingTalk `{errcode, errmsg}`, Feishu/Lark
 * `{code, msg}`, Discord HTTP statuses with `{code, message}`, Slack statuses with one error word.
 *
 * A request is checked in the service's order: its route and hook (unknown hooks, wrong tokens,
 * archived channels), the body, the signature, then a programmed step if any, the message's own
 * checks (shape, limits, keywords), the rate limits; an accepted message is recorded in `sent`.
 */

/**
 * A programmed answer: a service error (code and words, in the service's answer shape; WeCom's and
 * DingTalk's spelling `errcode`/`errmsg` works as well), a bare HTTP status (429 with the seconds to
 * wait, Slack's error word), or 'ok' to let one request through.
 */
export type RobotStep = { code: number; msg?: string } | { errcode: number; errmsg?: string } | { status: number; retryAfter?: number; error?: string } | 'ok';

/** A hook's security settings (DingTalk, Feishu): a signing secret, custom keywords one of which each message must contain. */
export interface RobotHook {
  secret?: string;
  keywords?: string[];
}

/** What a fake answers. */
export interface FakeReply {
  status?: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
}

/** An answer given before the message is accepted (thrown inside a service's checks). */
class Answered extends Error {
  constructor(readonly reply: FakeReply) {
    super('answered');
  }
}

/** Sends a fake's reply (also the WeCom application fake's): JSON, a text, or a bare status. */
export function sendReply(res: ServerResponse, reply: FakeReply): void {
  const status = reply.status ?? 200;
  if (reply.json !== undefined) {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...reply.headers });
    res.end(typeof reply.json === 'string' ? reply.json : JSON.stringify(reply.json));
  } else if (reply.text !== undefined) {
    res.writeHead(status, { 'content-type': 'text/html', ...reply.headers });
    res.end(reply.text);
  } else {
    res.writeHead(status, reply.headers).end(status === 404 || status === 204 ? '' : 'upstream failure');
  }
}

export abstract class FakeRobot<Post> {
  server!: FakeServer;
  /** Hooks this service knows, by credential (key, access token, hook id). */
  readonly hooks = new Map<string, RobotHook>();
  /** Messages accepted, in order. */
  readonly sent: Post[] = [];
  /** Answers for the next requests of a known hook, before the normal ones. */
  readonly steps: RobotStep[] = [];
  perMinute = Infinity;
  perSecond = Infinity;
  private readonly recent = new Map<string, number[]>();

  constructor(readonly now: () => number = Date.now) {}

  get url(): string {
    return this.server.url;
  }

  program(...steps: RobotStep[]): void {
    this.steps.push(...steps);
  }

  /** Forgets the messages counted against the rate limits. */
  resetLimits(): void {
    this.recent.clear();
  }

  async start(): Promise<this> {
    this.server = await listenFake((req, res, raw) => {
      sendReply(res, this.reply(req.method ?? '', new URL(req.url ?? '/', 'http://x'), raw));
    });
    return this;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /** The service's answer to one request. */
  reply(method: string, url: URL, raw: string): FakeReply {
    try {
      const credential = this.route(method, url);
      const body = this.parse(raw);
      this.verify(credential, url, body);
      const step = this.steps.shift();
      if (step !== undefined && step !== 'ok') {
        if ('status' in step) return this.statusReply(step);
        return 'code' in step ? this.error(step.code, step.msg ?? 'programmed') : this.error(step.errcode, step.errmsg ?? 'programmed');
      }
      const post = this.accept(credential, body, url);
      if (!this.withinLimits(credential)) return this.rateLimited();
      this.sent.push(post);
      return this.ok(post);
    } catch (error) {
      if (error instanceof Answered) return error.reply;
      throw error;
    }
  }

  /** Refuses the request with the service's answer. */
  protected answer(reply: FakeReply): Answered {
    return new Answered(reply);
  }

  /** Refuses the request with a service error. */
  protected refuse(code: number, msg: string): Answered {
    return new Answered(this.error(code, msg));
  }

  /** The hook a request names (its credential), or a refusal: not the service's route, an unknown hook. */
  protected abstract route(method: string, url: URL): string;
  /** The JSON body, or the service's refusal. */
  protected parse(raw: string): Record<string, unknown> {
    try {
      const body: unknown = JSON.parse(raw);
      if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body as Record<string, unknown>;
    } catch {
      // refused below
    }
    throw this.answer(this.badJson());
  }
  protected abstract badJson(): FakeReply;
  /** The hook's signature check (services that sign). */
  protected verify(_credential: string, _url: URL, _body: Record<string, unknown>): void {}
  /** The message's own checks, and what the test reads of an accepted one. */
  protected abstract accept(credential: string, body: Record<string, unknown>, url: URL): Post;
  /** The service's error answer in its own shape. */
  protected abstract error(code: number, msg: string): FakeReply;
  protected abstract ok(post: Post): FakeReply;
  protected rateLimited(): FakeReply {
    return { status: 429 };
  }
  /** A programmed HTTP status (default: bare, like a proxy in front of the service). */
  protected statusReply(step: { status: number; retryAfter?: number; error?: string }): FakeReply {
    return { status: step.status };
  }

  /** Refuses a message without one of the hook's keywords. */
  protected checkKeywords(credential: string, contents: string[], code: number, msg: string): void {
    const { keywords } = this.hooks.get(credential) ?? {};
    if (keywords?.length && !keywords.some((k) => contents.some((content) => content.includes(k)))) throw this.refuse(code, msg);
  }

  private withinLimits(credential: string): boolean {
    const now = this.now();
    const times = (this.recent.get(credential) ?? []).filter((t) => t > now - 60_000);
    this.recent.set(credential, times);
    if (times.length >= this.perMinute || times.filter((t) => t > now - 1000).length >= this.perSecond) return false;
    times.push(now);
    return true;
  }
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/**
 * A WeCom (企业微信) group robot: `POST /cgi-bin/webhook/send?key=KEY` with `{msgtype: "markdown",
 * markdown: {content}}` (at most 4096 bytes) or `{msgtype: "text", text: {content,
 * mentioned_list?}}` (2048 bytes), answering `{errcode: 0, errmsg: "ok"}` or 93000 (unknown key),
 * 45009 (over 20 messages a minute per robot), 40008 (message type), 44004 (empty content), 40058
 * (too long or malformed).
 */
export interface WecomPost {
  key: string;
  msgtype: string;
  content: string;
  mentioned: string[];
}

export class FakeWecom extends FakeRobot<WecomPost> {
  /** Robot keys this WeCom knows: its hooks (WeCom robots have no security settings). */
  readonly keys = { add: (key: string) => this.hooks.set(key, {}), delete: (key: string) => this.hooks.delete(key), has: (key: string) => this.hooks.has(key) };
  override perMinute = 20;

  hook(key: string): string {
    return `${this.server.url}/cgi-bin/webhook/send?key=${key}`;
  }

  protected route(method: string, url: URL): string {
    if (method !== 'POST' || url.pathname !== '/cgi-bin/webhook/send') throw this.answer({ status: 404 });
    const key = url.searchParams.get('key') ?? '';
    if (!this.hooks.has(key)) throw this.refuse(93000, 'invalid webhook url');
    return key;
  }

  protected badJson(): FakeReply {
    return this.error(40058, 'invalid json request');
  }

  protected accept(key: string, body: Record<string, unknown>): WecomPost {
    const { msgtype } = body;
    if (msgtype !== 'markdown' && msgtype !== 'text') throw this.refuse(40008, 'invalid message type');
    const part = (body[msgtype] ?? {}) as { content?: unknown; mentioned_list?: unknown };
    const content = part.content;
    if (typeof content !== 'string' || content === '') throw this.refuse(44004, 'empty content');
    const max = msgtype === 'markdown' ? 4096 : 2048;
    if (Buffer.byteLength(content, 'utf8') > max) throw this.refuse(40058, `${msgtype}.content exceed max length ${max}`);
    const mentioned = msgtype === 'text' ? part.mentioned_list : undefined;
    if (mentioned !== undefined && !(Array.isArray(mentioned) && mentioned.every((m) => typeof m === 'string'))) throw this.refuse(40058, 'invalid mentioned_list');
    return { key, msgtype, content, mentioned: mentioned ?? [] };
  }

  protected error(errcode: number, errmsg: string): FakeReply {
    const hint = `, hint: [1767000000_1_fake], from ip: 127.0.0.1, more info at https://open.work.weixin.qq.com/devtool/query?e=${errcode}`;
    return { json: { errcode, errmsg: errcode === 0 ? errmsg : errmsg + hint } };
  }

  protected ok(): FakeReply {
    return this.error(0, 'ok');
  }

  protected override rateLimited(): FakeReply {
    return this.error(45009, 'api freq out of limit');
  }
}

/**
 * A DingTalk custom robot: `POST /robot/send?access_token=TOKEN[&timestamp=MS&sign=SIGN]` with
 * `{msgtype: "markdown", markdown: {title, text}, at?: {isAtAll}}`, answering `{errcode: 0, errmsg:
 * "ok"}` or DingTalk's errors. Per robot the security settings DingTalk offers: a signing secret
 * (加签: the query carries a timestamp within one hour of now and `sign =
 * urlencode(base64(HmacSHA256(secret, timestamp + "\n" + secret)))`, else 310000), custom keywords
 * (else 310000), and 20 messages a minute (130101). Unknown tokens answer 300001.
 */
export interface DingtalkPost {
  token: string;
  title: string;
  text: string;
  atAll: boolean;
}

const DINGTALK_MORE = ', more: [https://open.dingtalk.com/document/orgapp/custom-robots-send-group-messages]';

export class FakeDingtalk extends FakeRobot<DingtalkPost> {
  override perMinute = 20;

  /** Robots by access token. */
  get robots(): Map<string, RobotHook> {
    return this.hooks;
  }

  hook(token: string): string {
    return `${this.server.url}/robot/send?access_token=${token}`;
  }

  protected route(method: string, url: URL): string {
    if (method !== 'POST' || url.pathname !== '/robot/send') throw this.answer({ status: 404 });
    const token = url.searchParams.get('access_token') ?? '';
    if (!this.hooks.has(token)) throw this.refuse(300001, 'token is not exist');
    return token;
  }

  protected badJson(): FakeReply {
    return this.error(43004, '无效的HTTP HEADER Content-Type');
  }

  /** The signature in the query, like DingTalk. URLSearchParams decodes like a servlet: a sign sent without URL encoding ('+' → ' ') does not match. */
  protected override verify(token: string, url: URL): void {
    const { secret } = this.hooks.get(token) ?? {};
    if (!secret) return;
    const timestamp = url.searchParams.get('timestamp') ?? '';
    const sign = url.searchParams.get('sign') ?? '';
    if (!timestamp || !sign) throw this.refuse(310000, 'sign not match' + DINGTALK_MORE);
    if (!/^\d{13}$/.test(timestamp) || Math.abs(this.now() - Number(timestamp)) > 3_600_000) throw this.refuse(310000, 'invalid timestamp' + DINGTALK_MORE);
    const expected = createHmac('sha256', secret).update(`${timestamp}\n${secret}`).digest();
    const given = Buffer.from(sign, 'base64');
    if (!(given.length === expected.length && timingSafeEqual(given, expected) && given.toString('base64') === sign)) throw this.refuse(310000, 'sign not match' + DINGTALK_MORE);
  }

  protected accept(token: string, body: Record<string, unknown>): DingtalkPost {
    if (body.msgtype !== 'markdown') throw this.refuse(40035, '缺少参数 msgtype');
    const { title, text: markdown } = (body.markdown ?? {}) as { title?: unknown; text?: unknown };
    if (typeof title !== 'string' || !title || typeof markdown !== 'string' || !markdown) throw this.refuse(40035, '缺少参数 markdown');
    if (Buffer.byteLength(markdown, 'utf8') > 20_000) throw this.refuse(460101, 'message too long');
    this.checkKeywords(token, [title, markdown], 310000, 'keywords not in content' + DINGTALK_MORE);
    return { token, title, text: markdown, atAll: (body.at as { isAtAll?: unknown } | undefined)?.isAtAll === true };
  }

  protected error(errcode: number, errmsg: string): FakeReply {
    return { json: { errcode, errmsg } };
  }

  protected ok(): FakeReply {
    return this.error(0, 'ok');
  }

  protected override rateLimited(): FakeReply {
    return this.error(130101, 'send too fast, exceed 20 times per minute');
  }
}

/**
 * A Feishu / Lark custom bot: `POST /open-apis/bot/v2/hook/{id}` with `{msg_type, content | card,
 * timestamp?, sign?}` (at most 20 KB), answering `{StatusCode: 0, StatusMessage: "success", code: 0,
 * data: {}, msg: "success"}` or 19001 (unknown hook), 19021 (signature verification: `timestamp` in
 * seconds within one hour of now and `sign = base64(HmacSHA256(key = timestamp + "\n" + secret, msg
 * = ""))`), 19024 (custom keywords missing), 19002 (bad body), 11232 (over 5 a second or 100 a minute).
 */
export interface FeishuPost {
  id: string;
  msgType: string;
  /** The card (interactive) or content (text, post) as sent. */
  body: Record<string, unknown>;
}

export class FakeFeishu extends FakeRobot<FeishuPost> {
  override perSecond = 5;
  override perMinute = 100;

  get bots(): Map<string, RobotHook> {
    return this.hooks;
  }

  hook(id: string): string {
    return `${this.server.url}/open-apis/bot/v2/hook/${id}`;
  }

  protected route(method: string, url: URL): string {
    const match = /^\/open-apis\/bot\/v2\/hook\/([^/]+)$/.exec(url.pathname);
    if (method !== 'POST' || !match) throw this.answer({ status: 404 });
    const hook = match.at(1)!;
    if (!this.hooks.has(hook)) throw this.refuse(19001, 'param invalid: incoming webhook access token invalid');
    return hook;
  }

  protected override parse(raw: string): Record<string, unknown> {
    if (Buffer.byteLength(raw, 'utf8') > 20 * 1024) throw this.refuse(19002, 'request body too large, the max size is 20 KB');
    return super.parse(raw);
  }

  protected badJson(): FakeReply {
    return this.error(19002, 'params error, invalid json');
  }

  protected override verify(id: string, _url: URL, body: Record<string, unknown>): void {
    const { secret } = this.hooks.get(id) ?? {};
    if (!secret) return;
    const { timestamp, sign } = body;
    const refused = this.refuse(19021, 'sign match fail or timestamp is not within one hour from current time');
    if (typeof timestamp !== 'string' || !/^\d{1,12}$/.test(timestamp) || typeof sign !== 'string') throw refused;
    if (Math.abs(Math.floor(this.now() / 1000) - Number(timestamp)) > 3600) throw refused;
    if (createHmac('sha256', `${timestamp}\n${secret}`).update('').digest('base64') !== sign) throw refused;
  }

  protected accept(id: string, body: Record<string, unknown>): FeishuPost {
    const msgType = body.msg_type;
    const part = msgType === 'interactive' ? body.card : body.content;
    if (typeof msgType !== 'string' || !['text', 'post', 'interactive'].includes(msgType)) throw this.refuse(19002, 'params error, msg_type need');
    if (typeof part !== 'object' || part === null) throw this.refuse(19002, `params error, ${msgType === 'interactive' ? 'card' : 'content'} need`);
    this.checkKeywords(id, [JSON.stringify(part)], 19024, 'Key Words Not Found');
    return { id, msgType, body: part as Record<string, unknown> };
  }

  protected error(code: number, msg: string): FakeReply {
    return { json: code === 0 ? { StatusCode: 0, StatusMessage: 'success', code: 0, data: {}, msg: 'success' } : { code, data: {}, msg } };
  }

  protected ok(): FakeReply {
    return this.error(0, 'success');
  }

  protected override rateLimited(): FakeReply {
    return this.error(11232, 'frequency limited psm[lark.oapi.app_platform_runtime]appID[1]');
  }
}

/**
 * Discord's webhook API: `POST /api/webhooks/{id}/{token}[?wait=true]` "Execute Webhook" (204
 * without `wait`, 200 and the message with it) and `GET` "Get Webhook with Token". It checks what
 * Discord checks: the webhook id (404 `{code: 10015, message: "Unknown Webhook"}`), its token (401
 * code 50027), a JSON body with content or embeds (400 code 50006), the limits (content 2000, 10
 * embeds, title 256, description 4096, 6000 characters of embeds, colour 0–0xFFFFFF: 400 code 50035
 * "Invalid Form Body"), `allowed_mentions.parse`, and a forum channel's need for `thread_name` (400
 * code 220001). Programmed: 429 with `retry_after` (seconds, and a Retry-After header), other
 * statuses, and errors `{code, msg}` as 400 `{code, message}`.
 */
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

export class FakeDiscord extends FakeRobot<DiscordSent> {
  /** The webhook's channel is a forum (messages need thread_name or thread_id). */
  forum = false;
  private nextId = 1_300_000_000_000_000_000n;
  private lastId = '';

  constructor(
    readonly webhookId = '1234567890123456789',
    readonly token = 'fakeDiscordWebhookToken_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ',
  ) {
    super();
  }

  /** The webhook URL Discord would hand out, on this fake. */
  get webhookUrl(): string {
    return `${this.server.url}/api/webhooks/${this.webhookId}/${this.token}`;
  }

  protected route(method: string, url: URL): string {
    const match = /^\/api\/(?:v\d+\/)?webhooks\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (!match) throw this.answer({ status: 404, json: { message: '404: Not Found', code: 0 } });
    if (match[1] !== this.webhookId) throw this.answer({ status: 404, json: { message: 'Unknown Webhook', code: 10015 } });
    if (match[2] !== this.token) throw this.answer({ status: 401, json: { message: 'Invalid Webhook Token', code: 50027 } });
    if (method === 'GET') throw this.answer({ json: { type: 1, id: this.webhookId, name: 'PennyPost hook', channel_id: '42', guild_id: '7', token: this.token } });
    if (method !== 'POST') throw this.answer({ status: 405, json: { message: '405: Method Not Allowed', code: 0 } });
    return this.webhookId;
  }

  protected badJson(): FakeReply {
    return this.error(50109, 'The request body contains invalid JSON.');
  }

  private invalidForm(field: string, code: string, message: string): never {
    throw this.answer({ status: 400, json: { code: 50035, errors: { [field]: { _errors: [{ code, message }] } }, message: 'Invalid Form Body' } });
  }

  protected accept(webhookId: string, input: Record<string, any>, url: URL): DiscordSent {
    const embeds: Embed[] = Array.isArray(input.embeds) ? (input.embeds as Embed[]) : [];
    const length = (value: unknown) => text(value).length;
    if (length(input.content) > 2000) this.invalidForm('content', 'BASE_TYPE_MAX_LENGTH', 'Must be 2000 or fewer in length.');
    if (embeds.length > 10) this.invalidForm('embeds', 'BASE_TYPE_MAX_LENGTH', 'Must be 10 or fewer in length.');
    let total = 0;
    for (const [i, embed] of embeds.entries()) {
      if (length(embed.title) > 256) this.invalidForm(`embeds.${i}.title`, 'BASE_TYPE_MAX_LENGTH', 'Must be 256 or fewer in length.');
      if (length(embed.description) > 4096) this.invalidForm(`embeds.${i}.description`, 'BASE_TYPE_MAX_LENGTH', 'Must be 4096 or fewer in length.');
      if (embed.color !== undefined && !(Number.isInteger(embed.color) && (embed.color as number) >= 0 && (embed.color as number) <= 0xffffff)) {
        this.invalidForm(`embeds.${i}.color`, 'NUMBER_TYPE_MAX', 'int value should be less than or equal to 16777215.');
      }
      if (embed.url !== undefined && !/^https?:\/\//.test(text(embed.url))) this.invalidForm(`embeds.${i}.url`, 'URL_TYPE_INVALID_URL', 'Not a well formed URL.');
      if (embed.timestamp !== undefined && Number.isNaN(Date.parse(text(embed.timestamp)))) {
        this.invalidForm(`embeds.${i}.timestamp`, 'DATE_TIME_TYPE_PARSE', 'Could not parse the timestamp.');
      }
      total += length(embed.title) + length(embed.description) + length(embed.footer?.text);
    }
    if (total > 6000) this.invalidForm('embeds', 'MAX_EMBED_SIZE_EXCEEDED', 'Embed size exceeds maximum size of 6000');
    const parse: unknown = input.allowed_mentions?.parse;
    if (parse !== undefined && !(Array.isArray(parse) && parse.every((p) => ['roles', 'users', 'everyone'].includes(String(p))))) {
      this.invalidForm('allowed_mentions.parse', 'ENUM_TYPE_COERCE', 'Value is not a valid enum value.');
    }
    if (!length(input.content) && embeds.length === 0) throw this.refuse(50006, 'Cannot send an empty message');
    if (this.forum && !input.thread_name) throw this.refuse(220001, 'Webhooks posted to forum channels must have a thread_name or thread_id');
    return { webhookId, wait: url.searchParams.get('wait') === 'true', body: input };
  }

  protected error(code: number, message: string): FakeReply {
    return { status: 400, json: { message, code } };
  }

  protected ok(post: DiscordSent): FakeReply {
    if (!post.wait) return { status: 204 };
    this.lastId = String(this.nextId++);
    return { json: { id: this.lastId, type: 0, channel_id: '42', content: post.body.content ?? '', embeds: post.body.embeds ?? [], webhook_id: this.webhookId } };
  }

  protected override statusReply(step: { status: number; retryAfter?: number }): FakeReply {
    if (step.status === 429) {
      const wait = step.retryAfter ?? 1;
      return { status: 429, headers: { 'retry-after': String(Math.ceil(wait)) }, json: { message: 'You are being rate limited.', retry_after: wait, global: false } };
    }
    return { status: step.status, json: { message: step.status === 500 ? '500: Internal Server Error' : `${step.status}`, code: 0 } };
  }
}

/**
 * Slack's incoming webhooks: `POST /services/{team}/{bot}/{secret}` with a JSON `{text, blocks}`
 * answers `200 ok` (text/html), or an error word: 404 `no_service` (unknown webhook), 403
 * `invalid_token` (wrong secret), 410 `channel_is_archived`, 400 `invalid_payload` (not JSON),
 * `no_text` (neither text nor blocks), `invalid_blocks` (a header that is not plain_text or over 150
 * characters, a section text over 3000, more than 50 blocks, an unknown block type). Programmed: 429
 * with Retry-After, a status with its error word (403 `action_prohibited`), 500.
 */
export interface SlackSent {
  body: Record<string, any>;
}

interface Block {
  type?: unknown;
  text?: { type?: unknown; text?: unknown };
  elements?: unknown;
}

function blocksProblem(blocks: unknown): boolean {
  if (!Array.isArray(blocks) || blocks.length > 50) return true;
  return (blocks as Block[]).some((block) => {
    const words = text(block.text?.text);
    switch (block.type) {
      case 'header':
        return block.text?.type !== 'plain_text' || !words || words.length > 150;
      case 'section':
        return !(block.text?.type === 'mrkdwn' || block.text?.type === 'plain_text') || !words || words.length > 3000;
      case 'context':
        return !Array.isArray(block.elements) || block.elements.length === 0 || block.elements.length > 10;
      case 'divider':
        return false;
      default:
        return true;
    }
  });
}

const word = (status: number, error: string, headers?: Record<string, string>): FakeReply => ({ status, text: error, ...(headers ? { headers } : {}) });

export class FakeSlack extends FakeRobot<SlackSent> {
  archived = false;

  constructor(
    readonly team = 'T0FAKE123',
    readonly bot = 'B0FAKE456',
    readonly secret = 'fakeSlackSecret0123456789',
  ) {
    super();
  }

  get webhookUrl(): string {
    return `${this.server.url}/services/${this.team}/${this.bot}/${this.secret}`;
  }

  protected route(method: string, url: URL): string {
    const match = /^\/services\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (method !== 'POST' || !match || match[1] !== this.team || match[2] !== this.bot) throw this.answer(word(404, 'no_service'));
    if (match[3] !== this.secret) throw this.answer(word(403, 'invalid_token'));
    if (this.archived) throw this.answer(word(410, 'channel_is_archived'));
    return this.bot;
  }

  protected badJson(): FakeReply {
    return word(400, 'invalid_payload');
  }

  protected accept(_bot: string, input: Record<string, any>): SlackSent {
    if (!input.text && !input.blocks) throw this.answer(word(400, 'no_text'));
    if (input.blocks !== undefined && blocksProblem(input.blocks)) throw this.answer(word(400, 'invalid_blocks'));
    return { body: input };
  }

  protected error(_code: number, msg: string): FakeReply {
    return word(400, msg);
  }

  protected ok(): FakeReply {
    return word(200, 'ok');
  }

  protected override statusReply(step: { status: number; retryAfter?: number; error?: string }): FakeReply {
    if (step.status === 429) return word(429, 'rate_limited', { 'retry-after': String(step.retryAfter ?? 1) });
    return word(step.status, step.error ?? (step.status >= 500 ? 'internal_error' : 'invalid_payload'));
  }
}
