import Ajv, { type ValidateFunction } from 'ajv';
import type { RxCollection } from 'rxdb';
import { authHeader } from './couch-client';

/**
 * The `fetch` that PennyPost hands to RxDB's CouchDB replication for one user and collection.
 * It is where the remote ledger meets the local one:
 * - adds the Basic credentials and a timeout to every request;
 * - maps ownership: remote documents of the ledger's owner id become the local account's;
 *   documents with a foreign or missing owner are dropped and reported, never imported;
 * - drops remote documents that break the collection's schema (reported), instead of letting one
 *   bad document stop the replication;
 * - fills the tombstone stubs `{_id, _rev, _deleted}` that CouchDB sends for deletes made on the
 *   server (which RxDB's validation would reject, rxdb issue 7444) from the local document, so
 *   server-side deletes replicate;
 * - gives `_all_docs` rows of deleted documents (`doc: null`) a tombstone, which keeps RxDB's push
 *   from looping on "Cannot read properties of null" when a delete is pushed for a document that
 *   is already deleted on the server and there is no checkpoint (a lost or new checkpoint).
 */
export interface ReplicationFetchOptions {
  collection: RxCollection;
  username: string;
  password: string;
  ownerId: string;
  localUserId: string;
  timeoutMs: number;
  /** A remote document was not imported. */
  onIgnored(documentId: string, reason: string): void;
  /** CouchDB refused the credentials: the caller stops this replication (no retry storm). */
  onAuthFailure(message: string): void;
}

const COUCH_FIELDS = ['_id', '_rev', '_deleted', '_conflicts', '_attachments', '_revisions', '_revs_info', '_local_seq'];

function validatorFor(collection: RxCollection): ValidateFunction {
  const schema = structuredClone(collection.schema.jsonSchema) as Record<string, any>;
  schema.required = (schema.required as string[]).filter((field) => !field.startsWith('_'));
  delete schema.indexes;
  delete schema.primaryKey;
  delete schema.version;
  delete schema.encrypted;
  delete schema.keyCompression;
  delete schema.internalIndexes;
  const ajv = new Ajv({ strict: false, allErrors: false });
  return ajv.compile(schema);
}

export function createReplicationFetch(options: ReplicationFetchOptions): typeof fetch {
  const primaryPath = options.collection.schema.primaryPath as string;
  const validate = validatorFor(options.collection);

  const localDoc = async (id: string): Promise<Record<string, any> | undefined> => {
    const [found] = await options.collection.storageInstance.findDocumentsById([id], true);
    return found as Record<string, any> | undefined;
  };

  /** A local document in CouchDB's shape (as the pull side expects it). */
  const asCouch = (doc: Record<string, any>, rev: string | undefined, deleted: boolean) => {
    const out: Record<string, any> = { _id: doc[primaryPath] };
    for (const [key, value] of Object.entries(doc)) {
      if (key === primaryPath || key.startsWith('_')) continue;
      out[key] = value;
    }
    if (rev) out._rev = rev;
    if (deleted) out._deleted = true;
    return out;
  };

  /** Remote → local terms, or null when the document must not be imported. */
  const mapIncoming = async (doc: Record<string, any> | null | undefined): Promise<Record<string, any> | null> => {
    if (!doc || typeof doc._id !== 'string') return null;
    if (doc._id.startsWith('_design/')) return null;
    if (doc._deleted && doc.userId === undefined) {
      // A server-side delete: a stub. It may only delete a document of this account.
      const local = await localDoc(doc._id);
      if (!local) return null;
      if (local.userId !== options.localUserId) {
        options.onIgnored(doc._id, 'a delete from the server for a document of another account');
        return null;
      }
      return asCouch(local, doc._rev, true);
    }
    if (doc.userId !== options.ownerId) {
      options.onIgnored(doc._id, doc.userId === undefined ? 'the document has no owner (userId)' : 'the document belongs to another ledger owner');
      return null;
    }
    const mapped = { ...doc, userId: options.localUserId };
    const plain: Record<string, any> = {};
    for (const [key, value] of Object.entries(mapped)) if (!COUCH_FIELDS.includes(key)) plain[key] = value;
    plain[primaryPath] = doc._id;
    if (!validate(plain)) {
      const first = validate.errors?.[0];
      options.onIgnored(doc._id, `it does not match the ${options.collection.name} schema (${first?.instancePath || 'document'} ${first?.message ?? 'invalid'})`);
      return null;
    }
    return mapped;
  };

  const json = (body: unknown, status: number) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (new URL(url).pathname.endsWith('/_bulk_docs') && typeof init?.body === 'string') {
      // Outgoing documents (only this account's: the push modifier filters) go up under the owner id.
      const body = JSON.parse(init.body) as { docs: Array<Record<string, any>> };
      body.docs = body.docs.map((doc) => (doc.userId === options.localUserId ? { ...doc, userId: options.ownerId } : doc));
      init = { ...init, body: JSON.stringify(body) };
    }
    const headers = new Headers(init?.headers);
    headers.set('authorization', authHeader(options));
    const longpoll = url.includes('feed=longpoll');
    const response = await fetch(url, {
      ...init,
      headers,
      signal: AbortSignal.timeout(longpoll ? options.timeoutMs + 60_000 : options.timeoutMs),
    });
    if (response.status === 401 || response.status === 403) {
      const message = response.status === 401 ? 'CouchDB refused the username or password.' : 'CouchDB does not allow this user to use the database.';
      options.onAuthFailure(message);
      throw new Error(message);
    }
    if (response.status >= 500) throw new Error(`CouchDB answered HTTP ${response.status}`);
    const path = new URL(url).pathname;
    if (path.endsWith('/_changes')) {
      const body = (await response.json()) as { results?: Array<{ id: string; doc?: Record<string, any> }>; last_seq: unknown };
      if (!Array.isArray(body.results)) return json(body, response.status);
      const results = [];
      for (const row of body.results) {
        const doc = await mapIncoming(row.doc);
        if (doc) results.push({ ...row, doc });
      }
      return json({ ...body, results }, response.status);
    }
    if (path.endsWith('/_all_docs')) {
      const body = (await response.json()) as { rows?: Array<{ id?: string; key: string; value?: { rev: string; deleted?: boolean }; doc?: Record<string, any> | null; error?: string }> };
      if (!Array.isArray(body.rows)) return json(body, response.status);
      const conflictLookup = (init?.method ?? 'GET').toUpperCase() === 'GET';
      const rows = [];
      for (const row of body.rows) {
        if (row.error || !row.id) {
          rows.push(row);
          continue;
        }
        if (!row.doc && row.value?.deleted) {
          const local = await localDoc(row.id);
          rows.push({ ...row, doc: local ? asCouch(local, row.value.rev, true) : { _id: row.id, _rev: row.value.rev, _deleted: true } });
          continue;
        }
        const mapped = await mapIncoming(row.doc);
        if (mapped) rows.push({ ...row, doc: mapped });
        else if (conflictLookup) {
          // A document of another owner holds this id on the server: keep ours, never import theirs.
          const local = await localDoc(row.id);
          rows.push({ ...row, doc: local ? asCouch(local, row.value?.rev, !!local._deleted) : null });
        } else rows.push({ ...row, doc: null });
      }
      return json({ ...body, rows }, response.status);
    }
    return response;
  };
}
