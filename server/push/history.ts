import type { MangoQuerySelector, RxCollection } from 'rxdb';
import type { AppContext } from '../app-context';
import type { DeliveryResult, MessageDoc, MessageStatus } from './schema';

/**
 * Message history with group commit.
 *
 * A push is journaled (local store, fsynced) before anything is sent, and its history row with
 * every recipient's result is inserted (RxDB, fsynced) before the caller gets the answer. A
 * crash in between leaves the journal entry, which the next start turns into a history row
 * saying the outcome is unknown: a push is never silently lost.
 *
 * Writes that arrive while one is being committed are committed together in the next batch, so
 * many concurrent pushes share one fsync instead of queueing one each.
 */

/** Batches items added while a flush runs; each add resolves when its batch is durable. */
export class Coalescer<T> {
  private pending: Array<{ item: T; resolve: () => void; reject: (error: unknown) => void }> = [];
  private running = false;

  constructor(
    private readonly flush: (items: T[]) => Promise<unknown[]> | Promise<void>,
    private readonly maxBatch = 500,
  ) {}

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (!this.running) void this.run();
    });
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, this.maxBatch);
        try {
          const errors = await this.flush(batch.map((entry) => entry.item));
          batch.forEach((entry, i) => (errors && errors[i] ? entry.reject(errors[i]) : entry.resolve()));
        } catch (error) {
          for (const entry of batch) entry.reject(error);
        }
      }
    } finally {
      this.running = false;
    }
  }

  /** Resolves once everything added so far is committed (or failed). */
  async drain(): Promise<void> {
    while (this.running || this.pending.length > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** What the journal keeps about a push in progress. */
export interface JournalEntry {
  id: string;
  userId: string;
  appId: string;
  appName: string;
  channelId: string;
  channelType: MessageDoc['channelType'];
  title: string;
  desp: string;
  caller: string;
  createdAt: number;
  recipients: Array<{ label: string; name?: string }>;
}

const JOURNAL_PREFIX = 'push-pending:';

/** One journal record holds every push that started in the same group commit. */
interface JournalBatch {
  key: string;
  open: number;
}

export interface MessageQuery {
  appId?: string;
  startDate?: number;
  endDate?: number;
  status?: MessageStatus;
  page: number;
  pageSize: number;
}

export class HistoryStore {
  private readonly journalWrites: Coalescer<JournalEntry>;
  private readonly journalDeletes: Coalescer<string>;
  private readonly batchOf = new Map<string, JournalBatch>();
  private batchCounter = 0;
  private readonly inserts: Coalescer<MessageDoc>;

  constructor(private readonly app: AppContext) {
    this.journalWrites = new Coalescer(async (entries) => {
      const batch: JournalBatch = { key: `${JOURNAL_PREFIX}${process.pid}-${Date.now().toString(36)}-${++this.batchCounter}`, open: entries.length };
      await app.db.local.put(batch.key, entries);
      for (const entry of entries) this.batchOf.set(entry.id, batch);
    });
    // Dropping a finished batch's record needs no fsync of its own: if the machine loses it, the next
    // start finds the record, sees that its rows exist and drops it (recover()). It rides along with
    // the next fsynced write instead of adding one more to the disk's queue.
    this.journalDeletes = new Coalescer((keys) =>
      app.db.local.batch(
        keys.map((key) => ({ type: 'del' as const, key })),
        { durable: false },
      ),
    );
    this.inserts = new Coalescer(async (docs) => {
      const result = await this.collection.bulkInsert(docs);
      const failed = new Map<string, unknown>();
      for (const error of result.error) {
        failed.set(error.documentId, new Error(`history insert refused (status ${error.status})`));
      }
      return docs.map((doc) => failed.get(doc.id) ?? null);
    });
  }

  get collection(): RxCollection<MessageDoc> {
    return this.app.db.collection<MessageDoc>('push_messages');
  }

  /** Durably notes that a push is starting (before any delivery). */
  begin(entry: JournalEntry): Promise<void> {
    return this.journalWrites.add(entry);
  }

  /** Durably stores the finished push, then drops its journal entry. */
  async finish(doc: MessageDoc, journaled: boolean): Promise<void> {
    await this.inserts.add(doc);
    const batch = journaled ? this.batchOf.get(doc.id) : undefined;
    if (batch) {
      this.batchOf.delete(doc.id);
      batch.open--;
      // Best effort: a leftover record is recognised at the next start (its rows exist) and dropped.
      if (batch.open === 0) this.journalDeletes.add(batch.key).catch(() => undefined);
    }
  }

  /** Turns journal entries left by a crash into history rows whose outcome is unknown. */
  async recover(): Promise<number> {
    // Left by an earlier run (and maybe an earlier version): each entry is checked before it is used.
    const records = await this.app.db.local.entries<Array<JournalEntry | null> | JournalEntry | null>(JOURNAL_PREFIX);
    if (records.length === 0) return 0;
    const entries = records.flatMap(([, value]) => (Array.isArray(value) ? value : [value])).filter((e): e is JournalEntry => !!e && typeof e.id === 'string');
    const existing = await this.collection.findByIds(entries.map((entry) => entry.id)).exec();
    const docs: MessageDoc[] = [];
    for (const entry of entries) {
      if (existing.has(entry.id) || !Array.isArray(entry.recipients)) continue;
      const message = 'PennyPost stopped while this push was being delivered; whether it arrived is unknown.';
      const results: DeliveryResult[] = entry.recipients.map((r) => ({
        recipient: r.label,
        ...(r.name ? { name: r.name } : {}),
        ok: false,
        class: 'transient',
        errmsg: message,
      }));
      docs.push({
        id: entry.id,
        userId: entry.userId,
        appId: entry.appId,
        appName: entry.appName,
        channelId: entry.channelId,
        channelType: entry.channelType,
        title: entry.title,
        desp: entry.desp,
        status: 'failed',
        summary: message,
        total: results.length,
        success: 0,
        failed: results.length,
        results,
        caller: entry.caller,
        createdAt: entry.createdAt,
        finishedAt: entry.createdAt,
      });
    }
    if (docs.length > 0) await this.collection.bulkInsert(docs);
    await this.app.db.local.batch(records.map(([key]) => ({ type: 'del' as const, key })));
    return docs.length;
  }

  async get(id: string): Promise<MessageDoc | null> {
    const doc = await this.collection.findOne(id).exec();
    return doc ? doc.toMutableJSON() : null;
  }

  async query(userId: string, q: MessageQuery): Promise<{ list: MessageDoc[]; total: number }> {
    const selector: MangoQuerySelector<MessageDoc> = { userId };
    if (q.appId) selector.appId = q.appId;
    if (q.status) selector.status = q.status;
    const createdAt: { $gte?: number; $lte?: number } = {};
    if (q.startDate !== undefined) createdAt.$gte = q.startDate;
    if (q.endDate !== undefined) createdAt.$lte = q.endDate;
    if (Object.keys(createdAt).length > 0) selector.createdAt = createdAt;
    else selector.createdAt = { $gte: 0 };
    const [docs, total] = await Promise.all([
      this.collection.find({ selector, sort: [{ createdAt: 'desc' }, { id: 'desc' }], skip: (q.page - 1) * q.pageSize, limit: q.pageSize }).exec(),
      this.collection.count({ selector }).exec(),
    ]);
    return { list: docs.map((d) => d.toMutableJSON()), total };
  }

  /** The user's newest delivered pushes to desktop apps (the live feed's history), newest first. */
  async recentDesktop(userId: string, limit: number): Promise<MessageDoc[]> {
    const docs = await this.collection
      .find({ selector: { userId, channelType: 'desktop', status: 'success', createdAt: { $gte: 0 } }, sort: [{ createdAt: 'desc' }, { id: 'desc' }], limit })
      .exec();
    return docs.map((d) => d.toMutableJSON());
  }

  /**
   * The newest push of any user now (when there is one), then every push as it is recorded: what
   * the desktop tray shows as "last push". Returns the unsubscribe function.
   */
  followNewest(listener: (message: MessageDoc) => void): () => void {
    let following = true;
    // Ids are time-ordered (newId), so the newest is the last one by primary key.
    this.collection
      .findOne({ selector: {}, sort: [{ id: 'desc' }] })
      .exec()
      .then((doc) => {
        if (doc && following) listener(doc.toMutableJSON());
      })
      .catch(() => undefined);
    const subscription = this.collection.$.subscribe((event) => {
      if (event.operation !== 'DELETE') listener(event.documentData);
    });
    return () => {
      following = false;
      subscription.unsubscribe();
    };
  }

  /**
   * Removes rows older than `cutoff` (ms). Ids start with their creation time, so the old rows
   * are one primary-key range; the tombstones are cleaned up at once (this collection never syncs).
   */
  async prune(cutoff: number): Promise<number> {
    const bound = Math.max(0, Math.floor(cutoff)).toString(36).padStart(9, '0');
    let removed = 0;
    for (;;) {
      const old = await this.collection.find({ selector: { id: { $lt: bound } }, sort: [{ id: 'asc' }], limit: 500 }).exec();
      if (old.length === 0) break;
      await this.collection.bulkRemove(old.map((d) => d.id));
      removed += old.length;
      if (old.length < 500) break;
    }
    if (removed > 0) await this.collection.storageInstance.cleanup(0);
    return removed;
  }

  async drain(): Promise<void> {
    await Promise.all([this.journalWrites.drain(), this.inserts.drain(), this.journalDeletes.drain()]);
  }
}
