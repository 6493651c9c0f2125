import { Type } from '@sinclair/typebox';
import { commonErrors } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { DesktopMessage } from '../desktop';
import { testMessage, type ChannelDriver } from './driver';

/**
 * This computer: a push becomes an event of the push service's desktop feed (server/push/desktop.ts),
 * which the UI's live feed follows over SSE and the Electron shell shows as a notification. No
 * settings, no recipients.
 */
export const desktopChannel: ChannelDriver<Record<string, never>, DesktopMessage, 'desktop'> = {
  type: 'desktop',
  config: Type.Object({}),
  secrets: {},
  movedBy: [],
  summary: [],
  self: { label: 'desktop', name: 'This computer', address: 'desktop' },
  inProcess: true,

  normalize: () => ({}),
  destination: () => '',
  endpoints: () => [],
  mask: () => ({}),
  checkAddress() {
    throw commonErrors.invalid('Desktop apps deliver to this computer and need no recipients; push to the app key directly.').at('appId');
  },
  recipientLabel: (_channel, address) => address,
  keepsRecipients: () => null,

  render: (message) => ({
    id: message.id,
    userId: message.userId,
    appId: message.appId,
    appName: message.appName,
    title: message.title,
    desp: message.desp,
    url: message.url ?? message.pagePath,
    createdAt: message.time,
  }),

  connect: ({ desktop }) => ({
    delivery: (_channel, _config, message) => ({
      send: () => {
        desktop.publish(message);
        return Promise.resolve({ ok: true, msgId: message.id });
      },
    }),

    test(channel, _config, { time }) {
      const { title, desp } = testMessage(channel, time);
      const viewers = desktop.publish({ id: `test-${newId(time)}`, userId: channel.userId, appId: '', appName: 'PennyPost', title, desp, url: '', createdAt: time });
      return Promise.resolve({
        ok: true,
        message: viewers > 0 ? `Shown in ${viewers} open PennyPost window${viewers === 1 ? '' : 's'}.` : 'The channel works; no PennyPost window is following the feed right now.',
      });
    },
  }),
};
