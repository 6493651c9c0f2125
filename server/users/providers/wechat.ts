import type { Settings } from '../../config/settings';
import { usersErrors } from '../errors';
import { OutboundError, outboundJson } from '../../lib/outbound';

export interface PlatformIdentity {
  /** Stable id of the person for this app (WeChat openid, Alipay user_id). */
  id: string;
  nickname?: string;
  avatar?: string;
}

type WechatConfig = NonNullable<Settings['auth']['wechat']>;

interface WechatAnswer {
  errcode?: number;
  errmsg?: string;
  openid?: string;
  unionid?: string;
  access_token?: string;
  scope?: string;
  session_key?: string;
  nickname?: string;
  headimgurl?: string;
}

/** errcodes that mean the server's own credentials are wrong (not the user's code). */
const CONFIG_ERRCODES = new Set([40001, 40013, 40125, 40164, 40243, 41002, 41004, 48001]);

function fail(answer: WechatAnswer): never {
  const code = answer.errcode ?? 0;
  const detail = `${code} ${answer.errmsg ?? ''}`.trim();
  if (CONFIG_ERRCODES.has(code)) {
    throw usersErrors.wechatRefusedCredentials(detail);
  }
  if (code === -1 || code === 45011) {
    throw usersErrors.wechatBusy(detail);
  }
  // 40029 invalid code, 40163 code been used, 40226 high-risk user, …: the user's side.
  throw usersErrors.platformCodeRefused('WeChat', detail);
}

/**
 * WeChat sign-in: exchange the authorization code for the user's openid.
 * - mode 'oauth' (website/app): GET /sns/oauth2/access_token, then /sns/userinfo when the scope
 *   allows it, for the nickname and avatar;
 * - mode 'miniprogram': GET /sns/jscode2session.
 */
export async function wechatIdentity(config: WechatConfig, code: string, timeoutMs: number): Promise<PlatformIdentity> {
  const base = config.apiBase.replace(/\/+$/, '');
  const query = (params: Record<string, string>) => new URLSearchParams(params).toString();
  try {
    if (config.mode === 'miniprogram') {
      const answer = await outboundJson<WechatAnswer>(
        `${base}/sns/jscode2session?${query({ appid: config.appId, secret: config.appSecret, js_code: code, grant_type: 'authorization_code' })}`,
        { timeoutMs, service: 'WeChat' },
      );
      if (answer.errcode || !answer.openid) fail(answer.errcode ? answer : { errcode: -2, errmsg: 'no openid in the answer' });
      return { id: answer.openid };
    }
    const token = await outboundJson<WechatAnswer>(
      `${base}/sns/oauth2/access_token?${query({ appid: config.appId, secret: config.appSecret, code, grant_type: 'authorization_code' })}`,
      { timeoutMs, service: 'WeChat' },
    );
    if (token.errcode || !token.openid || !token.access_token) fail(token.errcode ? token : { errcode: -2, errmsg: 'no openid in the answer' });
    const identity: PlatformIdentity = { id: token.openid };
    if ((token.scope ?? '').split(',').includes('snsapi_userinfo')) {
      const info = await outboundJson<WechatAnswer>(`${base}/sns/userinfo?${query({ access_token: token.access_token, openid: token.openid, lang: 'zh_CN' })}`, {
        timeoutMs,
        service: 'WeChat',
      }).catch(() => null); // profile is a nicety; sign-in does not depend on it
      if (info && !info.errcode) {
        identity.nickname = info.nickname;
        identity.avatar = info.headimgurl;
      }
    }
    return identity;
  } catch (error) {
    if (error instanceof OutboundError) throw usersErrors.platformFailed('WeChat', error.message);
    throw error;
  }
}
