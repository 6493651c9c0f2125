import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../lib/clock';
import { FakeSlack } from '../../test-support/fakes/fake-robot';
import { DesktopHub } from '../desktop';
import type { Outcome } from '../deliver';
import type { AppForm, OutgoingMessage } from './driver';
import { slackChannel } from './slack';
import { withOutbound } from '../tests/channel-env';

/**
 * The slack driver on its own: Markdown in mrkdwn blocks and what is Slack's own in the answers of a
 * fake Slack. What every webhook channel does is in robot-channels.test.ts.
 */

const message: OutgoingMessage = {
  id: 'm1',
  userId: 'u1',
  appId: 'a1',
  appName: 'Backups',
  title: 'Backup <finished> & done',
  desp: 'All **3** jobs _OK_ & <!channel> <@U123>\n\n- [site](https://ex.com/?a=1&b=2)\n- `x<y`',
  time: 1_767_000_000_000,
  url: 'https://pp.example.net/m/token',
  pagePath: '/m/token',
  priority: 'normal',
  group: '',
};
const app: AppForm = { messageType: '', templateId: '', templateFields: {} };

describe('slack message body', () => {
  it('a header, the desp in mrkdwn with the sender’s text escaped (no mentions), and a context line', () => {
    expect(slackChannel.render(message, app).body).toEqual({
      text: 'Backup &lt;finished&gt; &amp; done',
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: 'Backup <finished> & done', emoji: true } },
        {
          type: 'section',
          text: { type: 'mrkdwn', text: 'All *3* jobs _OK_ &amp; &lt;!channel&gt; &lt;@U123&gt;\n\n• <https://ex.com/?a=1&amp;b=2|site>\n• `x&lt;y`' },
        },
        { type: 'context', elements: [{ type: 'mrkdwn', text: 'Backups' }] },
      ],
    });
  });

  it('link text is plain (Slack cannot format inside a link) and keeps its own underscores', () => {
    const body = slackChannel.render({ ...message, desp: 'see [**my_file** | v2](https://ex.com/a_b) and **[x](mailto:a@b.c)**' }, app).body as any;
    expect(body.blocks[1].text.text).toBe('see <https://ex.com/a_b|my_file ¦ v2> and *<mailto:a@b.c|x>*');
  });

  it('urgent mentions @here; the group joins the context; a long desp is cut to 3000 with the page link', () => {
    const urgent = slackChannel.render({ ...message, priority: 'urgent', group: 'nightly', desp: '' }, app).body as any;
    expect(urgent.text).toMatch(/^<!here> Backup/);
    expect(urgent.blocks[1]).toEqual({ type: 'section', text: { type: 'mrkdwn', text: '<!here>' } });
    expect(urgent.blocks[2].elements[0].text).toBe('nightly · Backups');
    const long = slackChannel.render({ ...message, title: 'T'.repeat(200), desp: 'word & '.repeat(1000) }, app).body as any;
    expect(long.blocks[0].text.text).toHaveLength(150);
    expect(long.blocks[1].text.text.length).toBeLessThanOrEqual(3000);
    expect(long.blocks[1].text.text).toMatch(/…\n\n<https:\/\/pp\.example\.net\/m\/token\|Read the whole message>$/);
  });
});

describe('slack delivery (fake Slack)', () => {
  const fake = new FakeSlack();
  const channel = { id: 'c1', name: 'Ops', userId: 'u1' };
  const link = slackChannel.connect(withOutbound({ clock: systemClock, desktop: new DesktopHub() }));
  const outcomes: unknown[] = [];
  let webhookUrl = '';
  const send = async (msg: OutgoingMessage = message, url = webhookUrl, timeoutMs = 3000): Promise<Outcome> => {
    const outcome = await link.delivery(channel, { webhookUrl: url }, slackChannel.render(msg, app)).send({ label: 'slack', address: 'slack' }, timeoutMs);
    outcomes.push(outcome);
    return outcome;
  };

  beforeAll(async () => {
    await fake.start();
    webhookUrl = slackChannel.normalize({ webhookUrl: fake.webhookUrl }).webhookUrl;
  });
  afterAll(async () => {
    await fake.close();
    expect(JSON.stringify(outcomes)).not.toContain(fake.secret);
  });
  beforeEach(() => {
    fake.sent.length = 0;
    fake.archived = false;
  });

  it('posts the blocks; Slack answers ok', async () => {
    expect(await send({ ...message, title: 'T'.repeat(200), desp: 'word & '.repeat(1000), priority: 'urgent' })).toEqual({ ok: true });
    expect(fake.sent[0].body.blocks).toHaveLength(3);
  });

  it('maps Slack’s error answers: wrong secret, prohibited and archived are systemic, a refused payload the message’s', async () => {
    expect(await send(message, webhookUrl.replace(fake.secret, 'wrongSecret0123456789'))).toMatchObject({
      ok: false,
      cls: 'systemic',
      errcode: 403,
      message: expect.stringMatching(/invalid_token/),
    });
    fake.program({ status: 403, error: 'action_prohibited' });
    expect(await send()).toMatchObject({ ok: false, cls: 'systemic', errcode: 403, message: expect.stringMatching(/action_prohibited/) });
    fake.archived = true;
    expect(await send()).toMatchObject({ ok: false, cls: 'systemic', errcode: 410, message: expect.stringMatching(/archived/) });
    fake.archived = false;
    const bad = await link
      .delivery(channel, { webhookUrl }, { body: { blocks: [{ type: 'header', text: { type: 'mrkdwn', text: 'x' } }] } })
      .send({ label: 'slack', address: 'slack' }, 1000);
    expect(bad).toMatchObject({ ok: false, cls: 'recipient', errcode: 400, message: expect.stringMatching(/invalid_blocks/) });
  });

  it('waits out Retry-After within the call’s time', async () => {
    fake.program({ status: 429, retryAfter: 1 });
    expect(await send(message, webhookUrl, 2500)).toMatchObject({ ok: true });
    expect(fake.sent).toHaveLength(1);
  });
});
