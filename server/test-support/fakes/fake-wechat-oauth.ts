import { listenFake, sendJson, type FakeServer } from './listen';

export interface FakeWechatOauthUser {
  openid: string;
  unionid?: string;
  nickname?: string;
  headimgurl?: string;
  /** snsapi_base (openid only) or snsapi_userinfo (profile too). */
  scope?: string;
}

/**
 * WeChat's OAuth code exchange as the public docs describe it: GET /sns/oauth2/access_token,
 * /sns/userinfo and the mini-program /sns/jscode2session, with their errcode answers
 * (40013 invalid appid, 40125 invalid appsecret, 40029 invalid code, 40163 code been used).
 * Codes are single-use.
 */
export class FakeWechatOauth {
  readonly codes = new Map<string, FakeWechatOauthUser>();
  readonly used = new Set<string>();
  readonly tokens = new Map<string, FakeWechatOauthUser>();
  requests = 0;
  server!: FakeServer;

  constructor(
    readonly appId = 'wx-test-app',
    readonly appSecret = 'wx-test-secret',
  ) {}

  async start(): Promise<this> {
    this.server = await listenFake((req, res) => {
      this.requests++;
      const url = new URL(req.url ?? '/', 'http://fake');
      const q = url.searchParams;
      const checkApp = () => {
        if (q.get('appid') !== this.appId) return { errcode: 40013, errmsg: 'invalid appid' };
        if (q.get('secret') !== this.appSecret) return { errcode: 40125, errmsg: 'invalid appsecret' };
        if (q.get('grant_type') !== 'authorization_code') return { errcode: 40002, errmsg: 'invalid grant_type' };
        return null;
      };
      const takeCode = (code: string | null) => {
        if (!code || !this.codes.has(code)) return { error: { errcode: 40029, errmsg: 'invalid code' } };
        if (this.used.has(code)) return { error: { errcode: 40163, errmsg: 'code been used' } };
        this.used.add(code);
        return { user: this.codes.get(code)! };
      };
      if (url.pathname === '/sns/oauth2/access_token') {
        const appError = checkApp();
        if (appError) {
          sendJson(res, appError);
          return;
        }
        const taken = takeCode(q.get('code'));
        if (taken.error) {
          sendJson(res, taken.error);
          return;
        }
        const accessToken = `at-${Math.random().toString(36).slice(2)}`;
        this.tokens.set(accessToken, taken.user);
        sendJson(res, {
          access_token: accessToken,
          expires_in: 7200,
          refresh_token: 'rt',
          openid: taken.user.openid,
          scope: taken.user.scope ?? 'snsapi_base',
          ...(taken.user.unionid ? { unionid: taken.user.unionid } : {}),
        });
        return;
      }
      if (url.pathname === '/sns/userinfo') {
        const user = this.tokens.get(q.get('access_token') ?? '');
        if (!user || user.openid !== q.get('openid')) {
          sendJson(res, { errcode: 40001, errmsg: 'invalid credential, access_token is invalid' });
          return;
        }
        sendJson(res, { openid: user.openid, nickname: user.nickname ?? '', headimgurl: user.headimgurl ?? '' });
        return;
      }
      if (url.pathname === '/sns/jscode2session') {
        const appError = checkApp();
        if (appError) {
          sendJson(res, appError);
          return;
        }
        const taken = takeCode(q.get('js_code'));
        if (taken.error) {
          sendJson(res, taken.error);
          return;
        }
        sendJson(res, { openid: taken.user.openid, session_key: 'sk', ...(taken.user.unionid ? { unionid: taken.user.unionid } : {}) });
        return;
      }
      sendJson(res, { errcode: 404, errmsg: 'not found' }, 404);
    });
    return this;
  }

  /** Issues a fresh single-use code for a person. */
  issueCode(user: FakeWechatOauthUser): string {
    const code = `code-${Math.random().toString(36).slice(2)}`;
    this.codes.set(code, user);
    return code;
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
