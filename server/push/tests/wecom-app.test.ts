import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger';
import { FakeWecomApp } from '../../test-support/fakes/fake-wecom-app';
import { startPushServer, type PushTestServer } from './helpers';

/**
 * A WeCom application channel end to end: created through /api, pushed to through /send, delivered
 * to the fake WeCom in one `message/send` call for every member, recorded per recipient.
 */

const logLines: string[] = [];
let wecom: FakeWecomApp;
let t: PushTestServer;

beforeAll(async () => {
  wecom = await new FakeWecomApp().start();
  t = await startPushServer({
    logger: createLogger('debug', (line) => logLines.push(line)),
    settings: { push: { callTimeoutMs: 1000 }, network: { publicBaseUrl: 'https://pp.example.net/' } },
  });
});
afterAll(async () => {
  await t.close();
  await wecom.close();
});
beforeEach(() => {
  wecom.reset();
  wecom.members.clear();
  for (const member of ['ZhangSan', 'lisi', 'wangwu']) wecom.members.add(member);
});

const config = (extra: Record<string, unknown> = {}) => ({ corpId: wecom.corpId, agentId: wecom.agentId, corpSecret: wecom.secret, wecomApiBase: wecom.url, ...extra });

async function setup(recipients: string[], app: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  const channel = await t.call('push.createChannel', { name: 'WeCom app', type: 'wecom-app', config: config(extra) });
  expect(channel.status).toBe(200);
  const created = await t.call('push.createApp', { name: 'Server alerts', channelId: channel.data.id, ...app });
  expect(created.status).toBe(200);
  for (const address of recipients) expect((await t.call('push.addRecipient', { appId: created.data.id, address, name: `name-${address}` })).status).toBe(200);
  return { channelId: channel.data.id as string, appId: created.data.id as string, appKey: created.data.appKey as string };
}

describe('a WeCom application channel through /send', () => {
  it('creates the channel (Secret masked), delivers to every member in one call, and the history shows each recipient', async () => {
    const { channelId, appId, appKey } = await setup(['ZhangSan', 'lisi', 'ghost']);
    const listed = await t.call('push.queryChannels', { type: 'wecom-app' });
    expect(listed.data.list.find((c: any) => c.id === channelId).config).toEqual({
      ...config(),
      corpSecret: `••••${wecom.secret.slice(-4)}`,
      wecomAppFormat: 'textcard',
    });

    const res = await t.push(`/send/${appKey}`, { query: { title: 'Disk almost full', desp: '/var is **91%** full' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 0, data: { total: 3, success: 2, failed: 1 } });
    expect(res.body.message).toMatch(/^Delivered to 2 of 3 recipients; 1 failed: WeCom did not deliver to this member/);

    // What WeCom received: one call, touser joined with |, a text card linking to the message page.
    expect(wecom.calls.send).toBe(1);
    expect(wecom.sent).toHaveLength(1);
    expect(wecom.sent[0]).toMatchObject({
      touser: 'ZhangSan|lisi|ghost',
      agentid: wecom.agentId,
      msgtype: 'textcard',
      textcard: { title: 'Disk almost full', description: expect.stringContaining('<div class="normal">/var is 91% full</div>'), url: res.body.data.url },
      to: ['zhangsan', 'lisi'],
    });
    expect(res.body.data.url).toMatch(/^https:\/\/pp\.example\.net\/m\//);

    const history = await t.call('push.getMessage', { id: res.body.data.pushId });
    expect(history.data).toMatchObject({ appId, channelType: 'wecom-app', status: 'partial', total: 3, success: 2, failed: 1 });
    expect(history.data.results).toEqual([
      { recipient: 'ZhangSan', name: 'name-ZhangSan', ok: true, class: 'ok', msgId: expect.stringMatching(/^fake_msgid_/), attempts: 1 },
      { recipient: 'lisi', name: 'name-lisi', ok: true, class: 'ok', msgId: expect.stringMatching(/^fake_msgid_/), attempts: 1 },
      { recipient: 'ghost', name: 'name-ghost', ok: false, class: 'recipient', errmsg: expect.stringMatching(/knows no member with this account/), attempts: 1 },
    ]);
    expect(history.data.results).toEqual(res.body.data.results);
  });

  it('@all reaches every member the app can reach; text and Markdown when the channel asks for them', async () => {
    const { appKey } = await setup(['@all'], {}, { wecomAppFormat: 'text' });
    const res = await t.push(`/send/${appKey}`, { json: { title: 'Backup done', desp: 'All **3** jobs OK' } });
    expect(res.body.data.results).toEqual([{ recipient: '@all', name: 'name-@all', ok: true, class: 'ok', msgId: expect.any(String), attempts: 1 }]);
    expect(wecom.sent[0]).toMatchObject({
      touser: '@all',
      msgtype: 'text',
      content: `Backup done\n\nAll 3 jobs OK\n\n${String(res.body.data.url)}`,
      to: ['zhangsan', 'lisi', 'wangwu'],
    });

    const markdown = await setup(['wangwu'], {}, { wecomAppFormat: 'markdown' });
    await t.push(`/send/${markdown.appKey}`, { query: { title: 'Report', desp: '**ok**', priority: 'high' } });
    expect(wecom.sentTo('wangwu').at(-1)).toMatchObject({
      msgtype: 'markdown',
      content: expect.stringMatching(/^<font color="warning">\*\*Report\*\*<\/font>\n\n\*\*ok\*\*\n\n\[Details\]\(https:/),
    });
  });

  it('refreshes an expired token once for everyone, and retries a busy WeCom', async () => {
    const { appKey } = await setup(['ZhangSan', 'lisi']);
    expect((await t.push(`/send/${appKey}`, { query: { title: 'warm' } })).body.data.success).toBe(2);
    const tokens = wecom.calls.token;
    wecom.expireTokens();
    wecom.steps.push({ errcode: -1 });
    const res = await t.push(`/send/${appKey}`, { query: { title: 'after expiry' } });
    expect(res.body.data).toMatchObject({ success: 2, failed: 0 });
    expect(res.body.data.results.map((r: any) => r.attempts)).toEqual([2, 2]);
    expect(wecom.calls.token - tokens).toBe(1);
  });

  it('systemic: an untrusted IP fails everyone with what to fix, and nothing is sent', async () => {
    const { appKey, channelId } = await setup(['ZhangSan', 'lisi']);
    wecom.tokenAlways = 60020;
    const res = await t.push(`/send/${appKey}`, { query: { title: 'x' } });
    expect(res.status).toBe(500);
    expect(res.body.message).toMatch(/Nothing was delivered to the 2 recipients: WeCom refused this computer's IP address: add its public IP to the app's trusted IPs/);
    for (const r of res.body.data.results) expect(r).toMatchObject({ ok: false, class: 'systemic', errcode: 60020 });
    expect(wecom.calls.send).toBe(0);
    const test = await t.call('push.testChannel', { id: channelId });
    expect(test.data).toMatchObject({ ok: false, class: 'systemic', errcode: 60020 });
  });

  it('pushMode first tries members one at a time until one gets it', async () => {
    const { appKey } = await setup(['ghost', 'lisi', 'wangwu'], { pushMode: 'first' });
    const res = await t.push(`/send/${appKey}`, { query: { title: 'failover' } });
    expect(res.body.data.results.map((r: any) => [r.recipient, r.ok])).toEqual([
      ['ghost', false],
      ['lisi', true],
    ]);
    expect(wecom.sent.map((m) => m.touser)).toEqual(['lisi']);
  });

  it('tests the channel, refuses an address that is no userid, and keeps the Secret where it was entered', async () => {
    const { channelId, appId } = await setup([]);
    const test = await t.call('push.testChannel', { id: channelId });
    expect(test.data).toMatchObject({ ok: true, message: 'WeCom accepted the corp ID and the Secret of the app "PennyPost alerts" (AgentId 1000002).' });
    const bad = await t.call('push.addRecipient', { appId, address: 'not an id!' });
    expect([bad.status, bad.data.field]).toEqual([400, 'params.address']);
    const moved = await t.call('push.updateChannel', { id: channelId, config: { wecomApiBase: 'https://proxy.example.net' } });
    expect([moved.status, moved.data.field]).toEqual([400, 'params.config.corpSecret']);
    expect(moved.message).toMatch(/^Enter the Secret again/);
  });

  it('never logs or returns the Secret or an access token', async () => {
    const all = logLines.join('\n');
    expect(all.length).toBeGreaterThan(0);
    expect(all).not.toContain(wecom.secret);
    expect(all).not.toContain('WWFAKE_');
    expect(JSON.stringify(await t.call('push.queryChannels', {}))).not.toContain(wecom.secret);
  });
});

describe('the channel form', () => {
  it('push.queryChannelTypes describes the WeCom application type for the UI', async () => {
    const types = await t.call('push.queryChannelTypes', {});
    const info = types.data.list.find((i: any) => i.type === 'wecom-app');
    expect(info).toMatchObject({ recipients: true, templates: false, summary: ['corpId', 'agentId'] });
    expect(info.fields.map((f: any) => [f.name, f.kind, f.required, f.secret])).toEqual([
      ['corpId', 'text', true, false],
      ['agentId', 'integer', true, false],
      ['corpSecret', 'text', true, true],
      ['wecomApiBase', 'text', false, false],
      ['wecomAppFormat', 'choice', false, false],
    ]);
    expect(info.fields.find((f: any) => f.name === 'wecomAppFormat').options).toEqual(['textcard', 'text', 'markdown']);
  });
});
