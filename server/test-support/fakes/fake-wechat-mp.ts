import type { ServerResponse } from 'node:http';
import { listenFake, sendJson, type FakeServer } from './listen';

/**
 * A WeChat Official Account API as its public documentation describes it, for the push tests:
 *
 * - GET  /cgi-bin/token?grant_type=client_credential&appid=&secret=   (a new token every call)
 * - POST /cgi-bin/stable_token {grant_type, appid, secret, force_refresh}  (the current token
 *   until it nears expiry; force_refresh issues a new one)
 * - POST /cgi-bin/message/custom/send?access_token=   {touser, msgtype:"text", text:{content}}
 * - POST /cgi-bin/message/template/send?access_token= {touser, template_id, url?, data}
 * - GET  /cgi-bin/template/get_all_private_template?access_token=  →  {template_list: [{template_id,
 *   title, primary_industry, deputy_industry, content, example}]} (no errcode when it works; the
 *   content's `{{key.DATA}}` placeholders are the template's keywords)
 *
 * with the errcodes WeChat answers: 40013 (appid), 40001/40125 (secret), 40164 (IP not on the
 * whitelist), 41001 (no token), 40001 (unknown token), 42001 (expired token), 40037 (template),
 * 47003 (template data), 47001 (body). Behaviour is programmable per openid (43004, 43019,
 * 40003, -1 busy, HTTP 500, slow answers), and tokens can be expired or revoked mid-run.
 */

export type Step = { errcode: number; errmsg?: string } | { status: number } | { delayMs: number; then?: Step } | 'ok';

interface TokenInfo {
  expiresAt: number;
}

const ERRMSG: Partial<Record<number, string>> = {
  [-1]: 'system error',
  40001: 'invalid credential, access_token is invalid or not latest',
  40003: 'invalid openid',
  40013: 'invalid appid',
  40037: 'invalid template_id',
  40125: 'invalid appsecret',
  40164: 'invalid ip 127.0.0.1 ipv6 ::ffff:127.0.0.1, not in whitelist',
  41001: 'access_token missing',
  42001: 'access_token expired',
  43004: 'require subscribe',
  43019: 'require remove blacklist',
  45009: 'reach max api daily quota limit',
  45011: 'api minute-quota reach limit',
  45015: 'response out of time limit or subscription is canceled',
  47001: 'data format error',
  47003: 'argument invalid!',
  48001: 'api unauthorized',
};

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface SentMessage {
  type: 'custom' | 'template';
  touser: string;
  content?: string;
  templateId?: string;
  url?: string;
  data?: Record<string, { value: string }>;
  token: string;
}

export class FakeWechatMp {
  server!: FakeServer;
  /** Seconds of life of newly issued tokens. */
  tokenLifetime = 7200;
  /** Delay of every token answer (to hold many concurrent pushes on one refresh). */
  tokenDelayMs = 0;
  /** Refuse every token request with this errcode (e.g. 40164 for an IP not on the whitelist). */
  tokenAlways: number | null = null;
  /** Steps consumed by the next token requests, before normal behaviour. */
  tokenSteps: Step[] = [];
  /** Delay of every send answer. */
  sendDelayMs = 0;
  /** Template ids this account has, with the data keys each requires. */
  readonly templates = new Map<string, string[]>();
  /** What the template list shows of a template (without an entry: its required keys, one placeholder a line). */
  readonly templateInfo = new Map<string, { title: string; content: string }>();
  /** Steps consumed by the next template-list requests (after the token check), before normal behaviour. */
  listSteps: Step[] = [];
  readonly sent: SentMessage[] = [];
  readonly tokens = new Map<string, TokenInfo>();
  private stableToken: string | null = null;
  private readonly steps = new Map<string, Step[]>();
  private readonly always = new Map<string, Step>();
  private counter = 0;
  calls = { token: 0, stable: 0, force: 0, send: 0, list: 0 };

  constructor(
    readonly appId = 'wx0000000000fake01',
    readonly appSecret = 'fake-mp-secret-0123456789abcdef',
    private readonly now: () => number = () => Date.now(),
  ) {}

  get url(): string {
    return this.server.url;
  }

  async start(): Promise<this> {
    this.server = await listenFake((req, res, body) => this.handle(req.method ?? 'GET', req.url ?? '/', body, res));
    return this;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /** Steps for the next sends to `openid`, in order; afterwards it behaves normally (or per `setAlways`). */
  program(openid: string, ...steps: Step[]): void {
    this.steps.set(openid, [...(this.steps.get(openid) ?? []), ...steps]);
  }

  /** A permanent behaviour for `openid` (after any programmed steps). */
  setAlways(openid: string, step: Step): void {
    this.always.set(openid, step);
  }

  /**
   * A template of this account as its template list shows it, e.g. `告警：{{thing1.DATA}}\n时间：{{time2.DATA}}`;
   * `required` are the data keys a send must fill (none by default).
   */
  addTemplate(templateId: string, content: string, options: { title?: string; required?: string[] } = {}): void {
    this.templateInfo.set(templateId, { title: options.title ?? 'PennyPost alert', content });
    this.templates.set(templateId, options.required ?? []);
  }

  /** The template list's entries (WeChat's field names). */
  private templateList(): Array<Record<string, string>> {
    return [...this.templates.keys()].map((id) => {
      const info = this.templateInfo.get(id) ?? { title: 'Test template', content: (this.templates.get(id) ?? []).map((key) => `{{${key}.DATA}}`).join('\n') };
      return { template_id: id, title: info.title, primary_industry: 'IT科技', deputy_industry: '互联网|电子商务', content: info.content, example: '' };
    });
  }

  /** Every issued token expires now: sends answer 42001. */
  expireTokens(): void {
    for (const info of this.tokens.values()) info.expiresAt = this.now() - 1;
  }

  /** Every issued token is forgotten: sends answer 40001 (e.g. someone else fetched a new one). */
  revokeTokens(): void {
    this.tokens.clear();
    this.stableToken = null;
  }

  /** Messages delivered to one openid. */
  sentTo(openid: string): SentMessage[] {
    return this.sent.filter((m) => m.touser === openid);
  }

  reset(): void {
    this.sent.length = 0;
    this.steps.clear();
    this.always.clear();
    this.tokenSteps = [];
    this.tokenAlways = null;
    this.tokenDelayMs = 0;
    this.sendDelayMs = 0;
    this.calls = { token: 0, stable: 0, force: 0, send: 0, list: 0 };
  }

  private issue(): { access_token: string; expires_in: number } {
    this.counter++;
    const token = `FAKE_${this.counter}_${Math.random().toString(36).slice(2, 12)}`;
    this.tokens.set(token, { expiresAt: this.now() + this.tokenLifetime * 1000 });
    return { access_token: token, expires_in: this.tokenLifetime };
  }

  private error(res: ServerResponse, errcode: number, errmsg?: string): void {
    sendJson(res, { errcode, errmsg: errmsg ?? ERRMSG[errcode] ?? 'error' });
  }

  /** The errcode for a request's access token: 41001 none, 40001 unknown, 42001 expired; 0 when it is good. */
  private tokenRefusal(token: string | null): number {
    if (!token) return 41001;
    const info = this.tokens.get(token);
    if (!info) return 40001;
    if (info.expiresAt <= this.now()) return 42001;
    return 0;
  }

  /** Applies a step; returns true when it answered. */
  private async applyStep(step: Step | undefined, res: ServerResponse): Promise<boolean> {
    if (step === undefined || step === 'ok') return false;
    if ('delayMs' in step) {
      await sleep(step.delayMs);
      if (res.destroyed) return true;
      return this.applyStep(step.then, res);
    }
    if ('status' in step) {
      res.writeHead(step.status, { 'content-type': 'text/html' });
      res.end(`<html><body>${step.status}</body></html>`);
      return true;
    }
    this.error(res, step.errcode, step.errmsg);
    return true;
  }

  private async handle(method: string, rawUrl: string, body: string, res: ServerResponse): Promise<void> {
    const url = new URL(rawUrl, 'http://fake');
    const q = url.searchParams;

    if (url.pathname === '/cgi-bin/token' && method === 'GET') {
      this.calls.token++;
      if (this.tokenDelayMs) await sleep(this.tokenDelayMs);
      if (await this.applyStep(this.tokenSteps.shift(), res)) return;
      if (this.tokenAlways) {
        this.error(res, this.tokenAlways);
        return;
      }
      if (q.get('grant_type') !== 'client_credential') {
        this.error(res, 40002, 'invalid grant_type');
        return;
      }
      if (q.get('appid') !== this.appId) {
        this.error(res, 40013);
        return;
      }
      if (q.get('secret') !== this.appSecret) {
        this.error(res, 40001);
        return;
      }
      sendJson(res, this.issue());
      return;
    }

    if (url.pathname === '/cgi-bin/stable_token' && method === 'POST') {
      this.calls.stable++;
      if (this.tokenDelayMs) await sleep(this.tokenDelayMs);
      if (await this.applyStep(this.tokenSteps.shift(), res)) return;
      if (this.tokenAlways) {
        this.error(res, this.tokenAlways);
        return;
      }
      let input: { grant_type?: string; appid?: string; secret?: string; force_refresh?: boolean };
      try {
        input = JSON.parse(body);
      } catch {
        this.error(res, 47001);
        return;
      }
      if (input.grant_type !== 'client_credential') {
        this.error(res, 40002, 'invalid grant_type');
        return;
      }
      if (input.appid !== this.appId) {
        this.error(res, 40013);
        return;
      }
      if (input.secret !== this.appSecret) {
        this.error(res, 40125);
        return;
      }
      if (input.force_refresh) this.calls.force++;
      const current = this.stableToken ? this.tokens.get(this.stableToken) : undefined;
      // Normal mode: the current token while it has more than 5 minutes left.
      if (!input.force_refresh && this.stableToken && current && current.expiresAt - this.now() > 300_000) {
        sendJson(res, { access_token: this.stableToken, expires_in: Math.floor((current.expiresAt - this.now()) / 1000) });
        return;
      }
      const issued = this.issue();
      this.stableToken = issued.access_token;
      sendJson(res, issued);
      return;
    }

    if (url.pathname === '/cgi-bin/template/get_all_private_template' && method === 'GET') {
      this.calls.list++;
      const refused = this.tokenRefusal(q.get('access_token'));
      if (refused) {
        this.error(res, refused);
        return;
      }
      if (await this.applyStep(this.listSteps.shift(), res)) return;
      sendJson(res, { template_list: this.templateList() });
      return;
    }

    const custom = url.pathname === '/cgi-bin/message/custom/send';
    const template = url.pathname === '/cgi-bin/message/template/send';
    if ((custom || template) && method === 'POST') {
      this.calls.send++;
      if (this.sendDelayMs) await sleep(this.sendDelayMs);
      const token = q.get('access_token') ?? '';
      const refused = this.tokenRefusal(token);
      if (refused) {
        this.error(res, refused);
        return;
      }
      let input: Record<string, any> | null; // the body's JSON: null is JSON too
      try {
        input = JSON.parse(body);
      } catch {
        this.error(res, 47001);
        return;
      }
      if (!input || typeof input.touser !== 'string' || !input.touser) {
        this.error(res, 40003);
        return;
      }
      const openid = input.touser;
      const queue = this.steps.get(openid);
      if (await this.applyStep(queue?.shift(), res)) return;
      if (await this.applyStep(this.always.get(openid), res)) return;
      if (custom) {
        if (input.msgtype !== 'text' || typeof input.text?.content !== 'string') {
          this.error(res, 47001);
          return;
        }
        this.sent.push({ type: 'custom', touser: openid, content: input.text.content, token });
        sendJson(res, { errcode: 0, errmsg: 'ok' });
        return;
      }
      const keys = this.templates.get(input.template_id);
      if (!keys) {
        this.error(res, 40037);
        return;
      }
      const data = (input.data ?? {}) as Partial<Record<string, { value?: string }>>;
      for (const key of keys) {
        if (!data[key] || typeof data[key].value !== 'string' || data[key].value === '') {
          this.error(res, 47003, `argument invalid! data.${key}.value is empty`);
          return;
        }
      }
      this.counter++;
      const msgid = 2_000_000_000 + this.counter;
      this.sent.push({ type: 'template', touser: openid, templateId: input.template_id, url: input.url, data: data as Record<string, { value: string }>, token });
      sendJson(res, { errcode: 0, errmsg: 'ok', msgid });
      return;
    }

    sendJson(res, { errcode: 404, errmsg: 'not found' }, 404);
  }
}
