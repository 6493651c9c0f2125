import { DATABASE_NAME, openDatabase, type AppDatabase } from '../db/database';
import { collectionPrefix, docPrefix, encodeKey, prefixEnd } from '../db/leveldb-storage/keys';
import { documentValidator } from '../db/validated-storage';
import type { UserDoc } from '../users/schema';
import { assertValidUser, findUniquenessConflict, USER_KEY_PREFIX } from '../users/user-store';
import { allDomains } from '../domains';
import { LedgerViews } from '../ledger/ledger-views';
import { SavedViews } from '../ledger/saved-views';
import { effectsOf } from '../ledger/views';
import type { AssetDoc, RateDoc, RecordDoc } from '../ledger/schema';

/**
 * What `pennypost check` and `pennypost repair` read from a stopped data dir: every stored entry
 * (is it readable at all?), every document of every collection (parses, belongs under its key,
 * valid against its collection's schema), every index entry (points at a stored document), the
 * local store, and every balance computed twice — the way the ledger computes it for
 * asset.checkBalances (LedgerViews over the storage's indexed queries) and again from a raw scan
 * of the documents with exact (BigInt) sums. They must agree and fit in a safe integer. Each
 * user's saved ledger view (what a start reads instead of the records) must match its digest and
 * give exactly the view recomputed from the records.
 */

export interface CollectionReport {
  name: string;
  documents: number;
  deleted: number;
  indexEntries: number;
}

export interface BalanceLine {
  userId: string;
  assetId: string;
  name: string;
  currency: string;
  /** Minor units, as the ledger computes it (null: could not be computed). */
  balance: number | null;
  /** Exact sum from the raw documents. */
  exact: bigint;
}

export interface Inspection {
  entries: number;
  collections: CollectionReport[];
  localEntries: number;
  balances: BalanceLine[];
  problems: string[];
}

/** Opens the data dir with every domain's collections (refusing damage: server/db/integrity.ts). */
export function openForTools(dataDir: string): Promise<AppDatabase> {
  return openDatabase({ dataDir, collections: allDomains().flatMap((d) => d.collections ?? []) });
}

function describe(error: unknown): string {
  const e = error as { message?: string; cause?: { message?: string } };
  return e.cause?.message && !String(e.message).includes(e.cause.message) ? `${String(e.message)} (${e.cause.message})` : String(e.message ?? error);
}

const SEP = '\u0001';

export async function inspectDatabase(db: AppDatabase): Promise<Inspection> {
  const problems: string[] = [];
  const level = db.level;

  // 1. Every stored entry can be read (LevelDB reports damaged blocks as "Corruption: …").
  let entries = 0;
  try {
    for await (const _ of level.iterator({ fillCache: false })) entries++;
  } catch (error) {
    problems.push(`stored data unreadable after ${entries} entries: ${describe(error)}`);
  }

  // 2. Documents and index entries of every collection.
  const collections: CollectionReport[] = [];
  const live = new Map<string, unknown[]>();
  for (const [name, collection] of Object.entries(db.rx.collections)) {
    const schema = collection.schema.jsonSchema;
    const primary = collection.schema.primaryPath;
    const validate = documentValidator(schema);
    const prefix = collectionPrefix(DATABASE_NAME, name, schema.version);
    const dp = docPrefix(prefix);
    const report: CollectionReport = { name, documents: 0, deleted: 0, indexEntries: 0 };
    const ids = new Set<string>();
    const docs: unknown[] = [];
    let lastId = '';
    try {
      for await (const [key, raw] of level.iterator({ gte: encodeKey(dp), lt: encodeKey(prefixEnd(dp)), fillCache: false })) {
        const id = key.swap16().toString('utf16le').slice(dp.length); // swap16 works in place on the iterator's own copy
        lastId = id;
        ids.add(id);
        // Stored JSON: the schema's object, or anything damaged bytes decode to (checked below).
        let doc: Record<string, unknown> | null;
        try {
          doc = JSON.parse(raw) as Record<string, unknown> | null;
        } catch {
          problems.push(`${name}/${id}: the stored document is not readable JSON (damaged bytes)`);
          continue;
        }
        if (doc?.[primary] !== id) {
          problems.push(`${name}/${id}: the stored document has ${primary} ${JSON.stringify(doc?.[primary])}, not the id it is stored under`);
          continue;
        }
        const errors = validate(doc);
        if (errors.length > 0) {
          const first = errors[0] as unknown as { instancePath?: string; message?: string };
          problems.push(`${name}/${id}: not valid against the ${name} schema (${first.instancePath || '/'} ${first.message ?? ''})`.trim());
        }
        if (doc._deleted) report.deleted++;
        else {
          report.documents++;
          docs.push(doc);
        }
      }
    } catch (error) {
      problems.push(`${name}: documents unreadable${lastId ? ` after ${lastId}` : ''}: ${describe(error)}`);
    }
    const ip = `${prefix}i${SEP}`;
    try {
      for await (const [key, docId] of level.iterator({ gte: encodeKey(ip), lt: encodeKey(prefixEnd(ip)), fillCache: false })) {
        report.indexEntries++;
        if (!ids.has(docId)) {
          const index = key.swap16().toString('utf16le').slice(ip.length).split(SEP).at(0) ?? '';
          problems.push(`${name}: index [${index}] lists ${docId}, which is not stored`);
        }
      }
    } catch (error) {
      problems.push(`${name}: index entries unreadable: ${describe(error)}`);
    }
    collections.push(report);
    live.set(name, docs);
  }

  // 3. The local store (sessions, secrets' metadata, counters): every value is JSON.
  let localEntries = 0;
  try {
    localEntries = (await db.local.entries('')).length;
  } catch (error) {
    problems.push(`local store unreadable: ${describe(error)}`);
  }
  // Accounts live there (server/users/user-store.ts): each must be a valid account stored under its own id.
  try {
    const accounts = await db.local.entries<{ id?: unknown } | null>(USER_KEY_PREFIX);
    for (const [key, account] of accounts) {
      if (account?.id !== key.slice(USER_KEY_PREFIX.length)) problems.push(`local store ${key}: the account stored there has id ${JSON.stringify(account?.id)}`);
      else {
        try {
          assertValidUser(account);
        } catch (error) {
          problems.push(`local store ${key}: ${describe(error)}`);
        }
      }
    }
    const conflict = findUniquenessConflict(accounts.flatMap(([, account]) => (account && typeof account === 'object' ? [account as UserDoc] : [])));
    if (conflict) problems.push(`accounts ${conflict.ids.join(' and ')} have the same ${conflict.field}`);
  } catch (error) {
    if (localEntries > 0) problems.push(`accounts unreadable: ${describe(error)}`);
  }

  // 4. Balances: the ledger's computation against an exact one from the raw documents.
  const balances: BalanceLine[] = [];
  const assets = (live.get('assets') ?? []) as AssetDoc[];
  const records = (live.get('records') ?? []) as RecordDoc[];
  const opened: Partial<Record<string, unknown>> = db.rx.collections; // without the ledger's domain they are missing
  if (opened.assets && opened.records) {
    const exact = new Map<string, bigint>();
    for (const asset of assets) exact.set(asset.id, BigInt(asset.openingBalance));
    for (const record of records) {
      for (const [assetId, delta] of effectsOf(record)) {
        const sum = exact.get(assetId);
        if (sum !== undefined) exact.set(assetId, sum + BigInt(delta));
      }
    }
    const views = new LedgerViews(db, { saved: false }); // recomputed from the records, never a saved view
    const saved = new SavedViews(db);
    const rates = (live.get('rates') ?? []) as RateDoc[];
    for (const userId of new Set(assets.map((a) => a.userId))) {
      let view;
      try {
        view = await views.get(userId);
      } catch (error) {
        problems.push(`balances of user ${userId} could not be computed: ${describe(error)}`);
      }
      for (const asset of assets.filter((a) => a.userId === userId)) {
        const balance = view ? view.balanceOf(asset.id) : null;
        const exactBalance = exact.get(asset.id);
        if (exactBalance === undefined) throw new Error(`asset ${asset.id} has no exact balance`); // every asset got one above
        const line: BalanceLine = { userId, assetId: asset.id, name: asset.name, currency: asset.currency, balance, exact: exactBalance };
        balances.push(line);
        if (balance === null) continue;
        if (!Number.isSafeInteger(balance)) {
          problems.push(`asset ${asset.name} (${asset.id}): balance ${line.exact} minor units is beyond what is exact in a number (2^53); computed as ${balance}`);
        } else if (BigInt(balance) !== line.exact) {
          problems.push(
            `asset ${asset.name} (${asset.id}): balance ${balance} from the ledger differs from ${line.exact} recomputed from the stored records (an index or record is damaged)`,
          );
        }
      }
      // 5. The saved view a start would read instead of the records gives the same view.
      if (view) {
        try {
          problems.push(
            ...(await saved.inspect(
              view,
              assets.filter((a) => a.userId === userId),
              rates.filter((r) => r.userId === userId),
              Date.now(),
            )),
          );
        } catch (error) {
          problems.push(`the saved ledger view of user ${userId} cannot be read: ${describe(error)}`);
        }
      }
    }
  }
  return { entries, collections, localEntries, balances, problems };
}

/** Runs `work` on the data dir opened for a tool; maps a lock to exit code 2. */
export async function withToolDatabase<T>(dataDir: string, work: (db: AppDatabase) => Promise<T>): Promise<T> {
  const db = await openForTools(dataDir);
  try {
    return await work(db);
  } finally {
    await db.close().catch(() => undefined);
  }
}
