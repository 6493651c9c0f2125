import type { RxCollection } from 'rxdb';
import type { AppContext } from '../app-context';
import { ApiError, ErrorCode } from '../api/errors';
import { KeyedMutex } from '../lib/keyed-mutex';
import { newId } from '../lib/ids';
import type { SecretStore } from '../config/secrets';
import { sealString, unsealString } from '../config/sealed-string';
import { isMasked, maskSecret, newAppKey } from './keys';
import type { ChannelType, MessageType, PushMode, TargetDoc } from './schema';
import { WECHAT_DEFAULT_API_BASE, type WechatConfig } from './wechat';
import {
  addressIsSecret,
  checkWebhookAddress,
  DEFAULT_BASE,
  destinationKey,
  isHttpUrl,
  WEBHOOK_FORMATS,
  webhookLabel,
  type WebhookConfig,
  type WebhookFormat,
} from './webhook';

/**
 * Channels, apps and recipients (collection push_targets). The collection never syncs and only
 * this service writes it, so every document is also held in memory: /send resolves an app key,
 * its channel and its recipients without touching the disk.
 */

export const LIMITS = { channelsPerUser: 50, appsPerUser: 200, recipientsPerApp: 1000 };

export const DEFAULT_TEMPLATE_FIELDS = { title: 'title', desp: 'content', time: 'time' };

export interface ChannelInput {
  appId?: string;
  appSecret?: string;
  apiBase?: string;
  tokenMode?: 'stable' | 'classic';
  url?: string;
  format?: WebhookFormat;
  token?: string;
  priority?: number;
}

/** Seals and unseals channel secrets at rest (set by the push domain at start; server/config/sealed-string.ts). */
let secretBox: { seal(plain: string): string; unseal(value: string): string } = { seal: (v) => v, unseal: (v) => v };
export function useSecretStore(secrets: SecretStore): void {
  secretBox = {
    seal: (plain) => sealString(secrets, 'push-secrets', plain),
    unseal: (value) => unsealString(secrets, 'push-secrets', value),
  };
}
const SECRET_KEYS = ['appSecret', 'token'];
/** The config with its secrets readable (for delivery and masking). */
export function openConfig(config: Record<string, unknown>): Record<string, unknown> {
  const out = { ...config };
  for (const key of SECRET_KEYS) if (typeof out[key] === 'string') out[key] = secretBox.unseal(out[key] as string);
  return out;
}
/** The config as stored: secrets sealed. */
export function sealConfig(config: Record<string, unknown>): Record<string, unknown> {
  const out = { ...config };
  for (const key of SECRET_KEYS) if (typeof out[key] === 'string') out[key] = secretBox.seal(out[key] as string);
  return out;
}

const notFound = (what: string) => new ApiError(ErrorCode.NotFound, `${what} not found.`);
const bad = (message: string, field?: string) => new ApiError(ErrorCode.Validation, message, field ? { field } : null);

/** The secret config fields of each channel type, with the name a person knows them by. */
const SECRET_FIELDS: Record<ChannelType, Array<{ key: 'appSecret' | 'token'; label: string }>> = {
  wechat: [{ key: 'appSecret', label: 'AppSecret' }],
  webhook: [{ key: 'token', label: 'token' }],
  desktop: [],
};

/**
 * Where a channel's requests go (normalised, see destinationKey): the WeChat apiBase, the webhook
 * url, or the format's default server when the url is empty. '' for desktop channels and for JSON
 * channels without a url.
 */
export function channelDestination(type: ChannelType | '', config: Record<string, unknown>): string {
  if (type === 'wechat') return destinationKey(String(config.apiBase || WECHAT_DEFAULT_API_BASE));
  if (type === 'webhook') return destinationKey(String(config.url || DEFAULT_BASE[config.format as WebhookFormat] || ''));
  return '';
}

/**
 * Secrets stay where they were entered: a config change that moves the channel to another
 * destination must carry every stored secret again. Left out, empty or the masked value that the
 * API hands out is refused (400), so a stored secret never goes to an address it was not entered for.
 */
function checkSecretsStay(type: ChannelType, given: ChannelInput, previous: Record<string, unknown>, next: Record<string, unknown>): void {
  if (channelDestination(type, previous) === channelDestination(type, next)) return;
  const moved = type === 'wechat' ? 'apiBase' : 'url';
  for (const { key, label } of SECRET_FIELDS[type]) {
    if (!String(previous[key] ?? '')) continue;
    const value = given[key];
    if (typeof value === 'string' && value.trim() !== '' && !isMasked(value)) continue;
    throw bad(
      `Enter the ${label} again: it is kept only for the address it was entered for. This change sends the channel somewhere else ` +
        `(params.config.${moved}${type === 'webhook' ? ' or format' : ''}), so send params.config.${key} with it, or create a new channel.`,
      `params.config.${key}`,
    );
  }
}

/** Validates and normalises a channel config for its type; `previous` supplies kept secrets. */
export function normalizeConfig(type: ChannelType, input: ChannelInput, sealedPrevious?: Record<string, unknown>): Record<string, unknown> {
  return sealConfig(normalizeOpenConfig(type, input, sealedPrevious ? openConfig(sealedPrevious) : undefined));
}

function normalizeOpenConfig(type: ChannelType, input: ChannelInput, previous?: Record<string, unknown>): Record<string, unknown> {
  const given = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as ChannelInput;
  const allowed: Record<ChannelType, string[]> = {
    wechat: ['appId', 'appSecret', 'apiBase', 'tokenMode'],
    webhook: ['url', 'format', 'token', 'priority'],
    desktop: [],
  };
  for (const key of Object.keys(given)) {
    if (!allowed[type].includes(key)) throw bad(`params.config.${key} does not apply to a ${type} channel (it takes ${allowed[type].join(', ') || 'no settings'})`, `params.config.${key}`);
  }
  const next = buildConfig(type, given, previous);
  if (previous) checkSecretsStay(type, given, previous, next);
  return next;
}

function buildConfig(type: ChannelType, given: ChannelInput, previous?: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...(previous ?? {}), ...given };
  // A masked secret sent back unchanged (or left out) keeps the stored one.
  for (const secretKey of ['appSecret', 'token']) {
    if (isMasked(given[secretKey as keyof ChannelInput])) merged[secretKey] = previous?.[secretKey] ?? '';
  }
  if (type === 'wechat') {
    const appId = String(merged.appId ?? '').trim();
    const appSecret = String(merged.appSecret ?? '').trim();
    const apiBase = String(merged.apiBase || WECHAT_DEFAULT_API_BASE).trim();
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(appId)) throw bad('params.config.appId is required: the AppID of the Official Account (e.g. wx0123456789abcdef)', 'params.config.appId');
    if (!/^[A-Za-z0-9_-]{1,128}$/.test(appSecret)) throw bad('params.config.appSecret is required: the AppSecret of the Official Account', 'params.config.appSecret');
    if (!isHttpUrl(apiBase)) throw bad('params.config.apiBase must be an http(s) URL', 'params.config.apiBase');
    return { appId, appSecret, apiBase, tokenMode: merged.tokenMode ?? 'stable' };
  }
  if (type === 'webhook') {
    const format = merged.format as WebhookFormat;
    if (!WEBHOOK_FORMATS.includes(format)) throw bad(`params.config.format is required: one of ${WEBHOOK_FORMATS.join(', ')}`, 'params.config.format');
    const url = String(merged.url ?? '').trim();
    if (url && !isHttpUrl(url)) throw bad('params.config.url must be an http(s) URL', 'params.config.url');
    if (format === 'gotify' && !url) throw bad('params.config.url is required for Gotify: the address of your Gotify server', 'params.config.url');
    const priority = merged.priority === undefined ? 0 : Number(merged.priority);
    const token = String(merged.token ?? '');
    if (token && !url && !DEFAULT_BASE[format]) {
      throw bad('params.config.url is required with a token: the token is only ever sent to the server of the channel url', 'params.config.url');
    }
    return { url, format, token, priority };
  }
  return {};
}

export function maskedConfig(type: ChannelType | '', sealed: Record<string, unknown>): Record<string, unknown> {
  const config = openConfig(sealed);
  if (type === 'wechat') return { ...config, appSecret: maskSecret(String(config.appSecret ?? '')) };
  if (type === 'webhook') return { ...config, token: config.token ? maskSecret(String(config.token)) : '' };
  return { ...config };
}

export function wechatConfigOf(channel: TargetDoc): WechatConfig {
  const c = openConfig(channel.config);
  return {
    appId: String(c.appId),
    appSecret: String(c.appSecret),
    apiBase: String(c.apiBase || WECHAT_DEFAULT_API_BASE),
    tokenMode: c.tokenMode === 'classic' ? 'classic' : 'stable',
  };
}

export function webhookConfigOf(channel: TargetDoc): WebhookConfig {
  const c = openConfig(channel.config);
  return { url: String(c.url ?? ''), format: c.format as WebhookFormat, token: String(c.token ?? ''), priority: Number(c.priority ?? 0) };
}

/** How a recipient shows in answers and results (credentials masked). */
export function recipientLabel(channel: TargetDoc | undefined, address: string): string {
  if (channel?.type === 'webhook') return webhookLabel(channel.config.format as WebhookFormat, address);
  return address;
}

const byCreation = (a: TargetDoc, b: TargetDoc) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function blank(userId: string, kind: TargetDoc['kind'], now: number): TargetDoc {
  return {
    id: newId(now),
    userId,
    kind,
    name: '',
    type: '',
    config: {},
    channelId: '',
    messageType: '',
    templateId: '',
    templateFields: {},
    pushMode: '',
    appKey: '',
    appId: '',
    address: '',
    remark: '',
    createdAt: now,
    updatedAt: now,
  };
}

export class TargetStore {
  private readonly docs = new Map<string, TargetDoc>();
  private readonly byKey = new Map<string, TargetDoc>();
  private readonly recipientsByApp = new Map<string, TargetDoc[]>();
  private readonly writes = new KeyedMutex();
  /** createdAt of the last new document: strictly increasing, so "order added" is well defined. */
  private lastCreated = 0;
  /** Called when a channel's config changed or it was deleted (token caches drop it). */
  onChannelChanged: (channelId: string) => void = () => undefined;

  constructor(private readonly app: AppContext) {}

  private get collection(): RxCollection<TargetDoc> {
    return this.app.db.collection<TargetDoc>('push_targets');
  }

  async load(): Promise<void> {
    const all = await this.collection.find().exec();
    for (const doc of all) {
      const data = doc.toJSON() as unknown as TargetDoc;
      this.remember(data);
      this.lastCreated = Math.max(this.lastCreated, data.createdAt);
    }
  }

  private remember(doc: TargetDoc): void {
    const old = this.docs.get(doc.id);
    if (old?.appKey) this.byKey.delete(old.appKey);
    this.docs.set(doc.id, doc);
    if (doc.kind === 'app') this.byKey.set(doc.appKey, doc);
    if (doc.kind === 'recipient') {
      const list = (this.recipientsByApp.get(doc.appId) ?? []).filter((r) => r.id !== doc.id);
      list.push(doc);
      list.sort(byCreation);
      this.recipientsByApp.set(doc.appId, list);
    }
  }

  private forget(doc: TargetDoc): void {
    this.docs.delete(doc.id);
    if (doc.kind === 'app') {
      this.byKey.delete(doc.appKey);
      this.recipientsByApp.delete(doc.id);
    }
    if (doc.kind === 'recipient') {
      const list = (this.recipientsByApp.get(doc.appId) ?? []).filter((r) => r.id !== doc.id);
      if (list.length) this.recipientsByApp.set(doc.appId, list);
      else this.recipientsByApp.delete(doc.appId);
    }
  }

  // ---- reads (no disk) ----

  appByKey(appKey: string): TargetDoc | undefined {
    return this.byKey.get(appKey);
  }

  get(id: string): TargetDoc | undefined {
    return this.docs.get(id);
  }

  recipientsOf(appId: string): TargetDoc[] {
    return this.recipientsByApp.get(appId) ?? [];
  }

  owned(userId: string, kind: TargetDoc['kind'], id: string, what: string): TargetDoc {
    const doc = this.docs.get(id);
    if (!doc || doc.userId !== userId || doc.kind !== kind) throw notFound(what);
    return doc;
  }

  list(userId: string, kind: TargetDoc['kind']): TargetDoc[] {
    return [...this.docs.values()].filter((d) => d.userId === userId && d.kind === kind).sort(byCreation);
  }

  appsOfChannel(channelId: string): TargetDoc[] {
    return [...this.docs.values()].filter((d) => d.kind === 'app' && d.channelId === channelId).sort(byCreation);
  }

  // ---- writes ----

  private blank(userId: string, kind: TargetDoc['kind']): TargetDoc {
    this.lastCreated = Math.max(this.app.clock.now(), this.lastCreated + 1);
    return blank(userId, kind, this.lastCreated);
  }

  private async insert(doc: TargetDoc): Promise<TargetDoc> {
    await this.collection.insert(doc);
    this.remember(doc);
    return doc;
  }

  private async patch(doc: TargetDoc, changes: Partial<TargetDoc>): Promise<TargetDoc> {
    const updatedAt = Math.max(this.app.clock.now(), doc.createdAt);
    const stored = await this.collection.findOne(doc.id).exec();
    if (!stored) throw notFound('Item');
    await stored.incrementalPatch({ ...changes, updatedAt });
    const next: TargetDoc = { ...doc, ...changes, updatedAt };
    this.remember(next);
    return next;
  }

  private async removeDocs(docs: TargetDoc[]): Promise<void> {
    if (docs.length === 0) return;
    await this.collection.bulkRemove(docs.map((d) => d.id));
    for (const doc of docs) this.forget(doc);
  }

  createChannel(userId: string, input: { name: string; type: ChannelType; config: ChannelInput }): Promise<TargetDoc> {
    return this.writes.run(userId, async () => {
      if (this.list(userId, 'channel').length >= LIMITS.channelsPerUser) throw bad(`You already have ${LIMITS.channelsPerUser} channels, the most PennyPost keeps per account.`);
      const config = normalizeConfig(input.type, input.config);
      const doc = { ...this.blank(userId, 'channel'), name: input.name.trim(), type: input.type, config };
      return this.insert(doc);
    });
  }

  updateChannel(userId: string, id: string, input: { name?: string; type?: ChannelType; config?: ChannelInput }): Promise<TargetDoc> {
    return this.writes.run(userId, async () => {
      const channel = this.owned(userId, 'channel', id, 'Channel');
      if (input.type !== undefined && input.type !== channel.type) {
        throw bad(`A channel's type cannot change (this one is ${channel.type}); create a new channel instead.`, 'params.type');
      }
      const changes: Partial<TargetDoc> = {};
      if (input.name !== undefined) changes.name = input.name.trim();
      if (input.config !== undefined) changes.config = normalizeConfig(channel.type as ChannelType, input.config, channel.config);
      if (changes.config && channel.type === 'webhook' && changes.config.format !== channel.config.format) {
        const used = this.appsOfChannel(id).some((app) => this.recipientsOf(app.id).length > 0);
        if (used) {
          throw bad(
            `Apps of this channel have ${String(channel.config.format)} recipients, whose addresses mean nothing to ${String(changes.config.format)}; remove them first, or create a new channel.`,
            'params.config.format',
          );
        }
      }
      if (changes.config && channel.type === 'webhook' && addressIsSecret(channel.config.format as WebhookFormat)) {
        // Gotify application tokens and Bark device keys are recipients: they too stay with the server they were entered for.
        const moved = channelDestination(channel.type, channel.config) !== channelDestination(channel.type, changes.config);
        if (moved && this.appsOfChannel(id).some((app) => this.recipientsOf(app.id).length > 0)) {
          throw bad(
            `Apps of this channel have ${String(channel.config.format) === 'gotify' ? 'Gotify application tokens' : 'Bark device keys'} as recipients, which are kept only for the server they were entered for; ` +
              'remove the recipients first and add them again after changing params.config.url, or create a new channel.',
            'params.config.url',
          );
        }
      }
      const updated = await this.patch(channel, changes);
      if (changes.config) this.onChannelChanged(id);
      return updated;
    });
  }

  deleteChannel(userId: string, id: string): Promise<void> {
    return this.writes.run(userId, async () => {
      const channel = this.owned(userId, 'channel', id, 'Channel');
      const apps = this.appsOfChannel(id);
      if (apps.length > 0) {
        throw new ApiError(
          ErrorCode.Conflict,
          `This channel is used by ${apps.length} app${apps.length === 1 ? '' : 's'} (${apps.slice(0, 3).map((a) => `"${a.name}"`).join(', ')}${apps.length > 3 ? ', …' : ''}); delete them or move them to another channel first.`,
          { apps: apps.map((a) => a.id) },
        );
      }
      await this.removeDocs([channel]);
      this.onChannelChanged(id);
    });
  }

  createApp(
    userId: string,
    input: { name: string; channelId: string; messageType: MessageType; templateId: string; templateFields?: Record<string, string>; pushMode: PushMode },
  ): Promise<TargetDoc> {
    return this.writes.run(userId, async () => {
      if (this.list(userId, 'app').length >= LIMITS.appsPerUser) throw bad(`You already have ${LIMITS.appsPerUser} apps, the most PennyPost keeps per account.`);
      const channel = this.owned(userId, 'channel', input.channelId, 'Channel');
      checkTemplate(channel, input.messageType, input.templateId);
      let appKey = newAppKey();
      while (this.byKey.has(appKey)) appKey = newAppKey();
      const doc: TargetDoc = {
        ...this.blank(userId, 'app'),
        name: input.name.trim(),
        channelId: channel.id,
        messageType: input.messageType,
        templateId: input.templateId.trim(),
        templateFields: { ...DEFAULT_TEMPLATE_FIELDS, ...(input.templateFields ?? {}) },
        pushMode: input.pushMode,
        appKey,
      };
      return this.insert(doc);
    });
  }

  updateApp(
    userId: string,
    id: string,
    input: { name?: string; channelId?: string; messageType?: MessageType; templateId?: string; templateFields?: Record<string, string>; pushMode?: PushMode },
  ): Promise<TargetDoc> {
    return this.writes.run(userId, async () => {
      const app = this.owned(userId, 'app', id, 'App');
      const changes: Partial<TargetDoc> = {};
      if (input.name !== undefined) changes.name = input.name.trim();
      if (input.channelId !== undefined) changes.channelId = this.owned(userId, 'channel', input.channelId, 'Channel').id;
      if (input.messageType !== undefined) changes.messageType = input.messageType;
      if (input.templateId !== undefined) changes.templateId = input.templateId.trim();
      if (input.templateFields !== undefined) changes.templateFields = { ...DEFAULT_TEMPLATE_FIELDS, ...input.templateFields };
      if (input.pushMode !== undefined) changes.pushMode = input.pushMode;
      const channel = this.docs.get(changes.channelId ?? app.channelId)!;
      checkTemplate(channel, (changes.messageType ?? app.messageType) as MessageType, changes.templateId ?? app.templateId);
      if (changes.channelId && changes.channelId !== app.channelId) {
        const oldChannel = this.docs.get(app.channelId);
        if (oldChannel?.type !== channel.type && this.recipientsOf(app.id).length > 0) {
          throw bad(
            `This app has recipients for a ${oldChannel?.type} channel; a ${channel.type} channel needs other addresses. Remove the recipients first, or pick a ${oldChannel?.type} channel.`,
            'params.channelId',
          );
        }
        if (oldChannel?.type === 'webhook' && addressIsSecret(oldChannel.config.format as WebhookFormat) && this.recipientsOf(app.id).length > 0) {
          // The recipients are Gotify application tokens or Bark device keys: they stay with the server they were entered for.
          const sameServer =
            channel.config.format === oldChannel.config.format && channelDestination(channel.type, channel.config) === channelDestination(oldChannel.type, oldChannel.config);
          if (!sameServer) {
            throw bad(
              `This app's recipients are ${String(oldChannel.config.format) === 'gotify' ? 'Gotify application tokens' : 'Bark device keys'}, kept only for the server they were entered for; ` +
                'pick a channel with the same format and url, or remove the recipients first and add them again after the move.',
              'params.channelId',
            );
          }
        }
      }
      return this.patch(app, changes);
    });
  }

  resetAppKey(userId: string, id: string): Promise<TargetDoc> {
    return this.writes.run(userId, async () => {
      const app = this.owned(userId, 'app', id, 'App');
      let appKey = newAppKey();
      while (this.byKey.has(appKey)) appKey = newAppKey();
      return this.patch(app, { appKey });
    });
  }

  deleteApp(userId: string, id: string): Promise<void> {
    return this.writes.run(userId, async () => {
      const app = this.owned(userId, 'app', id, 'App');
      await this.removeDocs([...this.recipientsOf(id), app]);
    });
  }

  addRecipient(userId: string, input: { appId: string; address: string; name: string; remark: string }): Promise<TargetDoc> {
    return this.writes.run(userId, async () => {
      const app = this.owned(userId, 'app', input.appId, 'App');
      const channel = this.docs.get(app.channelId)!;
      const address = input.address.trim();
      if (channel.type === 'desktop') {
        throw bad('Desktop apps deliver to this computer and need no recipients; push to the app key directly.', 'params.appId');
      }
      if (channel.type === 'wechat' && !/^[A-Za-z0-9_-]{6,64}$/.test(address)) {
        throw bad("params.address must be the recipient's openid for this Official Account (letters, digits, _ and -)", 'params.address');
      }
      if (channel.type === 'webhook') {
        const problem = checkWebhookAddress(webhookConfigOf(channel), address);
        if (problem) throw bad(`params.address: ${problem}`, 'params.address');
      }
      const existing = this.recipientsOf(app.id);
      if (existing.length >= LIMITS.recipientsPerApp) throw bad(`This app already has ${LIMITS.recipientsPerApp} recipients, the most PennyPost keeps per app.`);
      if (existing.some((r) => r.address === address)) {
        throw new ApiError(ErrorCode.Conflict, 'This address is already a recipient of the app.', { field: 'params.address' });
      }
      const doc: TargetDoc = {
        ...this.blank(userId, 'recipient'),
        appId: app.id,
        address,
        name: input.name.trim(),
        remark: input.remark,
      };
      return this.insert(doc);
    });
  }

  removeRecipient(userId: string, id: string): Promise<void> {
    return this.writes.run(userId, async () => {
      const recipient = this.owned(userId, 'recipient', id, 'Recipient');
      await this.removeDocs([recipient]);
    });
  }
}

function checkTemplate(channel: TargetDoc, messageType: MessageType, templateId: string): void {
  if (channel.type === 'wechat' && messageType === 'template' && !templateId.trim()) {
    throw bad('params.templateId is required for template messages: the template ID from the Official Account\'s template list', 'params.templateId');
  }
}

export { addressIsSecret };
