import type { OutboundScope } from '../../http/outbound-policy';
import type { Clock } from '../../lib/clock';
import { AccessTokens, type IssuedToken } from './access-tokens';
import { ApiFailure as WechatFailure, errcodeCall, type ErrcodeService } from './errcode-api';
import type { WechatTemplate } from './wechat-templates';

/**
 * WeChat Official Account calls (docs/push.md; the driver is ./wechat.ts): access tokens cached per
 * channel with a safety margin and refreshed one at a time, custom and template sends, and the
 * errcode classes with a plain-words message each.
 */

export const WECHAT_DEFAULT_API_BASE = 'https://api.weixin.qq.com';

export interface WechatConfig {
  appId: string;
  appSecret: string;
  apiBase: string;
  /** 'stable' = POST /cgi-bin/stable_token (recommended, shared with other tools); 'classic' = GET /cgi-bin/token. */
  tokenMode: 'stable' | 'classic';
}

/** A failed WeChat call, already classified (./errcode-api.ts). */
export { ApiFailure as WechatFailure } from './errcode-api';

export const TOKEN_ERRCODES = new Set([40001, 40014, 41001, 42001]);

/** Errcodes from the token endpoint: all mean this channel's configuration needs the user. */
function tokenEndpointFailure(errcode: number, errmsg: string): WechatFailure {
  const said = errmsg ? ` (WeChat: ${errmsg})` : '';
  switch (errcode) {
    case -1:
      return new WechatFailure('transient', `WeChat is busy and did not issue an access token; try again shortly${said}.`, errcode);
    case 45011:
      return new WechatFailure('transient', `WeChat says token requests are too frequent; try again shortly${said}.`, errcode);
    case 40013:
      return new WechatFailure('systemic', `WeChat does not know this AppID: check the channel's appId${said}.`, errcode);
    case 40001:
    case 40125:
      return new WechatFailure('systemic', `WeChat refused the AppSecret: check the channel's appSecret (reset it in the Official Account console if it changed)${said}.`, errcode);
    case 40164:
    case 61004:
      return new WechatFailure(
        'systemic',
        `WeChat refused this computer's IP address: add it to the Official Account's IP whitelist (Settings and Development → Basic configuration)${said}.`,
        errcode,
      );
    case 40243:
      return new WechatFailure('systemic', `WeChat refused the AppSecret because it is frozen or disabled: unfreeze or reset it in the console${said}.`, errcode);
    case 89503:
    case 89501:
      return new WechatFailure('systemic', `WeChat asks the account administrator to confirm this computer's IP address in the console${said}.`, errcode);
    case 45009:
      return new WechatFailure('systemic', `The daily quota of access-token requests of this Official Account is used up; it resets at midnight (Beijing time)${said}.`, errcode);
    case 41002:
    case 41004:
      return new WechatFailure('systemic', `The channel's appId or appSecret is empty${said}.`, errcode);
    default:
      return new WechatFailure('systemic', `WeChat refused to issue an access token (errcode ${errcode}): check the channel's appId and appSecret${said}.`, errcode);
  }
}

/** Errcodes of the send endpoints, outside the token class (handled by the caller). */
export function sendFailure(errcode: number, errmsg: string): WechatFailure {
  const said = errmsg ? ` (WeChat: ${errmsg})` : '';
  switch (errcode) {
    case 43004:
      return new WechatFailure('recipient', `This person does not follow the Official Account; they must follow it first${said}.`, errcode);
    case 43019:
      return new WechatFailure('recipient', `This person is on the Official Account's blacklist; remove them from it to reach them${said}.`, errcode);
    case 40003:
      return new WechatFailure('recipient', `This openid does not belong to a follower of this Official Account: check the recipient's address${said}.`, errcode);
    case 45015:
      return new WechatFailure('recipient', `Custom messages only reach people who wrote to the account in the last 48 hours; use template messages for this app${said}.`, errcode);
    case 45047:
      return new WechatFailure('recipient', `Too many custom messages to this person without a reply from them; they must write to the account first${said}.`, errcode);
    case 43101:
      return new WechatFailure('recipient', `This person declined messages from this account${said}.`, errcode);
    case 43117:
      return new WechatFailure('transient', `WeChat is throttling messages to this person; try again later${said}.`, errcode, false);
    case -1:
      return new WechatFailure('transient', `WeChat was busy${said}.`, errcode);
    case 45011:
      return new WechatFailure('transient', `WeChat says messages are sent too frequently${said}.`, errcode);
    case 40036:
    case 40037:
      return new WechatFailure('systemic', `WeChat does not know the app's templateId: copy the template ID from the Official Account's template list${said}.`, errcode);
    case 47003:
      return new WechatFailure(
        'systemic',
        `The message does not fit the template's fields: save the app again so that its templateFields are checked against the template (e.g. {"title":"thing1","time":"time2"})${said}.`,
        errcode,
      );
    case 48001:
      return new WechatFailure('systemic', `This Official Account may not use this message API (it needs a verified service account or a test account)${said}.`, errcode);
    case 50002:
      return new WechatFailure('systemic', `WeChat has restricted this Official Account's API access; check the account's notifications in the console${said}.`, errcode);
    case 45009:
      return new WechatFailure('systemic', `The daily quota of this message API is used up for the Official Account; it resets at midnight (Beijing time)${said}.`, errcode);
    case 44002:
    case 47001:
      return new WechatFailure('systemic', `WeChat could not read the message PennyPost sent (errcode ${errcode})${said}.`, errcode);
    default:
      return new WechatFailure('recipient', `WeChat refused this message (errcode ${errcode})${said}.`, errcode);
  }
}

interface WechatAnswer {
  errcode?: number;
  errmsg?: string;
  access_token?: unknown;
  expires_in?: unknown;
  msgid?: unknown;
  template_list?: unknown;
}

const WECHAT: ErrcodeService = { name: 'WeChat', baseField: 'apiBase' };

/** One WeChat API call (./errcode-api.ts): only `errmsg` is ever quoted, secrets removed. */
function wechatCall(scope: OutboundScope, url: string, init: { method: 'GET' | 'POST'; body?: unknown; timeoutMs: number }, secrets: string[]): Promise<WechatAnswer> {
  return errcodeCall(WECHAT, scope, url, init, secrets);
}

function apiUrl(config: WechatConfig, path: string): string {
  return config.apiBase.replace(/\/+$/, '') + path;
}

/** Identifies the credentials a cached token belongs to (kept in memory only, like the token). */
function fingerprintOf(config: WechatConfig): string {
  return `${config.appId}\u0000${config.appSecret}\u0000${config.apiBase}\u0000${config.tokenMode}`;
}

async function fetchToken(scope: OutboundScope, config: WechatConfig, timeoutMs: number, force: boolean): Promise<IssuedToken> {
  const secrets = [config.appSecret];
  const answer =
    config.tokenMode === 'classic'
      ? await wechatCall(
          scope,
          apiUrl(config, `/cgi-bin/token?grant_type=client_credential&appid=${encodeURIComponent(config.appId)}&secret=${encodeURIComponent(config.appSecret)}`),
          { method: 'GET', timeoutMs },
          secrets,
        )
      : await wechatCall(
          scope,
          apiUrl(config, '/cgi-bin/stable_token'),
          { method: 'POST', body: { grant_type: 'client_credential', appid: config.appId, secret: config.appSecret, force_refresh: force }, timeoutMs },
          secrets,
        );
  if (answer.errcode) throw tokenEndpointFailure(answer.errcode, answer.errmsg ?? '');
  const token = answer.access_token;
  if (typeof token !== 'string' || token.length === 0) {
    throw new WechatFailure('transient', 'WeChat answered without an access token.');
  }
  return { token, expiresIn: typeof answer.expires_in === 'number' ? answer.expires_in : 0 };
}

/**
 * Access tokens per channel (./access-tokens.ts): cached until the safety margin, one refresh at a
 * time. In stable mode, when stable_token hands back the very token WeChat just refused, one
 * `force_refresh` call replaces it (WeChat allows about 20 a day, so only then).
 */
export class WechatTokens extends AccessTokens<WechatConfig> {
  constructor(clock: Clock) {
    super(
      clock,
      fingerprintOf,
      async (scope, config, timeoutMs, stale) => {
        const issued = await fetchToken(scope, config, timeoutMs, false);
        if (config.tokenMode === 'stable' && stale && issued.token === stale) return fetchToken(scope, config, timeoutMs, true);
        return issued;
      },
      () => new WechatFailure('token', 'WeChat keeps handing out an access token that it then refuses; try again in a minute.'),
    );
  }
}

export type WechatMessage = { kind: 'custom'; content: string } | { kind: 'template'; templateId: string; url?: string; data: Record<string, { value: string }> };

/** One send with a given token. Resolves the msgid, or throws WechatFailure (token class for token errcodes). */
export async function wechatSend(
  scope: OutboundScope,
  config: WechatConfig,
  token: string,
  openid: string,
  message: WechatMessage,
  timeoutMs: number,
): Promise<string | undefined> {
  const path = message.kind === 'custom' ? '/cgi-bin/message/custom/send' : '/cgi-bin/message/template/send';
  const body =
    message.kind === 'custom'
      ? { touser: openid, msgtype: 'text', text: { content: message.content } }
      : { touser: openid, template_id: message.templateId, ...(message.url ? { url: message.url } : {}), data: message.data };
  const answer = await wechatCall(scope, apiUrl(config, `${path}?access_token=${encodeURIComponent(token)}`), { method: 'POST', body, timeoutMs }, [token, config.appSecret]);
  const errcode = answer.errcode ?? 0;
  if (errcode === 0) return typeof answer.msgid === 'number' || typeof answer.msgid === 'string' ? String(answer.msgid) : undefined;
  if (TOKEN_ERRCODES.has(errcode)) throw new WechatFailure('token', `WeChat refused the access token (errcode ${errcode}${answer.errmsg ? `: ${answer.errmsg}` : ''}).`, errcode);
  throw sendFailure(errcode, answer.errmsg ?? '');
}

/** Errcodes of the template list, outside the token class (handled by the caller). */
function templateListFailure(errcode: number, errmsg: string): WechatFailure {
  const said = errmsg ? ` (WeChat: ${errmsg})` : '';
  switch (errcode) {
    case -1:
      return new WechatFailure('transient', `WeChat was busy and did not answer the template list; try again shortly${said}.`, errcode);
    case 45011:
      return new WechatFailure('transient', `WeChat says the template list was asked for too often; try again shortly${said}.`, errcode);
    case 48001:
      return new WechatFailure('systemic', `This Official Account may not use template messages (they need a verified service account or a test account)${said}.`, errcode);
    case 45009:
      return new WechatFailure('systemic', `The daily quota of the template list of this Official Account is used up; it resets at midnight (Beijing time)${said}.`, errcode);
    case 50002:
      return new WechatFailure('systemic', `WeChat has restricted this Official Account's API access; check the account's notifications in the console${said}.`, errcode);
    default:
      return new WechatFailure('systemic', `WeChat refused to list the Official Account's templates (errcode ${errcode})${said}.`, errcode);
  }
}

/**
 * The Official Account's templates (`GET /cgi-bin/template/get_all_private_template`): each with
 * its id, title and content (whose `{{key.DATA}}` placeholders are the keywords). Throws
 * WechatFailure (token class for token errcodes).
 */
export async function wechatTemplates(scope: OutboundScope, config: WechatConfig, token: string, timeoutMs: number): Promise<WechatTemplate[]> {
  const url = apiUrl(config, `/cgi-bin/template/get_all_private_template?access_token=${encodeURIComponent(token)}`);
  const answer = await wechatCall(scope, url, { method: 'GET', timeoutMs }, [token, config.appSecret]);
  const errcode = answer.errcode ?? 0;
  if (TOKEN_ERRCODES.has(errcode)) throw new WechatFailure('token', `WeChat refused the access token (errcode ${errcode}${answer.errmsg ? `: ${answer.errmsg}` : ''}).`, errcode);
  if (errcode !== 0) throw templateListFailure(errcode, answer.errmsg ?? '');
  if (!Array.isArray(answer.template_list)) throw new WechatFailure('transient', "WeChat answered the template list without its list; is the channel's apiBase right?");
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return answer.template_list
    .filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null)
    .map((item) => ({ templateId: text(item.template_id), title: text(item.title), content: text(item.content) }));
}
