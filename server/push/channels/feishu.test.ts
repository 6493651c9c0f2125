import { createHmac } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock';
import { FakeFeishu } from '../../test-support/fakes/fake-robot';
import type { OutgoingMessage } from './driver';
import { feishuBody, feishuCard, feishuChannel, feishuFailure, feishuName, feishuSign, FEISHU_MARKDOWN_MAX_BYTES } from './feishu';
import { channelBed, NOW, outgoing, PLAIN_APP as app, useFake } from '../tests/channel-bed';

/**
 * The Feishu/Lark bot driver on its own: signature, the card, and what is Feishu's own in delivery to
 * the fake Feishu. What every robot channel does is in robot-channels.test.ts.
 */

const HOOK = '2d4e6f80-1a3b-4c5d-8e9f-a0b1c2d3e4f5';
const SECRET = 'Ulx4iWUw7X5w3mHtyfKbVf';
const message = outgoing();

describe('feishu config', () => {
  it('takes a Lark webhook URL and a secret (the URL checks are in robot-channels.test.ts)', () => {
    const lark = `https://open.larksuite.com/open-apis/bot/v2/hook/${HOOK}`;
    expect(feishuChannel.normalize({ webhookUrl: lark, signingSecret: SECRET })).toEqual({ webhookUrl: lark, signingSecret: SECRET });
  });
});

describe('feishu signature and card', () => {
  it('signs like Feishu’s own sample: HmacSHA256 keyed with timestamp\\nsecret over an empty message; the timestamp in seconds, as a string', () => {
    expect(feishuSign(SECRET, 1_599_360_473)).toBe(createHmac('sha256', `1599360473\n${SECRET}`).update(Buffer.alloc(0)).digest('base64'));
    const card = feishuCard(feishuChannel.render(message, app));
    expect(feishuBody({ webhookUrl: '', signingSecret: SECRET }, card, NOW + 999)).toEqual({ timestamp: String(NOW / 1000), sign: feishuSign(SECRET, NOW / 1000), ...card });
    expect(feishuBody({ webhookUrl: '', signingSecret: '' }, card, NOW)).toEqual(card);
  });

  it('renders an interactive card: header coloured by priority with the group, Markdown desp (@all when urgent), a Details button', () => {
    const push = feishuChannel.render(message, app);
    expect(feishuCard(push)).toEqual({
      msg_type: 'interactive',
      card: {
        config: { wide_screen_mode: true },
        header: { title: { tag: 'plain_text', content: 'Backup finished' }, template: 'blue' },
        elements: [
          { tag: 'markdown', content: 'All **3** jobs OK' },
          { tag: 'action', actions: [{ tag: 'button', text: { tag: 'plain_text', content: 'Details' }, type: 'default', url: 'https://pp.example.net/m/token' }] },
        ],
      },
    });
    const urgent = feishuCard({ ...push, priority: 'urgent', group: 'nightly', desp: '', url: undefined });
    expect(urgent.card.header).toEqual({ title: { tag: 'plain_text', content: '[nightly] Backup finished' }, template: 'red' });
    expect(urgent.card.elements).toEqual([{ tag: 'markdown', content: '<at id=all></at> Backup finished' }]);
    expect(feishuCard({ ...push, priority: 'low' }).card.header.template).toBe('grey');
    expect(feishuCard({ ...push, priority: 'high' }).card.header.template).toBe('orange');
    const long = feishuCard({ ...push, desp: '温度'.repeat(5000) });
    expect(Buffer.byteLength((long.card.elements[0] as { content: string }).content)).toBeLessThanOrEqual(FEISHU_MARKDOWN_MAX_BYTES);
  });
});

describe('feishu delivery (fake Feishu)', () => {
  const fake = new FakeFeishu(() => NOW);
  const bed = channelBed(feishuChannel, { clock: new ManualClock(NOW) });
  let signed: ReturnType<typeof feishuChannel.normalize>;
  const send = (config = signed, changes: Partial<OutgoingMessage> = {}) => bed.send(config, outgoing(changes));
  useFake(fake);
  beforeAll(() => {
    fake.bots.set(HOOK, { secret: SECRET });
    fake.bots.set('plainbot-0001', {});
    fake.bots.set('keywordbot-01', { keywords: ['告警'] });
    signed = feishuChannel.normalize({ webhookUrl: fake.hook(HOOK), signingSecret: SECRET });
  });

  it('posts a signed card that the fake verifies, and an unsigned one to a bot without a secret', async () => {
    expect(await send()).toEqual({ ok: true });
    expect(await send(feishuChannel.normalize({ webhookUrl: fake.hook('plainbot-0001') }))).toEqual({ ok: true });
    expect(fake.sent.map((s) => [s.id, s.msgType])).toEqual([
      [HOOK, 'interactive'],
      ['plainbot-0001', 'interactive'],
    ]);
    expect(fake.sent[0]?.body).toMatchObject({ header: { title: { content: 'Backup finished' } } });
  });

  it('keywords, the busy answer and the IP whitelist in their classes', async () => {
    const keyword = feishuChannel.normalize({ webhookUrl: fake.hook('keywordbot-01') });
    expect(await send(keyword)).toMatchObject({ cls: 'systemic', errcode: 19024, message: expect.stringMatching(/custom keywords/) });
    expect(await send(keyword, { desp: '告警: disk full' })).toEqual({ ok: true });
    fake.steps.push({ code: 9499, msg: 'Too Many Requests' }, { code: 19022, msg: 'Ip Not Allowed' });
    expect(await send()).toMatchObject({ cls: 'transient', errcode: 9499 });
    expect(await send()).toMatchObject({ cls: 'systemic', errcode: 19022 });
  });

  it('names Lark when the URL is Lark’s', () => {
    expect(feishuName(`https://open.larksuite.com/open-apis/bot/v2/hook/${HOOK}`)).toBe('Lark');
    expect(feishuName(`https://open.feishu.cn/open-apis/bot/v2/hook/${HOOK}`)).toBe('Feishu');
    expect(feishuFailure('Lark', 19021, '')).toMatchObject({ cls: 'systemic', message: expect.stringMatching(/^Lark refused the signature.*Lark allows one hour/) });
  });
});
