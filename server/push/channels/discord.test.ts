import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../lib/clock';
import { FakeDiscord } from '../../test-support/fakes/fake-robot';
import { DesktopHub } from '../desktop';
import type { Outcome } from '../deliver';
import { DISCORD_COLOURS, discordChannel } from './discord';
import type { AppForm, OutgoingMessage } from './driver';
import { withOutbound } from '../tests/channel-env';

/**
 * The discord driver on its own: the message body and what is Discord's own in the answers of a fake
 * Discord. What every webhook channel does is in robot-channels.test.ts.
 */

const message: OutgoingMessage = {
  id: 'm1',
  userId: 'u1',
  appId: 'a1',
  appName: 'Backups',
  title: 'Backup finished',
  desp: 'All **3** jobs OK @everyone',
  time: 1_767_000_000_000,
  url: 'https://pp.example.net/m/token',
  pagePath: '/m/token',
  priority: 'normal',
  group: '',
};
const app: AppForm = { messageType: '', templateId: '', templateFields: {} };

describe('discord message body', () => {
  it('an embed with title, Markdown description, page link, colour, time and footer; nobody is pinged', () => {
    expect(discordChannel.render(message, app).body).toEqual({
      allowed_mentions: { parse: [] },
      embeds: [
        {
          title: 'Backup finished',
          description: 'All **3** jobs OK @everyone',
          url: 'https://pp.example.net/m/token',
          color: DISCORD_COLOURS.normal,
          timestamp: new Date(message.time).toISOString(),
          footer: { text: 'Backups' },
        },
      ],
    });
  });

  it('priority is the colour, urgent also mentions @here (deliberately allowed); the group joins the footer', () => {
    const urgent = discordChannel.render({ ...message, priority: 'urgent', group: 'nightly' }, app).body as any;
    expect(urgent).toMatchObject({ content: '@here', allowed_mentions: { parse: ['everyone'] } });
    expect(urgent.embeds[0]).toMatchObject({ color: DISCORD_COLOURS.urgent, footer: { text: 'nightly · Backups' } });
    expect((discordChannel.render({ ...message, priority: 'low' }, app).body as any).embeds[0].color).toBe(DISCORD_COLOURS.low);
  });

  it('cuts a long title and description to Discord’s limits, the page link kept', () => {
    const body = discordChannel.render({ ...message, title: 't'.repeat(300), desp: 'd'.repeat(5000) }, app).body as any;
    expect(body.embeds[0].title).toHaveLength(256);
    expect(body.embeds[0].description.length).toBeLessThanOrEqual(4096);
    expect(body.embeds[0].description).toMatch(/…\n\n\[Read the whole message\]\(https:\/\/pp\.example\.net\/m\/token\)$/);
    expect((discordChannel.render({ ...message, desp: '' }, app).body as any).embeds[0].description).toBeUndefined();
  });
});

describe('discord delivery (fake Discord)', () => {
  const fake = new FakeDiscord();
  const channel = { id: 'c1', name: 'Ops', userId: 'u1' };
  const link = discordChannel.connect(withOutbound({ clock: systemClock, desktop: new DesktopHub() }));
  const outcomes: unknown[] = [];
  let webhookUrl = '';
  const send = async (msg: OutgoingMessage = message, url = webhookUrl, timeoutMs = 3000): Promise<Outcome> => {
    const outcome = await link.delivery(channel, { webhookUrl: url }, discordChannel.render(msg, app)).send({ label: 'discord', address: 'discord' }, timeoutMs);
    outcomes.push(outcome);
    return outcome;
  };

  beforeAll(async () => {
    await fake.start();
    webhookUrl = discordChannel.normalize({ webhookUrl: fake.webhookUrl }).webhookUrl;
  });
  afterAll(async () => {
    await fake.close();
    expect(JSON.stringify(outcomes)).not.toContain(fake.token);
  });
  beforeEach(() => {
    fake.sent.length = 0;
    fake.forum = false;
  });

  it('executes the webhook with wait=true and answers the message id', async () => {
    expect(await send({ ...message, priority: 'urgent', desp: 'x'.repeat(5000), title: 'y'.repeat(400) })).toEqual({ ok: true, msgId: expect.stringMatching(/^\d{19}$/) });
    expect(fake.sent[0]).toMatchObject({ wait: true, body: { content: '@here', embeds: [{ title: expect.any(String) }] } });
  });

  it('a wrong token is systemic; the token never shows', async () => {
    expect(await send(message, webhookUrl.replace(fake.token, 'wrongTokenwrongTokenwrongToken'))).toMatchObject({ ok: false, cls: 'systemic', errcode: 50027 });
  });

  it('a forum channel’s webhook is systemic with what to do; a refused body is the message’s', async () => {
    fake.forum = true;
    expect(await send()).toMatchObject({ ok: false, cls: 'systemic', errcode: 220001, message: expect.stringMatching(/forum channel/) });
    fake.forum = false;
    const body = { allowed_mentions: { parse: [] }, embeds: [{ title: 'x', color: 0x1000000 }] };
    expect(await link.delivery(channel, { webhookUrl }, { body }).send({ label: 'discord', address: 'discord' }, 1000)).toMatchObject({
      ok: false,
      cls: 'recipient',
      errcode: 50035,
      message: expect.stringMatching(/Invalid Form Body/),
    });
  });

  it('waits out retry_after within the call’s time', async () => {
    fake.program({ status: 429, retryAfter: 0.2 });
    expect(await send()).toMatchObject({ ok: true });
    expect(fake.sent).toHaveLength(1);
  });

  it('tests a channel without an address by reading the webhook: nothing is posted', async () => {
    expect(await link.test(channel, { webhookUrl }, { timeoutMs: 1000, time: message.time })).toEqual({ ok: true, message: 'Discord knows this webhook ("PennyPost hook").' });
    expect(fake.sent).toHaveLength(0);
    expect(await link.test(channel, { webhookUrl: webhookUrl.replace(fake.token, 'wrongTokenwrongTokenwrongToken') }, { timeoutMs: 1000, time: message.time })).toMatchObject({
      ok: false,
      class: 'systemic',
    });
  });
});
