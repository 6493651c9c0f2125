/**
 * Shared fixtures of the storage tests and the benchmark: a realistic accounting-record
 * schema, a seeded generator of records, and factories for the two storages under test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fillWithDefaultSettings, randomToken, type RxDocumentData, type RxJsonSchema, type RxStorage, type RxStorageInstance } from 'rxdb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { getRxStorageLevel, openLevel, type LevelDb } from '../leveldb-storage';
import { itemAt } from '../../lib/item-at';
import { seededRandom } from '../../test-support/synthetic-records';

/** The seeded generator of the storage tests and the benchmark (mulberry32). */
export { seededRandom };

export interface AccountRecord {
  id: string;
  userId: string;
  type: 'income' | 'expense' | 'transfer';
  /** Integer minor units (cents). */
  amount: number;
  category: string;
  asset: string;
  /** Integer milliseconds. */
  date: number;
  tags: string[];
  description?: string;
}

export const DATE_MIN = Date.UTC(2021, 0, 1);
export const DATE_MAX = Date.UTC(2026, 0, 1); // five years

export const recordSchema: RxJsonSchema<AccountRecord> = {
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 40 },
    userId: { type: 'string', maxLength: 40 },
    type: { type: 'string', enum: ['income', 'expense', 'transfer'], maxLength: 10 },
    amount: { type: 'integer', minimum: 0, maximum: 1_000_000_000_000, multipleOf: 1 },
    category: { type: 'string', maxLength: 40 },
    asset: { type: 'string', maxLength: 40 },
    date: { type: 'integer', minimum: 0, maximum: 4_102_444_800_000, multipleOf: 1 },
    tags: { type: 'array', items: { type: 'string' } },
    description: { type: 'string' },
  },
  required: ['id', 'userId', 'type', 'amount', 'category', 'asset', 'date', 'tags'],
  indexes: [
    ['userId', 'date'],
    ['userId', 'category', 'date'],
    ['userId', 'asset', 'date'],
  ],
};

/** The schema as RxDB hands it to a storage (meta fields, _deleted-prefixed indexes, lwt index). */
export const filledRecordSchema = fillWithDefaultSettings<AccountRecord>(recordSchema);

export const CATEGORIES = ['food', 'rent', 'salary', 'travel', 'health', 'fun', '🍕 pizza', '𝄞 music', 'Ärzte', 'zz-last'];
export const ASSETS = ['cash', 'checking', 'savings', 'credit-card', '💳 visa'];
const TAGS = ['work', 'family', 'tax', 'recurring', 'holiday', '🎉'];
const TYPES: AccountRecord['type'][] = ['income', 'expense', 'transfer'];
const WORDS = ['coffee', 'rent payment', 'monthly salary', 'train ticket', 'dentist', 'cinema', 'Groceries', 'gift'];

/** Deterministic record number `n` of a generator seeded with `seed`. */
export function makeRecord(rand: () => number, n: number, users = 3): AccountRecord {
  const pick = <T extends string>(list: readonly T[]): T => itemAt(list, Math.floor(rand() * list.length));
  const tags: string[] = [];
  const tagCount = Math.floor(rand() * 3);
  for (let i = 0; i < tagCount; i++) tags.push(pick(TAGS));
  const record: AccountRecord = {
    id: `rec-${String(n).padStart(7, '0')}`,
    userId: `user-${Math.floor(rand() * users)}`,
    type: pick(TYPES),
    amount: Math.floor(rand() * 500_000),
    category: pick(CATEGORIES),
    asset: pick(ASSETS),
    date: DATE_MIN + Math.floor(rand() * (DATE_MAX - DATE_MIN)),
    tags,
  };
  // Some records have no description at all ($exists).
  if (rand() < 0.7) record.description = `${pick(WORDS)} #${n}`;
  return record;
}

/** `count` records of a generator seeded with `seed`; one or two come as a tuple (`const [a, b] = makeRecords(2, 5)`). */
export function makeRecords(count: 1, seed?: number, users?: number): [AccountRecord];
export function makeRecords(count: 2, seed?: number, users?: number): [AccountRecord, AccountRecord];
export function makeRecords(count: number, seed?: number, users?: number): AccountRecord[];
export function makeRecords(count: number, seed = 42, users = 3): AccountRecord[] {
  const rand = seededRandom(seed);
  const out: AccountRecord[] = [];
  for (let n = 0; n < count; n++) out.push(makeRecord(rand, n, users));
  return out;
}

/** A stored document as RxDB writes it: the record plus the meta fields. */
export function toStored(record: AccountRecord, lwt: number, rev = '1-a', deleted = false): RxDocumentData<AccountRecord> {
  return { ...record, _deleted: deleted, _rev: rev, _meta: { lwt }, _attachments: {} };
}

export type StorageKind = 'leveldb' | 'memory';
export const STORAGE_KINDS: StorageKind[] = ['leveldb', 'memory'];

export function tempDir(prefix = 'pennypost-db-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface StorageUnderTest {
  kind: StorageKind;
  storage: RxStorage<any, any>;
  /** Only for the LevelDB storage. */
  level?: LevelDb;
  dir?: string;
  /** Closes the LevelDB and deletes its directory. */
  dispose(): Promise<void>;
}

export async function makeStorage(kind: StorageKind): Promise<StorageUnderTest> {
  if (kind === 'memory') {
    return { kind, storage: getRxStorageMemory(), dispose: () => Promise.resolve() };
  }
  const dir = tempDir();
  const level = await openLevel(path.join(dir, 'db'));
  return {
    kind,
    storage: getRxStorageLevel(level),
    level,
    dir,
    async dispose() {
      await level.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh storage instance of the record collection (unique database name: the memory storage is process-global). */
export async function createRecordInstance(
  sut: StorageUnderTest,
  databaseName = 'db' + randomToken(8),
  collectionName = 'records',
  schema: RxJsonSchema<RxDocumentData<AccountRecord>> = filledRecordSchema,
): Promise<RxStorageInstance<AccountRecord, any, any>> {
  return sut.storage.createStorageInstance<AccountRecord>({
    databaseInstanceToken: randomToken(10),
    databaseName,
    collectionName,
    schema,
    options: {},
    multiInstance: false,
    devMode: false,
  });
}

/** The record the crash writer writes under `id` ("r<round>-<n>"): recomputable from the id alone. */
export function crashRecord(id: string): AccountRecord {
  const [, round, write] = /^r(\d+)-(\d+)$/.exec(id) ?? [];
  if (round === undefined || write === undefined) throw new Error(`not a crash-test id: ${id}`);
  const n = Number(write);
  const record = makeRecord(seededRandom(Number(round) * 1_000_003 + n), n);
  return { ...record, id, description: `crash round ${round} write ${n} ✓ 🧾` };
}
