import { createHash } from 'node:crypto';
import v8 from 'node:v8';
import { itemAt } from '../lib/item-at';
import type { RecordType } from './schema';
import type { Checkpoint, Entry } from './entry';

/**
 * A user's ledger view saved beside the records (the database's derived store), so a start reads
 * one compact column file instead of parsing every record. What it holds:
 *
 *   meta    format, records schema version, count, chunk count, checkpoint, savedAt
 *   texts   the string table (search texts, descriptions, categories, assets) and the tag lists
 *   c<n>    up to CHUNK entries as columns (ids, typed arrays of numbers and string indexes)
 *
 * each under the key prefix `ledger-view U+0001 <userId> U+0001`.
 *
 * The checkpoint is the newest (lwt, id) among the records the view had applied when it was
 * saved: every record written later has a greater one (RxDB stamps writes with a monotonic
 * clock), so loading = the saved columns + the records changed since the checkpoint. A snapshot
 * that is unreadable, of another format or schema version, or saved "in the future" (the clock
 * went back since) is ignored and the view is rebuilt from the records.
 *
 * LevelDB does not verify what it reads back, so the meta carries a SHA-256 digest of everything
 * saved (every chunk, the string table and the meta's own fields): a snapshot whose bytes changed
 * since it was written — one flipped bit — fails `verifySnapshot` and is rebuilt from the
 * records instead of giving wrong balances forever (format 1 had no digest: rebuilt once).
 */
export const SNAPSHOT_FORMAT = 2;
const CHUNK = 65_536;
const TYPES: readonly RecordType[] = ['income', 'expense', 'transfer'];
const TYPE_CODE: Record<RecordType, number> = { income: 0, expense: 1, transfer: 2 };

export interface SnapshotMeta {
  format: number;
  schemaVersion: number;
  count: number;
  chunks: number;
  checkpoint: Checkpoint | null;
  savedAt: number;
  /** SHA-256 (hex) of the chunks, the string table and the fields above (snapshotDigest). */
  digest: string;
}

/** The saved bytes are not the ones written (verifySnapshot): the view is rebuilt from the records. */
export class SnapshotDamagedError extends Error {
  constructor() {
    super('the saved ledger view does not match its digest (its stored bytes changed)');
    this.name = 'SnapshotDamagedError';
  }
}

/** The digest of a snapshot: its chunks in order, its string table, then its meta without the digest. */
function snapshotDigest(chunks: readonly Buffer[], texts: Buffer, meta: Omit<SnapshotMeta, 'digest'>): string {
  const hash = createHash('sha256');
  for (const chunk of chunks) hash.update(chunk);
  hash.update(texts);
  const { format, schemaVersion, count, chunks: chunkCount, checkpoint, savedAt } = meta;
  hash.update(JSON.stringify([format, schemaVersion, count, chunkCount, checkpoint, savedAt]));
  return hash.digest('hex');
}

/** Throws SnapshotDamagedError unless the values read (snapshotKeys order) are what was saved with `meta`. */
export function verifySnapshot(meta: SnapshotMeta, values: ReadonlyArray<Buffer | undefined>): void {
  const [texts, ...chunks] = values;
  if (!texts || chunks.length !== meta.chunks || chunks.some((chunk) => !chunk)) throw new Error('view snapshot incomplete');
  if (snapshotDigest(chunks as Buffer[], texts, meta) !== meta.digest) throw new SnapshotDamagedError();
}

/** What a view saves and restores: its sorted entries, their search texts, and the checkpoint. */
export interface ViewColumns {
  entries: readonly Entry[];
  texts: readonly string[];
  checkpoint: Checkpoint | null;
}

interface Chunk {
  ids: string[];
  type: Uint8Array;
  amount: Float64Array;
  toAmount: Float64Array;
  fee: Float64Array;
  date: Float64Array;
  createdAt: Float64Array;
  asset: Uint32Array;
  toAsset: Uint32Array;
  category: Uint32Array;
  searchText: Uint32Array;
  tags: Uint32Array;
  textId: Uint32Array;
}

/** The key prefix of everything saved for a user (DerivedStore.replace/clear); U+0001 ends the id. */
export const snapshotPrefix = (userId: string) => `ledger-view\u0001${userId}\u0001`;
const metaKey = (userId: string) => `${snapshotPrefix(userId)}meta`;
const textsKey = (userId: string) => `${snapshotPrefix(userId)}texts`;
const chunkKey = (userId: string, n: number) => `${snapshotPrefix(userId)}c${n}`;

/**
 * Encodes a view into derived-store entries, one chunk per step: a caller may yield between steps
 * (a million records are ~16 chunks) but must give up if the view changed meanwhile.
 */
export function* encodeSnapshot(userId: string, schemaVersion: number, view: ViewColumns, savedAt: number): Generator<[string, Buffer]> {
  // One string table for search texts, descriptions, categories and assets; one of tag lists.
  const strings: string[] = [...view.texts];
  const index = new Map<string, number>();
  strings.forEach((s, i) => index.set(s, i));
  const ref = (s: string) => {
    let i = index.get(s);
    if (i === undefined) {
      i = strings.push(s) - 1;
      index.set(s, i);
    }
    return i;
  };
  const tagLists: Array<readonly string[]> = [];
  const tagIndex = new Map<readonly string[], number>();
  const tagRef = (tags: readonly string[]) => {
    let i = tagIndex.get(tags);
    if (i === undefined) {
      i = tagLists.push(tags) - 1;
      tagIndex.set(tags, i);
    }
    return i;
  };
  const { entries } = view;
  const chunks = Math.ceil(entries.length / CHUNK);
  const written: Buffer[] = [];
  for (let n = 0; n < chunks; n++) {
    const from = n * CHUNK;
    const size = Math.min(CHUNK, entries.length - from);
    const c: Chunk = {
      ids: new Array<string>(size),
      type: new Uint8Array(size),
      amount: new Float64Array(size),
      toAmount: new Float64Array(size),
      fee: new Float64Array(size),
      date: new Float64Array(size),
      createdAt: new Float64Array(size),
      asset: new Uint32Array(size),
      toAsset: new Uint32Array(size),
      category: new Uint32Array(size),
      searchText: new Uint32Array(size),
      tags: new Uint32Array(size),
      textId: new Uint32Array(size),
    };
    for (let i = 0; i < size; i++) {
      const e = itemAt(entries, from + i);
      c.ids[i] = e.id;
      c.type[i] = TYPE_CODE[e.type];
      c.amount[i] = e.amount;
      c.toAmount[i] = e.toAmount;
      c.fee[i] = e.fee;
      c.date[i] = e.date;
      c.createdAt[i] = e.createdAt;
      c.asset[i] = ref(e.asset);
      c.toAsset[i] = ref(e.toAsset);
      c.category[i] = ref(e.category);
      c.searchText[i] = ref(e.searchText);
      c.tags[i] = tagRef(e.tags);
      c.textId[i] = e.textId;
    }
    const chunk = v8.serialize(c);
    written.push(chunk);
    yield [chunkKey(userId, n), chunk];
  }
  const texts = v8.serialize({ texts: view.texts.length, strings, tagLists });
  yield [textsKey(userId), texts];
  const fields = { format: SNAPSHOT_FORMAT, schemaVersion, count: entries.length, chunks, checkpoint: view.checkpoint, savedAt };
  const meta: SnapshotMeta = { ...fields, digest: snapshotDigest(written, texts, fields) };
  yield [metaKey(userId), v8.serialize(meta)];
}

/** An element that may be missing (a damaged snapshot's index out of range). */
const elementAt = <T>(list: readonly T[], index: number): T | undefined => list[index];

/** Row `i` of a chunk's column; a column shorter than the chunk's ids is a damaged snapshot. */
function cell<T>(column: ArrayLike<T>, i: number): T {
  const value = column[i];
  if (value === undefined) throw new Error('view snapshot chunk has a short column');
  return value;
}

/** The keys to read for a user's snapshot, given its meta. */
export function snapshotKeys(userId: string, meta: SnapshotMeta): string[] {
  return [textsKey(userId), ...Array.from({ length: meta.chunks }, (_, n) => chunkKey(userId, n))];
}

export function metaKeyOf(userId: string): string {
  return metaKey(userId);
}

/** The meta when it is a snapshot this build can use now, else undefined (rebuild from records). */
export function usableMeta(raw: Buffer | undefined, schemaVersion: number, now: number): SnapshotMeta | undefined {
  if (!raw) return undefined;
  const meta = v8.deserialize(raw) as Partial<SnapshotMeta>;
  if (meta.format !== SNAPSHOT_FORMAT || meta.schemaVersion !== schemaVersion) return undefined;
  if (typeof meta.savedAt !== 'number' || meta.savedAt > now) return undefined; // the clock went back since
  if (typeof meta.count !== 'number' || typeof meta.chunks !== 'number' || typeof meta.digest !== 'string') return undefined;
  return meta as SnapshotMeta;
}

/**
 * Decodes the snapshot's values (snapshotKeys order). Entries come out sorted as saved, with
 * interned strings and shared (frozen) tag lists; `texts` are the view's search texts.
 * Throws on any inconsistency — SnapshotDamagedError when the bytes are not the ones saved — and
 * the caller then rebuilds from the records.
 */
export function decodeSnapshot(meta: SnapshotMeta, values: ReadonlyArray<Buffer | undefined>): { entries: Entry[]; texts: string[]; strings: string[]; tagLists: string[][] } {
  verifySnapshot(meta, values);
  const [textsRaw, ...chunkRaws] = values;
  if (!textsRaw || chunkRaws.length !== meta.chunks) throw new Error('view snapshot incomplete');
  const table = v8.deserialize(textsRaw) as { texts: number; strings: string[]; tagLists: string[][] };
  const strings = table.strings;
  const tagLists = table.tagLists.map((list) => Object.freeze(list) as string[]);
  const entries: Entry[] = new Array<Entry>(meta.count);
  let at = 0;
  for (const raw of chunkRaws) {
    if (!raw) throw new Error('view snapshot chunk missing');
    const c = v8.deserialize(raw) as Chunk;
    const size = c.ids.length;
    if (at + size > meta.count) throw new Error('view snapshot longer than its count');
    for (let i = 0; i < size; i++) {
      const type = elementAt(TYPES, cell(c.type, i));
      const asset = elementAt(strings, cell(c.asset, i));
      const toAsset = elementAt(strings, cell(c.toAsset, i));
      const category = elementAt(strings, cell(c.category, i));
      const searchText = elementAt(strings, cell(c.searchText, i));
      const tags = elementAt(tagLists, cell(c.tags, i));
      const textId = cell(c.textId, i);
      if (tags === undefined || type === undefined || asset === undefined || toAsset === undefined || category === undefined || searchText === undefined || textId >= table.texts) {
        throw new Error('view snapshot refers to a missing string');
      }
      // The same property order as views.ts toEntry: one hidden class for every entry.
      entries[at++] = {
        id: cell(c.ids, i),
        type,
        amount: cell(c.amount, i),
        asset,
        toAsset,
        toAmount: cell(c.toAmount, i),
        fee: cell(c.fee, i),
        category,
        date: cell(c.date, i),
        tags,
        searchText,
        textId,
        createdAt: cell(c.createdAt, i),
      };
    }
  }
  if (at !== meta.count) throw new Error('view snapshot shorter than its count');
  return { entries, texts: strings.slice(0, table.texts), strings, tagLists };
}
