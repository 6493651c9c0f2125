import type { AppContext } from '../app-context';
import { ApiError, ErrorCode } from '../api/errors';
import { DomainError } from '../lib/errors';
import { RateLimit } from '../http/rate-limit';
import { newId } from '../lib/ids';
import { deliver, type DeliveryPlan, type DeliveryTarget, type Failure, type Outcome } from './deliver';
import { DesktopHub, type DesktopMessage } from './desktop';
import { HistoryStore, type MessageQuery } from './history';
import { isAppKeyShape, PageTokens } from './keys';
import type { DeliveryResult, MessageDoc, MessageStatus, TargetDoc } from './schema';
import { maskedConfig, recipientLabel, TargetStore, webhookConfigOf, wechatConfigOf } from './targets';
import { webhookProbe, webhookSend, type WebhookMessage } from './webhook';
import { WechatFailure, WechatTokens, wechatSend, type WechatMessage } from './wechat';
import { isIoError } from '../db/leveldb-storage/health';

/** The answer of a /send request: ServerChan-compatible on success, `{code, message, data}` always. */
export interface SendAnswer {
  status: number;
  body: { code: number; message: string; data: unknown };
  headers: Record<string, string>;
}

export interface SendData {
  pushId: string;
  total: number;
  success: number;
  failed: number;
  results: DeliveryResult[];
  url?: string;
}

const answer = (status: number, code: number, message: string, data: unknown = null, headers: Record<string, string> = {}): SendAnswer => ({
  status,
  body: { code, message, data },
  headers,
});

/** WeChat text messages are cut at about 2048 bytes; we stay below with room for the link. */
const CUSTOM_TEXT_MAX_BYTES = 1800;

function truncateBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  let out = '';
  let bytes = 0;
  for (const ch of text) {
    const size = Buffer.byteLength(ch, 'utf8');
    if (bytes + size > maxBytes - 3) break;
    out += ch;
    bytes += size;
  }
  return out + '…';
}

function formatTime(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Reads one text field of a /send request: strings and numbers; arrays (repeated fields) are refused. */
function textField(input: Record<string, unknown>, name: string): string | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) throw new ApiError(ErrorCode.Validation, `"${name}" was given more than once; send it once.`, { field: name });
  throw new ApiError(ErrorCode.Validation, `"${name}" must be text.`, { field: name });
}

interface Recipient extends DeliveryTarget {
  address: string;
}

export class PushService {
  readonly targets: TargetStore;
  readonly history: HistoryStore;
  readonly desktop = new DesktopHub();
  readonly tokens: WechatTokens;
  readonly pages: PageTokens;
  private readonly perAppKey: RateLimit;
  private readonly perAddress: RateLimit;

  constructor(private readonly app: AppContext) {
    this.targets = new TargetStore(app);
    this.history = new HistoryStore(app);
    this.tokens = new WechatTokens(app.clock);
    this.pages = new PageTokens(app.secrets.get('push-page'));
    this.targets.onChannelChanged = (channelId) => this.tokens.drop(channelId);
    const limits = app.settings.get().push;
    this.perAppKey = new RateLimit('pushes per app key', limits.sendPerAppKey);
    this.perAddress = new RateLimit('pushes per caller address', limits.sendPerAddress);
    app.settings.onChange((settings) => {
      this.perAppKey.setPoints(settings.push.sendPerAppKey);
      this.perAddress.setPoints(settings.push.sendPerAddress);
    });
  }

  async start(): Promise<void> {
    await this.targets.load();
    const recovered = await this.history.recover();
    if (recovered > 0) this.app.log.warn('push: pushes interrupted by the last stop were recorded as failed', { count: recovered });
    await this.prune();
  }

  async prune(): Promise<number> {
    const days = this.app.settings.get().push.retentionDays;
    return this.history.prune(this.app.clock.now() - days * 24 * 3600 * 1000);
  }

  /** The Electron shell's hook for native notifications; returns an unsubscribe function. */
  onDesktopMessage(listener: (message: DesktopMessage) => void): () => void {
    return this.desktop.onAny(listener);
  }

  // ---- links ----

  /** Base of links that leave this machine: settings.network.publicBaseUrl, else this server's URL. */
  baseUrl(): string {
    const configured = this.app.settings.get().network.publicBaseUrl.trim().replace(/\/+$/, '');
    return configured || this.app.listening?.url || '';
  }

  pagePath(messageId: string): string {
    return `/m/${this.pages.tokenOf(messageId)}`;
  }

  /** Public base URL from the settings, without a trailing slash ('' when not set). */
  private publicBase(): string {
    return this.app.settings.get().network.publicBaseUrl.trim().replace(/\/+$/, '');
  }

  async pageMessage(token: string): Promise<MessageDoc | null> {
    const id = this.pages.idOf(token);
    return id ? this.history.get(id) : null;
  }

  // ---- public shapes ----

  channelOut(doc: TargetDoc) {
    return {
      id: doc.id,
      name: doc.name,
      type: doc.type,
      config: maskedConfig(doc.type, doc.config),
      appCount: this.targets.appsOfChannel(doc.id).length,
      createdAt: doc.createdAt,
      updatedAt: doc.updatedAt,
    };
  }

  appOut(doc: TargetDoc) {
    const channel = this.targets.get(doc.channelId);
    return {
      id: doc.id,
      name: doc.name,
      channelId: doc.channelId,
      channelType: channel?.type ?? '',
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

  recipientOut(doc: TargetDoc) {
    const app = this.targets.get(doc.appId);
    const channel = app ? this.targets.get(app.channelId) : undefined;
    return { id: doc.id, appId: doc.appId, address: recipientLabel(channel, doc.address), name: doc.name, remark: doc.remark, createdAt: doc.createdAt };
  }

  messageOut(doc: MessageDoc, full: boolean) {
    const base = {
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
    if (!full) return { ...base, despPreview: doc.desp.length > 140 ? doc.desp.slice(0, 140) + '…' : doc.desp };
    return { ...base, desp: doc.desp, results: doc.results, caller: doc.caller };
  }

  // ---- history ----

  async queryMessages(userId: string, q: MessageQuery) {
    if (q.appId) this.ownedAppOrHistory(userId, q.appId);
    if (q.startDate !== undefined && q.endDate !== undefined && q.startDate > q.endDate) {
      throw new ApiError(ErrorCode.Validation, 'params.startDate is after params.endDate', { field: 'params.startDate' });
    }
    const { list, total } = await this.history.query(userId, q);
    return { list: list.map((d) => this.messageOut(d, false)), total, page: q.page, pageSize: q.pageSize };
  }

  /** An app id filter may name a deleted app (its history stays); another user's app is just "no rows". */
  private ownedAppOrHistory(userId: string, appId: string): void {
    const app = this.targets.get(appId);
    if (app && (app.userId !== userId || app.kind !== 'app')) throw new ApiError(ErrorCode.NotFound, 'App not found.');
  }

  async getMessage(userId: string, id: string) {
    const doc = await this.history.get(id);
    if (!doc || doc.userId !== userId) throw new ApiError(ErrorCode.NotFound, 'Message not found.');
    return this.messageOut(doc, true);
  }

  // ---- the webhook ----

  async send(appKey: string, input: Record<string, unknown>, caller: string): Promise<SendAnswer> {
    const settings = this.app.settings.get().push;
    let title: string;
    let desp: string;
    let app: TargetDoc | undefined;
    try {
      await this.perAddress.consumeAddress(caller);
      // Validation comes before any lookup (seed §1).
      // `text` is ServerChan's old name; an empty `title` next to a filled `text` does not hide it.
      const named = textField(input, 'title');
      title = named !== undefined && named.trim() !== '' ? named : textField(input, 'text') ?? named ?? '';
      desp = textField(input, 'desp') ?? '';
      if (title.trim() === '') throw new ApiError(ErrorCode.Validation, 'title is required (the "text" field is accepted as its alias).', { field: 'title' });
      if (title.length > settings.titleMaxLength) {
        throw new ApiError(ErrorCode.Validation, `title is longer than ${settings.titleMaxLength} characters (${title.length}).`, { field: 'title' });
      }
      if (desp.length > settings.despMaxLength) {
        throw new ApiError(ErrorCode.Validation, `desp is longer than ${settings.despMaxLength} characters (${desp.length}).`, { field: 'desp' });
      }
      app = isAppKeyShape(appKey) ? this.targets.appByKey(appKey) : undefined;
      if (!app) throw new ApiError(ErrorCode.NotFound, 'Unknown app key: no app has this key (it may have been reset or deleted). Nothing was sent.');
      await this.perAppKey.consume(app.id);
    } catch (error) {
      if (error instanceof DomainError) return answer(error.code, error.code, error.message, error.details, error.headers);
      throw error;
    }
    return this.deliverPush(app, title, desp, caller);
  }

  private async deliverPush(app: TargetDoc, title: string, desp: string, caller: string): Promise<SendAnswer> {
    const settings = this.app.settings.get().push;
    const channel = this.targets.get(app.channelId);
    const now = this.app.clock.now();
    const id = newId(now);
    const started = performance.now();
    const deadline = started + settings.requestDeadlineMs;
    if (!channel) {
      return answer(500, 500, 'The app has no channel (it was deleted); pick a channel for the app. Nothing was sent.');
    }
    const channelType = channel.type as MessageDoc['channelType'];
    const recipients: Recipient[] =
      channel.type === 'desktop'
        ? [{ label: 'desktop', name: 'This computer', address: 'desktop' }]
        : this.targets.recipientsOf(app.id).map((r) => ({ label: recipientLabel(channel, r.address), name: r.name || undefined, address: r.address }));

    const doc: MessageDoc = {
      id,
      userId: app.userId,
      appId: app.id,
      appName: app.name,
      channelId: channel.id,
      channelType,
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
    const pagePath = this.pagePath(id);
    const publicBase = this.publicBase();
    // Links inside outgoing messages need a public base URL (127.0.0.1 means nothing on a phone).
    const outboundUrl = publicBase ? publicBase + pagePath : undefined;
    const data = (results: DeliveryResult[]): SendData => {
      const success = results.filter((r) => r.ok).length;
      return { pushId: id, total: results.length, success, failed: results.length - success, results, url: (publicBase || this.app.listening?.url || '') + pagePath };
    };

    if (recipients.length === 0) {
      doc.summary = `App "${app.name}" has no recipients yet, so nothing was sent. Add one with push.addRecipient.`;
      try {
        await this.history.finish(doc, false);
      } catch (error) {
        return this.storageFailure(error, data([]));
      }
      return answer(200, 0, doc.summary, data([]));
    }

    // Journal first: if the history cannot be written, nothing is sent.
    try {
      await this.history.begin({
        id,
        userId: app.userId,
        appId: app.id,
        appName: app.name,
        channelId: channel.id,
        channelType,
        title,
        desp,
        caller: doc.caller,
        createdAt: now,
        recipients: recipients.map((r) => ({ label: r.label, ...(r.name ? { name: r.name } : {}) })),
      });
    } catch (error) {
      const message = 'PennyPost could not write the message history (is the disk full or read-only?), so nothing was sent. Free some disk space and try again.';
      this.app.log.error('push: history journal failed', { pushId: id, error: (error as Error)?.message });
      const results = recipients.map<DeliveryResult>((r) => ({ recipient: r.label, ...(r.name ? { name: r.name } : {}), ok: false, class: 'systemic', errmsg: message, attempts: 0 }));
      // A full or read-only disk is "unavailable, try again later" (503), like every refused write of /api.
      const status = isIoError(error) ? 503 : 500;
      return answer(status, status, message, data(results));
    }

    let results: DeliveryResult[];
    try {
      results = await deliver(this.plan(channel, app, recipients, { id, title, desp, now, pagePath, outboundUrl }, deadline));
    } catch (error) {
      // A bug, not a delivery outcome: still recorded, so the push is not lost.
      this.app.log.error('push: delivery crashed', { pushId: id, error: (error as Error)?.message });
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
    doc.finishedAt = Math.max(now, this.app.clock.now());
    try {
      await this.history.finish(doc, true);
    } catch (error) {
      return this.storageFailure(error, data(results));
    }
    this.app.log.debug('push', { pushId: id, app: app.id, status, total: results.length, ms: Math.round(performance.now() - started) });
    if (status === 'failed') return answer(500, 500, doc.summary, data(results));
    return answer(200, 0, doc.summary, data(results));
  }

  private storageFailure(error: unknown, payload: SendData): SendAnswer {
    this.app.log.error('push: history write failed', { pushId: payload.pushId, error: (error as Error)?.message });
    const message =
      payload.total > 0
        ? `Delivered to ${payload.success} of ${payload.total} recipients, but PennyPost could not save the message history (is the disk full or read-only?).`
        : 'PennyPost could not save the message history (is the disk full or read-only?).';
    // Disk full or read-only: 503 "try again later", like every refused write of /api.
    const status = isIoError(error) ? 503 : 500;
    return answer(status, status, message, payload);
  }

  private plan(
    channel: TargetDoc,
    app: TargetDoc,
    recipients: Recipient[],
    message: { id: string; title: string; desp: string; now: number; pagePath: string; outboundUrl?: string },
    deadline: number,
  ): DeliveryPlan<Recipient> {
    const settings = this.app.settings.get().push;
    const common = {
      targets: recipients,
      mode: app.pushMode === 'first' ? ('first' as const) : ('all' as const),
      concurrency: settings.concurrency,
      deadline,
      callTimeoutMs: settings.callTimeoutMs,
    };
    const pageUrl = message.outboundUrl;

    if (channel.type === 'wechat') {
      const config = wechatConfigOf(channel);
      const wechatMessage: WechatMessage =
        app.messageType === 'template'
          ? {
              kind: 'template',
              templateId: app.templateId,
              ...(pageUrl ? { url: pageUrl } : {}),
              data: templateData(app.templateFields, message.title, message.desp, formatTime(message.now)),
            }
          : { kind: 'custom', content: customText(message.title, message.desp, pageUrl) };
      const toFailure = (error: unknown): Failure => {
        if (error instanceof WechatFailure) return { cls: error.cls, message: error.message, errcode: error.errcode, retryable: error.retryable };
        throw error;
      };
      return {
        ...common,
        prepare: async (timeoutMs) => {
          try {
            await this.tokens.get(channel.id, config, timeoutMs);
            return null;
          } catch (error) {
            return toFailure(error);
          }
        },
        send: async (recipient, timeoutMs): Promise<Outcome> => {
          let token: string | undefined;
          try {
            token = await this.tokens.get(channel.id, config, timeoutMs);
            return { ok: true, msgId: await wechatSend(config, token, recipient.address, wechatMessage, timeoutMs) };
          } catch (error) {
            const failure = toFailure(error);
            if (failure.cls !== 'token') return { ok: false, ...failure };
          }
          // Token refused: drop it, get a fresh one (one refresh for everyone), retry once.
          try {
            const fresh = await this.tokens.get(channel.id, config, timeoutMs, token);
            return { ok: true, msgId: await wechatSend(config, fresh, recipient.address, wechatMessage, timeoutMs) };
          } catch (error) {
            return { ok: false, ...toFailure(error) };
          }
        },
      };
    }

    if (channel.type === 'webhook') {
      const config = webhookConfigOf(channel);
      const webhookMessage: WebhookMessage = { pushId: message.id, appName: app.name, title: message.title, desp: message.desp, url: pageUrl, time: message.now };
      return { ...common, send: (recipient, timeoutMs) => webhookSend(config, recipient.address, webhookMessage, timeoutMs) };
    }

    // desktop
    return {
      ...common,
      send: async () => {
        this.desktop.publish({
          id: message.id,
          userId: app.userId,
          appId: app.id,
          appName: app.name,
          title: message.title,
          desp: message.desp,
          url: pageUrl ?? message.pagePath,
          createdAt: message.now,
        });
        return { ok: true, msgId: message.id };
      },
    };
  }

  // ---- channel test ----

  async testChannel(userId: string, id: string, address?: string): Promise<{ ok: boolean; message: string; class?: string; errcode?: number; ms: number }> {
    const channel = this.targets.owned(userId, 'channel', id, 'Channel');
    const settings = this.app.settings.get().push;
    const started = performance.now();
    const done = (result: { ok: boolean; message: string; class?: string; errcode?: number }) => ({ ...result, ms: Math.round(performance.now() - started) });
    const now = this.app.clock.now();
    const title = 'PennyPost test message';
    const desp = `This is a test of the channel "${channel.name}", sent ${formatTime(now)}.`;
    if (channel.type === 'wechat') {
      const config = wechatConfigOf(channel);
      try {
        const token = await this.tokens.get(channel.id, config, settings.callTimeoutMs);
        if (!address) return done({ ok: true, message: 'WeChat accepted the AppID and AppSecret and issued an access token.' });
        await wechatSend(config, token, address, { kind: 'custom', content: `${title}\n\n${desp}` }, settings.callTimeoutMs);
        return done({ ok: true, message: 'WeChat accepted the credentials and delivered a test message.' });
      } catch (error) {
        if (error instanceof WechatFailure) return done({ ok: false, message: error.message, class: error.cls, errcode: error.errcode });
        throw error;
      }
    }
    if (channel.type === 'webhook') {
      const config = webhookConfigOf(channel);
      if (!address) return done(await webhookProbe(config, settings.callTimeoutMs));
      const outcome = await webhookSend(config, address, { pushId: 'test', appName: 'PennyPost', title, desp, time: now }, settings.callTimeoutMs);
      if (outcome.ok) return done({ ok: true, message: 'The receiver accepted a test message.' });
      return done({ ok: false, message: outcome.message, class: outcome.cls, errcode: outcome.errcode });
    }
    const viewers = this.desktop.publish({ id: `test-${newId(now)}`, userId, appId: '', appName: 'PennyPost', title, desp, url: '', createdAt: now });
    return done({
      ok: true,
      message: viewers > 0 ? `Shown in ${viewers} open PennyPost window${viewers === 1 ? '' : 's'}.` : 'The channel works; no PennyPost window is following the feed right now.',
    });
  }
}

function templateData(fields: Record<string, string>, title: string, desp: string, time: string): Record<string, { value: string }> {
  const data: Record<string, { value: string }> = {};
  const put = (key: string | undefined, value: string) => {
    if (key && value) data[key] = { value };
  };
  put(fields.title, title);
  put(fields.desp, desp);
  put(fields.time, time);
  return data;
}

function customText(title: string, desp: string, url: string | undefined): string {
  const link = url ? `\n\n${url}` : '';
  const text = desp ? `${title}\n\n${desp}` : title;
  return truncateBytes(text, CUSTOM_TEXT_MAX_BYTES - Buffer.byteLength(link, 'utf8')) + link;
}

function summarize(results: DeliveryResult[], success: number, failed: number): string {
  const total = results.length;
  if (failed === 0) return total === 1 ? 'Delivered.' : `Delivered to all ${total} recipients.`;
  const failures = results.filter((r) => !r.ok);
  const systemic = failures.find((r) => r.class === 'systemic' || r.class === 'token');
  const reason = (systemic ?? failures[0]).errmsg ?? 'unknown reason';
  if (success === 0) {
    return total === 1 ? `Not delivered: ${reason}` : `Nothing was delivered to the ${total} recipients: ${reason}${failures.some((f) => f.errmsg !== reason) ? ' (details per recipient in data.results)' : ''}`;
  }
  return `Delivered to ${success} of ${total} recipients; ${failed} failed: ${reason}${failed > 1 ? ' (details per recipient in data.results)' : ''}`;
}
