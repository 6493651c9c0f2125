import { Type } from '@sinclair/typebox';
import { OneOf } from '../../api/params';
import { commonErrors } from '../../lib/errors';
import { maskSecret } from '../keys';
import { maskSecrets, testMessage, text, type ChannelDriver, testResultOf } from './driver';
import { endpointOfUrl } from '../../http/outbound-policy';
import { checkBaseUrl, destinationKey, isHttpUrl, urlEndpoints } from './urls';
import { DEFAULT_BASE, WEBHOOK_FORMATS, webhookProbe, webhookSend, type WebhookConfig, type WebhookFormat, type WebhookMessage } from './webhook-api';

/**
 * Webhook receivers: ntfy, Gotify, Bark and generic JSON hooks (the HTTP side is ./webhook-api.ts).
 * The channel holds the receiver's base URL and an optional token; each recipient's address is a
 * topic, an application token, a device key or a URL, depending on the format.
 */

const config = Type.Object({
  format: OneOf(WEBHOOK_FORMATS, { description: 'body shape.' }),
  url: Type.Optional(
    Type.String({
      maxLength: 2048,
      description: 'base URL of the receiver (ntfy default https://ntfy.sh, Bark default https://api.day.app, required for Gotify).',
      examples: ['https://ntfy.sh'],
    }),
  ),
  token: Type.Optional(
    Type.String({
      maxLength: 512,
      description:
        'bearer token for the receiver (ntfy access token, JSON receivers), sent only to the origin of the channel url (a JSON channel with a token needs a url). Returned masked.',
    }),
  ),
  priority: Type.Optional(Type.Integer({ minimum: 0, maximum: 5, description: '1–5 (ntfy as is, Gotify doubled), 0 = receiver default.' })),
});

const SECRETS = { token: 'token' };

/** Formats whose recipient address is itself a credential (shown masked, tied to the server). */
export function addressIsSecret(format: WebhookFormat): boolean {
  return format === 'gotify' || format === 'bark';
}

/** What a credential address is called in messages. */
const credentialNames = (format: WebhookFormat) => (format === 'gotify' ? 'Gotify application tokens' : 'Bark device keys');

/** Checks a recipient address for a format; returns a plain-words problem or null. */
export function addressProblem(channel: WebhookConfig, address: string): string | null {
  const base = channel.url || DEFAULT_BASE[channel.format];
  switch (channel.format) {
    case 'ntfy':
      if (isHttpUrl(address)) return null;
      return /^[A-Za-z0-9_-]{1,64}$/.test(address) ? null : 'an ntfy address is a topic (letters, digits, _ and -, up to 64) or a full topic URL';
    case 'gotify':
      return /^[A-Za-z0-9._-]{1,256}$/.test(address) ? null : 'a Gotify address is the application token (letters, digits, . _ -)';
    case 'bark':
      return /^[A-Za-z0-9_-]{1,256}$/.test(address) ? null : 'a Bark address is the device key (letters, digits, _ -)';
    case 'json':
      if (isHttpUrl(address)) return null;
      if (!base) return 'this channel has no base url, so the address must be a full http(s) URL';
      return /^[A-Za-z0-9._~!$&'()*+,;=:@%/-]{1,1024}$/.test(address) && !address.includes('..') ? null : 'the address must be a full http(s) URL or a path under the channel url';
  }
}

const destination = (channel: WebhookConfig) => destinationKey(channel.url || DEFAULT_BASE[channel.format] || '');

export const webhookChannel: ChannelDriver<WebhookConfig, WebhookMessage, 'webhook'> = {
  type: 'webhook',
  config,
  secrets: SECRETS,
  movedBy: ['url', 'format'],
  summary: ['format', 'url'],

  normalize(input) {
    const format = input.format as WebhookFormat;
    if (!WEBHOOK_FORMATS.includes(format)) throw commonErrors.invalid(`params.config.format is required: one of ${WEBHOOK_FORMATS.join(', ')}`).at('config.format');
    const url = text(input, 'url').trim() && checkBaseUrl(text(input, 'url'), 'url', 'https://ntfy.sh');
    if (format === 'gotify' && !url) throw commonErrors.invalid('params.config.url is required for Gotify: the address of your Gotify server').at('config.url');
    const priority = input.priority === undefined ? 0 : Number(input.priority);
    const token = text(input, 'token');
    if (token && !url && !DEFAULT_BASE[format]) {
      throw commonErrors.invalid('params.config.url is required with a token: the token is only ever sent to the server of the channel url').at('config.url');
    }
    return { url, format, token, priority };
  },

  destination,

  endpoints: (channel) => urlEndpoints('url', channel.url || DEFAULT_BASE[channel.format]),

  /** ntfy topic URLs and JSON hook URLs name their own server. */
  recipientEndpoint: (channel, address) => ((channel.format === 'ntfy' || channel.format === 'json') && isHttpUrl(address) ? endpointOfUrl('address', address) : null),

  mask: (channel) => maskSecrets(channel, SECRETS),

  checkAddress(channel, address) {
    const problem = addressProblem(channel, address);
    if (problem) throw commonErrors.invalid(`params.address: ${problem}`).at('address');
  },

  recipientLabel: (channel, address) => (addressIsSecret(channel.format) ? maskSecret(address) : address),

  keepsRecipients(from, to, change) {
    if (change === 'config') {
      if (to.format !== from.format) {
        return commonErrors
          .invalid(`Apps of this channel have ${from.format} recipients, whose addresses mean nothing to ${to.format}; remove them first, or create a new channel.`)
          .at('config.format');
      }
      // Gotify application tokens and Bark device keys are recipients: they too stay with the server they were entered for.
      if (addressIsSecret(from.format) && destination(from) !== destination(to)) {
        return commonErrors
          .invalid(
            `Apps of this channel have ${credentialNames(from.format)} as recipients, which are kept only for the server they were entered for; ` +
              'remove the recipients first and add them again after changing params.config.url, or create a new channel.',
          )
          .at('config.url');
      }
      return null;
    }
    if (addressIsSecret(from.format) && !(to.format === from.format && destination(to) === destination(from))) {
      return commonErrors
        .invalid(
          `This app's recipients are ${credentialNames(from.format)}, kept only for the server they were entered for; ` +
            'pick a channel with the same format and url, or remove the recipients first and add them again after the move.',
        )
        .at('channelId');
    }
    return null;
  },

  render: (message) => ({
    pushId: message.id,
    appName: message.appName,
    title: message.title,
    desp: message.desp,
    url: message.url,
    time: message.time,
    priority: message.priority,
    group: message.group,
  }),

  connect: (env) => ({
    delivery: (channel, webhook, message) => ({
      send: async (recipient, timeoutMs) => webhookSend(await env.outbound(channel.userId), webhook, recipient.address, message, timeoutMs),
    }),

    async test(channel, webhook, { address, timeoutMs, time }) {
      const scope = await env.outbound(channel.userId);
      if (!address) return webhookProbe(scope, webhook, timeoutMs);
      const { title, desp } = testMessage(channel, time);
      const outcome = await webhookSend(scope, webhook, address, { pushId: 'test', appName: 'PennyPost', title, desp, time }, timeoutMs);
      return testResultOf(outcome, 'The receiver accepted a test message.');
    },
  }),
};
