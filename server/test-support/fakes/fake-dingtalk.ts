import { createHmac, timingSafeEqual } from 'node:crypto';
import { listenFake, type FakeServer } from './listen';
import { sendReply, type FakeReply } from './robot-reply';

/**
 * A DingTalk custom robot webhook as its documentation describes it, for the push tests:
 * `POST /robot/send?access_token=TOKEN[&timestamp=MS&sign=SIGN]` with `{msgtype: "markdown",
 * markdown: {title, text}, at?: {isAtAll}}`, answering `{errcode: 0, errmsg: "ok"}` or DingTalk's
 * errors. Per robot, the security settings DingTalk offers: a signing secret (加签: the query must
 * carry a timestamp within one hour of now and `sign = urlencode(base64(HmacSHA256(secret,
 * timestamp + "\n" + secret)))`, else 310000), custom keywords (one must appear in the message,
 * else 310000), and the limit of 20 messages a minute (130101). Unknown tokens answer 300001.
 */

export type DingtalkStep = { errcode: number; errmsg?: string } | { status: number };

export interface DingtalkRobot {
  secret?: string;
  keywords?: string[];
}

export interface DingtalkPost {
  token: string;
  title: string;
  text: string;
  atAll: boolean;
}

const MORE = ', more: [https://open.dingtalk.com/document/orgapp/custom-robots-send-group-messages]';
const HOUR_MS = 3_600_000;

export class FakeDingtalk {
  server!: FakeServer;
  /** Robots by access token. */
  readonly robots = new Map<string, DingtalkRobot>();
  readonly sent: DingtalkPost[] = [];
  readonly steps: DingtalkStep[] = [];
  perMinute = 20;
  private readonly recent = new Map<string, number[]>();

  constructor(readonly now: () => number = Date.now) {}

  hook(token: string): string {
    return `${this.server.url}/robot/send?access_token=${token}`;
  }

  /** Checks a request's signature like DingTalk: null when it passes, else DingTalk's errmsg. */
  signatureProblem(robot: DingtalkRobot, query: URLSearchParams): string | null {
    if (!robot.secret) return null;
    const timestamp = query.get('timestamp') ?? '';
    const sign = query.get('sign') ?? '';
    if (!timestamp || !sign) return 'sign not match' + MORE;
    if (!/^\d{13}$/.test(timestamp) || Math.abs(this.now() - Number(timestamp)) > HOUR_MS) return 'invalid timestamp' + MORE;
    const expected = createHmac('sha256', robot.secret).update(`${timestamp}\n${robot.secret}`).digest();
    const given = Buffer.from(sign, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected) && given.toString('base64') === sign ? null : 'sign not match' + MORE;
  }

  /** DingTalk's answer to one request. */
  reply(method: string, url: URL, raw: string): FakeReply {
    if (method !== 'POST' || url.pathname !== '/robot/send') return { status: 404 };
    const answer = (errcode: number, errmsg: string): FakeReply => ({ json: { errcode, errmsg } });
    // URLSearchParams decodes like a servlet: a sign sent without URL encoding ('+' → ' ') does not match.
    const token = url.searchParams.get('access_token') ?? '';
    const robot = this.robots.get(token);
    if (!robot) return answer(300001, 'token is not exist');
    const problem = this.signatureProblem(robot, url.searchParams);
    if (problem) return answer(310000, problem);
    const step = this.steps.shift();
    if (step) return 'status' in step ? step : answer(step.errcode, step.errmsg ?? 'programmed');
    let body: { msgtype?: unknown; markdown?: { title?: unknown; text?: unknown }; at?: { isAtAll?: unknown } };
    try {
      body = JSON.parse(raw) as typeof body;
    } catch {
      return answer(43004, '无效的HTTP HEADER Content-Type');
    }
    if (body.msgtype !== 'markdown') return answer(40035, '缺少参数 msgtype');
    const { title, text } = body.markdown ?? {};
    if (typeof title !== 'string' || !title || typeof text !== 'string' || !text) return answer(40035, '缺少参数 markdown');
    if (Buffer.byteLength(text, 'utf8') > 20_000) return answer(460101, 'message too long');
    if (robot.keywords?.length && !robot.keywords.some((k) => title.includes(k) || text.includes(k))) return answer(310000, 'keywords not in content' + MORE);
    const times = (this.recent.get(token) ?? []).filter((t) => t > this.now() - 60_000);
    this.recent.set(token, times);
    if (times.length >= this.perMinute) return answer(130101, 'send too fast, exceed 20 times per minute');
    times.push(this.now());
    this.sent.push({ token, title, text, atAll: body.at?.isAtAll === true });
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
