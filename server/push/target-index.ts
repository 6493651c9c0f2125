import { pushErrors } from './errors';
import type { TargetDoc, TargetKind } from './schema';

const byCreation = (a: TargetDoc, b: TargetDoc) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const notFound: Record<TargetKind, () => Error> = {
  channel: pushErrors.channelNotFound,
  app: pushErrors.appNotFound,
  recipient: pushErrors.recipientNotFound,
};

/**
 * Every channel, app and recipient in memory (collection push_targets never syncs and only the
 * push service writes it), indexed so that /send resolves an app key, its channel and its
 * recipients without touching the disk.
 */
export class TargetIndex {
  private readonly docs = new Map<string, TargetDoc>();
  private readonly byKey = new Map<string, TargetDoc>();
  private readonly recipientsByApp = new Map<string, TargetDoc[]>();

  remember(doc: TargetDoc): void {
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

  forget(doc: TargetDoc): void {
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

  appByKey(appKey: string): TargetDoc | undefined {
    return this.byKey.get(appKey);
  }

  /**
   * The app key that is `key` but for letter case, when exactly one is (a key carried in a host
   * name arrives in lower case: ServerChan's SDK puts `sctp{uid}t{key}` in the host).
   */
  appKeyIgnoringCase(key: string): string | undefined {
    const wanted = key.toLowerCase();
    let found: string | undefined;
    for (const appKey of this.byKey.keys()) {
      if (appKey.toLowerCase() !== wanted) continue;
      if (found !== undefined) return undefined; // two keys that differ only in case: neither is meant
      found = appKey;
    }
    return found;
  }

  hasKey(appKey: string): boolean {
    return this.byKey.has(appKey);
  }

  get(id: string): TargetDoc | undefined {
    return this.docs.get(id);
  }

  recipientsOf(appId: string): TargetDoc[] {
    return this.recipientsByApp.get(appId) ?? [];
  }

  /** A document of this kind in this account, or the kind's 404. */
  owned(userId: string, kind: TargetKind, id: string): TargetDoc {
    const doc = this.docs.get(id);
    if (!doc || doc.userId !== userId || doc.kind !== kind) throw notFound[kind]();
    return doc;
  }

  list(userId: string, kind: TargetKind): TargetDoc[] {
    return [...this.docs.values()].filter((d) => d.userId === userId && d.kind === kind).sort(byCreation);
  }

  appsOfChannel(channelId: string): TargetDoc[] {
    return [...this.docs.values()].filter((d) => d.kind === 'app' && d.channelId === channelId).sort(byCreation);
  }

  /** Some app of the channel has recipients (whose addresses belong to the channel's type and server). */
  channelHasRecipients(channelId: string): boolean {
    return this.appsOfChannel(channelId).some((app) => this.recipientsOf(app.id).length > 0);
  }
}
