import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock';
import { FakeWecom } from '../../test-support/fakes/fake-robot';
import type { OutgoingMessage } from './driver';
import { wecomChannel, wecomMessage, WECOM_MARKDOWN_MAX_BYTES, WECOM_TEXT_MAX_BYTES } from './wecom';
import { channelBed, NOW, outgoing, PLAIN_APP as app, refusal, useFake } from '../tests/channel-bed';

/**
 * The WeCom group-robot driver on its own: its message format, rendering, and what is WeCom's own in
 * delivery to the fake WeCom. What every robot channel does is in robot-channels.test.ts.
 */

const KEY = '693a91f6-7f0e-4bc4-97a0-0ec2a1fa5a1b';
const message = outgoing();

describe('wecom config', () => {
  const official = `https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=${KEY}`;

  it('takes the message format (the URL checks are in robot-channels.test.ts)', () => {
    expect(wecomChannel.normalize({ webhookUrl: `http://127.0.0.1:9/cgi-bin/webhook/send?key=${KEY}`, wecomFormat: 'text' }).wecomFormat).toBe('text');
    expect(refusal(() => wecomChannel.normalize({ webhookUrl: official, wecomFormat: 'news' })).field).toBe('config.wecomFormat');
  });
});

describe('wecom messages', () => {
  const push = wecomChannel.render(message, app);

  it('Markdown: the title in bold (coloured by priority, with the group), the desp, a Details link', () => {
    expect(wecomMessage({ wecomFormat: 'markdown' }, push)).toEqual({
      msgtype: 'markdown',
      markdown: { content: '**Backup finished**\n\nAll **3** jobs OK\n\n[Details](https://pp.example.net/m/token)' },
    });
    expect(wecomMessage({ wecomFormat: 'markdown' }, { ...push, priority: 'high', group: 'nightly' })).toMatchObject({
      markdown: { content: expect.stringMatching(/^<font color="warning">\*\*\[nightly\] Backup finished\*\*<\/font>\n\n/) },
    });
    expect(wecomMessage({ wecomFormat: 'markdown' }, { ...push, priority: 'low', desp: '', url: undefined })).toEqual({
      msgtype: 'markdown',
      markdown: { content: '<font color="comment">**Backup finished**</font>' },
    });
  });

  it('text, and urgent pushes as text mentioning everyone (WeCom’s Markdown cannot mention)', () => {
    expect(wecomMessage({ wecomFormat: 'text' }, push)).toEqual({ msgtype: 'text', text: { content: 'Backup finished\n\nAll **3** jobs OK\n\nhttps://pp.example.net/m/token' } });
    expect(wecomMessage({ wecomFormat: 'markdown' }, { ...push, priority: 'urgent' })).toEqual({
      msgtype: 'text',
      text: { content: 'Backup finished\n\nAll **3** jobs OK\n\nhttps://pp.example.net/m/token', mentioned_list: ['@all'] },
    });
  });

  it('cuts long texts to WeCom’s byte limits, keeping the title and the whole link', () => {
    const long = { ...push, desp: '温度'.repeat(3000) };
    const markdown = wecomMessage({ wecomFormat: 'markdown' }, long);
    const text = wecomMessage({ wecomFormat: 'text' }, long);
    const contentOf = (m: typeof markdown) => (m.msgtype === 'markdown' ? m.markdown.content : m.text.content);
    expect(Buffer.byteLength(contentOf(markdown))).toBeLessThanOrEqual(WECOM_MARKDOWN_MAX_BYTES);
    expect(Buffer.byteLength(contentOf(markdown))).toBeGreaterThan(WECOM_MARKDOWN_MAX_BYTES - 8);
    expect(contentOf(markdown)).toMatch(/^\*\*Backup finished\*\*\n\n温度温度.*…\n\n\[Details\]\(https:\/\/pp\.example\.net\/m\/token\)$/s);
    expect(Buffer.byteLength(contentOf(text))).toBeLessThanOrEqual(WECOM_TEXT_MAX_BYTES);
    expect(contentOf(text)).toMatch(/…\n\nhttps:\/\/pp\.example\.net\/m\/token$/);
  });
});

describe('wecom delivery (fake WeCom)', () => {
  const fake = new FakeWecom();
  const bed = channelBed(wecomChannel, { clock: new ManualClock(NOW) });
  let config: ReturnType<typeof wecomChannel.normalize>;
  const send = (changes: Partial<OutgoingMessage> = {}) => bed.send(config, outgoing(changes));
  useFake(fake, () => (fake.perMinute = 1000));
  beforeAll(() => {
    fake.keys.add(KEY);
    config = wecomChannel.normalize({ webhookUrl: fake.hook(KEY) });
  });

  it('posts the message to the robot’s group', async () => {
    expect(await send()).toEqual({ ok: true });
    expect(fake.sent).toEqual([{ key: KEY, msgtype: 'markdown', content: expect.stringMatching(/^\*\*Backup finished\*\*/), mentioned: [] }]);
    expect(await send({ priority: 'urgent', desp: '温度'.repeat(3000) })).toEqual({ ok: true });
    expect(fake.sent[1]).toMatchObject({ msgtype: 'text', mentioned: ['@all'] });
  });

  it('classifies WeCom’s content refusals as the message’s, and its busy answer as transient', async () => {
    fake.steps.push({ errcode: 40058, errmsg: 'markdown.content exceed max length 4096' }, { errcode: 44004, errmsg: 'empty content' }, { errcode: -1, errmsg: 'system error' });
    expect(await send()).toMatchObject({ ok: false, cls: 'recipient', errcode: 40058, message: expect.stringMatching(/refused the message's content/) });
    expect(await send()).toMatchObject({ ok: false, cls: 'recipient', errcode: 44004 });
    expect(await send()).toMatchObject({ ok: false, cls: 'transient', errcode: -1 });
  });
});
