import { createHmac } from 'node:crypto';
import { listenFake, type FakeServer } from './listen';
import { sendReply, type FakeReply } from './robot-reply';

/**
 * A Feishu / Lark custom bot webhook as its documentation describes it, for the push tests:
 * `POST /open-apis/bot/v2/hook/{id}` with `{msg_type, content | card, timestamp?, sign?}` (at most
 * 20 KB), answering `{StatusCode: 0, StatusMessage: "success", code: 0, data: {}, msg: "success"}`
 * or Feishu's errors: 19001 (unknown hook), 19021 (a bot with signature verification: `timestamp`
 * in seconds within one hour of now and `sign = base64(HmacSHA256(key = timestamp + "\n" + secret,
 * msg = ""))`), 19024 (custom keywords missing), 19002 (bad body), 11232 (over 5 a second or 100
 * a minute).
 */

export type FeishuStep = { code: number; msg?: string } | { status: number };

export interface FeishuBot {
  secret?: string;
  keywords?: string[];
}

export interface FeishuPost {
  id: string;
  msgType: string;
  /** The card (interactive) or content (text, post) as sent. */
  body: Record<string, unknown>;
}

const HOUR_S = 3600;

export class FakeFeishu {
  server!: FakeServer;
  readonly bots = new Map<string, FeishuBot>();
  readonly sent: FeishuPost[] = [];
  readonly steps: FeishuStep[] = [];
  perSecond = 5;
  perMinute = 100;
  private readonly recent = new Map<string, number[]>();

  constructor(readonly now: () => number = Date.now) {}

  hook(id: string): string {
    return `${this.server.url}/open-apis/bot/v2/hook/${id}`;
  }

  /** Checks a body's signature like Feishu: true when it passes (or the bot has no secret). */
  signatureOk(bot: FeishuBot, body: Record<string, unknown>): boolean {
    if (!bot.secret) return true;
    const { timestamp, sign } = body;
    if (typeof timestamp !== 'string' || !/^\d{1,12}$/.test(timestamp) || typeof sign !== 'string') return false;
    if (Math.abs(Math.floor(this.now() / 1000) - Number(timestamp)) > HOUR_S) return false;
    return createHmac('sha256', `${timestamp}\n${bot.secret}`).update('').digest('base64') === sign;
  }

  /** Feishu's answer to one request. */
  reply(method: string, url: URL, raw: string): FakeReply {
    const match = /^\/open-apis\/bot\/v2\/hook\/([^/]+)$/.exec(url.pathname);
    if (method !== 'POST' || !match) return { status: 404 };
    const answer = (code: number, msg: string): FakeReply => ({
      json: code === 0 ? { StatusCode: 0, StatusMessage: 'success', code: 0, data: {}, msg: 'success' } : { code, data: {}, msg },
    });
    const id = match[1];
    const bot = this.bots.get(id);
    if (!bot) return answer(19001, 'param invalid: incoming webhook access token invalid');
    if (Buffer.byteLength(raw, 'utf8') > 20 * 1024) return answer(19002, 'request body too large, the max size is 20 KB');
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return answer(19002, 'params error, invalid json');
    }
    if (!this.signatureOk(bot, body)) return answer(19021, 'sign match fail or timestamp is not within one hour from current time');
    const step = this.steps.shift();
    if (step) return 'status' in step ? step : answer(step.code, step.msg ?? 'programmed');
    const msgType = body.msg_type;
    const part = msgType === 'interactive' ? body.card : body.content;
    if (typeof msgType !== 'string' || !['text', 'post', 'interactive'].includes(msgType)) return answer(19002, 'params error, msg_type need');
    if (typeof part !== 'object' || part === null) return answer(19002, `params error, ${msgType === 'interactive' ? 'card' : 'content'} need`);
    if (bot.keywords?.length && !bot.keywords.some((k) => JSON.stringify(part).includes(k))) return answer(19024, 'Key Words Not Found');
    const now = this.now();
    const times = (this.recent.get(id) ?? []).filter((t) => t > now - 60_000);
    this.recent.set(id, times);
    if (times.length >= this.perMinute || times.filter((t) => t > now - 1000).length >= this.perSecond) {
      return answer(11232, 'frequency limited psm[lark.oapi.app_platform_runtime]appID[1]');
    }
    times.push(now);
    this.sent.push({ id, msgType, body: part as Record<string, unknown> });
    return answer(0, 'success');
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
