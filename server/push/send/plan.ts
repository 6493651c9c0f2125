import { commonErrors } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { channelDriver } from '../channels';
import type { ChannelDriver, OutgoingMessage, Recipient } from '../channels/driver';
import type { DeliveryResult, MessageDoc, TargetDoc } from '../schema';
import type { SendData } from './answer';
import type { PushRequest, SendContext } from './context';
import { failEveryone, type PushOutcome } from './outcome';

/**
 * How a push leaves: `settled` when nothing can (no recipients, a secret this server cannot open; the
 * outcome is known already), `inProcess` for a channel inside this process (the desktop feed: recorded,
 * then shown), `outbound` for every other channel (journaled, delivered, recorded).
 */
export type Route = { kind: 'settled'; outcome: PushOutcome } | { kind: 'inProcess' } | { kind: 'outbound' };

/** Everything the later steps need, decided once: the channel, its open config, the recipients, the message. */
export interface Plan {
  id: string;
  request: PushRequest;
  channel: TargetDoc;
  driver: ChannelDriver<object>;
  config: Record<string, unknown>;
  recipients: Recipient[];
  message: OutgoingMessage;
  route: Route;
  /** The message page on this server, or under the public base URL (the answer's `url`). */
  pageUrl: string;
  /** When the push was created (ms), and performance.now() at its start and deadline. */
  now: number;
  started: number;
  deadline: number;
}

/** Plans a push: a deleted channel is refused; an app without recipients or with an unreadable secret is settled at once. */
export function planPush(ctx: SendContext, request: PushRequest): Plan {
  const { app, targets } = ctx;
  const settings = app.settings.get();
  const channel = targets.get(request.app.channelId);
  if (!channel) throw commonErrors.internal('The app has no channel (it was deleted); pick a channel for the app. Nothing was sent.');
  const now = app.clock.now();
  const id = request.id ?? newId(now);
  const started = performance.now();
  const driver = channelDriver(channel.type);
  const config = targets.openConfig(channel);
  const recipients: Recipient[] = driver.self
    ? [driver.self]
    : targets.recipientsOf(request.app.id).map((r) => ({ label: driver.recipientLabel(config, r.address), name: r.name || undefined, address: r.address }));
  const pagePath = `/m/${ctx.pages.tokenOf(id)}`;
  const publicBase = settings.network.publicBaseUrl.trim().replace(/\/+$/, '');
  // Links inside outgoing messages need a public base URL (127.0.0.1 means nothing on a phone).
  const { title, desp, options } = request;
  const target = request.app;
  const message: OutgoingMessage = {
    id,
    userId: target.userId,
    appId: target.id,
    appName: target.name,
    title,
    desp,
    ...options,
    time: now,
    url: publicBase ? publicBase + pagePath : undefined,
    pagePath,
  };
  return {
    id,
    request,
    channel,
    driver,
    config,
    recipients,
    message,
    route: routeOf(ctx, request, channel, driver, recipients),
    pageUrl: (publicBase || app.listening?.url || '') + pagePath,
    now,
    started,
    deadline: started + settings.push.requestDeadlineMs,
  };
}

function routeOf(ctx: SendContext, request: PushRequest, channel: TargetDoc, driver: ChannelDriver<object>, recipients: Recipient[]): Route {
  if (recipients.length === 0) {
    const summary = `App "${request.app.name}" has no recipients yet, so nothing was sent. Add one with push.addRecipient.`;
    return { kind: 'settled', outcome: { status: 'empty', summary, results: [] } };
  }
  // A secret this server cannot open (its data folder's key changed): nothing can be sent until it is entered again.
  const unreadable = ctx.targets.configs.unreadableSecrets(channel);
  if (unreadable.length > 0) {
    const summary = `PennyPost cannot open this channel's stored ${unreadable.join(' and ')} (the data folder's key was replaced or damaged), so nothing was sent. Enter it again in the channel's settings.`;
    return { kind: 'settled', outcome: { status: 'failed', summary, results: failEveryone(recipients, summary, 0) } };
  }
  return driver.inProcess ? { kind: 'inProcess' } : { kind: 'outbound' };
}

/** The answer's `data` for these results. */
export function sendData(plan: Plan, results: DeliveryResult[]): SendData {
  const success = results.filter((r) => r.ok).length;
  return { pushId: plan.id, total: results.length, success, failed: results.length - success, results, url: plan.pageUrl };
}

/** What the journal and the history keep of every push: who sent what, through which app and channel, when. */
export function pushFacts(plan: Plan) {
  const { app, title, desp, caller } = plan.request;
  return {
    id: plan.id,
    userId: app.userId,
    appId: app.id,
    appName: app.name,
    channelId: plan.channel.id,
    channelType: plan.channel.type,
    title,
    desp,
    caller: caller.slice(0, 64),
    createdAt: plan.now,
  };
}

/** The history row of a push with its outcome. */
export function historyRow(plan: Plan, outcome: PushOutcome, finishedAt: number): MessageDoc {
  const success = outcome.results.filter((r) => r.ok).length;
  return { ...pushFacts(plan), ...outcome, total: outcome.results.length, success, failed: outcome.results.length - success, finishedAt };
}
