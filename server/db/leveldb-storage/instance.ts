import { Subject, type Observable, type Subscription } from 'rxjs';
import {
  categorizeBulkWriteRows,
  getIndexableStringMonad,
  getPrimaryFieldOfPrimaryKey,
  getQueryMatcher,
  getSortComparator,
  getStartIndexStringFromLowerBound,
  getStartIndexStringFromUpperBound,
  INDEX_MAX,
  INDEX_MIN,
  now,
  toArray,
  type BulkWriteRow,
  type EventBulk,
  type PreparedQuery,
  type RxDocumentData,
  type RxJsonSchema,
  type RxStorageBulkWriteResponse,
  type RxStorageChangeEvent,
  type RxStorageCountResult,
  type RxStorageDefaultCheckpoint,
  type RxStorageInstance,
  type RxStorageQueryResult,
  type StringKeys,
} from 'rxdb';
import type { AbstractSnapshot } from 'abstract-level';
import type { ClassicLevel } from 'classic-level';
import { collectionPrefix, docPrefix, encodeKey, indexPrefix, prefixEnd } from './keys';
import { healthOf, type LevelHealth } from './health';

/**
 * A stored document that is not JSON any more has damaged bytes (LevelDB read it without a
 * checksum check, which classic-level cannot turn on): reported like LevelDB's own corruption
 * errors, so the API answers 503 "damaged" instead of a 500 (docs/data-safety.md).
 */
function parseStored(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw Object.assign(new Error(`Corruption: a stored document is not readable (${(error as Error).message}); run pennypost check`), {
      code: 'LEVEL_CORRUPTION',
      cause: error,
    });
  }
}

export type LevelDb = ClassicLevel<Buffer>;

export interface LevelStorageInternals {
  level: LevelDb;
  /** Key prefix of this collection (database + collection + schema version). */
  prefix: string;
}

export interface LevelStorageSettings {
  /**
   * fsync every acknowledged write (LevelDB `sync: true`). On by default: a write that
   * PennyPost acknowledged survives a power cut, not only a process crash.
   */
  sync?: boolean;
}

export type LevelInstanceCreationOptions = Record<string, never>;

/** A document's primary key: the value of the schema's primary field (a string). */
function primaryOf(doc: unknown, primaryPath: string): string {
  const id = (doc as Record<string, unknown>)[primaryPath];
  // RxDB fills and validates the primary key before a document reaches the storage.
  if (typeof id !== 'string') throw new Error(`leveldb storage: a document without its primary key "${primaryPath}"`);
  return id;
}

/**
 * State shared by every open instance of one collection (same key prefix) in this process,
 * like the memory storage shares its collection state: without it, two instances could both
 * pass the conflict check of the same revision (a lost update) and would not see each
 * other's change events.
 */
export interface SharedCollectionState {
  /** Tail of the write queue: writes, cleanup and remove of the collection run one at a time. */
  queue: Promise<unknown>;
  /** Every committed write's event bulk, whichever instance wrote it (instances of one collection: one document type). */
  changes: Subject<EventBulk<RxStorageChangeEvent<RxDocumentData<unknown>>, RxStorageDefaultCheckpoint>>;
  /** Open instances using this state. */
  instances: number;
}

export function createSharedCollectionState(): SharedCollectionState {
  return { queue: Promise.resolve(), changes: new Subject(), instances: 0 };
}

interface IndexDef<RxDocType> {
  fields: string[];
  prefix: string;
  toIndexString: (doc: RxDocumentData<RxDocType>) => string;
}

/** What the storage keeps of an open instance, whatever its document type. */
export type OpenInstance = Pick<RxStorageInstanceLevel<unknown>, 'databaseName' | 'collectionName' | 'close'>;

/** Number of index keys read per native call when walking a range. */
const ID_CHUNK = 1000;
/** getMany calls of at least this many keys are split, into at most GET_PARALLEL parallel reads. */
const GET_SLICE = 128;
const GET_PARALLEL = 4;

export class RxStorageInstanceLevel<RxDocType> implements RxStorageInstance<RxDocType, LevelStorageInternals, LevelInstanceCreationOptions, RxStorageDefaultCheckpoint> {
  readonly primaryPath: string;
  private readonly level: LevelDb;
  private readonly docKeyPrefix: string;
  private readonly indexes: IndexDef<RxDocType>[];
  private readonly indexByName = new Map<string, IndexDef<RxDocType>>();
  private readonly lwtIndex: IndexDef<RxDocType>;
  private readonly cleanupIndex: IndexDef<RxDocType>;
  private readonly changes$ = new Subject<EventBulk<RxStorageChangeEvent<RxDocumentData<RxDocType>>, RxStorageDefaultCheckpoint>>();
  private readonly sharedSubscription: Subscription;
  private closed = false;
  private closing: Promise<void> | undefined;
  private readonly sync: boolean;
  /** Disk-fault recovery shared by every user of this LevelDB (health.ts). */
  private readonly health: LevelHealth;

  constructor(
    readonly databaseName: string,
    readonly collectionName: string,
    readonly schema: Readonly<RxJsonSchema<RxDocumentData<RxDocType>>>,
    readonly internals: LevelStorageInternals,
    readonly options: Readonly<LevelInstanceCreationOptions>,
    settings: LevelStorageSettings,
    private readonly onClose: (instance: OpenInstance) => void,
    private readonly shared: SharedCollectionState = createSharedCollectionState(),
  ) {
    this.level = internals.level;
    this.health = healthOf(internals.level);
    // Every instance on this state is an instance of this collection: the documents are RxDocType.
    this.sharedSubscription = shared.changes.subscribe((bulk) =>
      this.changes$.next(bulk as EventBulk<RxStorageChangeEvent<RxDocumentData<RxDocType>>, RxStorageDefaultCheckpoint>),
    );
    this.sync = settings.sync !== false;
    this.primaryPath = getPrimaryFieldOfPrimaryKey(schema.primaryKey);
    this.docKeyPrefix = docPrefix(internals.prefix);

    const indexFields: string[][] = (schema.indexes ?? []).map((index) => toArray<string>(index));
    // Both are also what RxDB and the memory storage rely on: the lwt index for checkpoints,
    // the deleted/lwt index for cleanup. Added only when the schema lacks them.
    const lwtFields = ['_meta.lwt', this.primaryPath];
    const cleanupFields = ['_deleted', '_meta.lwt', this.primaryPath];
    for (const extra of [lwtFields, cleanupFields]) {
      if (!indexFields.some((f) => f.join(',') === extra.join(','))) indexFields.push(extra);
    }
    this.indexes = indexFields.map((fields) => ({
      fields,
      prefix: indexPrefix(internals.prefix, fields),
      toIndexString: getIndexableStringMonad<RxDocType>(schema, fields),
    }));
    for (const index of this.indexes) this.indexByName.set(index.fields.join(','), index);
    this.lwtIndex = this.indexNamed(lwtFields);
    this.cleanupIndex = this.indexNamed(cleanupFields);
  }

  /** An index this instance keeps (the constructor adds the lwt and cleanup indexes). */
  private indexNamed(fields: string[]): IndexDef<RxDocType> {
    const index = this.indexByName.get(fields.join(','));
    if (!index) throw new Error(`index does not exist: ${fields.join(',')}`);
    return index;
  }

  private docKey(id: string): Buffer {
    return encodeKey(this.docKeyPrefix + id);
  }

  /**
   * Reads documents by id. One getMany runs all its lookups on one libuv thread, one after
   * the other; big sets are split so several threads share the random reads.
   */
  private async getDocs(ids: string[], snapshot?: AbstractSnapshot): Promise<(string | undefined)[]> {
    const keys = ids.map((id) => this.docKey(id));
    const getMany = (part: Buffer[]) => (snapshot ? this.level.getMany(part, { snapshot }) : this.level.getMany(part));
    if (keys.length < 2 * GET_SLICE) return getMany(keys);
    const parts = Math.min(GET_PARALLEL, Math.ceil(keys.length / GET_SLICE));
    const size = Math.ceil(keys.length / parts);
    const slices: Promise<(string | undefined)[]>[] = [];
    for (let i = 0; i < keys.length; i += size) slices.push(getMany(keys.slice(i, i + size)));
    return (await Promise.all(slices)).flat();
  }

  private ensureOpen(): void {
    if (this.closed) {
      throw new Error(`storage instance ${this.databaseName}/${this.collectionName} is closed`);
    }
  }

  /** Writes (and cleanup) run one at a time so conflict checks see the committed state. */
  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.shared.queue.then(task, task);
    this.shared.queue = run.catch(() => undefined);
    return run;
  }

  bulkWrite(documentWrites: BulkWriteRow<RxDocType>[], context: string): Promise<RxStorageBulkWriteResponse<RxDocType>> {
    this.ensureOpen();
    return this.enqueue(() =>
      this.health.write(async () => {
        this.ensureOpen();
        const primaryPath = this.primaryPath;
        const ids = new Set<string>();
        for (const row of documentWrites) ids.add(primaryOf(row.document, primaryPath));
        const idList = [...ids];
        const stored = await this.level.getMany(idList.map((id) => this.docKey(id)));
        const docsInDb = new Map<string, RxDocumentData<RxDocType>>();
        for (const [i, id] of idList.entries()) {
          const raw = stored[i];
          if (raw !== undefined) docsInDb.set(id, parseStored(raw) as RxDocumentData<RxDocType>);
        }

        const categorized = categorizeBulkWriteRows<RxDocType>(this, primaryPath as StringKeys<RxDocType>, docsInDb, documentWrites, context);
        // A chained batch goes straight to the native LevelDB WriteBatch; an array batch costs
        // several times more per operation in abstract-level (measured: 100 × 6,000 ops
        // 4.4 s as an array, 0.9 s chained).
        const batch = this.level.batch();
        let ops = 0;
        try {
          for (const row of categorized.bulkInsertDocs) {
            const doc = row.document;
            const id = primaryOf(doc, primaryPath);
            batch.put(this.docKey(id), JSON.stringify(doc));
            for (const index of this.indexes) batch.put(encodeKey(index.prefix + index.toIndexString(doc)), id);
            ops++;
          }
          for (const row of categorized.bulkUpdateDocs) {
            const doc = row.document;
            const id = primaryOf(doc, primaryPath);
            const before = docsInDb.get(id);
            if (!before) throw new Error(`update of ${id}, which is not stored`); // RxDB updates only documents it found
            batch.put(this.docKey(id), JSON.stringify(doc));
            for (const index of this.indexes) {
              const oldString = index.toIndexString(before);
              const newString = index.toIndexString(doc);
              if (oldString !== newString) {
                batch.del(encodeKey(index.prefix + oldString));
                batch.put(encodeKey(index.prefix + newString), id);
              }
            }
            ops++;
          }
        } catch (error) {
          await batch.close();
          throw error;
        }
        if (ops > 0) {
          // The write is acknowledged only after LevelDB committed (and, by default, fsynced) it.
          await batch.write({ sync: this.sync });
        } else {
          await batch.close();
        }
        if (categorized.eventBulk.events.length > 0 && categorized.newestRow) {
          const newest = categorized.newestRow.document;
          categorized.eventBulk.checkpoint = { id: primaryOf(newest, primaryPath), lwt: newest._meta.lwt };
          this.shared.changes.next(categorized.eventBulk);
        }
        return { error: categorized.errors };
      }),
    );
  }

  async findDocumentsById(ids: string[], withDeleted: boolean): Promise<RxDocumentData<RxDocType>[]> {
    this.ensureOpen();
    if (ids.length === 0) return [];
    const raws = await this.health.read(() => this.level.getMany(ids.map((id) => this.docKey(id))));
    const result: RxDocumentData<RxDocType>[] = [];
    for (const raw of raws) {
      if (raw === undefined) continue;
      const doc = parseStored(raw) as RxDocumentData<RxDocType>;
      if (withDeleted || !doc._deleted) result.push(doc);
    }
    return result;
  }

  private rangeOf(preparedQuery: PreparedQuery<RxDocType>) {
    const plan = preparedQuery.queryPlan;
    const index = this.indexByName.get(plan.index.join(','));
    if (!index) throw new Error(`index does not exist: ${plan.index.join(',')}`);
    const schema = this.schema as RxJsonSchema<RxDocumentData<RxDocType>>;
    const lower = encodeKey(index.prefix + getStartIndexStringFromLowerBound(schema, plan.index, plan.startKeys));
    const upper = encodeKey(index.prefix + getStartIndexStringFromUpperBound(schema, plan.index, plan.endKeys));
    return {
      index,
      options: {
        ...(plan.inclusiveStart ? { gte: lower } : { gt: lower }),
        ...(plan.inclusiveEnd ? { lte: upper } : { lt: upper }),
      },
    };
  }

  /** True when the plan walks the primary key order, which is the order of the document keys. */
  private isPrimaryOrderPlan(fields: string[]): boolean {
    return (fields.length === 1 && fields[0] === this.primaryPath) || (fields.length === 2 && fields[0] === '_deleted' && fields[1] === this.primaryPath);
  }

  /**
   * True when the plan's range is the whole index (every field but `_deleted` runs from
   * INDEX_MIN to INDEX_MAX): walking it would read every live document through a random
   * lookup each, while a scan of the document keys reads the same documents sequentially.
   */
  private isUnboundedPlan(plan: PreparedQuery<RxDocType>['queryPlan']): boolean {
    return plan.index.every((field, i) => field === '_deleted' || (plan.startKeys[i] === INDEX_MIN && plan.endKeys[i] === INDEX_MAX));
  }

  query(preparedQuery: PreparedQuery<RxDocType>): Promise<RxStorageQueryResult<RxDocType>> {
    this.ensureOpen();
    return this.health.read(() => this.queryNow(preparedQuery));
  }

  private async queryNow(preparedQuery: PreparedQuery<RxDocType>): Promise<RxStorageQueryResult<RxDocType>> {
    const { query, queryPlan } = preparedQuery;
    const skip = query.skip ? query.skip : 0;
    const limit = typeof query.limit === 'number' ? query.limit : Infinity;
    const wanted = skip + limit;
    const mustResort = !queryPlan.sortSatisfiedByIndex;
    const matcher = queryPlan.selectorSatisfiedByIndex ? undefined : getQueryMatcher<RxDocType>(this.schema, query);
    let enough = (n: number) => !mustResort && n >= wanted;
    let resort = mustResort;

    let rows: RxDocumentData<RxDocType>[] = [];
    if (limit === 0) return { documents: rows };
    const snapshot = this.level.snapshot();
    try {
      const primaryOrder = this.isPrimaryOrderPlan(queryPlan.index);
      if (matcher && (primaryOrder || this.isUnboundedPlan(queryPlan))) {
        // No index narrows the selector: one pass over the documents themselves, no lookups.
        // Documents come in primary key order; any other order is restored by sorting.
        if (!primaryOrder) {
          resort = true;
          enough = () => false;
        }
        const it = this.level.iterator({
          gte: encodeKey(this.docKeyPrefix),
          lt: encodeKey(prefixEnd(this.docKeyPrefix)),
          keys: false,
          values: true,
          snapshot,
        });
        try {
          outer: for (;;) {
            const chunk = await it.nextv(ID_CHUNK);
            if (chunk.length === 0) break;
            for (const [, raw] of chunk) {
              const doc = parseStored(raw) as RxDocumentData<RxDocType>;
              if (matcher(doc)) {
                rows.push(doc);
                if (enough(rows.length)) break outer;
              }
            }
          }
        } finally {
          await it.close();
        }
      } else {
        const { options } = this.rangeOf(preparedQuery);
        const it = this.level.iterator({ ...options, keys: false, values: true, snapshot });
        let skipped = 0;
        try {
          outer: for (;;) {
            const size = !matcher && !mustResort ? Math.min(ID_CHUNK, Math.max(1, wanted - skipped - rows.length)) : ID_CHUNK;
            const chunk = await it.nextv(size);
            if (chunk.length === 0) break;
            let ids = chunk.map(([, id]) => id);
            if (!matcher && !mustResort && skipped < skip) {
              // Skip without reading the documents: the index alone decides.
              const drop = Math.min(skip - skipped, ids.length);
              skipped += drop;
              ids = ids.slice(drop);
              if (ids.length === 0) continue;
            }
            const raws = await this.getDocs(ids, snapshot);
            for (const raw of raws) {
              if (raw === undefined) continue; // cannot happen in one snapshot; tolerated
              const doc = parseStored(raw) as RxDocumentData<RxDocType>;
              if (!matcher || matcher(doc)) {
                rows.push(doc);
                if (enough(rows.length + skipped)) break outer;
              }
            }
          }
        } finally {
          await it.close();
        }
        if (skipped > 0) {
          // Index-only skipping already dropped `skipped` rows in front.
          return { documents: rows.slice(0, limit) };
        }
      }
    } finally {
      await snapshot.close();
    }

    if (resort) rows = rows.sort(getSortComparator<RxDocType>(this.schema, query));
    if (skip !== 0 || rows.length > wanted) rows = rows.slice(skip, wanted);
    return { documents: rows };
  }

  count(preparedQuery: PreparedQuery<RxDocType>): Promise<RxStorageCountResult> {
    this.ensureOpen();
    return this.health.read(() => this.countNow(preparedQuery));
  }

  private async countNow(preparedQuery: PreparedQuery<RxDocType>): Promise<RxStorageCountResult> {
    if (!preparedQuery.queryPlan.selectorSatisfiedByIndex) {
      const all = await this.queryNow({
        ...preparedQuery,
        query: { ...preparedQuery.query, skip: 0, limit: undefined },
      });
      return { count: all.documents.length, mode: 'fast' };
    }
    // The index range is the answer: count entries, never touching documents. Reading the
    // values (short doc ids) is ~2.5x cheaper than materialising the long keys as Buffers.
    const { options } = this.rangeOf(preparedQuery);
    const it = this.level.iterator({ ...options, keys: false, values: true });
    let count = 0;
    try {
      for (;;) {
        const chunk = await it.nextv(2000);
        if (chunk.length === 0) break;
        count += chunk.length;
      }
    } finally {
      await it.close();
    }
    return { count, mode: 'fast' };
  }

  getChangedDocumentsSince(limit: number, checkpoint?: RxStorageDefaultCheckpoint): Promise<{ documents: RxDocumentData<RxDocType>[]; checkpoint: RxStorageDefaultCheckpoint }> {
    this.ensureOpen();
    return this.health.read(() => this.changedSinceNow(limit, checkpoint));
  }

  private async changedSinceNow(
    limit: number,
    checkpoint?: RxStorageDefaultCheckpoint,
  ): Promise<{ documents: RxDocumentData<RxDocType>[]; checkpoint: RxStorageDefaultCheckpoint }> {
    const index = this.lwtIndex;
    const schema = this.schema as RxJsonSchema<RxDocumentData<RxDocType>>;
    const start = checkpoint
      ? { gt: encodeKey(index.prefix + getStartIndexStringFromLowerBound(schema, index.fields, [checkpoint.lwt, checkpoint.id])) }
      : { gte: encodeKey(index.prefix) };
    const snapshot = this.level.snapshot();
    let documents: RxDocumentData<RxDocType>[];
    try {
      const it = this.level.iterator({ ...start, lt: encodeKey(prefixEnd(index.prefix)), keys: false, values: true, snapshot, limit });
      try {
        const ids = (await it.all()).map(([, id]) => id);
        const raws = await this.getDocs(ids, snapshot);
        documents = raws.filter((raw): raw is string => raw !== undefined).map((raw) => parseStored(raw) as RxDocumentData<RxDocType>);
      } finally {
        await it.close(); // idempotent: all() may already have closed it
      }
    } finally {
      await snapshot.close();
    }
    const last = documents.at(-1);
    return {
      documents,
      checkpoint: last ? { id: primaryOf(last, this.primaryPath), lwt: last._meta.lwt } : (checkpoint ?? { id: '', lwt: 0 }),
    };
  }

  changeStream(): Observable<EventBulk<RxStorageChangeEvent<RxDocumentData<RxDocType>>, RxStorageDefaultCheckpoint>> {
    this.ensureOpen();
    return this.changes$.asObservable();
  }

  /** Removes tombstones whose deletion is older than `minimumDeletedTime` ms, with their index keys. */
  cleanup(minimumDeletedTime: number): Promise<boolean> {
    this.ensureOpen();
    return this.enqueue(() =>
      this.health.write(async () => {
        const index = this.cleanupIndex;
        const schema = this.schema as RxJsonSchema<RxDocumentData<RxDocType>>;
        const maxDeletionTime = now() - minimumDeletedTime;
        const lower = getStartIndexStringFromLowerBound(schema, index.fields, [true, 0, '']);
        const upper = getStartIndexStringFromUpperBound(schema, index.fields, [true, maxDeletionTime, INDEX_MAX]);
        for (;;) {
          const it = this.level.iterator({
            gte: encodeKey(index.prefix + lower),
            lte: encodeKey(index.prefix + upper),
            keys: false,
            values: true,
            limit: 1000,
          });
          const ids = (await it.all()).map(([, id]) => id);
          if (ids.length === 0) return true;
          const raws = await this.level.getMany(ids.map((id) => this.docKey(id)));
          const ops: { type: 'del'; key: Buffer }[] = [];
          for (const [i, id] of ids.entries()) {
            const raw = raws[i];
            if (raw === undefined) continue;
            const doc = parseStored(raw) as RxDocumentData<RxDocType>;
            if (!doc._deleted || doc._meta.lwt > maxDeletionTime) continue;
            ops.push({ type: 'del', key: this.docKey(id) });
            for (const idx of this.indexes) ops.push({ type: 'del', key: encodeKey(idx.prefix + idx.toIndexString(doc)) });
          }
          if (ops.length === 0) return true;
          await this.level.batch(ops, { sync: this.sync });
        }
      }),
    );
  }

  getAttachmentData(): Promise<Blob> {
    return Promise.reject(new Error('Attachments are not supported by the PennyPost LevelDB storage: files are stored outside the database.'));
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      // Writes already queued still run; then the instance refuses further calls.
      await this.shared.queue;
      this.closed = true;
      this.sharedSubscription.unsubscribe();
      this.changes$.complete();
      this.onClose(this);
    })();
    return this.closing;
  }

  async remove(): Promise<void> {
    this.ensureOpen();
    await this.enqueue(() =>
      this.health.write(async () => {
        const prefix = this.internals.prefix;
        await this.level.clear({ gte: encodeKey(prefix), lt: encodeKey(prefixEnd(prefix)) });
      }),
    );
    await this.close();
  }
}

export { collectionPrefix };
