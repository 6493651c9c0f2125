import { optionalService, type AppContext } from '../app-context';
import { OutboundPolicy } from '../http/outbound-policy';
import { commonErrors } from '../lib/errors';
import { ChannelConfigs } from './channel-configs';
import { ChannelLinks } from './channel-links';
import { channelDriver } from './channels';
import type { ChannelTestResult } from './channels/driver';
import { ChangeNotices, type ChangeTopic } from './change-notices';
import { DesktopHub, type DesktopMessage } from './desktop';
import { pushErrors } from './errors';
import { feedHtml, type FeedItem } from './feed';
import { HistoryStore, type MessageQuery } from './history';
import type { AppView, ChannelView, MessageSummaryView, MessageView, RecipientView } from './result-shapes';
import { isAppKeyShape, PageTokens } from './keys';
import type { MessageDoc, MessageType, TargetDoc } from './schema';
import { SecretBox } from './secret-box';
import { SendLimits } from './send/admit';
import type { SendAnswer } from './send/answer';
import type { SendContext } from './send/context';
import { recordUnsentPush, sendDuePush } from './send/due';
import { sendAsApp, sendWebhook } from './send/pipeline';
import { ScheduledPushes } from './scheduled';
import { TargetStore, type AppInput } from './targets';

export type { SendAnswer, SendData } from './send/answer';

/** How a push service is built (pushDomain's options). */
export interface PushOptions {
  /** The most scheduled pushes waiting per account (default 1,000; tests lower it). */
  scheduledPerUser?: number;
  /** The desktop feed to publish to (the domain keeps one across restarts); a new one by default. */
  desktop?: DesktopHub;
  /** The "your data changed" notices of the feed streams (kept across restarts like `desktop`). */
  changes?: ChangeNotices;
}

/**
 * The push domain's service (app.services.push): channels, apps and recipients (`targets`), the
 * webhook (`send`), the history, message pages and the desktop feed. Everything that depends on a
 * channel's type is asked of its driver (server/push/channels/); each server has its own sealing
 * key and its own driver state (e.g. WeChat access tokens).
 */
export class PushService {
  readonly targets: TargetStore;
  readonly history: HistoryStore;
  readonly desktop: DesktopHub;
  readonly changes: ChangeNotices;
  readonly pages: PageTokens;
  private readonly links: ChannelLinks;
  /** Where the channels' requests may go, per account (server/http/outbound-policy.ts). */
  private readonly outbound: OutboundPolicy;
  /** What a push's steps work with (server/push/send/). */
  private readonly sending: SendContext;
  private readonly limits: SendLimits;
  readonly scheduled: ScheduledPushes;

  constructor(
    private readonly app: AppContext,
    options: PushOptions = {},
  ) {
    this.desktop = options.desktop ?? new DesktopHub();
    this.changes = options.changes ?? new ChangeNotices();
    this.outbound = new OutboundPolicy(app, { roleOf: async (userId) => (await optionalService(app, 'users')?.findById(userId))?.role ?? null });
    this.targets = new TargetStore(app, new ChannelConfigs(new SecretBox(app.secrets), this.outbound));
    this.history = new HistoryStore(app);
    this.pages = new PageTokens(app.secrets.get('push-page'));
    this.links = new ChannelLinks({ clock: app.clock, desktop: this.desktop, outbound: (userId) => this.outbound.scopeFor(userId) });
    this.targets.onChannelChanged = (channel) => this.links.get(channel.type).forget?.(channel.id);
    const sending: SendContext = { app, targets: this.targets, history: this.history, links: this.links, pages: this.pages };
    this.sending = sending;
    this.limits = new SendLimits(app.settings);
    this.scheduled = new ScheduledPushes({
      app,
      history: this.history,
      send: (entry) => sendDuePush(sending, entry),
      fail: (entry, summary) => recordUnsentPush(sending, entry, summary),
      perUser: options.scheduledPerUser,
    });
  }

  async start(): Promise<void> {
    await this.targets.load();
    const recovered = await this.history.recover();
    if (recovered > 0) this.app.log.warn('push: pushes interrupted by the last stop were recorded as failed', { count: recovered });
    const scheduled = await this.scheduled.start();
    if (scheduled.interrupted > 0) this.app.log.warn('push: scheduled pushes interrupted by the last stop were recorded, not sent again', { count: scheduled.interrupted });
    await this.prune();
  }

  /**
   * The server is stopping (its HTTP server already finished its requests): the scheduled-push timer
   * stops and the pushes being sent finish, the history is written, then every channel link
   * releases what it holds (e.g. email's pooled SMTP connections). Idempotent.
   */
  async stop(): Promise<void> {
    // Open feed streams end (their sign-ins were checked against this database); browsers reconnect by themselves.
    this.desktop.endStreams();
    await this.scheduled.stop();
    await this.history.drain();
    for (const reason of await this.links.close()) {
      this.app.log.warn('push: a channel driver did not close cleanly', { error: (reason as Error | null | undefined)?.message });
    }
    this.outbound.close();
  }

  /**
   * Tells the person's open windows that their `topic` data changed (e.g. a new inbox draft), on
   * the feed stream (`event: change`), so they read it again now rather than at their next poll.
   */
  announce(userId: string, topic: ChangeTopic): void {
    this.changes.announce(userId, topic);
  }

  async prune(): Promise<number> {
    const days = this.app.settings.get().push.retentionDays;
    return this.history.prune(this.app.clock.now() - days * 24 * 3600 * 1000);
  }

  /** The Electron shell's hook for native notifications; returns an unsubscribe function. */
  onDesktopMessage(listener: (message: DesktopMessage) => void): () => void {
    return this.desktop.onAny(listener);
  }

  // ---- apps ----

  /** push.createApp: an app's template is checked by its channel's driver first (WeChat: against the account's template list). */
  async createApp(userId: string, input: AppInput): Promise<TargetDoc> {
    const channel = this.targets.owned(userId, 'channel', input.channelId);
    const templateFields = await this.checkTemplate(channel, input.messageType, input.templateId, input.templateFields, {});
    return this.targets.createApp(userId, templateFields ? { ...input, templateFields } : input);
  }

  /** push.updateApp: a change of channel, message form, template or template fields has the template checked again. */
  async updateApp(userId: string, id: string, input: Partial<AppInput>): Promise<TargetDoc> {
    const app = this.targets.owned(userId, 'app', id);
    const { channelId, messageType, templateId, templateFields: given } = input;
    if (channelId === undefined && messageType === undefined && templateId === undefined && given === undefined) return this.targets.updateApp(userId, id, input);
    const channel = this.targets.owned(userId, 'channel', channelId ?? app.channelId);
    const templateFields = await this.checkTemplate(channel, messageType ?? app.messageType, templateId ?? app.templateId, given, app.templateFields);
    return this.targets.updateApp(userId, id, templateFields ? { ...input, templateFields } : input);
  }

  /** The template fields to store for a template app, as the channel's driver checks them; undefined when there is nothing to check. */
  private async checkTemplate(
    channel: TargetDoc,
    messageType: MessageType | '',
    templateId: string,
    given: Record<string, string> | undefined,
    stored: Record<string, string>,
  ): Promise<Record<string, string> | undefined> {
    const link = this.links.get(channel.type);
    if (messageType !== 'template' || !templateId.trim() || !channelDriver(channel.type).templates || !link.checkTemplate) return undefined;
    const unreadable = this.targets.configs.unreadableSecrets(channel);
    if (unreadable.length > 0) {
      // As /send and push.testChannel say it (a sentence of its own, like a driver's config checks).
      const secret = unreadable.join(' and ');
      throw commonErrors
        .invalid(
          `PennyPost cannot open this channel's stored ${secret} (the data folder's key was replaced or damaged), so the template could not be checked. Enter it again in the channel's settings.`,
        )
        .at('channelId');
    }
    return link.checkTemplate(channel, this.targets.openConfig(channel), { templateId: templateId.trim(), given: given ?? {}, stored }, this.app.settings.get().push.callTimeoutMs);
  }

  // ---- links ----

  /**
   * A new appKey for an app: the old key stops working at once, and what was scheduled with it is
   * not sent (recorded as failed, with the reason): the documented remedy for a leaked key.
   */
  async resetAppKey(userId: string, appId: string): Promise<TargetDoc> {
    const app = await this.targets.resetAppKey(userId, appId);
    await this.scheduled.dropApp(userId, appId);
    return app;
  }

  /** Base of links that leave this machine: settings.network.publicBaseUrl, else this server's URL. */
  baseUrl(): string {
    const configured = this.app.settings.get().network.publicBaseUrl.trim().replace(/\/+$/, '');
    return configured || this.app.listening?.url || '';
  }

  pagePath(messageId: string): string {
    return `/m/${this.pages.tokenOf(messageId)}`;
  }

  async pageMessage(token: string): Promise<MessageDoc | null> {
    const id = this.pages.idOf(token);
    return id ? this.history.get(id) : null;
  }

  // ---- public shapes ----

  channelOut(doc: TargetDoc): ChannelView {
    return {
      id: doc.id,
      name: doc.name,
      // Stored types are only ever the drivers' (the API takes no other).
      type: doc.type as ChannelView['type'],
      config: this.targets.configs.masked(doc),
      appCount: this.targets.appsOfChannel(doc.id).length,
      createdAt: doc.createdAt,
      updatedAt: doc.updatedAt,
    };
  }

  appOut(doc: TargetDoc): AppView {
    const channel = this.targets.get(doc.channelId);
    return {
      id: doc.id,
      name: doc.name,
      channelId: doc.channelId,
      // Stored types are only ever the drivers' (the API takes no other).
      channelType: (channel?.type ?? '') as AppView['channelType'],
      messageType: doc.messageType,
      templateId: doc.templateId,
      templateFields: doc.templateFields,
      pushMode: doc.pushMode,
      appKey: doc.appKey,
      sendUrl: `${this.baseUrl()}/send/${doc.appKey}`,
      recipientCount: this.targets.recipientsOf(doc.id).length,
      createdAt: doc.createdAt,
      updatedAt: doc.updatedAt,
    };
  }

  /** An app's recipients as answers show them (credentials masked by the channel's driver). */
  recipientsOut(app: TargetDoc): RecipientView[] {
    const channel = this.targets.get(app.channelId);
    const label = channel ? labeller(channel, this.targets.openConfig(channel)) : (address: string) => address;
    return this.targets.recipientsOf(app.id).map((doc) => recipientOut(doc, label));
  }

  recipientOut(doc: TargetDoc): RecipientView {
    const app = this.targets.get(doc.appId);
    const channel = app ? this.targets.get(app.channelId) : undefined;
    return recipientOut(doc, channel ? labeller(channel, this.targets.openConfig(channel)) : (address) => address);
  }

  private messageFields(doc: MessageDoc) {
    return {
      id: doc.id,
      appId: doc.appId,
      appName: doc.appName,
      channelType: doc.channelType,
      title: doc.title,
      status: doc.status,
      summary: doc.summary,
      total: doc.total,
      success: doc.success,
      failed: doc.failed,
      createdAt: doc.createdAt,
      finishedAt: doc.finishedAt,
      url: this.baseUrl() + this.pagePath(doc.id),
    };
  }

  /** A push as the history list shows it. */
  messageSummaryOut(doc: MessageDoc): MessageSummaryView {
    return { ...this.messageFields(doc), despPreview: doc.desp.length > 140 ? doc.desp.slice(0, 140) + '…' : doc.desp };
  }

  /** A push with its text and every recipient's result. */
  async messageOut(doc: MessageDoc): Promise<MessageView> {
    // `html`: the Markdown rendered as the message page and the feed show it (the UI showed the raw marks).
    return { ...this.messageFields(doc), desp: doc.desp, html: await feedHtml(doc.desp), results: doc.results, caller: doc.caller };
  }

  // ---- history ----

  async queryMessages(userId: string, q: MessageQuery) {
    if (q.appId) this.ownedAppOrHistory(userId, q.appId);
    if (q.startDate !== undefined && q.endDate !== undefined && q.startDate > q.endDate) throw pushErrors.startAfterEnd().at('startDate');
    const { list, total } = await this.history.query(userId, q);
    return { list: list.map((d) => this.messageSummaryOut(d)), total, page: q.page, pageSize: q.pageSize };
  }

  /** The live feed's history: the newest pushes delivered to desktop apps, in the feed's shape (with the rendered Markdown). */
  async recentFeed(userId: string, limit: number): Promise<{ list: FeedItem[] }> {
    const docs = await this.history.recentDesktop(userId, limit);
    const list = await Promise.all(
      docs.map(async (doc) => ({
        id: doc.id,
        appId: doc.appId,
        appName: doc.appName,
        title: doc.title,
        desp: doc.desp,
        html: await feedHtml(doc.desp),
        url: this.baseUrl() + this.pagePath(doc.id),
        createdAt: doc.createdAt,
      })),
    );
    return { list };
  }

  /** An app id filter may name a deleted app (its history stays); another user's app is just "no rows". */
  private ownedAppOrHistory(userId: string, appId: string): void {
    const app = this.targets.get(appId);
    if (app && (app.userId !== userId || app.kind !== 'app')) throw pushErrors.appNotFound();
  }

  async getMessage(userId: string, id: string) {
    const doc = await this.history.get(id);
    if (!doc || doc.userId !== userId) throw pushErrors.messageNotFound();
    return this.messageOut(doc);
  }

  // ---- the webhook ----

  /** Whether an app has this key (the drop-in forms check a list of keys before pushing to any). */
  knowsAppKey(appKey: string): boolean {
    return isAppKeyShape(appKey) && this.targets.appByKey(appKey) !== undefined;
  }

  /** /send and its drop-in forms: the answer, which the route shapes for its ecosystem. */
  send(appKey: string, input: Record<string, unknown>, caller: string): Promise<SendAnswer> {
    return sendWebhook(this.sending, { limits: this.limits, scheduled: this.scheduled }, appKey, input, caller);
  }

  /** Whether `appId` is one of this account's apps. */
  ownsApp(userId: string, appId: string): boolean {
    const app = this.targets.get(appId);
    return app !== undefined && app.kind === 'app' && app.userId === userId;
  }

  /**
   * Sends as one of the account's apps for PennyPost itself (reminders): like /send with that
   * app's key — its channel, recipients, history row and delivery classes. Null when the app is gone.
   */
  async sendAsApp(userId: string, appId: string, message: { title: string; desp: string }, caller: string): Promise<SendAnswer | null> {
    const app = this.targets.get(appId);
    if (!app || app.kind !== 'app' || app.userId !== userId) return null;
    return sendAsApp(this.sending, app, message, caller);
  }

  // ---- scheduled pushes ----

  /** The user's pending scheduled pushes, soonest first, a page at a time. */
  queryScheduled(userId: string, page: number, pageSize: number) {
    const all = this.scheduled.list(userId);
    const list = all.slice((page - 1) * pageSize, page * pageSize).map((e) => ({
      id: e.id,
      appId: e.appId,
      appName: this.targets.get(e.appId)?.name ?? e.appName,
      title: e.title,
      priority: e.priority,
      group: e.group,
      at: e.at,
      createdAt: e.createdAt,
      sending: e.state === 'sending',
    }));
    return { list, total: all.length, page, pageSize };
  }

  async cancelScheduled(userId: string, id: string) {
    const entry = await this.scheduled.cancel(userId, id);
    return { cancelled: true as const, id: entry.id, at: entry.at };
  }

  // ---- channel test ----

  /** Checks a channel through its driver (and sends its test message to `address`). */
  async testChannel(userId: string, id: string, address?: string): Promise<ChannelTestResult & { ms: number }> {
    const channel = this.targets.owned(userId, 'channel', id);
    const started = performance.now();
    const unreadable = this.targets.configs.unreadableSecrets(channel);
    if (unreadable.length > 0) {
      const message = `PennyPost cannot open this channel's stored ${unreadable.join(' and ')} (the data folder's key was replaced or damaged). Enter it again in the channel's settings.`;
      return { ok: false, message, class: 'systemic', ms: Math.round(performance.now() - started) };
    }
    const result = await this.links.get(channel.type).test(channel, this.targets.openConfig(channel), {
      address,
      timeoutMs: this.app.settings.get().push.callTimeoutMs,
      time: this.app.clock.now(),
    });
    return { ...result, ms: Math.round(performance.now() - started) };
  }
}

function labeller(channel: TargetDoc, config: Record<string, unknown>): (address: string) => string {
  const driver = channelDriver(channel.type);
  return (address) => driver.recipientLabel(config, address);
}

function recipientOut(doc: TargetDoc, label: (address: string) => string): RecipientView {
  return { id: doc.id, appId: doc.appId, address: label(doc.address), name: doc.name, remark: doc.remark, createdAt: doc.createdAt };
}
