import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock';
import { commonErrors } from '../../lib/errors';
import { createLogger } from '../../lib/logger';
import { FakeWechatMp } from '../../test-support/fakes/fake-wechat-mp';
import { expectRefusal } from '../../test-support/refusal';
import { startPushServer, type PushTestServer } from './helpers';

const clock = new ManualClock(Date.UTC(2026, 10, 20, 8, 0, 0));
const logLines: string[] = [];
let wx: FakeWechatMp;
let t: PushTestServer;

beforeAll(async () => {
  wx = await new FakeWechatMp(undefined, undefined, () => clock.now()).start();
  wx.templates.set('TPL_ALERT', ['title', 'content', 'time']);
  wx.addTemplate('TPL_PROD', '告警内容：{{thing1.DATA}}\n告警时间：{{time2.DATA}}\n告警详情：{{thing3.DATA}}', { required: ['thing1', 'time2'] });
  t = await startPushServer({
    clock,
    logger: createLogger('debug', (line) => logLines.push(line)),
    settings: { push: { callTimeoutMs: 400, requestDeadlineMs: 4000 }, network: { publicBaseUrl: 'https://pp.example.net/' } },
  });
});
afterAll(async () => {
  await t.close();
  await wx.close();
});
beforeEach(() => wx.reset());

const wechat = (extra: Record<string, unknown> = {}) => ({ appId: wx.appId, appSecret: wx.appSecret, apiBase: wx.url, ...extra });

describe('custom and template messages', () => {
  it('sends custom text "title\\n\\ndesp" with a link to every recipient, reusing one cached token', async () => {
    const { appKey } = await t.setup({ type: 'wechat', config: wechat(), recipients: ['openid_alice', 'openid_bob'] });
    const first = await t.push(`/send/${appKey}`, { json: { title: 'Disk almost full', desp: '/var is **91%** full' } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ code: 0, message: 'Delivered to all 2 recipients.', data: { total: 2, success: 2, failed: 0 } });
    expect(first.body.data.results).toEqual([
      { recipient: 'openid_alice', name: 'name-openid_alice', ok: true, class: 'ok', attempts: 1 },
      { recipient: 'openid_bob', name: 'name-openid_bob', ok: true, class: 'ok', attempts: 1 },
    ]);
    const content = wx.sentTo('openid_alice').at(0)!.content!;
    expect(content).toMatch(/^Disk almost full\n\n\/var is \*\*91%\*\* full\n\nhttps:\/\/pp\.example\.net\/m\/[0-9a-z]{9}[0-9A-Za-z]{10}\.[A-Za-z0-9_-]{22}$/);
    expect(first.body.data.url).toBe(content.split('\n\n').pop());
    const second = await t.push(`/send/${appKey}`, { query: { title: 'again' } });
    expect(second.body.data.success).toBe(2);
    expect(wx.sentTo('openid_bob')[1]?.content).toMatch(/^again\n\nhttps:/);
    expect(wx.calls.stable).toBe(1);
    expect(wx.calls.token).toBe(0);
  });

  it('sends template messages with title, desp and time mapped to the data keys and url to the message page', async () => {
    const { appKey } = await t.setup({ type: 'wechat', config: wechat(), app: { messageType: 'template', templateId: 'TPL_ALERT' }, recipients: ['openid_carol'] });
    const res = await t.push(`/${appKey}.send`, { form: { title: 'Backup done', desp: '3.2 GB in 4 min' } });
    expect(res.body.data.results[0]).toMatchObject({ ok: true, class: 'ok', msgId: expect.stringMatching(/^\d+$/) });
    const sent = wx.sentTo('openid_carol').at(0)!;
    expect(sent).toMatchObject({ type: 'template', templateId: 'TPL_ALERT', url: res.body.data.url });
    expect(sent.data).toEqual({
      title: { value: 'Backup done' },
      content: { value: '3.2 GB in 4 min' },
      time: { value: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/) },
    });
    const page = await t.fetch(new URL(sent.url!).pathname);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('3.2 GB in 4 min');

    // A template of WeChat's current library: the app maps nothing, the keywords come from the template list.
    const prod = await t.setup({ type: 'wechat', config: wechat(), app: { messageType: 'template', templateId: 'TPL_PROD' }, recipients: ['openid_dave'] });
    const ok = await t.push(`/send/${prod.appKey}`, { query: { title: 'T', desp: 'D' } });
    expect(ok.body.data.success).toBe(1);
    expect(wx.sentTo('openid_dave')[0]?.data).toEqual({
      thing1: { value: 'T' },
      thing3: { value: 'D' },
      time2: { value: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/) },
    });
  });
});

describe('error classes', () => {
  it('reports recipient-class failures per recipient without retrying (partial success)', async () => {
    const { appKey, appId } = await t.setup({ type: 'wechat', config: wechat(), recipients: ['openid_ok', 'openid_unfollowed', 'openid_blocked', 'openid_wrong'] });
    wx.setAlways('openid_unfollowed', { errcode: 43004 });
    wx.setAlways('openid_blocked', { errcode: 43019 });
    wx.setAlways('openid_wrong', { errcode: 40003 });
    const res = await t.push(`/send/${appKey}`, { query: { title: 'partial' } });
    expect(res.status).toBe(200);
    expect(res.body.code).toBe(0);
    expect(res.body.data).toMatchObject({ total: 4, success: 1, failed: 3 });
    expect(res.body.message).toMatch(/^Delivered to 1 of 4 recipients; 3 failed: This person does not follow the Official Account/);
    const byRecipient = Object.fromEntries(res.body.data.results.map((r: any) => [r.recipient, r]));
    expect(byRecipient.openid_ok).toMatchObject({ ok: true, class: 'ok' });
    expect(byRecipient.openid_unfollowed).toMatchObject({ ok: false, class: 'recipient', errcode: 43004, attempts: 1 });
    expect(byRecipient.openid_unfollowed.errmsg).toMatch(/does not follow the Official Account; they must follow it first/);
    expect(byRecipient.openid_blocked).toMatchObject({ class: 'recipient', errcode: 43019, attempts: 1 });
    expect(byRecipient.openid_blocked.errmsg).toMatch(/blacklist/);
    expect(byRecipient.openid_wrong).toMatchObject({ class: 'recipient', errcode: 40003, attempts: 1 });
    expect(wx.calls.send).toBe(4);
    const history = await t.call('push.getMessage', { id: res.body.data.pushId });
    expect(history.data).toMatchObject({ appId, status: 'partial', success: 1, failed: 3 });
    expect(history.data.results).toEqual(res.body.data.results);
  });

  it('token expired mid-run (42001): drops the token, fetches one new token for everyone, retries once', async () => {
    const { appKey } = await t.setup({ type: 'wechat', config: wechat(), recipients: ['openid_e1', 'openid_e2', 'openid_e3', 'openid_e4', 'openid_e5'] });
    expect((await t.push(`/send/${appKey}`, { query: { title: 'warm' } })).body.data.success).toBe(5);
    const stableBefore = wx.calls.stable;
    wx.expireTokens();
    const res = await t.push(`/send/${appKey}`, { query: { title: 'after expiry' } });
    expect(res.body.data).toMatchObject({ success: 5, failed: 0 });
    expect(wx.calls.stable - stableBefore).toBe(1);
    expect(wx.sentTo('openid_e3').map((m) => m.content)).toContain('after expiry\n\n' + String(res.body.data.url));
  });

  it('token revoked mid-run (40001): a new token when stable_token hands back the refused one is forced', async () => {
    const { appKey } = await t.setup({ type: 'wechat', config: wechat(), recipients: ['openid_r1', 'openid_r2'] });
    await t.push(`/send/${appKey}`, { query: { title: 'warm' } });
    // WeChat refuses the token although stable_token still considers it current.
    wx.program('openid_r1', { errcode: 40001 });
    const res = await t.push(`/send/${appKey}`, { query: { title: 'refused token' } });
    expect(res.body.data.success).toBe(2);
    expect(wx.calls.force).toBe(1);
    // Every token forgotten on WeChat's side (someone else reset it): a normal refresh suffices.
    wx.revokeTokens();
    const again = await t.push(`/send/${appKey}`, { query: { title: 'revoked' } });
    expect(again.body.data.success).toBe(2);
    expect(wx.calls.force).toBe(1);
  });

  it('reports class token when WeChat refuses even the fresh token', async () => {
    const { appKey } = await t.setup({ type: 'wechat', config: wechat(), recipients: ['openid_tk'] });
    wx.program('openid_tk', { errcode: 40014 }, { errcode: 40014 });
    const res = await t.push(`/send/${appKey}`, { query: { title: 'x' } });
    expect(res.status).toBe(500);
    expect(res.body.data.results[0]).toMatchObject({ ok: false, class: 'token', errcode: 40014 });
  });

  it('systemic: a wrong AppSecret or an IP outside the whitelist fails every recipient with what to fix', async () => {
    const bad = await t.setup({ type: 'wechat', config: wechat({ appSecret: 'wrong-secret-value' }), recipients: ['openid_s1', 'openid_s2'] });
    const res = await t.push(`/send/${bad.appKey}`, { query: { title: 'x' } });
    expectRefusal({ status: res.status, ...res.body }, commonErrors.rows.internal);
    expect(res.body.data).toMatchObject({ total: 2, success: 0, failed: 2 });
    for (const r of res.body.data.results) {
      expect(r).toMatchObject({ ok: false, class: 'systemic', errcode: 40125 });
      expect(r.errmsg).toMatch(/WeChat refused the AppSecret: check the channel's appSecret/);
    }
    expect(res.body.message).toMatch(/Nothing was delivered to the 2 recipients: WeChat refused the AppSecret/);
    expect(wx.calls.send).toBe(0);
    expect((await t.call('push.getMessage', { id: res.body.data.pushId })).data.status).toBe('failed');

    const ip = await t.setup({ type: 'wechat', config: wechat(), recipients: ['openid_ip'] });
    wx.tokenAlways = 40164;
    const blocked = await t.push(`/send/${ip.appKey}`, { query: { title: 'x' } });
    expect(blocked.body.data.results[0]).toMatchObject({ class: 'systemic', errcode: 40164 });
    expect(blocked.body.message).toMatch(/add it to the Official Account's IP whitelist/);
    const test = await t.call('push.testChannel', { id: ip.channelId });
    expect(test.data).toMatchObject({ ok: false, class: 'systemic', errcode: 40164 });
    expect(test.data.message).toMatch(/IP whitelist/);
    wx.tokenAlways = null;
    const fine = await t.call('push.testChannel', { id: ip.channelId });
    expect(fine.data).toMatchObject({ ok: true, message: expect.stringMatching(/issued an access token/) });
    const badTest = await t.call('push.testChannel', { id: bad.channelId });
    expect(badTest.data).toMatchObject({ ok: false, class: 'systemic', errcode: 40125 });
  });

  it('systemic for the app (unknown template): the first failure stops the recipients still queued', async () => {
    t.server.app.settings.update({ push: { concurrency: 1 } });
    wx.templates.set('TPL_GONE', ['title']);
    try {
      const { appKey } = await t.setup({
        type: 'wechat',
        config: wechat(),
        app: { messageType: 'template', templateId: 'TPL_GONE' },
        recipients: ['openid_t1', 'openid_t2', 'openid_t3'],
      });
      // Deleted from the account after the app was saved.
      wx.templates.delete('TPL_GONE');
      const res = await t.push(`/send/${appKey}`, { query: { title: 'x' } });
      expect(res.status).toBe(500);
      const [first, ...rest] = res.body.data.results;
      expect(first).toMatchObject({ class: 'systemic', errcode: 40037, attempts: 1 });
      expect(first.errmsg).toMatch(/does not know the app's templateId/);
      for (const r of rest) expect(r).toMatchObject({ class: 'systemic', errcode: 40037, attempts: 0, errmsg: expect.stringMatching(/^Not sent: /) });
      expect(wx.calls.send).toBe(1);
    } finally {
      t.server.app.settings.update({ push: { concurrency: 8 } });
    }
  });

  it('transient: busy (-1) and HTTP 500 are retried with backoff; persistent busy gives up after 3 attempts', async () => {
    const { appKey } = await t.setup({ type: 'wechat', config: wechat(), recipients: ['openid_busy', 'openid_500', 'openid_always_busy'] });
    wx.program('openid_busy', { errcode: -1 });
    wx.program('openid_500', { status: 500 });
    wx.setAlways('openid_always_busy', { errcode: -1 });
    const res = await t.push(`/send/${appKey}`, { query: { title: 'x' } });
    const by = Object.fromEntries(res.body.data.results.map((r: any) => [r.recipient, r]));
    expect(by.openid_busy).toMatchObject({ ok: true, attempts: 2 });
    expect(by.openid_500).toMatchObject({ ok: true, attempts: 2 });
    expect(by.openid_always_busy).toMatchObject({ ok: false, class: 'transient', errcode: -1, attempts: 3 });
    expect(res.body.code).toBe(0);
  });

  it('transient: an answer slower than the call timeout is abandoned and retried; a recipient that is always slow fails as transient', async () => {
    const { appKey } = await t.setup({ type: 'wechat', config: wechat(), recipients: ['openid_slow_once', 'openid_slow_always'] });
    wx.program('openid_slow_once', { delayMs: 1500 });
    wx.setAlways('openid_slow_always', { delayMs: 1500 });
    const res = await t.push(`/send/${appKey}`, { query: { title: 'slow' } });
    const by = Object.fromEntries(res.body.data.results.map((r: any) => [r.recipient, r]));
    expect(by.openid_slow_once).toMatchObject({ ok: true, attempts: 2 });
    expect(by.openid_slow_always).toMatchObject({ ok: false, class: 'transient' });
    expect(by.openid_slow_always.errmsg).toMatch(/no answer within 400 ms/);
  });

  it('a failing token endpoint (HTTP 500, then ok) is retried inside the deadline', async () => {
    const { appKey } = await t.setup({ type: 'wechat', config: wechat(), recipients: ['openid_tok500'] });
    wx.tokenSteps = [{ status: 500 }];
    const res = await t.push(`/send/${appKey}`, { query: { title: 'x' } });
    expect(res.body.data.results[0]).toMatchObject({ ok: true });
    expect(wx.calls.stable).toBe(2);
  });
});

describe('token cache', () => {
  it('one token request for 50 concurrent pushes on a cold channel, and one after expiry', async () => {
    const { appKey } = await t.setup({ type: 'wechat', config: wechat(), recipients: ['openid_c1', 'openid_c2'] });
    wx.tokenDelayMs = 150;
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => t.push(`/send/${appKey}`, { query: { title: `burst ${i}` } })));
    expect(answers.every((a) => a.status === 200 && a.body.data.success === 2)).toBe(true);
    expect(wx.calls.stable).toBe(1);
    wx.expireTokens();
    const again = await Promise.all(Array.from({ length: 50 }, (_, i) => t.push(`/send/${appKey}`, { query: { title: `burst2 ${i}` } })));
    expect(again.every((a) => a.body.data.success === 2)).toBe(true);
    expect(wx.calls.stable).toBe(2);
    // Every push reached both recipients (a send retried after a timeout on a loaded machine may arrive twice).
    for (const openid of ['openid_c1', 'openid_c2']) expect(new Set(wx.sentTo(openid).map((m) => m.content?.split('\n')[0])).size).toBe(100);
  });

  it('refreshes a safety margin (5 min) before expiry; classic mode uses /cgi-bin/token', async () => {
    const { appKey } = await t.setup({ type: 'wechat', config: wechat({ tokenMode: 'classic' }), recipients: ['openid_m1'] });
    await t.push(`/send/${appKey}`, { query: { title: 'a' } });
    expect(wx.calls.token).toBe(1);
    clock.advance((7200 - 301) * 1000);
    await t.push(`/send/${appKey}`, { query: { title: 'b' } });
    expect(wx.calls.token).toBe(1);
    clock.advance(2000);
    await t.push(`/send/${appKey}`, { query: { title: 'c' } });
    expect(wx.calls.token).toBe(2);
    expect(wx.calls.stable).toBe(0);
  });

  it('changing the channel credentials drops the cached token', async () => {
    const { appKey, channelId } = await t.setup({ type: 'wechat', config: wechat({ appSecret: 'wrong-secret-value' }), recipients: ['openid_fix'] });
    expect((await t.push(`/send/${appKey}`, { query: { title: 'a' } })).status).toBe(500);
    await t.call('push.updateChannel', { id: channelId, config: { appSecret: wx.appSecret } });
    expect((await t.push(`/send/${appKey}`, { query: { title: 'b' } })).status).toBe(200);
  });
});

describe('push modes, storage failures and secrets', () => {
  it('pushMode first tries recipients in order and stops at the first delivery', async () => {
    const { appKey } = await t.setup({ type: 'wechat', config: wechat(), app: { pushMode: 'first' }, recipients: ['openid_f1', 'openid_f2', 'openid_f3'] });
    wx.setAlways('openid_f1', { errcode: 43004 });
    const res = await t.push(`/send/${appKey}`, { query: { title: 'failover' } });
    expect(res.body.data).toMatchObject({ total: 2, success: 1, failed: 1 });
    expect(res.body.data.results.map((r: any) => [r.recipient, r.ok])).toEqual([
      ['openid_f1', false],
      ['openid_f2', true],
    ]);
    expect(wx.sentTo('openid_f3')).toHaveLength(0);
  });

  it('sends nothing when the history cannot be written, and says so', async () => {
    const { appKey } = await t.setup({ type: 'wechat', config: wechat(), recipients: ['openid_disk'] });
    const local = t.server.app.db.local;
    const original = { batch: local.batch.bind(local), put: local.put.bind(local) };
    const diskFull = () => Promise.reject(Object.assign(new Error('IO error: No space left on device'), { code: 'LEVEL_IO_ERROR' }));
    local.batch = diskFull;
    local.put = diskFull;
    try {
      const res = await t.push(`/send/${appKey}`, { query: { title: 'disk full' } });
      expectRefusal({ status: res.status, ...res.body }, commonErrors.rows.unavailable);
      expect(res.body.message).toMatch(/could not write the message history.*nothing was sent/);
      expect(res.body.data.results[0]).toMatchObject({ ok: false, class: 'systemic', attempts: 0 });
      expect(wx.calls.send).toBe(0);
    } finally {
      local.batch = original.batch;
      local.put = original.put;
    }
    expect((await t.push(`/send/${appKey}`, { query: { title: 'disk ok' } })).status).toBe(200);
  });

  it('never logs or returns the AppSecret or access tokens', async () => {
    const channels = await t.call('push.queryChannels', { type: 'wechat' });
    expect(JSON.stringify(channels)).not.toContain(wx.appSecret);
    const all = logLines.join('\n');
    expect(all.length).toBeGreaterThan(0);
    expect(all).not.toContain(wx.appSecret);
    for (const token of wx.tokens.keys()) expect(all).not.toContain(token);
  });
});
