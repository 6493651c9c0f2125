import type { AppContext } from '../app-context';
import { isIoError } from '../db/leveldb-storage/health';
import { DomainError } from '../lib/errors';
import { newId } from '../lib/ids';
import { RateLimit } from '../http/rate-limit';
import { channelDriver } from './channels';
import type { ChannelLink, Recipient } from './channels/driver';
import { deliver } from './deliver';
import { pushErrors } from './errors';
import type { HistoryStore } from './history';
import { isAppKeyShape } from './keys';
import { messageOptionsOf, type MessageOptions } from './message-options';
import type { DeliveryResult, MessageDoc, MessageStatus, TargetDoc } from './schema';
import { answer, summarize, textField, type SendAnswer, type SendData } from './send-answer';
import type { TargetStore } from './targets';

/** What a push needs from the service around it. */
export interface SendContext {
  app: AppContext;
  targets: TargetStore;
  history: HistoryStore;
  /** The live side of a channel type's driver on this server. */
  link(type: string): ChannelLink<object, unknown>;
  /** Path of a message's page (/m/{token}). */
  pagePath(messageId: string): string;
}

/**
 * The webhook (/send, /{appKey}.send, …): checks the request, journals the push, delivers it through
 * the channel's driver to every recipient, and records the outcome in the history before answering.
 */
export class PushSender {
  private readonly perAppKey: RateLimit;
  private readonly perAddress: RateLimit;

  constructor(private readonly ctx: SendContext) {
    const { settings } = ctx.app;
    const limits = settings.get().push;
    this.perAppKey = new RateLimit('pushes per app key', limits.sendPerAppKey);
    this.perAddress = new RateLimit('pushes per caller address', limits.sendPerAddress);
    settings.onChange((next) => {
      this.perAppKey.setPoints(next.push.sendPerAppKey);
      this.perAddress.setPoints(next.push.sendPerAddress);
    });
  }

  async send(appKey: string, input: Record<string, unknown>, caller: string): Promise<SendAnswer> {
    const settings = this.ctx.app.settings.get().push;
    let title: string;
    let desp: string;
    let app: TargetDoc | undefined;
    let options: MessageOptions;
    try {
      await this.perAddress.consumeAddress(caller);
      // Validation comes before any lookup (seed §1).
      // `text` is ServerChan's old name; an empty `title` next to a filled `text` does not hide it.
      const named = textField(input, 'title');
      title = named !== undefined && named.trim() !== '' ? named : (textField(input, 'text') ?? named ?? '');
      desp = textField(input, 'desp') ?? '';
      if (title.trim() === '') throw pushErrors.titleRequired().at('title');
      if (title.length > settings.titleMaxLength) throw pushErrors.titleTooLong(settings.titleMaxLength, title.length).at('title');
      if (desp.length > settings.despMaxLength) throw pushErrors.despTooLong(settings.despMaxLength, desp.length).at('desp');
      options = messageOptionsOf(input);
      app = isAppKeyShape(appKey) ? this.ctx.targets.appByKey(appKey) : undefined;
      if (!app) throw pushErrors.unknownAppKey();
      await this.perAppKey.consume(app.id);
    } catch (error) {
      if (error instanceof DomainError) return answer(error.status, error.code, error.message, error.details, error.headers);
      throw error;
    }
    return this.deliverPush(app, title, desp, options, caller);
  }

  private async deliverPush(app: TargetDoc, title: string, desp: string, options: MessageOptions, caller: string): Promise<SendAnswer> {
    const { app: context, targets, history } = this.ctx;
    const settings = context.settings.get().push;
    const channel = targets.get(app.channelId);
    const now = context.clock.now();
    const id = newId(now);
    const started = performance.now();
    const deadline = started + settings.requestDeadlineMs;
    if (!channel) {
      return answer(500, 500, 'The app has no channel (it was deleted); pick a channel for the app. Nothing was sent.');
    }
    const driver = channelDriver(channel.type);
    const config = targets.openConfig(channel);
    const recipients: Recipient[] = driver.self
      ? [driver.self]
      : targets.recipientsOf(app.id).map((r) => ({ label: driver.recipientLabel(config, r.address), name: r.name || undefined, address: r.address }));

    const doc: MessageDoc = {
      id,
      userId: app.userId,
      appId: app.id,
      appName: app.name,
      channelId: channel.id,
      channelType: channel.type,
      title,
      desp,
      status: 'empty',
      summary: '',
      total: 0,
      success: 0,
      failed: 0,
      results: [],
      caller: caller.slice(0, 64),
      createdAt: now,
      finishedAt: now,
    };
    const pagePath = this.ctx.pagePath(id);
    const publicBase = context.settings.get().network.publicBaseUrl.trim().replace(/\/+$/, '');
    // Links inside outgoing messages need a public base URL (127.0.0.1 means nothing on a phone).
    const outboundUrl = publicBase ? publicBase + pagePath : undefined;
    const data = (results: DeliveryResult[]): SendData => {
      const success = results.filter((r) => r.ok).length;
      return { pushId: id, total: results.length, success, failed: results.length - success, results, url: (publicBase || context.listening?.url || '') + pagePath };
    };

    if (recipients.length === 0) {
      doc.summary = `App "${app.name}" has no recipients yet, so nothing was sent. Add one with push.addRecipient.`;
      try {
        await history.finish(doc, false);
      } catch (error) {
        return this.storageFailure(error, data([]));
      }
      return answer(200, 0, doc.summary, data([]));
    }

    // Journal first: if the history cannot be written, nothing is sent.
    try {
      await history.begin({
        id,
        userId: app.userId,
        appId: app.id,
        appName: app.name,
        channelId: channel.id,
        channelType: channel.type,
        title,
        desp,
        caller: doc.caller,
        createdAt: now,
        recipients: recipients.map((r) => ({ label: r.label, ...(r.name ? { name: r.name } : {}) })),
      });
    } catch (error) {
      const message = 'PennyPost could not write the message history (is the disk full or read-only?), so nothing was sent. Free some disk space and try again.';
      context.log.error('push: history journal failed', { pushId: id, error: (error as Error | null | undefined)?.message });
      const results = recipients.map<DeliveryResult>((r) => ({
        recipient: r.label,
        ...(r.name ? { name: r.name } : {}),
        ok: false,
        class: 'systemic',
        errmsg: message,
        attempts: 0,
      }));
      // A full or read-only disk is "unavailable, try again later" (503), like every refused write of /api.
      const status = isIoError(error) ? 503 : 500;
      return answer(status, status, message, data(results));
    }

    let results: DeliveryResult[];
    try {
      const payload = driver.render({ id, userId: app.userId, appId: app.id, appName: app.name, title, desp, ...options, time: now, url: outboundUrl, pagePath }, app);
      const delivery = this.ctx.link(channel.type).delivery(channel, config, payload);
      results = await deliver({
        targets: recipients,
        mode: app.pushMode === 'first' ? 'first' : 'all',
        concurrency: settings.concurrency,
        deadline,
        callTimeoutMs: settings.callTimeoutMs,
        ...(delivery.prepare ? { prepare: delivery.prepare.bind(delivery) } : {}),
        send: (recipient, timeoutMs) => delivery.send(recipient, timeoutMs),
      });
    } catch (error) {
      // A bug, not a delivery outcome: still recorded, so the push is not lost.
      context.log.error('push: delivery crashed', { pushId: id, error: (error as Error | null | undefined)?.message });
      const message = `Internal error while delivering; quote push id ${id} when reporting it.`;
      results = recipients.map((r) => ({ recipient: r.label, ...(r.name ? { name: r.name } : {}), ok: false, class: 'systemic', errmsg: message }));
    }

    const success = results.filter((r) => r.ok).length;
    const failed = results.length - success;
    const status: MessageStatus = failed === 0 ? 'success' : success === 0 ? 'failed' : 'partial';
    doc.status = status;
    doc.summary = summarize(results, success, failed);
    doc.total = results.length;
    doc.success = success;
    doc.failed = failed;
    doc.results = results;
    doc.finishedAt = Math.max(now, context.clock.now());
    try {
      await history.finish(doc, true);
    } catch (error) {
      return this.storageFailure(error, data(results));
    }
    context.log.debug('push', { pushId: id, app: app.id, status, total: results.length, ms: Math.round(performance.now() - started) });
    if (status === 'failed') return answer(500, 500, doc.summary, data(results));
    return answer(200, 0, doc.summary, data(results));
  }

  private storageFailure(error: unknown, payload: SendData): SendAnswer {
    this.ctx.app.log.error('push: history write failed', { pushId: payload.pushId, error: (error as Error | null | undefined)?.message });
    const message =
      payload.total > 0
        ? `Delivered to ${payload.success} of ${payload.total} recipients, but PennyPost could not save the message history (is the disk full or read-only?).`
        : 'PennyPost could not save the message history (is the disk full or read-only?).';
    // Disk full or read-only: 503 "try again later", like every refused write of /api.
    const status = isIoError(error) ? 503 : 500;
    return answer(status, status, message, payload);
  }
}
