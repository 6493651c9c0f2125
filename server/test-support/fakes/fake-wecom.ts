import { listenFake, type FakeServer } from './listen';
import { sendReply, type FakeReply } from './robot-reply';

/**
 * A WeCom (企业微信) group robot webhook as its documentation describes it, for the push tests:
 * `POST /cgi-bin/webhook/send?key=KEY` with `{msgtype: "markdown", markdown: {content}}` (content
 * at most 4096 bytes) or `{msgtype: "text", text: {content, mentioned_list?}}` (2048 bytes),
 * answering `{errcode: 0, errmsg: "ok"}` or WeCom's errors: 93000 (unknown key), 45009 (more than
 * 20 messages a minute per robot), 40008 (message type), 44004 (empty content), 40058 (content
 * too long or malformed). Steps programme the next answers (an errcode, or an HTTP status).
 */

export type WecomStep = { errcode: number; errmsg?: string } | { status: number };

export interface WecomPost {
  key: string;
  msgtype: string;
  content: string;
  mentioned: string[];
}

const hint = (errcode: number) => `, hint: [1767000000_1_fake], from ip: 127.0.0.1, more info at https://open.work.weixin.qq.com/devtool/query?e=${errcode}`;

export class FakeWecom {
  server!: FakeServer;
  /** Robot keys this WeCom knows. */
  readonly keys = new Set<string>();
  /** Messages accepted, in order. */
  readonly sent: WecomPost[] = [];
  /** Answers for the next requests of a known key, before the normal ones. */
  readonly steps: WecomStep[] = [];
  /** Messages per robot per minute (WeCom: 20). */
  perMinute = 20;
  private readonly recent = new Map<string, number[]>();

  constructor(readonly now: () => number = Date.now) {}

  get url(): string {
    return this.server.url;
  }

  /** The webhook URL of a robot key on this fake. */
  hook(key: string): string {
    return `${this.server.url}/cgi-bin/webhook/send?key=${key}`;
  }

  /** WeCom's answer to one request. */
  reply(method: string, url: URL, raw: string): FakeReply {
    if (method !== 'POST' || url.pathname !== '/cgi-bin/webhook/send') return { status: 404 };
    const answer = (errcode: number, errmsg: string): FakeReply => ({ json: { errcode, errmsg: errcode === 0 ? errmsg : errmsg + hint(errcode) } });
    const key = url.searchParams.get('key') ?? '';
    if (!this.keys.has(key)) return answer(93000, 'invalid webhook url');
    const step = this.steps.shift();
    if (step) return 'status' in step ? step : answer(step.errcode, step.errmsg ?? 'programmed');
    const times = (this.recent.get(key) ?? []).filter((t) => t > this.now() - 60_000);
    this.recent.set(key, times);
    if (times.length >= this.perMinute) return answer(45009, 'api freq out of limit');
    let body: { msgtype?: unknown; markdown?: { content?: unknown }; text?: { content?: unknown; mentioned_list?: unknown } };
    try {
      body = JSON.parse(raw) as typeof body;
    } catch {
      return answer(40058, 'invalid json request');
    }
    if (body.msgtype !== 'markdown' && body.msgtype !== 'text') return answer(40008, 'invalid message type');
    const content = body.msgtype === 'markdown' ? body.markdown?.content : body.text?.content;
    if (typeof content !== 'string' || content === '') return answer(44004, 'empty content');
    const max = body.msgtype === 'markdown' ? 4096 : 2048;
    if (Buffer.byteLength(content, 'utf8') > max) return answer(40058, `${body.msgtype}.content exceed max length ${max}`);
    const mentioned = body.msgtype === 'text' ? body.text?.mentioned_list : undefined;
    if (mentioned !== undefined && !(Array.isArray(mentioned) && mentioned.every((m) => typeof m === 'string'))) return answer(40058, 'invalid mentioned_list');
    times.push(this.now());
    this.sent.push({ key, msgtype: body.msgtype, content, mentioned: mentioned ?? [] });
    return answer(0, 'ok');
  }

  async start(): Promise<this> {
    this.server = await listenFake((req, res, raw) => {
      sendReply(res, this.reply(req.method ?? '', new URL(req.url ?? '/', 'http://x'), raw));
    });
    return this;
  }

  /** Forgets the messages counted against the rate limits. */
  resetLimits(): void {
    this.recent.clear();
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
