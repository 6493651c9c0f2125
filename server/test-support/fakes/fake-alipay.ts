import { generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { listenFake, sendJson, type FakeServer } from './listen';

/**
 * Alipay's OpenAPI gateway for `alipay.system.oauth.token`, as documented: a form-encoded POST
 * signed with the app's RSA key (RSA2, params sorted, `sign` and empty values excluded); the
 * answer is `{"alipay_system_oauth_token_response": {...}, "sign": "..."}` where `sign` is
 * SHA256withRSA over the exact JSON text of the response node, by Alipay's key. Errors come as
 * `error_response` with code 40002 / sub_code isv.code-invalid, or 40004 / isv.invalid-signature.
 */
export class FakeAlipay {
  /** The app's key pair (the app keeps the private key, registers the public one). */
  readonly app = generateKeyPairSync('rsa', { modulusLength: 2048 });
  /** Alipay's own key pair: it signs answers with the private key. */
  readonly alipay = generateKeyPairSync('rsa', { modulusLength: 2048 });
  readonly codes = new Map<string, string>();
  /** When set, answers are signed with this key instead (a forged gateway). */
  forgeWith: KeyObject | null = null;
  lastParams: Partial<Record<string, string>> | null = null;
  server!: FakeServer;

  constructor(readonly appId = '2021000000000001') {}

  async start(): Promise<this> {
    this.server = await listenFake((req, res, body) => {
      const params: Partial<Record<string, string>> = Object.fromEntries(new URLSearchParams(body)); // a field may be missing
      this.lastParams = params;
      const signed = (node: string, content: Record<string, unknown>) => {
        const raw = JSON.stringify(content);
        const signature = sign('RSA-SHA256', Buffer.from(raw), this.forgeWith ?? this.alipay.privateKey).toString('base64');
        sendJson(res, `{"${node}":${raw},"sign":"${signature}"}`);
      };
      if (req.method !== 'POST' || params.method !== 'alipay.system.oauth.token') {
        signed('error_response', { code: '40004', msg: 'Business Failed', sub_code: 'isv.invalid-method', sub_msg: 'unknown method' });
        return;
      }
      if (params.app_id !== this.appId) {
        signed('error_response', { code: '40002', msg: 'Invalid Arguments', sub_code: 'isv.invalid-app-id', sub_msg: 'invalid app_id' });
        return;
      }
      const content = Object.keys(params)
        .filter((k) => k !== 'sign' && params[k] !== '')
        .sort()
        .map((k) => `${k}=${String(params[k])}`)
        .join('&');
      const ok = params.sign_type === 'RSA2' && verify('RSA-SHA256', Buffer.from(content), this.app.publicKey, Buffer.from(params.sign ?? '', 'base64'));
      if (!ok) {
        signed('error_response', { code: '40002', msg: 'Invalid Arguments', sub_code: 'isv.invalid-signature', sub_msg: 'invalid signature' });
        return;
      }
      const userId = params.grant_type === 'authorization_code' ? this.codes.get(params.code ?? '') : undefined;
      if (!userId) {
        signed('error_response', { code: '40002', msg: 'Invalid Arguments', sub_code: 'isv.code-invalid', sub_msg: 'auth code invalid' });
        return;
      }
      this.codes.delete(params.code!); // userId was found under it
      signed('alipay_system_oauth_token_response', {
        user_id: userId,
        access_token: 'composeB' + Math.random().toString(36).slice(2),
        expires_in: 1296000,
        refresh_token: 'rt',
        re_expires_in: 2592000,
      });
    });
    return this;
  }

  get gateway(): string {
    return `${this.server.url}/gateway.do`;
  }

  issueCode(userId: string): string {
    const code = `ac-${Math.random().toString(36).slice(2)}`;
    this.codes.set(code, userId);
    return code;
  }

  /** The settings block PennyPost needs for this fake. */
  settings() {
    return {
      appId: this.appId,
      privateKey: this.app.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      alipayPublicKey: this.alipay.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      gateway: this.gateway,
    };
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
