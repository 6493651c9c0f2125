import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeAlipay } from '../test-support/fakes/fake-alipay';
import { FakeWechatOauth } from '../test-support/fakes/fake-wechat-oauth';
import { startTestServer, type TestServer } from '../test-support/test-server';
import { alipaySignContent, extractJsonNode } from './providers/alipay';
import { commonErrors } from '../lib/errors';
import { usersErrors } from './errors';
import { expectRefusal } from '../test-support/refusal';

const rsaKeys = () => promisify(generateKeyPair)('rsa', { modulusLength: 2048 });

describe('platform sign-in not configured', () => {
  it('answers 400 saying which setting is missing', async () => {
    const t = await startTestServer();
    try {
      const wechat = await t.api('user.login', { platform: 'wechat', code: 'abc' });
      expectRefusal(wechat, usersErrors.rows.platformNotConfigured);
      expect(wechat.message).toMatch(/WeChat sign-in is not configured.*auth\.wechat/);
      const alipay = await t.api('user.login', { platform: 'alipay', authCode: 'abc' });
      expectRefusal(alipay, usersErrors.rows.platformNotConfigured);
      expect(alipay.message).toMatch(/auth\.alipay/);
      expect((await t.api('user.login', { platform: 'wechat' })).message).toMatch(/params.code is required/);
      expectRefusal(await t.api('user.login', { platform: 'qq', code: 'x' }), commonErrors.rows.invalid);
    } finally {
      await t.close();
    }
  });
});

describe('WeChat sign-in against a fake of the OAuth API', () => {
  let fake: FakeWechatOauth;
  let t: TestServer;
  beforeAll(async () => {
    fake = await new FakeWechatOauth().start();
    t = await startTestServer({ settings: { auth: { wechat: { appId: fake.appId, appSecret: fake.appSecret, apiBase: fake.server.url, mode: 'oauth' } } } });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it('creates the account on first sign-in and finds it afterwards, with the profile when the scope allows', async () => {
    const person = { openid: 'o-alice', scope: 'snsapi_userinfo', nickname: 'Alice', headimgurl: 'https://thirdwx.qlogo.cn/a.png' };
    const first = await t.api('user.login', { platform: 'wechat', code: fake.issueCode(person), deviceId: 'phone' });
    expect(first.status).toBe(200);
    expect(first.data.username).toMatch(/^wechat_[0-9A-Za-z]{8}$/);
    expect(first.data.avatar).toBe('https://thirdwx.qlogo.cn/a.png');
    expect(first.data.email).toBe('');
    const again = await t.api('user.login', { platform: 'wechat', code: fake.issueCode(person) });
    expect(again.data.id).toBe(first.data.id);
    const other = await t.api('user.login', { platform: 'wechat', code: fake.issueCode({ openid: 'o-bob' }) });
    expect(other.data.id).not.toBe(first.data.id);
    expect((await t.api('user.verifyToken', { token: other.data.token })).code).toBe(200);
  });

  it('answers 1002 for an invalid or reused code', async () => {
    const invalid = await t.api('user.login', { platform: 'wechat', code: 'never-issued' });
    expectRefusal(invalid, usersErrors.rows.platformCodeRefused);
    expect(invalid.message).toMatch(/40029/);
    const code = fake.issueCode({ openid: 'o-carol' });
    expect((await t.api('user.login', { platform: 'wechat', code })).code).toBe(200);
    const reused = await t.api('user.login', { platform: 'wechat', code });
    expectRefusal(reused, usersErrors.rows.platformCodeRefused);
    expect(reused.message).toMatch(/40163/);
  });

  it('answers 502 naming the setting when the app secret is wrong, and never echoes the secret', async () => {
    t.server.app.settings.update({ auth: { wechat: { appId: fake.appId, appSecret: 'wrong-secret-value', apiBase: fake.server.url, mode: 'oauth' } } });
    try {
      const answer = await t.api('user.login', { platform: 'wechat', code: fake.issueCode({ openid: 'o-dan' }) });
      expectRefusal(answer, usersErrors.rows.wechatRefusedCredentials);
      expect(answer.message).toMatch(/40125.*auth\.wechat/);
      expect(JSON.stringify(answer)).not.toContain('wrong-secret-value');
    } finally {
      t.server.app.settings.update({ auth: { wechat: { appId: fake.appId, appSecret: fake.appSecret, apiBase: fake.server.url, mode: 'oauth' } } });
    }
  });

  it('supports the mini-program code exchange (jscode2session)', async () => {
    t.server.app.settings.update({ auth: { wechat: { appId: fake.appId, appSecret: fake.appSecret, apiBase: fake.server.url, mode: 'miniprogram' } } });
    const person = { openid: 'o-mini' };
    const first = await t.api('user.login', { platform: 'wechat', code: fake.issueCode(person) });
    expect(first.status).toBe(200);
    const again = await t.api('user.login', { platform: 'wechat', code: fake.issueCode(person) });
    expect(again.data.id).toBe(first.data.id);
    expectRefusal(await t.api('user.login', { platform: 'wechat', code: 'bad' }), usersErrors.rows.platformCodeRefused);
  });

  it('answers 502 when WeChat cannot be reached', async () => {
    t.server.app.settings.update({ auth: { wechat: { appId: 'a', appSecret: 'b', apiBase: 'http://127.0.0.1:9', mode: 'oauth' } } });
    const answer = await t.api('user.login', { platform: 'wechat', code: 'x' });
    expectRefusal(answer, usersErrors.rows.platformFailed);
    expect(answer.message).toMatch(/could not reach WeChat/);
  });
});

describe('Alipay sign-in against a fake of alipay.system.oauth.token', () => {
  let fake: FakeAlipay;
  let t: TestServer;
  beforeAll(async () => {
    fake = await new FakeAlipay().start();
    t = await startTestServer({ settings: { auth: { alipay: fake.settings() } } });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it('signs the request with RSA2, verifies the answer, creates then finds the account', async () => {
    const first = await t.api('user.login', { platform: 'alipay', authCode: fake.issueCode('2088000000000001') });
    expect(first.status).toBe(200);
    expect(first.data.username).toMatch(/^alipay_/);
    const p = fake.lastParams!;
    expect(p).toMatchObject({ method: 'alipay.system.oauth.token', sign_type: 'RSA2', charset: 'utf-8', version: '1.0', grant_type: 'authorization_code' });
    expect(p.timestamp).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const again = await t.api('user.login', { platform: 'alipay', authCode: fake.issueCode('2088000000000001') });
    expect(again.data.id).toBe(first.data.id);
  });

  it('answers 1002 for an invalid code', async () => {
    const answer = await t.api('user.login', { platform: 'alipay', authCode: 'not-issued' });
    expectRefusal(answer, usersErrors.rows.platformCodeRefused);
    expect(answer.message).toMatch(/isv.code-invalid/);
  });

  it('refuses an answer that Alipay did not sign (502), and a request signed with the wrong app key (502)', async () => {
    // Generated off the event loop: a blocked loop can outlast the server's keep-alive timeout and break the next request.
    fake.forgeWith = (await rsaKeys()).privateKey;
    try {
      const forged = await t.api('user.login', { platform: 'alipay', authCode: fake.issueCode('2088000000000002') });
      expectRefusal(forged, usersErrors.rows.platformFailed);
      expect(forged.message).toMatch(/not signed by Alipay/);
    } finally {
      fake.forgeWith = null;
    }
    const otherKey = (await rsaKeys()).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    t.server.app.settings.update({ auth: { alipay: { ...fake.settings(), privateKey: otherKey } } });
    try {
      const badSignature = await t.api('user.login', { platform: 'alipay', authCode: fake.issueCode('2088000000000003') });
      expectRefusal(badSignature, usersErrors.rows.alipayRefusedRequest);
      expect(badSignature.message).toMatch(/isv.invalid-signature/);
    } finally {
      t.server.app.settings.update({ auth: { alipay: fake.settings() } });
    }
  });

  it('builds the sign content and extracts signed nodes exactly', () => {
    expect(alipaySignContent({ b: '2', a: '1', sign: 'x', empty: '' })).toBe('a=1&b=2');
    const body = '{"x_response":{"a":"}\\"{","b":{"c":1}},"sign":"s"}';
    expect(extractJsonNode(body, 'x_response')).toBe('{"a":"}\\"{","b":{"c":1}}');
    expect(extractJsonNode(body, 'missing')).toBeNull();
  });
});
