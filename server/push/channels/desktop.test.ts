import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock';
import { DomainError } from '../../lib/errors';
import { DesktopHub, type DesktopMessage } from '../desktop';
import { desktopChannel } from './desktop';
import { withOutbound } from '../tests/channel-env';
import { outgoing, PLAIN_APP as app } from '../tests/channel-bed';

/** The desktop driver on its own: no settings, no recipients, delivery into the desktop feed. */

const message = outgoing({ appName: 'Desk', desp: '3 jobs OK', url: undefined });
const channel = { id: 'c1', name: 'This computer', userId: 'u1' };

describe('desktop channel', () => {
  it('has no settings and keeps no recipients: every push goes to this computer', () => {
    expect(desktopChannel.normalize({})).toEqual({});
    expect(desktopChannel.mask({})).toEqual({});
    expect(desktopChannel.destination({})).toBe('');
    expect(desktopChannel.self).toEqual({ label: 'desktop', name: 'This computer', address: 'desktop' });
    let refusal: unknown;
    try {
      desktopChannel.checkAddress({}, 'anything');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal).toMatchObject({ status: 400, field: 'appId', message: expect.stringMatching(/need no recipients/) });
  });

  it('renders a feed message that links to the message page (the public one when there is one)', () => {
    expect(desktopChannel.render(message, app)).toEqual({
      id: 'm1',
      userId: 'u1',
      appId: 'a1',
      appName: 'Desk',
      title: 'Backup finished',
      desp: '3 jobs OK',
      url: '/m/token',
      createdAt: message.time,
    });
    expect(desktopChannel.render({ ...message, url: 'https://pp.example.net/m/token' }, app).url).toBe('https://pp.example.net/m/token');
  });

  it('delivers into the desktop feed of its server, and its test says how many windows showed it', async () => {
    const desktop = new DesktopHub();
    const link = desktopChannel.connect(withOutbound({ clock: new ManualClock(message.time), desktop }));
    const seen: DesktopMessage[] = [];
    const stop = desktop.subscribe('u1', (m) => seen.push(m));
    const outcome = await link.delivery(channel, {}, desktopChannel.render(message, app)).send(desktopChannel.self!, 1000);
    expect(outcome).toEqual({ ok: true, msgId: 'm1' });
    expect(seen.map((m) => m.title)).toEqual(['Backup finished']);
    expect(await link.test(channel, {}, { timeoutMs: 1000, time: message.time })).toEqual({ ok: true, message: 'Shown in 1 open PennyPost window.' });
    expect(seen[1]).toMatchObject({ title: 'PennyPost test message', desp: expect.stringMatching(/^This is a test of the channel "This computer"/) });
    stop();
    expect(await link.test(channel, {}, { timeoutMs: 1000, time: message.time })).toMatchObject({ message: expect.stringMatching(/no PennyPost window is following/) });
  });
});
