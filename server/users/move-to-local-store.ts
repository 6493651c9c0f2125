import {
  createRevision,
  flatCloneDocWithMeta,
  INTERNAL_CONTEXT_COLLECTION,
  INTERNAL_CONTEXT_MIGRATION_STATUS,
  now as rxNow,
  prepareQuery,
  type BulkWriteRow,
  type InternalStoreDocType,
  type RxDocumentData,
} from 'rxdb';
import { DATABASE_NAME, type AppDatabase } from '../db/database';
import { encodeKey, prefixEnd } from '../db/leveldb-storage/keys';
import type { Logger } from '../lib/logger';
import { userFromV0, type UserDoc, type UserDocV0 } from './schema';
import { assertValidUser, findUniquenessConflict, USER_KEY_PREFIX, userKey } from './user-store';

/** The RxDB collection accounts lived in before they moved to the local store. */
export const OLD_USERS_COLLECTION = 'users';
/** The last schema version that collection had. */
const OLD_USERS_VERSION = 1;
/** Where its documents may still be (`pennypost repair` takes damaged ones out like those of the open collections). */
export const OLD_USERS_STORAGES = [0, 1].map((version) => ({ name: OLD_USERS_COLLECTION, version, primaryKey: 'id' }));
const SEP = '\u0001';
/** Every key of the old collection, whatever its schema version: `r␁pennypost␁users␁…` (server/db/leveldb-storage/keys.ts). */
const OLD_PREFIX = `r${SEP}${DATABASE_NAME}${SEP}${OLD_USERS_COLLECTION}${SEP}`;

export interface MoveReport {
  /** Accounts written to the local store by this run. */
  moved: number;
  /** Raw LevelDB keys of the old collection deleted (documents, tombstones and index entries of every version). */
  deletedKeys: number;
  /** RxDB's own bookkeeping documents about the old collection marked deleted in its internal store. */
  deletedMeta: number;
}

interface OldDocument {
  version: number;
  doc: Record<string, unknown>;
}

/** Reads the old collection raw: every key, and per account id the document of the highest schema version. */
async function readOldCollection(db: AppDatabase): Promise<{ keys: Buffer[]; latest: Map<string, OldDocument> }> {
  const keys: Buffer[] = [];
  const latest = new Map<string, OldDocument>();
  await db.health.read(async () => {
    for await (const [key, value] of db.level.iterator({ gte: encodeKey(OLD_PREFIX), lt: encodeKey(prefixEnd(OLD_PREFIX)), fillCache: false })) {
      keys.push(Buffer.from(key));
      // `<version>␁d␁<id>` for a document, `<version>␁i␁<index>␁<indexStr>` for an index entry.
      const rest = Buffer.from(key).swap16().toString('utf16le').slice(OLD_PREFIX.length);
      const [versionText = '', kind] = rest.split(SEP, 2);
      if (kind !== 'd') continue;
      const id = rest.slice(versionText.length + 3);
      const version = Number(versionText);
      if (!Number.isInteger(version) || version < 0 || version > OLD_USERS_VERSION) {
        throw new Error(`the old users collection has documents of schema version ${versionText}, which this PennyPost does not know; nothing was changed`);
      }
      let doc: Record<string, unknown>;
      try {
        doc = JSON.parse(value) as Record<string, unknown>;
      } catch {
        throw new Error(
          `the old users collection holds an unreadable document (${id}); nothing was changed — stop PennyPost and run \`pennypost repair\`, which sets damaged documents aside`,
        );
      }
      const seen = latest.get(id);
      if (!seen || seen.version < version) latest.set(id, { version, doc });
    }
  });
  return { keys, latest };
}

/** The account as the local store keeps it: RxDB's fields dropped, version 0 brought to version 1. */
function accountOf({ version, doc }: OldDocument): UserDoc {
  const { _deleted: _d, _rev: _r, _meta: _m, _attachments: _a, ...fields } = doc;
  const account = version === 0 ? userFromV0(fields as unknown as UserDocV0) : (fields as unknown as UserDoc);
  assertValidUser(account);
  return account;
}

/** RxDB's internal documents about the old collection: its schema per version, and migration status. */
async function oldMetaDocuments(db: AppDatabase): Promise<RxDocumentData<InternalStoreDocType>[]> {
  const internal = db.rx.internalStore;
  const query = prepareQuery<InternalStoreDocType>(internal.schema, { selector: { _deleted: { $eq: false } }, sort: [{ id: 'asc' }], skip: 0 });
  const { documents } = await internal.query(query);
  return documents.filter((doc) => {
    const data = doc.data as { name?: string; collectionName?: string } | undefined;
    if (doc.context === INTERNAL_CONTEXT_COLLECTION) return data?.name === OLD_USERS_COLLECTION;
    return doc.context === INTERNAL_CONTEXT_MIGRATION_STATUS && data?.collectionName === OLD_USERS_COLLECTION;
  });
}

/**
 * Accounts used to be the RxDB collection `users`; they now live in the local store (user-store.ts),
 * which frees a collection slot. This moves a data dir's old accounts over, at every start of the
 * users domain (also after a snapshot restore brought an old database back), in three steps that
 * each can be repeated:
 *
 * 1. every live account of the old collection (the highest schema version of each id; version 0 is
 *    given its roles fields) that the local store does not have yet is validated and written to the
 *    local store in one fsynced batch — an invalid account stops the start with nothing changed;
 * 2. then every raw key of the old collection (documents, tombstones, index entries, all versions)
 *    is deleted in one fsynced batch;
 * 3. then RxDB's internal documents about the collection (its schema, migration status) are marked
 *    deleted, the way RxDB removes a collection, so nothing remembers a `users` collection.
 *
 * A crash after 1 leaves both copies; the next start finds every id in the local store, copies
 * nothing and finishes 2 and 3. Accounts are never lost, and a second run finds nothing to do.
 */
export async function moveUsersToLocalStore(db: AppDatabase, log: Logger): Promise<MoveReport | null> {
  const { keys, latest } = await readOldCollection(db);
  const meta = await oldMetaDocuments(db);
  if (keys.length === 0 && meta.length === 0) return null;

  const present = new Set((await db.local.entries<UserDoc>(USER_KEY_PREFIX)).map(([, doc]) => doc.id));
  const accounts = [...latest.values()].filter((old) => old.doc._deleted !== true).map(accountOf);
  const missing = accounts.filter((account) => !present.has(account.id));
  if (missing.length > 0) {
    const conflict = findUniquenessConflict([...(await db.local.entries<UserDoc>(USER_KEY_PREFIX)).map(([, doc]) => doc), ...missing]);
    if (conflict) log.warn('users: two moved accounts share a unique field; both are kept', { field: conflict.field, ids: conflict.ids });
    await db.local.batch(missing.map((account) => ({ type: 'put' as const, key: userKey(account.id), value: account })));
  }

  if (keys.length > 0)
    await db.health.write(() =>
      db.level.batch(
        keys.map((key) => ({ type: 'del' as const, key })),
        { sync: true },
      ),
    );

  if (meta.length > 0) {
    const rows: BulkWriteRow<InternalStoreDocType>[] = meta.map((previous) => {
      const document = flatCloneDocWithMeta(previous);
      document._deleted = true;
      document._meta.lwt = rxNow();
      document._rev = createRevision(db.rx.token, previous);
      return { previous, document };
    });
    const { error } = await db.rx.internalStore.bulkWrite(rows, 'pennypost-users-to-local-store');
    if (error.length > 0) throw new Error(`could not remove RxDB's records of the old users collection (${error.map((e) => `${e.documentId}: ${e.status}`).join(', ')})`);
  }

  const report = { moved: missing.length, deletedKeys: keys.length, deletedMeta: meta.length };
  log.info('users: accounts moved from the old RxDB collection to the local store', { ...report });
  return report;
}
