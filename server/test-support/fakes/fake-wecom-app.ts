import { listenFake, type FakeServer } from './listen';
import { sendReply, type FakeReply } from './fake-robot';

/**
 * A WeCom (企业微信) company's server API for one self-built application, as WeCom's documentation
 * describes it, for the push tests:
 *
 * - GET  /cgi-bin/gettoken?corpid=&corpsecret=  →  {errcode: 0, errmsg: "ok", access_token,
 *   expires_in}; the same token again while it lasts (expires_in counting down), a new one after
 * - GET  /cgi-bin/agent/get?access_token=&agentid=  →  {errcode: 0, agentid, name, …}
 * - POST /cgi-bin/message/send?access_token=  {touser: "a|b" (at most 1,000) or "@all", agentid,
 *   msgtype: text | markdown | textcard, text: {content ≤ 2048 bytes} | markdown: {content ≤ 2048
 *   bytes} | textcard: {title ≤ 128 bytes, description ≤ 512 bytes, url, btntxt?}}  →  {errcode: 0,
 *   errmsg: "ok", msgid, invaliduser?: "x|y" (lower case), unlicenseduser?}; 81013 when no
 *   recipient is a member the app can reach
 *
 * with WeCom's errcodes: 40013 (corp id), 40001 (secret), 41002/41004 (missing), 41001 (no
 * token), 40014 (unknown token), 42001 (expired token), 40056/41011 (agentid), 301002 (agentid of
 * another app), 40008 (message type), 44004 (empty), 45002 (too long), 40058 (bad body or
 * recipients), 60020 (IP not trusted: `tokenAlways`/`sendAlways`). Programmable steps answer the
 * next sends (an errcode, an HTTP status, a delay). Members are kept per id (case-insensitive, as
 * WeCom); `unlicensed` members are in the visible range but without an API licence.
 */

export type WecomAppStep = { errcode: number; errmsg?: string } | { status: number } | { delayMs: number };

export interface WecomAppMessage {
  msgtype: string;
  /** The members it reached (lower case). */
  to: string[];
  /** `touser` as sent. */
  touser: string;
  agentid: number;
  content?: string;
  textcard?: { title: string; description: string; url: string; btntxt?: string };
  token: string;
}

const ERRMSG: Partial<Record<number, string>> = {
  [-1]: 'system busy',
  40001: 'invalid credential',
  40008: 'invalid message type',
  40013: 'invalid corpid',
  40014: 'invalid access_token',
  40056: 'invalid agentid',
  40058: 'invalid Request Parameter',
  41001: 'access_token missing',
  41002: 'corpid missing',
  41004: 'corpsecret missing',
  41011: 'agentid missing',
  42001: 'access_token expired',
  44004: 'empty content',
  45002: 'content size out of limit',
  45009: 'api freq out of limit',
  60020: 'not allow to access from your ip',
  81013: 'user & party & tag all invalid',
  301002: 'not allow operate another agent with this accesstoken.',
};

const hint = (errcode: number) => `, hint: [1767000000_7_fake], from ip: 127.0.0.1, more info at https://open.work.weixin.qq.com/devtool/query?e=${errcode}`;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

export class FakeWecomApp {
  server!: FakeServer;
  /** Seconds of life of newly issued tokens. */
  tokenLifetime = 7200;
  /** Delay of every token answer. */
  tokenDelayMs = 0;
  /** Refuse every token request with this errcode (e.g. 60020 for an address that is not trusted). */
  tokenAlways: number | null = null;
  /** Refuse every send with this errcode (after the token check). */
  sendAlways: number | null = null;
  /** Answers of the next sends (after the token check), before normal behaviour. */
  readonly steps: WecomAppStep[] = [];
  /** Members of the company in the app's visible range (ids as created; matched case-insensitively). */
  readonly members = new Set<string>();
  /** Members without a WeCom API licence. */
  readonly unlicensed = new Set<string>();
  readonly sent: WecomAppMessage[] = [];
  calls = { token: 0, send: 0, agent: 0 };
  private readonly tokens = new Map<string, number>();
  private current: string | null = null;
  private counter = 0;

  constructor(
    readonly corpId = 'ww0123456789fake01',
    readonly agentId = 1000002,
    readonly secret = 'fake-wecom-app-secret-0123456789abcdefghijk',
    private readonly now: () => number = () => Date.now(),
  ) {}

  get url(): string {
    return this.server.url;
  }

  async start(): Promise<this> {
    this.server = await listenFake(async (req, res, body) => {
      sendReply(res, await this.handle(req.method ?? 'GET', req.url ?? '/', body));
    });
    return this;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /** Every issued token expires now: sends answer 42001. */
  expireTokens(): void {
    for (const token of this.tokens.keys()) this.tokens.set(token, this.now() - 1);
  }

  /** Every issued token is forgotten (WeCom may end them early): sends answer 40014, gettoken issues a new one. */
  revokeTokens(): void {
    this.tokens.clear();
    this.current = null;
  }

  /** Messages that reached one member. */
  sentTo(member: string): WecomAppMessage[] {
    return this.sent.filter((m) => m.to.includes(member.toLowerCase()));
  }

  reset(): void {
    this.sent.length = 0;
    this.steps.length = 0;
    this.tokenAlways = null;
    this.sendAlways = null;
    this.tokenDelayMs = 0;
    this.calls = { token: 0, send: 0, agent: 0 };
  }

  /** WeCom's error answer. */
  private error(errcode: number, errmsg?: string): FakeReply {
    return { json: { errcode, errmsg: (errmsg ?? ERRMSG[errcode] ?? 'error') + hint(errcode) } };
  }

  /** The errcode for a request's access token (0 when it is good). */
  private tokenRefusal(token: string | null): number {
    if (!token) return 41001;
    const expiresAt = this.tokens.get(token);
    if (expiresAt === undefined) return 40014;
    if (expiresAt <= this.now()) return 42001;
    return 0;
  }

  private isMember(id: string): boolean {
    const lower = id.toLowerCase();
    return [...this.members].some((m) => m.toLowerCase() === lower);
  }

  private isUnlicensed(id: string): boolean {
    const lower = id.toLowerCase();
    return [...this.unlicensed].some((m) => m.toLowerCase() === lower);
  }

  private async handle(method: string, rawUrl: string, body: string): Promise<FakeReply> {
    const url = new URL(rawUrl, 'http://fake');
    const q = url.searchParams;

    if (url.pathname === '/cgi-bin/gettoken' && method === 'GET') {
      this.calls.token++;
      if (this.tokenDelayMs) await sleep(this.tokenDelayMs);
      if (this.tokenAlways) return this.error(this.tokenAlways);
      const corpid = q.get('corpid');
      const secret = q.get('corpsecret');
      if (!corpid) return this.error(41002);
      if (!secret) return this.error(41004);
      if (corpid !== this.corpId) return this.error(40013);
      if (secret !== this.secret) return this.error(40001);
      const expiresAt = this.current ? this.tokens.get(this.current) : undefined;
      // While a token lasts, WeCom hands back the same one.
      if (this.current && expiresAt !== undefined && expiresAt > this.now()) {
        return { json: { errcode: 0, errmsg: 'ok', access_token: this.current, expires_in: Math.floor((expiresAt - this.now()) / 1000) } };
      }
      this.counter++;
      const token = `WWFAKE_${this.counter}_${Math.random().toString(36).slice(2, 12)}`;
      this.tokens.set(token, this.now() + this.tokenLifetime * 1000);
      this.current = token;
      return { json: { errcode: 0, errmsg: 'ok', access_token: token, expires_in: this.tokenLifetime } };
    }

    if (url.pathname === '/cgi-bin/agent/get' && method === 'GET') {
      this.calls.agent++;
      const refused = this.tokenRefusal(q.get('access_token'));
      if (refused) return this.error(refused);
      const agentid = q.get('agentid');
      if (!agentid) return this.error(41011);
      if (!/^\d+$/.test(agentid)) return this.error(40056);
      if (Number(agentid) !== this.agentId) return this.error(301002);
      return {
        json: { errcode: 0, errmsg: 'ok', agentid: this.agentId, name: 'PennyPost alerts', square_logo_url: '', description: '', close: 0, redirect_domain: '', home_url: '' },
      };
    }

    if (url.pathname === '/cgi-bin/message/send' && method === 'POST') {
      this.calls.send++;
      const token = q.get('access_token');
      const refused = this.tokenRefusal(token);
      if (refused) return this.error(refused);
      const step = this.steps.shift();
      if (step && 'delayMs' in step) await sleep(step.delayMs);
      else if (step && 'status' in step) return { status: step.status };
      else if (step) return this.error(step.errcode, step.errmsg);
      if (this.sendAlways) return this.error(this.sendAlways);
      let input: Record<string, any> | null; // the body's JSON: null is JSON too
      try {
        input = JSON.parse(body);
      } catch {
        return this.error(40058, 'invalid json');
      }
      if (!input || typeof input !== 'object') return this.error(40058);
      if (input.agentid === undefined || input.agentid === '') return this.error(41011);
      if (!Number.isInteger(Number(input.agentid))) return this.error(40056);
      if (Number(input.agentid) !== this.agentId) return this.error(301002);
      const touser = typeof input.touser === 'string' ? input.touser : '';
      const ids = touser ? touser.split('|') : [];
      if (ids.length === 0 || ids.length > 1000) return this.error(40058, 'invalid touser');
      const message = this.message(input);
      if (typeof message === 'number') return this.error(message);
      const all = ids.includes('@all');
      const members = [...this.members].map((m) => m.toLowerCase());
      const named = [...new Set(ids.map((id) => id.toLowerCase()))];
      const invalid = all ? [] : named.filter((id) => !this.isMember(id));
      const unlicensed = (all ? members : named).filter((id) => this.isMember(id) && this.isUnlicensed(id));
      const reached = (all ? members : named).filter((id) => this.isMember(id) && !this.isUnlicensed(id));
      // No member reached (none known, or none with a licence): the whole call fails.
      if (reached.length === 0) return this.error(81013);
      this.counter++;
      this.sent.push({ ...message, to: reached, touser, agentid: Number(input.agentid), token: token ?? '' });
      return {
        json: {
          errcode: 0,
          errmsg: 'ok',
          ...(invalid.length ? { invaliduser: invalid.join('|') } : {}),
          ...(unlicensed.length ? { unlicenseduser: unlicensed.join('|') } : {}),
          msgid: `fake_msgid_${this.counter}`,
        },
      };
    }

    return { status: 404 };
  }

  /** The message of a send body, or the errcode WeCom answers for it. */
  private message(input: Record<string, any>): Pick<WecomAppMessage, 'msgtype' | 'content' | 'textcard'> | number {
    const msgtype: unknown = input.msgtype;
    if (msgtype === 'text' || msgtype === 'markdown') {
      const content: unknown = input[msgtype]?.content;
      if (typeof content !== 'string' || content === '') return 44004;
      if (bytes(content) > 2048) return 45002;
      return { msgtype, content };
    }
    if (msgtype === 'textcard') {
      const card = input.textcard;
      if (!card || typeof card !== 'object') return 40058;
      const { title, description, url, btntxt } = card as Record<string, unknown>;
      if (typeof title !== 'string' || !title || typeof description !== 'string' || !description) return 44004;
      if (typeof url !== 'string' || !/^https?:\/\//.test(url)) return 40058;
      if (bytes(title) > 128 || bytes(description) > 512 || bytes(url) > 2048) return 45002;
      return { msgtype, textcard: { title, description, url, ...(typeof btntxt === 'string' ? { btntxt } : {}) } };
    }
    return 40008;
  }
}
