import type { RxCollection } from 'rxdb';
import type { AppContext } from '../app-context';
import { KeyedMutex } from '../lib/keyed-mutex';
import { newId } from '../lib/ids';
import type { ChannelConfigs, ChannelInput } from './channel-configs';
import { channelDriver } from './channels';
import { pushErrors } from './errors';
import { newAppKey } from './keys';
import type { MessageType, PushMode, TargetDoc, TargetKind } from './schema';
import { TargetIndex } from './target-index';

/**
 * Channels, apps and recipients (collection push_targets): the writes, each checked against the
 * rules of the channel's type (its driver, server/push/channels/), and the in-memory index
 * (./target-index.ts) that answers every read.
 */

export const LIMITS = { channelsPerUser: 50, appsPerUser: 200, recipientsPerApp: 1000 };

export const DEFAULT_TEMPLATE_FIELDS = { title: 'title', desp: 'content', time: 'time' };

export interface AppInput {
  name: string;
  channelId: string;
  messageType: MessageType;
  templateId: string;
  templateFields?: Record<string, string>;
  pushMode: PushMode;
}

function blank(userId: string, kind: TargetKind, now: number): TargetDoc {
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

/** Template messages need a template id, on channels that have templates. */
function checkTemplate(channel: TargetDoc, messageType: MessageType | '', templateId: string): void {
  if (channelDriver(channel.type).templates && messageType === 'template' && !templateId.trim()) throw pushErrors.templateIdRequired().at('templateId');
}

export class TargetStore extends TargetIndex {
  private readonly writes = new KeyedMutex();
  /** createdAt of the last new document: strictly increasing, so "order added" is well defined. */
  private lastCreated = 0;
  /** Called when a channel's config changed or it was deleted (its driver drops what it caches). */
  onChannelChanged: (channel: TargetDoc) => void = () => undefined;

  constructor(
    private readonly app: AppContext,
    readonly configs: ChannelConfigs,
  ) {
    super();
  }

  private get collection(): RxCollection<TargetDoc> {
    return this.app.db.collection<TargetDoc>('push_targets');
  }

  async load(): Promise<void> {
    const all = await this.collection.find().exec();
    for (const doc of all) {
      const data = doc.toMutableJSON();
      this.remember(data);
      this.lastCreated = Math.max(this.lastCreated, data.createdAt);
    }
  }

  /** A channel's config with its secrets readable. */
  openConfig(channel: TargetDoc): Record<string, unknown> {
    return this.configs.open(channel);
  }

  // ---- writes ----

  private blank(userId: string, kind: TargetKind): TargetDoc {
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
    if (!stored) throw pushErrors.itemNotFound();
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

  private freshKey(): string {
    let appKey = newAppKey();
    while (this.hasKey(appKey)) appKey = newAppKey();
    return appKey;
  }

  createChannel(userId: string, input: { name: string; type: string; config: ChannelInput }): Promise<TargetDoc> {
    return this.writes.run(userId, async () => {
      if (this.list(userId, 'channel').length >= LIMITS.channelsPerUser) throw pushErrors.tooManyChannels(LIMITS.channelsPerUser);
      const config = this.configs.normalize(input.type, input.config);
      await this.configs.checkDestinations(userId, { type: input.type, config });
      const doc = { ...this.blank(userId, 'channel'), name: input.name.trim(), type: input.type, config };
      return this.insert(doc);
    });
  }

  updateChannel(userId: string, id: string, input: { name?: string; type?: string; config?: ChannelInput }): Promise<TargetDoc> {
    return this.writes.run(userId, async () => {
      const channel = this.owned(userId, 'channel', id);
      if (input.type !== undefined && input.type !== channel.type) throw pushErrors.typeIsFixed(channel.type).at('type');
      const changes: Partial<TargetDoc> = {};
      if (input.name !== undefined) changes.name = input.name.trim();
      if (input.config !== undefined) {
        changes.config = this.configs.normalize(channel.type, input.config, channel);
        await this.configs.checkDestinations(userId, { type: channel.type, config: changes.config });
        const driver = channelDriver(channel.type);
        if (this.channelHasRecipients(id)) {
          const refusal = driver.keepsRecipients(this.configs.open(channel), this.configs.open({ type: channel.type, config: changes.config }), 'config');
          if (refusal) throw refusal;
        }
      }
      const updated = await this.patch(channel, changes);
      if (changes.config) this.onChannelChanged(updated);
      return updated;
    });
  }

  deleteChannel(userId: string, id: string): Promise<void> {
    return this.writes.run(userId, async () => {
      const channel = this.owned(userId, 'channel', id);
      const apps = this.appsOfChannel(id);
      if (apps.length > 0) throw pushErrors.channelInUse(apps.map((a) => a.name)).with({ apps: apps.map((a) => a.id) });
      await this.removeDocs([channel]);
      this.onChannelChanged(channel);
    });
  }

  createApp(userId: string, input: AppInput): Promise<TargetDoc> {
    return this.writes.run(userId, async () => {
      if (this.list(userId, 'app').length >= LIMITS.appsPerUser) throw pushErrors.tooManyApps(LIMITS.appsPerUser);
      const channel = this.owned(userId, 'channel', input.channelId);
      checkTemplate(channel, input.messageType, input.templateId);
      const doc: TargetDoc = {
        ...this.blank(userId, 'app'),
        name: input.name.trim(),
        channelId: channel.id,
        messageType: input.messageType,
        templateId: input.templateId.trim(),
        templateFields: { ...DEFAULT_TEMPLATE_FIELDS, ...(input.templateFields ?? {}) },
        pushMode: input.pushMode,
        appKey: this.freshKey(),
      };
      return this.insert(doc);
    });
  }

  updateApp(userId: string, id: string, input: Partial<AppInput>): Promise<TargetDoc> {
    return this.writes.run(userId, async () => {
      const app = this.owned(userId, 'app', id);
      const changes: Partial<TargetDoc> = {};
      if (input.name !== undefined) changes.name = input.name.trim();
      if (input.channelId !== undefined) changes.channelId = this.owned(userId, 'channel', input.channelId).id;
      if (input.messageType !== undefined) changes.messageType = input.messageType;
      if (input.templateId !== undefined) changes.templateId = input.templateId.trim();
      if (input.templateFields !== undefined) changes.templateFields = { ...DEFAULT_TEMPLATE_FIELDS, ...input.templateFields };
      if (input.pushMode !== undefined) changes.pushMode = input.pushMode;
      const channel = this.channelOf(app, changes.channelId ?? app.channelId);
      checkTemplate(channel, changes.messageType ?? app.messageType, changes.templateId ?? app.templateId);
      if (changes.channelId && changes.channelId !== app.channelId && this.recipientsOf(app.id).length > 0) this.checkRecipientsMove(this.get(app.channelId), channel);
      return this.patch(app, changes);
    });
  }

  /** The channel an app uses (or moves to): it exists, since a channel in use is never deleted. */
  private channelOf(app: TargetDoc, channelId: string): TargetDoc {
    const channel = this.get(channelId);
    if (!channel) throw new Error(`push: app ${app.id} refers to channel ${channelId}, which does not exist`);
    return channel;
  }

  /** Recipients are addresses of one channel type (and, for some types, of one server): an app moving channels keeps them only where they still mean something. */
  private checkRecipientsMove(from: TargetDoc | undefined, to: TargetDoc): void {
    if (from?.type !== to.type) throw pushErrors.recipientsNeedTheirChannelType(String(from?.type), to.type).at('channelId');
    const refusal = channelDriver(to.type).keepsRecipients(this.configs.open(from), this.configs.open(to), 'channel');
    if (refusal) throw refusal;
  }

  resetAppKey(userId: string, id: string): Promise<TargetDoc> {
    return this.writes.run(userId, async () => {
      const app = this.owned(userId, 'app', id);
      return this.patch(app, { appKey: this.freshKey() });
    });
  }

  deleteApp(userId: string, id: string): Promise<void> {
    return this.writes.run(userId, async () => {
      const app = this.owned(userId, 'app', id);
      await this.removeDocs([...this.recipientsOf(id), app]);
    });
  }

  addRecipient(userId: string, input: { appId: string; address: string; name: string; remark: string }): Promise<TargetDoc> {
    return this.writes.run(userId, async () => {
      const app = this.owned(userId, 'app', input.appId);
      const channel = this.channelOf(app, app.channelId);
      const address = input.address.trim();
      channelDriver(channel.type).checkAddress(this.configs.open(channel), address);
      await this.configs.checkRecipient(userId, channel, address);
      const existing = this.recipientsOf(app.id);
      if (existing.length >= LIMITS.recipientsPerApp) throw pushErrors.tooManyRecipients(LIMITS.recipientsPerApp);
      if (existing.some((r) => r.address === address)) throw pushErrors.recipientExists().at('address');
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
      const recipient = this.owned(userId, 'recipient', id);
      await this.removeDocs([recipient]);
    });
  }
}
