import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeDiscord } from '../../test-support/fakes/fake-robot';
import { DISCORD_COLOURS, discordChannel } from './discord';
import { channelBed, outgoing, PLAIN_APP as app, useFake } from '../tests/channel-bed';

/**
 * The discord driver on its own: the message body and what is Discord's own in the answers of a fake
 * Discord. What every webhook channel does is in robot-channels.test.ts.
 */

const message = outgoing({ desp: 'All **3** jobs OK @everyone' });

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
  const bed = channelBed(discordChannel);
  let webhookUrl = '';
  useFake(fake, () => (fake.forum = false));
  beforeAll(() => {
    webhookUrl = discordChannel.normalize({ webhookUrl: fake.webhookUrl }).webhookUrl;
  });
  afterAll(() => expect(JSON.stringify(bed.answers)).not.toContain(fake.token));

  it('executes the webhook with wait=true and answers the message id', async () => {
    expect(await bed.send({ webhookUrl }, { ...message, priority: 'urgent', desp: 'x'.repeat(5000), title: 'y'.repeat(400) })).toEqual({
      ok: true,
      msgId: expect.stringMatching(/^\d{19}$/),
    });
    expect(fake.sent[0]).toMatchObject({ wait: true, body: { content: '@here', embeds: [{ title: expect.any(String) }] } });
  });

  it('a forum channel’s webhook is systemic with what to do', async () => {
    fake.forum = true;
    expect(await bed.send({ webhookUrl }, message)).toMatchObject({ ok: false, cls: 'systemic', errcode: 220001, message: expect.stringMatching(/forum channel/) });
  });

  it('tests a channel without an address by reading the webhook: nothing is posted', async () => {
    expect(await bed.test({ webhookUrl })).toEqual({ ok: true, message: 'Discord knows this webhook ("PennyPost hook").' });
    expect(fake.sent).toHaveLength(0);
    expect(await bed.test({ webhookUrl: webhookUrl.replace(fake.token, 'wrongTokenwrongTokenwrongToken') })).toMatchObject({ ok: false, class: 'systemic' });
  });
});
