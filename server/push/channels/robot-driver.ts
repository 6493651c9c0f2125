import { Type, type TProperties } from '@sinclair/typebox';
import type { OutboundScope } from '../../http/outbound-policy';
import { commonErrors } from '../../lib/errors';
import type { Outcome } from '../deliver';
import { call, type CallAnswer } from '../http-client';
import { honouringRateLimit, unreachable, type Attempt } from './chat-http';
import { maskSecrets, testMessage, testResultOf, text, type ChannelDriver, type ChannelRef, type ChannelTestResult, type OutgoingMessage, type Recipient } from './driver';
import { signingSecretField, webhookUrlField } from './fields';
import { maskRobotUrl } from './robots';
import { destinationKey, urlEndpoints } from './urls';

/**
 * The single-destination webhook channels (WeCom, DingTalk and Feishu/Lark group robots, Discord
 * and Slack incoming webhooks) are declarations over this factory: each says what differs — the
 * webhook URL's shape and credential, an optional signing secret, how a push becomes the service's
 * body, how a request is signed, how the service's answer is classified, and its words — and the
 * factory writes the rest once: the config schema and its check, secrets masked and tied to the
 * webhook URL, the one recipient (no addresses), one JSON POST per attempt through the outbound
 * policy (a rate limit's wait honoured when it fits), unreachable services, and the channel test.
 */

/** What every webhook channel's config holds. */
export interface RobotConfig {
  webhookUrl: string;
  signingSecret?: string;
}

export interface RobotChannelSpec<Kind extends string, Config extends RobotConfig, Payload, Body> {
  type: Kind;
  /** What the service is called in messages ('WeCom'; Feishu or Lark by the URL's host). */
  service: string | ((config: Config) => string);
  /** Where every push goes: one result with this recipient; apps keep no recipients. */
  self: Recipient;
  /** The refusal of push.addRecipient: why these apps need no recipients. */
  noRecipients: string;
  /** Config fields that sum a channel up in lists. */
  summary: readonly string[];
  webhookUrl: {
    /** For the UI and docs/api.md. */
    description: string;
    example: string;
    /** Checks a trimmed URL; throws a DomainError at config.webhookUrl that never repeats the URL. */
    check(value: string): void;
    /**
     * The credential inside a URL of the service's shape: answers then show `•••• host …last 4 of
     * it` (which service, or which proxy). Without it they show `••••` + the URL's last 4 characters.
     */
    credentialOf?: (url: URL) => string | null;
  };
  /** An optional signing secret (sealed and masked like the URL): its description, its shape, and the refusal of another ("must be …"). */
  signingSecret?: { description: string; shape: RegExp; refusal: string };
  /** More config fields (schema), and the config completed from them (the default: the URL and secret alone). */
  fields?: TProperties;
  complete?: (base: RobotConfig, input: Readonly<Record<string, unknown>>) => Config;
  /** The push as the driver keeps it (once per push). */
  render(message: OutgoingMessage): Payload;
  /** The service's JSON body for this channel (once per delivery). */
  body(config: Config, payload: Payload): Body;
  /** What one attempt sends, signed with the attempt's time when the service signs (a retry signs afresh). Default: the body, to the webhook URL. */
  request?(config: Config, body: Body, now: number): { url: string | URL; body: unknown };
  /** Request headers besides the JSON content type. */
  headers?: Readonly<Record<string, string>>;
  /** The service's answer in the error classes; with `waitMs` for a rate limit that names its wait. */
  classify(answer: CallAnswer, config: Config): Attempt;
  /** push.testChannel's words when the test message went through. */
  tested(config: Config): string;
  /** push.testChannel without an address: a check that posts nothing (Discord reads its webhook). Without it a test always posts. */
  probe?(scope: OutboundScope, config: Config, timeoutMs: number): Promise<ChannelTestResult>;
}

/** The channel test's push: the test message, normal priority, no group, no page link. */
function testPush(channel: ChannelRef, time: number): OutgoingMessage {
  return { id: '', userId: channel.userId, appId: '', appName: 'PennyPost', ...testMessage(channel, time), priority: 'normal', group: '', time, pagePath: '' };
}

export function defineRobotChannel<Kind extends string, Config extends RobotConfig, Payload, Body>(
  spec: RobotChannelSpec<Kind, Config, Payload, Body>,
): ChannelDriver<Config, Payload, Kind> {
  const { signingSecret } = spec;
  const secrets: Record<string, string> = { webhookUrl: 'webhook URL', ...(signingSecret ? { signingSecret: 'signing secret' } : {}) };
  const serviceOf = (config: Config) => (typeof spec.service === 'string' ? spec.service : spec.service(config));
  const complete = spec.complete ?? ((base: RobotConfig) => base as Config);
  const { credentialOf } = spec.webhookUrl;

  /** One push to the webhook: a JSON POST per attempt through the account's outbound policy. */
  async function post(
    env: { outbound: (userId: string) => Promise<OutboundScope>; now: () => number },
    channel: ChannelRef,
    config: Config,
    body: Body,
    timeoutMs: number,
  ): Promise<Outcome> {
    const scope = await env.outbound(channel.userId);
    return honouringRateLimit(timeoutMs, async (left) => {
      const request = spec.request ? spec.request(config, body, env.now()) : { url: config.webhookUrl, body };
      let answer: CallAnswer;
      try {
        answer = await call(scope, request.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json; charset=utf-8', ...spec.headers },
          body: JSON.stringify(request.body),
          timeoutMs: left,
        });
      } catch (error) {
        return { outcome: unreachable(serviceOf(config), error) };
      }
      return spec.classify(answer, config);
    });
  }

  return {
    type: spec.type,
    config: Type.Object({
      webhookUrl: webhookUrlField(spec.webhookUrl.description, spec.webhookUrl.example),
      ...(signingSecret ? { signingSecret: signingSecretField(signingSecret.description) } : {}),
      ...spec.fields,
    }),
    secrets,
    movedBy: ['webhookUrl'],
    summary: spec.summary,
    self: spec.self,

    normalize(input) {
      const base: RobotConfig = { webhookUrl: text(input, 'webhookUrl').trim() };
      spec.webhookUrl.check(base.webhookUrl);
      if (signingSecret) {
        base.signingSecret = text(input, 'signingSecret').trim();
        if (base.signingSecret && !signingSecret.shape.test(base.signingSecret)) {
          throw commonErrors.invalid(`params.config.signingSecret ${signingSecret.refusal}`).at('config.signingSecret');
        }
      }
      return complete(base, input);
    },

    destination: (config) => destinationKey(config.webhookUrl),
    endpoints: (config) => urlEndpoints('webhookUrl', config.webhookUrl),
    mask: (config) => ({ ...maskSecrets(config, secrets), ...(credentialOf ? { webhookUrl: maskRobotUrl(config.webhookUrl, credentialOf) } : {}) }),

    checkAddress() {
      throw commonErrors.invalid(spec.noRecipients).at('appId');
    },
    recipientLabel: (_config, address) => address,
    keepsRecipients: () => null,

    render: (message) => spec.render(message),

    connect: ({ clock, outbound }) => {
      const env = { outbound, now: () => clock.now() };
      return {
        delivery: (channel, config, payload) => {
          const body = spec.body(config, payload);
          return { send: (_recipient, timeoutMs) => post(env, channel, config, body, timeoutMs) };
        },

        async test(channel, config, { address, timeoutMs, time }) {
          if (address === undefined && spec.probe) return spec.probe(await outbound(channel.userId), config, timeoutMs);
          const outcome = await post(env, channel, config, spec.body(config, spec.render(testPush(channel, time))), timeoutMs);
          return testResultOf(outcome, spec.tested(config));
        },
      };
    },
  };
}
