import type { AppContext } from '../app-context';
import { isIoError } from '../db/leveldb-storage/health';
import { DomainError } from '../lib/errors';
import { newId } from '../lib/ids';
import { RateLimit } from '../http/rate-limit';
import { channelDriver } from './channels';
import type { ChannelLink, Delivery, OutgoingMessage, Recipient } from './channels/driver';
import { deliver } from './deliver';
import { pushErrors } from './errors';
import type { HistoryStore } from './history';
import { scheduleOf, type Schedule } from './schedule-time';
import type { ScheduledEntry } from './scheduled';
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
  /** Durably stores a scheduled push (server/push/scheduled.ts). */
  schedule(entry: Omit<ScheduledEntry, 'state'>): Promise<void>;
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
    let schedule: Schedule | undefined;
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
      schedule = scheduleOf(input, this.ctx.app.clock.now());
      app = isAppKeyShape(appKey) ? this.ctx.targets.appByKey(appKey) : undefined;
      if (!app) throw pushErrors.unknownAppKey();
      await this.perAppKey.consume(app.id);
      if (schedule) return await this.schedulePush(app, title, desp, options, caller, schedule);
    } catch (error) {
      if (error instanceof DomainError) return answer(error.status, error.code, error.message, error.details, error.headers);
      throw error;
    }
    return this.deliverPush(app, title, desp, options, caller);
  }

  /**
   * A push that PennyPost itself sends as one of the account's apps (reminders, server/notify/):
   * delivered at once exactly like /send (channel, recipients, history row, delivery classes),
   * without the webhook's rate limits. A title over the limit is cut, the body too.
   */
  async sendAsApp(app: TargetDoc, title: string, desp: string, caller: string): Promise<SendAnswer> {
    const settings = this.ctx.app.settings.get().push;
    const cut = (text: string, max: number) => (text.length > max ? text.slice(0, Math.max(0, max - 1)) + '…' : text);
    return this.deliverPush(app, cut(title, settings.titleMaxLength), cut(desp, settings.despMaxLength), messageOptionsOf({}), caller);
  }

  /** Stores a push for later; the answer is ServerChan's success (code 0) with `scheduled: true`. */
  private async schedulePush(app: TargetDoc, title: string, desp: string, options: MessageOptions, caller: string, schedule: Schedule): Promise<SendAnswer> {
    // Named by its due time, so the history row it becomes sorts and expires with the pushes sent then.
    const id = newId(schedule.at);
    try {
      await this.ctx.schedule({
        id,
        userId: app.userId,
        appId: app.id,
        appName: app.name,
        title,
        desp,
        ...options,
        caller: caller.slice(0, 64),
        createdAt: this.ctx.app.clock.now(),
        at: schedule.at,
      });
    } catch (error) {
      if (error instanceof DomainError) throw error;
      this.ctx.app.log.error('push: storing a scheduled push failed', { error: (error as Error | null | undefined)?.message });
      const status = isIoError(error) ? 503 : 500;
      return answer(status, status, 'PennyPost could not store the scheduled push (is the disk full or read-only?), so nothing was scheduled. Try again.');
    }
    const when = new Date(schedule.at).toISOString();
    return answer(200, 0, `Scheduled for ${when}.`, { pushId: id, scheduled: true, at: schedule.at });
  }

  /**
   * Sends a scheduled push that is due (already marked as being sent): to the app's channel and
   * recipients as they are now. One that cannot be sent (account disabled, app deleted) becomes a
   * failed history row saying why; a deleted account's pushes were dropped with it.
   */
  async sendScheduled(entry: ScheduledEntry): Promise<void> {
    const { app: context, targets } = this.ctx;
    const services: Partial<AppContext['services']> = context.services;
    const user = services.users ? await services.users.findById(entry.userId) : null;
    if (services.users && !user) return;
    if (user?.disabled) {
      await this.recordUnsent(entry, 'Not sent: the account was disabled when this scheduled push was due.');
      return;
    }
    const app = targets.get(entry.appId);
    if (!app || app.kind !== 'app' || app.userId !== entry.userId) {
      await this.recordUnsent(entry, `Not sent: the app "${entry.appName}" was deleted before this scheduled push was due.`);
      return;
    }
    if (!targets.get(app.channelId)) {
      await this.recordUnsent(entry, `Not sent: the app "${app.name}" has no channel (it was deleted).`);
      return;
    }
    await this.deliverPush(app, entry.title, entry.desp, { priority: entry.priority, group: entry.group }, entry.caller, entry.id);
  }

  /** A scheduled push that is not sent: a failed history row with no recipients and the reason. */
  async recordUnsent(entry: ScheduledEntry, summary: string): Promise<void> {
    const app = this.ctx.targets.get(entry.appId);
    const channel = app ? this.ctx.targets.get(app.channelId) : undefined;
    const now = Math.max(entry.at, this.ctx.app.clock.now());
    await this.ctx.history.finish(
      {
        id: entry.id,
        userId: entry.userId,
        appId: entry.appId,
        appName: entry.appName,
        channelId: channel?.id ?? '',
        channelType: channel?.type ?? '',
        title: entry.title,
        desp: entry.desp,
        status: 'failed',
        summary,
        total: 0,
        success: 0,
        failed: 0,
        results: [],
        caller: entry.caller,
        createdAt: now,
        finishedAt: now,
      },
      false,
    );
  }

  private async deliverPush(app: TargetDoc, title: string, desp: string, options: MessageOptions, caller: string, scheduledId?: string): Promise<SendAnswer> {
    const { app: context, targets, history } = this.ctx;
    const settings = context.settings.get().push;
    const channel = targets.get(app.channelId);
    const now = context.clock.now();
    const id = scheduledId ?? newId(now);
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
    const message = (): OutgoingMessage => ({ id, userId: app.userId, appId: app.id, appName: app.name, title, desp, ...options, time: now, url: outboundUrl, pagePath });
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

    // A secret this server cannot open (its data folder's key changed): nothing can be sent until it is entered again.
    const unreadable = targets.configs.unreadableSecrets(channel);
    if (unreadable.length > 0) {
      const message = `PennyPost cannot open this channel's stored ${unreadable.join(' and ')} (the data folder's key was replaced or damaged), so nothing was sent. Enter it again in the channel's settings.`;
      const results = recipients.map<DeliveryResult>((r) => ({
        recipient: r.label,
        ...(r.name ? { name: r.name } : {}),
        ok: false,
        class: 'systemic',
        errmsg: message,
        attempts: 0,
      }));
      Object.assign(doc, { status: 'failed', summary: message, total: results.length, success: 0, failed: results.length, results });
      try {
        await history.finish(doc, false);
      } catch (error) {
        return this.storageFailure(error, data(results));
      }
      return answer(500, 500, message, data(results));
    }

    // In-process delivery cannot fail half way: its history row, written first, is the whole record.
    if (driver.inProcess) return this.deliverInProcess(doc, recipients, () => this.ctx.link(channel.type).delivery(channel, config, driver.render(message(), app)), data);

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
      const payload = driver.render(message(), app);
      const delivery = this.ctx.link(channel.type).delivery(channel, config, payload);
      results = await deliver({
        targets: recipients,
        mode: app.pushMode === 'first' ? 'first' : 'all',
        concurrency: settings.concurrency,
        deadline,
        callTimeoutMs: settings.callTimeoutMs,
        ...(delivery.prepare ? { prepare: delivery.prepare.bind(delivery) } : {}),
        send: (recipient, timeoutMs) => delivery.send(recipient, timeoutMs),
        ...(delivery.sendBatch ? { sendBatch: delivery.sendBatch.bind(delivery), batchMax: delivery.batchMax } : {}),
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

  /**
   * A channel that delivers inside this process (the desktop feed): the history row is written with
   * the delivery it records, then the message is shown — one disk write. A full disk shows nothing
   * (the caller may try again); a crash in between leaves a recorded push that the feed's list shows
   * after the restart instead of a notification.
   */
  private async deliverInProcess(doc: MessageDoc, recipients: Recipient[], delivery: () => Delivery, data: (results: DeliveryResult[]) => SendData): Promise<SendAnswer> {
    const { app: context, history } = this.ctx;
    const results: DeliveryResult[] = recipients.map((r) => ({ recipient: r.label, ...(r.name ? { name: r.name } : {}), ok: true, class: 'ok', msgId: doc.id, attempts: 1 }));
    Object.assign(doc, { status: 'success', summary: summarize(results, results.length, 0), total: results.length, success: results.length, failed: 0, results });
    try {
      await history.finish(doc, false);
    } catch (error) {
      const message = 'PennyPost could not write the message history (is the disk full or read-only?), so nothing was sent. Free some disk space and try again.';
      context.log.error('push: history write failed', { pushId: doc.id, error: (error as Error | null | undefined)?.message });
      const failed = results.map<DeliveryResult>((r) => ({
        recipient: r.recipient,
        ...(r.name ? { name: r.name } : {}),
        ok: false,
        class: 'systemic',
        errmsg: message,
        attempts: 0,
      }));
      const status = isIoError(error) ? 503 : 500;
      return answer(status, status, message, data(failed));
    }
    const send = delivery();
    for (const recipient of recipients) {
      send.send(recipient, context.settings.get().push.callTimeoutMs).catch((error: unknown) => {
        context.log.error('push: in-process delivery crashed', { pushId: doc.id, error: (error as Error | null | undefined)?.message });
      });
    }
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
