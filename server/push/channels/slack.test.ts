import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlack } from '../../test-support/fakes/fake-robot';
import { slackChannel } from './slack';
import { channelBed, outgoing, PLAIN_APP as app, useFake } from '../tests/channel-bed';

/**
 * The slack driver on its own: Markdown in mrkdwn blocks and what is Slack's own in the answers of a
 * fake Slack. What every webhook channel does is in robot-channels.test.ts.
 */

const message = outgoing({ title: 'Backup <finished> & done', desp: 'All **3** jobs _OK_ & <!channel> <@U123>\n\n- [site](https://ex.com/?a=1&b=2)\n- `x<y`' });

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
  const bed = channelBed(slackChannel);
  let webhookUrl = '';
  useFake(fake, () => (fake.archived = false));
  beforeAll(() => {
    webhookUrl = slackChannel.normalize({ webhookUrl: fake.webhookUrl }).webhookUrl;
  });
  afterAll(() => expect(JSON.stringify(bed.answers)).not.toContain(fake.secret));

  it('posts the blocks; Slack answers ok', async () => {
    expect(await bed.send({ webhookUrl }, { ...message, title: 'T'.repeat(200), desp: 'word & '.repeat(1000), priority: 'urgent' })).toEqual({ ok: true });
    expect(fake.sent[0]?.body.blocks).toHaveLength(3);
  });

  it('maps Slack’s other error answers: prohibited and archived are systemic', async () => {
    fake.program({ status: 403, error: 'action_prohibited' });
    expect(await bed.send({ webhookUrl }, message)).toMatchObject({ ok: false, cls: 'systemic', errcode: 403, message: expect.stringMatching(/action_prohibited/) });
    fake.archived = true;
    expect(await bed.send({ webhookUrl }, message)).toMatchObject({ ok: false, cls: 'systemic', errcode: 410, message: expect.stringMatching(/archived/) });
  });
});
