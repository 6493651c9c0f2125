import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger';
import { FakeDingtalk, FakeFeishu, FakeWecom } from '../../test-support/fakes/fake-robot';
import { startPushServer, type PushTestServer } from './helpers';
import { pushErrors } from '../errors';
import { expectRefusal } from '../../test-support/refusal';

/**
 * The group-robot channels end to end: a real PennyPost server, /send and the channel actions over
 * HTTP, and the fake WeCom, DingTalk and Feishu checking keys, signatures and bodies like the real
 * services. Every secret is searched for in the answers, the log and the stored channel.
 */

const WECOM_KEY = '693a91f6-7f0e-4bc4-97a0-0ec2a1fa5a1b';
const DING_TOKEN = 'b3c1f0e9d8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1';
const DING_SECRET = 'SEC0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd';
const FEISHU_HOOK = '2d4e6f80-1a3b-4c5d-8e9f-a0b1c2d3e4f5';
const FEISHU_SECRET = 'Ulx4iWUw7X5w3mHtyfKbVf';
const SECRETS = [WECOM_KEY, DING_TOKEN, DING_SECRET, FEISHU_HOOK, FEISHU_SECRET];

const logLines: string[] = [];
const wecom = new FakeWecom();
const dingtalk = new FakeDingtalk();
const feishu = new FakeFeishu();
let t: PushTestServer;

beforeAll(async () => {
  await Promise.all([wecom.start(), dingtalk.start(), feishu.start()]);
  wecom.keys.add(WECOM_KEY);
  dingtalk.robots.set(DING_TOKEN, { secret: DING_SECRET });
  feishu.bots.set(FEISHU_HOOK, { secret: FEISHU_SECRET });
  t = await startPushServer({
    logger: createLogger('debug', (line) => logLines.push(line)),
    settings: { push: { callTimeoutMs: 1000 }, network: { publicBaseUrl: 'https://pp.example.net' } },
  });
});
afterAll(async () => {
  await t.close();
  await Promise.all([wecom.close(), dingtalk.close(), feishu.close()]);
});
beforeEach(() => {
  wecom.sent.length = 0;
  dingtalk.sent.length = 0;
  feishu.sent.length = 0;
  wecom.steps.length = 0;
  dingtalk.steps.length = 0;
  feishu.steps.length = 0;
});

/** A channel of a robot type and an app on it; the app key. */
async function robotApp(type: string, config: Record<string, unknown>): Promise<{ channelId: string; appId: string; appKey: string; masked: Record<string, unknown> }> {
  const channel = await t.call('push.createChannel', { name: `${type} group`, type, config });
  expect(channel.code, channel.message).toBe(200);
  const app = await t.call('push.createApp', { name: 'Ops', channelId: channel.data.id });
  expect(app.code, app.message).toBe(200);
  return { channelId: channel.data.id, appId: app.data.id, appKey: app.data.appKey, masked: channel.data.config };
}

const leaks = (value: unknown) => SECRETS.filter((secret) => JSON.stringify(value).includes(secret));

describe('robot channels over HTTP', () => {
  it('are described for the UI: no recipients, the webhook URL a required secret', async () => {
    const types = await t.call('push.queryChannelTypes', {});
    for (const type of ['wecom', 'dingtalk', 'feishu']) {
      const info = types.data.list.find((i: { type: string }) => i.type === type);
      expect(info).toMatchObject({ recipients: false, templates: false, summary: expect.arrayContaining(['webhookUrl']) });
      expect(info.fields[0]).toMatchObject({ name: 'webhookUrl', kind: 'text', required: true, secret: true });
    }
  });

  it('WeCom: /send reaches the group as Markdown with the group prefix and page link; urgent as text with @all', async () => {
    const { appId, appKey, masked } = await robotApp('wecom', { webhookUrl: wecom.hook(WECOM_KEY) });
    expect(masked).toEqual({ webhookUrl: expect.stringMatching(/^•••• 127\.0\.0\.1:\d+ …5a1b$/), wecomFormat: 'markdown' });
    const res = await t.push(`/send/${appKey}`, { json: { title: 'Disk full', desp: '**/var** at 98 %', group: 'nas' } });
    expect(res.body.data).toMatchObject({ total: 1, success: 1, results: [{ recipient: 'group', ok: true, class: 'ok' }] });
    expect(wecom.sent[0]).toEqual({ key: WECOM_KEY, msgtype: 'markdown', content: `**[nas] Disk full**\n\n**/var** at 98 %\n\n[Details](${res.body.data.url})`, mentioned: [] });
    await t.push(`/send/${appKey}`, { query: { title: 'Fire', priority: 'urgent' } });
    expect(wecom.sent[1]).toMatchObject({ msgtype: 'text', content: expect.stringMatching(/^Fire\n\nhttps:\/\/pp\.example\.net\/m\//), mentioned: ['@all'] });
    // A per-minute limit is transient but not retried at once: one attempt.
    wecom.steps.push({ errcode: 45009, errmsg: 'api freq out of limit' });
    const limited = await t.push(`/send/${appKey}`, { json: { title: 'Again' } });
    expect(limited.body.data.results[0]).toMatchObject({ ok: false, class: 'transient', errcode: 45009, attempts: 1 });
    const added = await t.call('push.addRecipient', { appId, address: 'someone' });
    expect(added).toMatchObject({ status: 400, message: expect.stringMatching(/need no recipients/) });
    expect(leaks(res.body)).toEqual([]);
  });

  it('DingTalk: a signed /send; a transient errcode is retried; a wrong secret is systemic with a hint', async () => {
    const { channelId, appKey } = await robotApp('dingtalk', { webhookUrl: dingtalk.hook(DING_TOKEN), signingSecret: DING_SECRET });
    dingtalk.steps.push({ errcode: -1, errmsg: '系统繁忙' });
    const res = await t.push(`/send/${appKey}`, { json: { title: '部署完成', desp: 'v1.2.3', priority: 'high' } });
    expect(res.body.data.results[0]).toMatchObject({ recipient: 'group', ok: true, attempts: 2 });
    expect(dingtalk.sent).toEqual([
      { token: DING_TOKEN, title: '部署完成', text: expect.stringMatching(/^#### <font color="#d9363e">部署完成<\/font>\n\nv1\.2\.3/), atAll: false },
    ]);

    const changed = await t.call('push.updateChannel', { id: channelId, config: { signingSecret: 'SEC1111111111111111' } });
    expect(changed.code).toBe(200);
    const failed = await t.push(`/send/${appKey}`, { json: { title: 'x' } });
    expect(failed.body.data.results[0]).toMatchObject({ ok: false, class: 'systemic', errcode: 310000, attempts: 1, errmsg: expect.stringMatching(/signature did not match/) });
    const tested = await t.call('push.testChannel', { id: channelId });
    expect(tested.data).toMatchObject({ ok: false, class: 'systemic', errcode: 310000 });
    expect(leaks([res.body, failed.body, tested.data])).toEqual([]);
  });

  it('Feishu: a signed card; the test sends a test card; moving to another URL needs the secret again', async () => {
    const { channelId, appKey, masked } = await robotApp('feishu', { webhookUrl: feishu.hook(FEISHU_HOOK), signingSecret: FEISHU_SECRET });
    expect(masked).toEqual({ webhookUrl: expect.stringMatching(/^•••• 127\.0\.0\.1:\d+ …e4f5$/), signingSecret: '••••KbVf' });
    const res = await t.push(`/send/${appKey}`, { form: { title: 'Build red', desp: 'main #12', priority: 'urgent' } });
    expect(res.body.data.results[0]).toMatchObject({ ok: true });
    expect(feishu.sent[0]?.body).toMatchObject({
      header: { title: { content: 'Build red' }, template: 'red' },
      elements: [
        { tag: 'markdown', content: '<at id=all></at> main #12' },
        { tag: 'action', actions: [{ url: res.body.data.url }] },
      ],
    });
    expect((await t.call('push.testChannel', { id: channelId })).data).toMatchObject({ ok: true, message: expect.stringMatching(/test card/) });
    // Feishu's rate limit is per second as well: retried with backoff, it passes.
    feishu.steps.push({ code: 11232, msg: 'frequency limited' });
    const retried = await t.push(`/send/${appKey}`, { json: { title: 'Retry me' } });
    expect(retried.body.data.results[0]).toMatchObject({ ok: true, attempts: 2 });

    // The masked values sent back keep the stored ones; a new webhook URL without the secret is refused.
    expect((await t.call('push.updateChannel', { id: channelId, config: masked })).code).toBe(200);
    const other = feishu.hook('9f8e7d6c-0000-4000-8000-000000000001');
    const moved = await t.call('push.updateChannel', { id: channelId, config: { webhookUrl: other } });
    expect(moved).toMatchObject({ status: 400, message: expect.stringMatching(/signingSecret/) });
    expectRefusal(
      await t.call('push.updateChannel', { id: channelId, config: { webhookUrl: other, signingSecret: masked.signingSecret } }),
      pushErrors.rows.secretMustBeEnteredAgain,
    );
    expect((await t.call('push.updateChannel', { id: channelId, config: { webhookUrl: other, signingSecret: FEISHU_SECRET } })).code).toBe(200);
    const push = t.server.app.services.push;
    expect(push.targets.openConfig(push.targets.get(channelId)!)).toEqual({ webhookUrl: other, signingSecret: FEISHU_SECRET });
  });

  it('keeps every secret sealed at rest and out of the log', async () => {
    const listed = await t.call('push.queryChannels', {});
    expect(listed.data.list.length).toBeGreaterThanOrEqual(3);
    const push = t.server.app.services.push;
    const stored = listed.data.list.map((c: { id: string }) => push.targets.get(c.id)?.config);
    expect(leaks(stored)).toEqual([]);
    expect(leaks(listed.data)).toEqual([]);
    expect(logLines.length).toBeGreaterThan(0);
    expect(leaks(logLines.join('\n'))).toEqual([]);
  });
});
