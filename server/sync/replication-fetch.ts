import Ajv, { type ValidateFunction } from 'ajv';
import type { RxCollection } from 'rxdb';
import { authHeader } from './couch-client';
import type { AdmitMode, SyncGate } from './gate';

/**
 * The `fetch` that PennyPost hands to RxDB's CouchDB replication for one user and collection.
 * It is where the remote ledger meets the local one:
 * - adds the Basic credentials and a timeout to every request;
 * - maps ownership: remote documents of the ledger's owner id become the local account's;
 *   documents with a foreign or missing owner are dropped and reported, never imported;
 * - drops remote documents that break the collection's schema (reported), instead of letting one
 *   bad document stop the replication;
 * - hands every document that passed both to the collection's gate (server/sync/gate.ts), which
 *   applies the domain's rules: broken documents are dropped and reported, documents that wait for
 *   another one (a record whose asset has not arrived) are kept, and handed over with a later pull
 *   once they pass;
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
  /** The domain rules, the report of documents not imported, and the documents kept waiting. */
  gate: SyncGate;
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
  const gate = options.gate;

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

  /** A document in local terms without CouchDB's fields (what the schema and the rules see). */
  const plainOf = (doc: Record<string, any>): Record<string, any> => {
    const plain: Record<string, any> = {};
    for (const [key, value] of Object.entries(doc)) if (!COUCH_FIELDS.includes(key)) plain[key] = value;
    plain[primaryPath] = doc._id;
    return plain;
  };

  /**
   * Remote → local terms, or null when the document must not be imported: ownership, then the
   * schema, then the domain's rules (the gate). `local` is the version here (deleted ones too).
   */
  const mapIncoming = async (doc: Record<string, any> | null | undefined, local: Record<string, any> | undefined, mode: AdmitMode): Promise<Record<string, any> | null> => {
    if (!doc || typeof doc._id !== 'string') return null;
    if (doc._id.startsWith('_design/')) return null;
    if (doc._deleted && doc.userId === undefined) {
      // A server-side delete: a stub. It may only delete a document of this account.
      if (!local) {
        gate.forget(doc._id); // it may have been waiting: it is gone now
        return null;
      }
      if (local.userId !== options.localUserId) {
        gate.ignore(doc._id, 'a delete from the server for a document of another account');
        return null;
      }
      const stub = asCouch(local, doc._rev, true);
      return (await gate.admit(doc, plainOf(stub), true, local, mode)) ? stub : null;
    }
    if (doc.userId !== options.ownerId) {
      gate.ignore(doc._id, doc.userId === undefined ? 'the document has no owner (userId)' : 'the document belongs to another ledger owner');
      return null;
    }
    const mapped = { ...doc, userId: options.localUserId };
    const plain = plainOf(mapped);
    if (!validate(plain)) {
      const first = validate.errors?.[0];
      gate.ignore(doc._id, `it does not match the ${options.collection.name} schema (${first?.instancePath || 'document'} ${first?.message ?? 'invalid'})`);
      return null;
    }
    return (await gate.admit(doc, plain, !!doc._deleted, local, mode)) ? mapped : null;
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
      // Documents that waited and now pass go in first, as if CouchDB had sent them again (a newer
      // version in this answer replaces them).
      const inAnswer = new Set(body.results.map((row) => row.id));
      const handedOver = gate.releasedDocs().filter((doc) => !inAnswer.has(doc._id)).map((doc) => ({ id: doc._id as string, doc }));
      const rows = [...handedOver, ...body.results];
      const locals = await gate.localDocs(rows.map((row) => row.id).filter((id) => typeof id === 'string'));
      const results = [];
      for (const row of rows) {
        const doc = await mapIncoming(row.doc, locals.get(row.id), 'feed');
        if (doc) results.push({ ...row, doc });
      }
      await gate.flush();
      return json({ ...body, results }, response.status);
    }
    if (path.endsWith('/_all_docs')) {
      const body = (await response.json()) as { rows?: Array<{ id?: string; key: string; value?: { rev: string; deleted?: boolean }; doc?: Record<string, any> | null; error?: string }> };
      if (!Array.isArray(body.rows)) return json(body, response.status);
      const conflictLookup = (init?.method ?? 'GET').toUpperCase() === 'GET';
      const locals = await gate.localDocs(body.rows.filter((row) => !row.error && row.id).map((row) => row.id as string));
      const rows = [];
      for (const row of body.rows) {
        if (row.error || !row.id) {
          rows.push(row);
          continue;
        }
        const local = locals.get(row.id);
        if (!row.doc && row.value?.deleted) {
          rows.push({ ...row, doc: local ? asCouch(local, row.value.rev, true) : { _id: row.id, _rev: row.value.rev, _deleted: true } });
          continue;
        }
        const mapped = await mapIncoming(row.doc, local, 'lookup');
        if (mapped) rows.push({ ...row, doc: mapped });
        else if (conflictLookup) {
          // A document of another owner, or one that breaks a rule, holds this id on the server:
          // keep ours, never import theirs.
          rows.push({ ...row, doc: local ? asCouch(local, row.value?.rev, !!local._deleted) : null });
        } else rows.push({ ...row, doc: null });
      }
      await gate.flush();
      return json({ ...body, rows }, response.status);
    }
    return response;
  };
}
