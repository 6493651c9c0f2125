import type { OutboundScope } from '../../http/outbound-policy';
import type { Clock } from '../../lib/clock';
import type { Outcome } from '../deliver';
import { AccessTokens } from './access-tokens';
import { ApiFailure, errcodeCall, type ErrcodeAnswer, type ErrcodeService } from './errcode-api';

/**
 * WeCom (企业微信) application calls (docs/push.md §3 "WeCom application"; the driver is
 * ./wecom-app.ts): an access token from the corp ID and the app's secret (`GET /cgi-bin/gettoken`),
 * cached per channel and refreshed one at a time like the Official Account's; `POST
 * /cgi-bin/message/send` to many members at once; and WeCom's errcodes in the delivery classes,
 * each with what to fix.
 */

export const WECOM_DEFAULT_API_BASE = 'https://qyapi.weixin.qq.com';
export const WECOM_APP_FORMATS = ['textcard', 'text', 'markdown'] as const;
export type WecomAppFormat = (typeof WECOM_APP_FORMATS)[number];

export interface WecomAppConfig {
  corpId: string;
  agentId: number;
  corpSecret: string;
  wecomApiBase: string;
  wecomAppFormat: WecomAppFormat;
}

/** What `touser` may hold in one call: at most 1,000 member ids joined with `|`. */
export const WECOM_TOUSER_MAX = 1000;
/** Every member the app can reach (its visible range). */
export const WECOM_ALL = '@all';

/** Errcodes that mean the access token was refused: drop it, get a fresh one, try once more. */
export const WECOM_TOKEN_ERRCODES = new Set([40014, 41001, 42001]);

const WECOM: ErrcodeService = { name: 'WeCom', baseField: 'wecomApiBase' };

const said = (errmsg: string) => (errmsg ? ` (WeCom: ${errmsg})` : '');

/** What WeCom's IP check asks for (apps created since 2022-06-20 must name the servers that call them). */
const TRUSTED_IP =
  "WeCom refused this computer's IP address: add its public IP to the app's trusted IPs (App management → the app → Trusted IP / 企业可信IP; WeCom may first ask for a trusted domain or a receive-message URL)";

/** Errcodes of `gettoken`: the channel's corp ID or secret, or this computer's address. */
function tokenFailure(errcode: number, errmsg: string): ApiFailure {
  switch (errcode) {
    case -1:
      return new ApiFailure('transient', `WeCom is busy and did not issue an access token; try again shortly${said(errmsg)}.`, errcode);
    case 45009:
      return new ApiFailure('transient', `WeCom says token requests are too frequent; try again in a minute${said(errmsg)}.`, errcode, false);
    case 40013:
      return new ApiFailure('systemic', `WeCom does not know this corp ID: check the channel's corpId (My company → Company info → Company ID)${said(errmsg)}.`, errcode);
    case 40001:
    case 40091:
      return new ApiFailure(
        'systemic',
        `WeCom refused the secret: check the channel's corpSecret — the Secret of this app (App management → the app → Secret), not another app's${said(errmsg)}.`,
        errcode,
      );
    case 41002:
    case 41004:
      return new ApiFailure('systemic', `The channel's corpId or corpSecret is empty${said(errmsg)}.`, errcode);
    case 60020:
      return new ApiFailure('systemic', `${TRUSTED_IP}${said(errmsg)}.`, errcode);
    default:
      return new ApiFailure('systemic', `WeCom refused to issue an access token (errcode ${errcode}): check the channel's corpId and corpSecret${said(errmsg)}.`, errcode);
  }
}

/** A failed outcome. */
export type Refusal = Extract<Outcome, { ok: false }>;

/** Errcodes of `message/send` outside the token class, for every recipient of the call. */
export function sendFailure(errcode: number, errmsg: string): Refusal {
  const fail = (cls: Refusal['cls'], message: string, retryable?: boolean): Refusal => ({
    ok: false,
    cls,
    errcode,
    message: message + said(errmsg) + '.',
    ...(retryable === false ? { retryable } : {}),
  });
  switch (errcode) {
    case -1:
      return fail('transient', 'WeCom was busy');
    case 45033:
      return fail('transient', 'WeCom had too many calls of this app at once');
    case 45009:
      return fail('transient', "WeCom's limit of API calls for this app is reached for now; try again later", false);
    case 60020:
      return fail('systemic', TRUSTED_IP);
    case 40056:
    case 41011:
      return fail('systemic', "WeCom does not know this agentId: check the channel's agentId (App management → the app → AgentId)");
    case 301002:
      return fail('systemic', "The agentId and the secret belong to different apps: take both from the same app's page (App management → the app)");
    case 48002:
    case 60011:
      return fail('systemic', "This app may not send messages to these members: check the app's visible range (可见范围) and that its API is enabled");
    case 40008:
      return fail('systemic', 'WeCom does not take this message form from this app: choose another wecomAppFormat (Text card or Text show everywhere, also in WeChat)');
    case 81013:
    case 82001:
      return fail('recipient', "WeCom knows no such member in this app's visible range: check the member's account (userid) and the app's visible range (可见范围)");
    case 40003:
    case 40031:
    case 60111:
      return fail('recipient', 'This is not the account (userid) of a member of this company: check the recipient');
    case 44004:
    case 45002:
    case 40058:
    case 40033:
      return fail('recipient', `WeCom refused the message's content (empty, too long or malformed, errcode ${errcode})`);
    default:
      return fail('recipient', `WeCom refused this message (errcode ${errcode})`);
  }
}

/** A recipient WeCom lists as invalid in an otherwise accepted call. */
export const notAMember = (): Refusal => ({
  ok: false,
  cls: 'recipient',
  message:
    "WeCom did not deliver to this member: it knows no member with this account (userid) in the app's visible range (可见范围). Check the recipient and the app's visible range.",
});

/** A recipient without the licence WeCom needs to reach them through the API. */
export const unlicensed = (): Refusal => ({
  ok: false,
  cls: 'recipient',
  message: "WeCom did not deliver to this member: they have no WeCom API licence (基础接口许可), or it expired. Give them one in the admin console's licence page.",
});

function apiUrl(config: WecomAppConfig, path: string): string {
  return config.wecomApiBase.replace(/\/+$/, '') + path;
}

function wecomCall(scope: OutboundScope, url: string, init: { method: 'GET' | 'POST'; body?: unknown; timeoutMs: number }, secrets: string[]): Promise<ErrcodeAnswer> {
  return errcodeCall(WECOM, scope, url, init, secrets);
}

/**
 * Access tokens per channel (./access-tokens.ts). WeCom hands back the same token while it lasts;
 * when it refused that token, a second request gets a new one or fails as `token`.
 */
export class WecomTokens extends AccessTokens<WecomAppConfig> {
  constructor(clock: Clock) {
    super(
      clock,
      (config) => `${config.corpId}\u0000${config.corpSecret}\u0000${config.wecomApiBase}`,
      async (scope, config, timeoutMs) => {
        const url = apiUrl(config, `/cgi-bin/gettoken?corpid=${encodeURIComponent(config.corpId)}&corpsecret=${encodeURIComponent(config.corpSecret)}`);
        const answer = await wecomCall(scope, url, { method: 'GET', timeoutMs }, [config.corpSecret]);
        if (answer.errcode) throw tokenFailure(answer.errcode, answer.errmsg ?? '');
        const token = answer.access_token;
        if (typeof token !== 'string' || token.length === 0) throw new ApiFailure('transient', 'WeCom answered without an access token.');
        return { token, expiresIn: typeof answer.expires_in === 'number' ? answer.expires_in : 0 };
      },
      () => new ApiFailure('token', 'WeCom keeps handing out an access token that it then refuses; try again in a minute.'),
    );
  }
}

/** An application message's body without its recipients (`touser` and `agentid` are added per call). */
export type WecomAppMessage =
  | { msgtype: 'text'; text: { content: string } }
  | { msgtype: 'markdown'; markdown: { content: string } }
  | { msgtype: 'textcard'; textcard: { title: string; description: string; url: string } };

/** How WeCom took one call: errcode 0 with the members it did not deliver to, or a refusal for everyone. */
export type WecomSendAnswer = { ok: true; msgId?: string; invalid: Set<string>; unlicensed: Set<string> } | { ok: false; token: boolean; outcome: Refusal };

/** The `|`-joined ids of an answer field, lower-cased (WeCom answers ids in lower case). */
function idSet(value: unknown): Set<string> {
  if (typeof value !== 'string' || !value) return new Set();
  return new Set(value.split('|').map((id) => id.trim().toLowerCase()));
}

/** One `message/send` call to the members in `touser` (at most 1,000, or `@all`). */
export async function wecomAppSend(
  scope: OutboundScope,
  config: WecomAppConfig,
  token: string,
  touser: readonly string[],
  message: WecomAppMessage,
  timeoutMs: number,
): Promise<WecomSendAnswer> {
  const body = { touser: touser.join('|'), agentid: config.agentId, ...message };
  let answer;
  try {
    answer = await wecomCall(scope, apiUrl(config, `/cgi-bin/message/send?access_token=${encodeURIComponent(token)}`), { method: 'POST', body, timeoutMs }, [
      token,
      config.corpSecret,
    ]);
  } catch (error) {
    if (error instanceof ApiFailure)
      return { ok: false, token: false, outcome: { ok: false, cls: error.cls, message: error.message, ...(error.errcode === undefined ? {} : { errcode: error.errcode }) } };
    throw error;
  }
  const errcode = answer.errcode ?? 0;
  if (errcode === 0) {
    const msgId = typeof answer.msgid === 'string' || typeof answer.msgid === 'number' ? String(answer.msgid) : undefined;
    return { ok: true, ...(msgId ? { msgId } : {}), invalid: idSet(answer.invaliduser), unlicensed: idSet(answer.unlicenseduser) };
  }
  if (WECOM_TOKEN_ERRCODES.has(errcode)) {
    return { ok: false, token: true, outcome: { ok: false, cls: 'token', errcode, message: `WeCom refused the access token (errcode ${errcode})${said(answer.errmsg ?? '')}.` } };
  }
  return { ok: false, token: false, outcome: sendFailure(errcode, answer.errmsg ?? '') };
}

/** The app's name (`GET /cgi-bin/agent/get`): checks that the agentId belongs to the secret. */
export async function wecomAgentName(scope: OutboundScope, config: WecomAppConfig, token: string, timeoutMs: number): Promise<string> {
  const url = apiUrl(config, `/cgi-bin/agent/get?access_token=${encodeURIComponent(token)}&agentid=${config.agentId}`);
  const answer = await wecomCall(scope, url, { method: 'GET', timeoutMs }, [token, config.corpSecret]);
  const errcode = answer.errcode ?? 0;
  if (errcode !== 0) {
    if (WECOM_TOKEN_ERRCODES.has(errcode)) throw new ApiFailure('token', `WeCom refused the access token (errcode ${errcode})${said(answer.errmsg ?? '')}.`, errcode);
    const refusal = sendFailure(errcode, answer.errmsg ?? '');
    // No member is involved here: what is not about the channel's settings is still the channel's.
    if (refusal.cls === 'recipient')
      throw new ApiFailure('systemic', `WeCom refused to show the app ${config.agentId} (errcode ${errcode}): check the channel's agentId${said(answer.errmsg ?? '')}.`, errcode);
    throw new ApiFailure(refusal.cls, refusal.message, errcode, refusal.retryable);
  }
  return typeof answer.name === 'string' ? answer.name : '';
}
