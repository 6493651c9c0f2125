import { MAX_PARSE_DEPTH, nestsDeeperThan } from '../http/json-depth';
import Ajv, { type SchemaObject, type ValidateFunction } from 'ajv';
import type { RxCollection } from 'rxdb';
import type { OutboundScope } from '../http/outbound-policy';
import { OutboundCallError, outboundRequest, type OutboundAnswer } from '../http/outbound-request';
import { authHeader, tooLargeMessage } from './couch-client';
import type { AdmitMode, RemoteDoc, SyncGate } from './gate';
import { LinkStoppedError, type SyncLink } from './link';
import type { SyncedDoc } from '../arrival-checks';

/**
 * The `fetch` that PennyPost hands to RxDB's CouchDB replication for one user and collection.
 * It is where the remote ledger meets the local one:
 * - adds the Basic credentials and a timeout to every request, and asks the user's link
 *   (server/sync/link.ts) first: after refused credentials nothing is sent any more; while the
 *   server cannot be reached, the request waits and tries again with the others, and goes the
 *   moment any collection of the user reaches the server; every request goes through the account's
 *   outbound policy (server/http/outbound-policy.ts), and an answer is read up to
 *   REPLICATION_ANSWER_BYTES (a refused address or a longer answer stops the user's sync, in words);
 * - answers the push's `_all_docs` pre-check itself for ids CouchDB cannot have (`freshIds`: new
 *   documents, see replication.ts): no request, no rule checks for them;
 * - reads the next page of an initial pull while RxDB stores the current one;
 * - maps ownership: remote documents of the ledger's owner id become the local account's;
 *   documents with a foreign or missing owner are dropped and reported, never imported;
 * - drops remote documents that break the collection's schema (reported), instead of letting one
 *   bad document stop the replication;
 * - hands every document that passed both to the collection's gate (server/sync/gate.ts), which
 *   applies the domain's arrival checks: broken documents are dropped and reported, documents that wait for
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
  /** The arrival checks, the report of documents not imported, and the documents kept waiting. */
  gate: SyncGate;
  /** CouchDB does not let this user use this database (403): the caller stops this replication. */
  onAuthFailure(message: string): void;
  /** Credentials and reachability, shared by the user's collections (server/sync/link.ts). */
  link: SyncLink;
  /** Ids being pushed that CouchDB cannot have (the push pre-check is answered without a request). */
  freshIds?: ReadonlySet<string>;
  /** The outbound policy of the account, asked for every request. */
  outbound(): Promise<OutboundScope>;
  /**
   * Revisions this replication wrote (id → rev), filled from `_bulk_docs` answers: their echo in
   * the live feed is left out. The push forgets the ids of a batch that failed (RxDB then stores
   * nothing for it, and the echo must reach RxDB as any change would).
   */
  ownWrites?: Map<string, string>;
}

/** What every collection shows when CouchDB refuses the stored password. */
export function refusedPasswordMessage(username: string): string {
  return `CouchDB refused the password for user ${username} — enter the new one in Settings → Sync.`;
}

/**
 * The largest CouchDB answer the replication reads (docs/security.md, "Outbound requests"). Its pages are bounded
 * by sync.batchSize (500 documents by default, 10,000 at most), and PennyPost's documents are a few
 * hundred bytes to a few KB: 64 MiB leaves room for the largest batch of large documents, while a
 * server that streams without end costs at most that much memory.
 */
export const REPLICATION_ANSWER_BYTES = 64 * 1024 * 1024;

/** Request headers as a plain object (what node:http takes). */
function plainHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => (out[name] = value));
  return out;
}

/** A buffered answer as the Response RxDB and the mapping read. */
function responseOf(answer: OutboundAnswer): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const empty = answer.status === 204 || answer.status === 205 || answer.status === 304;
  // A Buffer from a socket is a view of an ArrayBuffer (never a SharedArrayBuffer): a body as it is, no copy.
  return new Response(empty ? null : (answer.body as Uint8Array<ArrayBuffer>), { status: answer.status, headers });
}

/** Own writes remembered to recognise their echo in the changes feed (per collection). */
const MAX_REMEMBERED_WRITES = 50_000;

const COUCH_FIELDS = ['_id', '_rev', '_deleted', '_conflicts', '_attachments', '_revisions', '_revs_info', '_local_seq'];

/** A document as CouchDB sends it: from outside, so nothing about it is known until it is checked. */
type CouchDoc = SyncedDoc & { _rev?: string; _deleted?: boolean };

/** A document RxDB's push sends up (`_bulk_docs`): built here, with its id. */
type OutgoingDoc = SyncedDoc & { _id: string; _rev?: string; _deleted?: boolean };

function hasId(doc: CouchDoc): doc is CouchDoc & RemoteDoc {
  return typeof doc._id === 'string';
}

/** Compiled once per collection schema (compiling takes tens of milliseconds; every sync start needed it). */
const validators = new WeakMap<object, ValidateFunction>();

function validatorFor(collection: RxCollection): ValidateFunction {
  const cached = validators.get(collection.schema.jsonSchema);
  if (cached) return cached;
  const compiled = compileValidator(collection);
  validators.set(collection.schema.jsonSchema, compiled);
  return compiled;
}

function compileValidator(collection: RxCollection): ValidateFunction {
  const schema = structuredClone(collection.schema.jsonSchema) as SchemaObject;
  schema.required = (schema.required as string[]).filter((field) => !field.startsWith('_'));
  delete schema.indexes;
  delete schema.primaryKey;
  delete schema.version;
  delete schema.encrypted;
  delete schema.keyCompression;
  delete schema.internalIndexes;
  // The collection schemas are fixed at build time: checking them against the meta-schema first
  // only cost time (as in server/db/validated-storage.ts).
  const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: false });
  return ajv.compile(schema);
}

/**
 * An answer the fetch built itself (mapped, or answered locally). RxDB reads it with `json()`,
 * which hands over the object as it is: serialising a page of a thousand documents only for RxDB
 * to parse it again cost as much as mapping it. `text()` still gives the JSON.
 */
class MappedResponse extends Response {
  constructor(
    private readonly value: unknown,
    status: number,
  ) {
    super(null, { status, headers: { 'content-type': 'application/json' } });
  }

  override json(): Promise<unknown> {
    return Promise.resolve(this.value);
  }

  override text(): Promise<string> {
    return Promise.resolve(JSON.stringify(this.value));
  }
}

export function createReplicationFetch(options: ReplicationFetchOptions): typeof fetch {
  const primaryPath = options.collection.schema.primaryPath;
  /** Compiled when the first document arrives (a push that brings nothing back needs none). */
  let validator: ValidateFunction | undefined;
  const gate = options.gate;

  /** A local document in CouchDB's shape (as the pull side expects it). */
  const asCouch = (doc: SyncedDoc, rev: string | undefined, deleted: boolean) => {
    const out: SyncedDoc = { _id: doc[primaryPath] };
    for (const [key, value] of Object.entries(doc)) {
      if (key === primaryPath || key.startsWith('_')) continue;
      out[key] = value;
    }
    if (rev) out._rev = rev;
    if (deleted) out._deleted = true;
    return out;
  };

  /** A document in local terms without CouchDB's fields (what the schema and the arrival checks see). */
  const plainOf = (doc: SyncedDoc): SyncedDoc => {
    const plain: SyncedDoc = {};
    for (const [key, value] of Object.entries(doc)) if (!COUCH_FIELDS.includes(key)) plain[key] = value;
    plain[primaryPath] = doc._id;
    return plain;
  };

  /**
   * Remote → local terms, or null when the document must not be imported: ownership, then the
   * schema, then the domain's arrival checks (the gate). `local` is the version here (deleted ones too).
   */
  const mapIncoming = async (doc: CouchDoc | null | undefined, local: SyncedDoc | undefined, mode: AdmitMode): Promise<SyncedDoc | null> => {
    if (!doc || !hasId(doc)) return null;
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
    const validate = (validator ??= validatorFor(options.collection));
    if (!validate(plain)) {
      const first = validate.errors?.[0];
      gate.ignore(doc._id, `it does not match the ${options.collection.name} schema (${first?.instancePath || 'document'} ${first?.message ?? 'invalid'})`);
      return null;
    }
    return (await gate.admit(doc, plain, !!doc._deleted, local, mode)) ? mapped : null;
  };

  const json = (body: unknown, status: number): Response => new MappedResponse(body, status);

  const hasUpdatedAt = 'updatedAt' in options.collection.schema.jsonSchema.properties;
  /** Server revisions ignored for good that the next `_bulk_docs` replaces (id → their `_rev`). */
  const replaceable = new Map<string, string>();
  /** Documents the last `_all_docs` saw deleted on the server (id → the tombstone's `_rev`). */
  const deletedOnServer = new Map<string, string>();

  /**
   * The bodies of deleted revisions (`_bulk_get`): a PennyPost's delete carries the document with
   * the time of the delete; a phone's `remove()` only `{_id, _rev, _deleted}`. Empty when the
   * server cannot answer (the rows are then treated as bare tombstones).
   */
  const tombstonesOf = async (allDocsUrl: string, wanted: Array<{ id: string; rev: string }>): Promise<Map<string, CouchDoc>> => {
    const found = new Map<string, CouchDoc>();
    if (wanted.length === 0) return found;
    const base = allDocsUrl.slice(0, allDocsUrl.indexOf('_all_docs'));
    try {
      const response = await send(
        `${base}_bulk_get`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ docs: wanted }),
        },
        options.timeoutMs,
      );
      if (response.status !== 200) {
        await response.body?.cancel().catch(() => undefined);
        return found;
      }
      const answer = (await readJson(response)) as { results?: Array<{ id: string; docs?: Array<{ ok?: CouchDoc }> }> };
      for (const result of answer.results ?? []) {
        const doc = result.docs?.find((d) => d.ok)?.ok;
        if (doc && doc._deleted) found.set(result.id, doc);
      }
    } catch (error) {
      if (error instanceof LinkStoppedError) throw error;
    }
    return found;
  };

  /**
   * Revisions this replication wrote itself (`_bulk_docs` answers, id → rev). The changes feed
   * brings each of them back; a row whose document is still exactly that revision is an echo,
   * which RxDB would read and compare only to write nothing (it stored that state as the server's
   * when the push succeeded), so the live feed leaves it out — its checkpoint moves on all the same.
   */
  const written = options.ownWrites ?? new Map<string, string>();
  const rememberWritten = (rows: unknown) => {
    if (!Array.isArray(rows)) return;
    for (const row of rows as Array<{ ok?: boolean; id?: string; rev?: string }>) {
      if (!row.ok || typeof row.id !== 'string' || typeof row.rev !== 'string') continue;
      written.delete(row.id);
      written.set(row.id, row.rev);
    }
    // Echoes that never come (the feed is not live, or the document changed again) are forgotten.
    while (written.size > MAX_REMEMBERED_WRITES) written.delete(written.keys().next().value as string);
  };

  /** The next page of an initial pull, asked for while RxDB stores the current one. */
  let prefetched: { url: string; response: Promise<Response> } | null = null;

  /**
   * One request through the link: waits while the server cannot be reached and tries again (the
   * longest wait is the retry period; shorter when another collection reaches the server), throws
   * LinkStoppedError after refused credentials or when the sync stops.
   */
  const send = async (url: string, init: RequestInit | undefined, timeoutMs: number): Promise<Response> => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', authHeader(options));
    const longpoll = url.includes('feed=longpoll');
    for (;;) {
      // A long-poll waits for changes: the server and the password are checked first with a short
      // request (the database's info), which goes through the link like any other.
      if (longpoll && !options.link.isVerified) {
        const check = await send(url.slice(0, url.indexOf('_changes')), undefined, options.timeoutMs);
        await check.body?.cancel().catch(() => undefined);
      }
      const probe = await options.link.acquire(longpoll);
      let answer: OutboundAnswer;
      try {
        answer = await outboundRequest(await options.outbound(), url, {
          method: init?.method ?? 'GET',
          headers: plainHeaders(headers),
          body: typeof init?.body === 'string' ? init.body : undefined,
          timeoutMs,
          maxBytes: REPLICATION_ANSWER_BYTES,
        });
      } catch (error) {
        if (error instanceof OutboundCallError && (error.kind === 'refused' || error.kind === 'too-large')) {
          // Not a passing outage: trying again would meet the same refusal, or read the same flood.
          const message =
            error.kind === 'refused'
              ? `Sync stopped: ${error.message}`
              : `Sync stopped: ${tooLargeMessage(REPLICATION_ANSWER_BYTES)} If your documents are large, lower the batch size (setting sync.batchSize).`;
          options.link.refused(probe, message);
          throw new LinkStoppedError(message);
        }
        options.link.unreachableNow(probe);
        continue;
      }
      if (answer.status < 200 || answer.status > 599) {
        options.link.unreachableNow(probe);
        continue;
      }
      if (nestsDeeperThan(answer.body)) {
        // No CouchDB answer nests that deep, and parsing one would hold the server's thread.
        const message = `Sync stopped: the server answered JSON nested deeper than ${MAX_PARSE_DEPTH} levels, which CouchDB never sends.`;
        options.link.refused(probe, message);
        throw new LinkStoppedError(message);
      }
      const response = responseOf(answer);
      if (response.status >= 500) {
        await response.body?.cancel().catch(() => undefined);
        options.link.unreachableNow(probe);
        continue;
      }
      if (response.status === 401) {
        await response.body?.cancel().catch(() => undefined);
        const message = refusedPasswordMessage(options.username);
        options.link.refused(probe, message);
        throw new LinkStoppedError(message);
      }
      if (response.status === 403) {
        const body = (await response.json().catch(() => null)) as { reason?: string } | null;
        if (/locked/i.test(body?.reason ?? '')) {
          // CouchDB's lockout after failed logins: it concerns the user, not this database.
          const message = `CouchDB has locked user ${options.username} for a few minutes after failed logins — wait, then enter the password in Settings → Sync.`;
          options.link.refused(probe, message);
          throw new LinkStoppedError(message);
        }
        options.link.answered(probe);
        const message = 'CouchDB does not allow this user to use the database.';
        options.onAuthFailure(message);
        throw new Error(message);
      }
      options.link.answered(probe);
      return response;
    }
  };

  /** Reads a JSON answer (read whole already); one that is not JSON counts as the server being away (the caller retries). */
  const readJson = async (response: Response): Promise<unknown> => {
    try {
      return await response.json();
    } catch (error) {
      options.link.lost();
      throw error;
    }
  };

  /** The same `_changes` request from another checkpoint (RxDB builds its query without encoding). */
  const nextPageUrl = (url: string, lastSeq: unknown): string | null => {
    if (typeof lastSeq !== 'string' && typeof lastSeq !== 'number') return null;
    const next = url.replace(/([?&]since=)[^&]*/, `$1${String(lastSeq)}`);
    return next === url ? null : next;
  };

  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = (init?.method ?? 'GET').toUpperCase();
    const freshIds = options.freshIds;
    if (method === 'POST' && new URL(url).pathname.endsWith('/_all_docs') && typeof init?.body === 'string' && freshIds && freshIds.size > 0) {
      // The push's pre-check: ids CouchDB cannot have are answered here (not found), the rest is asked.
      const body = JSON.parse(init.body) as { keys?: string[] };
      const keys = Array.isArray(body.keys) ? body.keys : [];
      const fresh = keys.filter((key) => freshIds.has(key));
      if (fresh.length > 0) {
        const missing = fresh.map((key) => ({ key, error: 'not_found' }));
        const rest = keys.filter((key) => !freshIds.has(key));
        if (rest.length === 0) {
          if (options.link.authFailure) throw new LinkStoppedError(options.link.authFailure);
          return json({ total_rows: 0, offset: 0, rows: missing }, 200);
        }
        const answer = await fetchAndMap(url, { ...init, body: JSON.stringify({ ...body, keys: rest }) });
        const mapped = (await answer.json()) as { rows?: unknown[] };
        return json({ ...mapped, rows: [...(mapped.rows ?? []), ...missing] }, answer.status);
      }
    }
    return fetchAndMap(url, init);
  };

  /** A changes row that is exactly a revision this replication wrote (see `written`). */
  function isEcho(row: { id: string; doc?: CouchDoc }): boolean {
    const rev = written.get(row.id);
    if (rev === undefined || !row.doc || row.doc._rev !== rev) return false;
    written.delete(row.id);
    return true;
  }

  async function fetchAndMap(url: string, init?: RequestInit): Promise<Response> {
    if (new URL(url).pathname.endsWith('/_bulk_docs') && typeof init?.body === 'string') {
      // Outgoing documents (only this account's: the push modifier filters) go up under the owner id.
      const body = JSON.parse(init.body) as { docs: OutgoingDoc[] };
      body.docs = body.docs.map((doc) => {
        const out = doc.userId === options.localUserId ? { ...doc, userId: options.ownerId } : doc;
        // Replaces a server revision that is ignored for good (seen by the pre-check).
        const rev = replaceable.get(out._id);
        replaceable.delete(out._id);
        if (rev && !out._rev) return { ...out, _rev: rev };
        // An edit that brings back a document deleted on the server goes without `_rev`: CouchDB
        // answers "conflict" to an update of a deleted revision and accepts a new one on top of it.
        const deletedRev = deletedOnServer.get(out._id);
        deletedOnServer.delete(out._id);
        if (deletedRev && !out._deleted && out._rev === deletedRev) {
          const { _rev: _dropped, ...rest } = out;
          return rest;
        }
        return out;
      });
      init = { ...init, body: JSON.stringify(body) };
    }
    const longpoll = url.includes('feed=longpoll');
    const path = new URL(url).pathname;
    let response: Response;
    if (prefetched && prefetched.url === url && !init?.body) {
      const ahead = prefetched.response;
      prefetched = null;
      response = await ahead;
    } else {
      prefetched = null;
      try {
        response = await send(url, init, longpoll ? options.timeoutMs + 60_000 : options.timeoutMs);
      } catch (error) {
        // Stopped (refused credentials, or the sync is being stopped): a pull ends with "nothing new"
        // from where it was, so that RxDB can finish cancelling (it retries a failing pull until the
        // cancel completes, and the cancel waits for the pull). Pushes keep failing: nothing may be
        // taken as sent.
        const since = new URL(url).searchParams.get('since');
        if (error instanceof LinkStoppedError && path.endsWith('/_changes') && since !== null && since !== 'now') {
          return json({ results: [], last_seq: since }, 200);
        }
        throw error;
      }
    }
    if (path.endsWith('/_bulk_docs')) {
      if (response.status !== 201 && response.status !== 200) return response;
      const answer = await readJson(response);
      rememberWritten(answer);
      return json(answer, response.status);
    }
    if (path.endsWith('/_changes')) {
      type ChangesPage = { results?: Array<{ id: string; doc?: CouchDoc }>; last_seq: unknown };
      let body = (await readJson(response)) as ChangesPage;
      if (!Array.isArray(body.results)) return json(body, response.status);
      /** The results of the page being read (the first, then each one that tops it up). */
      let page = body.results;
      const limit = Number(new URL(url).searchParams.get('limit') ?? 0);
      // Documents that waited and now pass go in first, as if CouchDB had sent them again (a newer
      // version in this answer replaces them).
      const inAnswer = new Set(page.map((row) => row.id));
      const handedOver = gate
        .releasedDocs()
        .filter((doc) => !inAnswer.has(doc._id))
        .map((doc) => ({ id: doc._id, doc }));
      const results: SyncedDoc[] = [];
      let pageUrl = url;
      for (let first = true; ; first = false) {
        // A full page of the (initial) pull: the next one is asked for now, while this one is stored.
        const next = !longpoll && limit > 0 && page.length >= limit ? nextPageUrl(pageUrl, body.last_seq) : null;
        if (next) {
          const ahead = send(next, init, options.timeoutMs);
          ahead.catch(() => undefined);
          prefetched = { url: next, response: ahead };
        }
        // Only the live feed leaves echoes out (the pages of the initial pull are topped up below).
        const fresh = !longpoll || written.size === 0 ? page : page.filter((row) => !isEcho(row));
        const rows = first ? [...handedOver, ...fresh] : fresh;
        const locals = await gate.localDocs(rows.map((row) => row.id).filter((id) => typeof id === 'string'));
        for (const row of rows) {
          const doc = await mapIncoming(row.doc, locals.get(row.id), 'feed');
          if (doc) results.push({ ...row, doc });
        }
        // RxDB takes a page with fewer documents than it asked for as the end of the feed: when
        // documents of a full page were not imported (ignored, waiting), the next page tops it up,
        // or the initial pull would stop there and never read the rest.
        if (!next || results.length >= limit || !prefetched || prefetched.url !== next) break;
        const ahead = prefetched.response;
        prefetched = null;
        const following = await ahead;
        const nextBody = (await readJson(following)) as ChangesPage;
        if (following.status !== 200 || !Array.isArray(nextBody.results)) break;
        body = nextBody;
        page = nextBody.results;
        pageUrl = next;
      }
      await gate.flush();
      return json({ ...body, results }, response.status);
    }
    if (path.endsWith('/_all_docs')) {
      const body = (await readJson(response)) as { rows?: Array<{ id?: string; key: string; value?: { rev: string; deleted?: boolean }; doc?: CouchDoc | null; error?: string }> };
      if (!Array.isArray(body.rows)) return json(body, response.status);
      const conflictLookup = (init?.method ?? 'GET').toUpperCase() === 'GET';
      const locals = await gate.localDocs(body.rows.filter((row) => !row.error && row.id).map((row) => row.id as string));
      const deletedHere: Array<{ id: string; rev: string }> = [];
      for (const row of body.rows) {
        if (!row.error && row.id && !row.doc && row.value?.deleted && locals.has(row.id)) deletedHere.push({ id: row.id, rev: row.value.rev });
      }
      const tombstones = await tombstonesOf(url, deletedHere);
      const rows = [];
      for (const row of body.rows) {
        if (row.error || !row.id) {
          rows.push(row);
          continue;
        }
        const local = locals.get(row.id);
        let remote = row.doc;
        if (row.value?.deleted) deletedOnServer.set(row.id, row.value.rev);
        if (!remote && row.value?.deleted) {
          // A delete on the server: `_all_docs` has no body for it. Its tombstone says when it was
          // made (updatedAt) — the conflict merge compares it with the edit being pushed.
          if (!local) {
            rows.push({ ...row, doc: { _id: row.id, _rev: row.value.rev, _deleted: true } });
            continue;
          }
          remote = tombstones.get(row.id) ?? { _id: row.id, _rev: row.value.rev, _deleted: true };
        }
        const before = gate.ignoredMark(row.id);
        let mapped = await mapIncoming(remote, local, 'lookup');
        if (mapped && remote?._deleted && remote.userId === undefined && hasUpdatedAt) {
          // A bare tombstone (a phone's remove()): when it was made is unknown, so it counts as
          // older than any edit it meets (docs/sync.md, "Conflicts").
          mapped = { ...mapped, updatedAt: 0 };
        }
        if (mapped) rows.push({ ...row, doc: mapped });
        else if (conflictLookup) {
          // A document of another owner, or one that breaks a rule, holds this id on the server:
          // keep ours, never import theirs.
          rows.push({ ...row, doc: local ? asCouch(local, row.value?.rev, !!local._deleted) : null });
        } else {
          // The push's pre-check. A server revision that is ignored for good (reported in
          // sync.status) does not block the push: the valid local version replaces it (the
          // `_bulk_docs` that follows gets its `_rev`). One that waits is left alone.
          const ignoredNow = gate.ignoredMark(row.id);
          if (local && row.value?.rev && ignoredNow !== undefined && ignoredNow !== before) replaceable.set(row.id, row.value.rev);
          rows.push({ ...row, doc: null });
        }
      }
      await gate.flush();
      return json({ ...body, rows }, response.status);
    }
    return response;
  }
}
