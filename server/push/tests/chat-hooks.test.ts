import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger';
import { FakeDiscord, FakeSlack } from '../../test-support/fakes/fake-robot';
import { FakeTelegram } from '../../test-support/fakes/fake-telegram';
import { startPushServer, type PushTestServer } from './helpers';

/**
 * Telegram, Discord and Slack channels through the real server: channel config (secrets masked and
 * tied to their destination), /send to each fake service, error classes in the results,
 * push.testChannel, and no secret in any answer or log line.
 */

const telegram = new FakeTelegram();
const discord = new FakeDiscord();
const slack = new FakeSlack();
const logLines: string[] = [];
const answers: unknown[] = [];
const channelIds: string[] = [];
let t: PushTestServer;

async function call(action: string, params: unknown) {
  const answer = await t.call(action, params);
  answers.push(answer);
  return answer;
}

async function appOn(type: string, config: Record<string, unknown>) {
  const channel = await call('push.createChannel', { name: `${type} channel`, type, config });
  expect(channel.code, channel.message).toBe(200);
  channelIds.push(channel.data.id);
  const app = await call('push.createApp', { name: `${type} app`, channelId: channel.data.id });
  expect(app.code, app.message).toBe(200);
  return { channel: channel.data, app: app.data };
}

async function send(appKey: string, json: Record<string, unknown>) {
  const res = await t.push(`/send/${appKey}`, { json });
  answers.push(res.body);
  return res;
}

beforeAll(async () => {
  await Promise.all([telegram.start(), discord.start(), slack.start()]);
  telegram.chats.set('123456789', {});
  t = await startPushServer({
    settings: { push: { callTimeoutMs: 2000 }, network: { publicBaseUrl: 'https://pp.example.net' } },
    logger: createLogger('debug', (line) => logLines.push(line)),
  });
});
afterAll(async () => {
  await t.close();
  await Promise.all([telegram.close(), discord.close(), slack.close()]);
});

describe('telegram through /send', () => {
  it('delivers to each chat, classifies an unknown one, and keeps the bot token masked and tied to its API', async () => {
    const { channel, app } = await appOn('telegram', { botToken: telegram.token, telegramApiBase: telegram.url });
    expect(channel.config).toEqual({ botToken: '••••0123', telegramApiBase: telegram.url });
    for (const address of ['123456789', '-100999']) expect((await call('push.addRecipient', { appId: app.id, address })).code).toBe(200);
    expect(await call('push.addRecipient', { appId: app.id, address: 'someone' })).toMatchObject({ code: 400 });

    const res = await send(app.appKey, { title: 'Disk <full>', desp: 'Only **2 GB** left', priority: 'low', group: 'nas' });
    expect(res.body.data).toMatchObject({ total: 2, success: 1, failed: 1 });
    const by = Object.fromEntries(res.body.data.results.map((r: any) => [r.recipient, r]));
    expect(by['123456789']).toMatchObject({ ok: true, class: 'ok', msgId: expect.any(String) });
    expect(by['-100999']).toMatchObject({ ok: false, class: 'recipient', errcode: 400, attempts: 1 });
    expect(telegram.sent.at(-1)).toMatchObject({ chatId: '123456789', disableNotification: true, plain: '[nas] Disk <full>\n\nOnly 2 GB left' });

    const moved = await call('push.updateChannel', { id: channel.id, config: { telegramApiBase: discord.server.url } });
    expect(moved).toMatchObject({ code: 400, data: expect.objectContaining({ field: 'params.config.botToken', reason: 'push.secretMustBeEnteredAgain' }) });
    expect(await call('push.updateChannel', { id: channel.id, config: { botToken: '••••0123' } })).toMatchObject({ code: 200 });
    expect((await call('push.testChannel', { id: channel.id })).data).toMatchObject({ ok: true, message: expect.stringMatching(/@pennypost_test_bot/) });
    expect((await call('push.testChannel', { id: channel.id, address: '123456789' })).data).toMatchObject({ ok: true });

    const wrong = await call('push.updateChannel', { id: channel.id, config: { botToken: '123456789:AAwrongTokenForTheEndToEndTest_99' } });
    expect(wrong.code).toBe(200);
    const refused = await send(app.appKey, { title: 'x' });
    for (const result of refused.body.data.results) expect(result).toMatchObject({ ok: false, class: 'systemic', errcode: 401, attempts: 1 });
  });
});

describe('discord through /send', () => {
  it('posts to the webhook’s channel (no recipients) and answers the message id', async () => {
    const { channel, app } = await appOn('discord', { webhookUrl: discord.webhookUrl });
    expect(channel.config.webhookUrl).toMatch(/^••••/);
    expect(await call('push.addRecipient', { appId: app.id, address: 'x' })).toMatchObject({ code: 400 });
    const res = await send(app.appKey, { title: 'Deploy', desp: 'v1.2 **live**', priority: 'high', group: 'prod' });
    expect(res.body.data).toMatchObject({ total: 1, success: 1, results: [{ recipient: 'discord', ok: true, msgId: expect.any(String) }] });
    expect(discord.sent.at(-1)?.body.embeds[0]).toMatchObject({ title: 'Deploy', description: 'v1.2 **live**', url: res.body.data.url, footer: { text: 'prod · discord app' } });
    expect((await call('push.testChannel', { id: channel.id })).data).toMatchObject({ ok: true });
    discord.forum = true;
    const forum = await send(app.appKey, { title: 'x' });
    discord.forum = false;
    expect(forum.body.data.results[0]).toMatchObject({ ok: false, class: 'systemic', errcode: 220001 });
  });
});

describe('slack through /send', () => {
  it('posts blocks to the webhook’s channel; an archived channel is systemic', async () => {
    const { channel, app } = await appOn('slack', { webhookUrl: slack.webhookUrl });
    expect(channel.config.webhookUrl).toMatch(/^••••/);
    const res = await send(app.appKey, { title: 'Door open', desp: 'front _door_', priority: 'urgent' });
    expect(res.body.data).toMatchObject({ total: 1, success: 1, results: [{ recipient: 'slack', ok: true }] });
    expect(slack.sent.at(-1)?.body).toMatchObject({ text: '<!here> Door open', blocks: [{ type: 'header' }, { text: { text: '<!here> front _door_' } }, { type: 'context' }] });
    slack.archived = true;
    const archived = await send(app.appKey, { title: 'x' });
    slack.archived = false;
    expect(archived.body.data.results[0]).toMatchObject({ ok: false, class: 'systemic', errcode: 410 });
    expect((await call('push.testChannel', { id: channel.id })).data).toMatchObject({ ok: true });
  });
});

describe('secrets', () => {
  it('no bot token or webhook secret in any answer, log line or stored config (sealed at rest)', () => {
    const secrets = [telegram.token, telegram.token.split(':')[1], discord.token, slack.secret];
    const { targets } = t.server.app.services.push;
    const stored = channelIds.map((id) => targets.get(id)?.config);
    expect(stored).toEqual([
      expect.objectContaining({ botToken: expect.any(String) }),
      expect.objectContaining({ webhookUrl: expect.any(String) }),
      expect.objectContaining({ webhookUrl: expect.any(String) }),
    ]);
    const everything = JSON.stringify(answers) + logLines.join('\n') + JSON.stringify(stored);
    expect(logLines.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(everything).not.toContain(secret);
  });
});
