import { TypeRegistry, type TObject } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { Pairing } from '../../../server/sync/pairing-link';

/**
 * The phone's `fetch` for RxDB's CouchDB replication (docs/phone.md, "Sync"). It talks to the
 * person's CouchDB only, with the phone's own user, and shapes two CouchDB answers as the desktop's
 * replication does (server/sync/replication-fetch.ts):
 *
 * - `_changes`: a document of another ledger owner, or one that does not fit the collection's
 *   schema, is left out (it would stop the pull); a bare deletion stub made on the server is
 *   filled from the phone's copy, so RxDB can store the deletion;
 * - `_all_docs`: a deleted row carries a tombstone instead of `doc: null`.
 *
 * The first 401 or 403 means the phone was unpaired (its user deleted, or taken out of the
 * database's members): `onRefused` stops everything at once instead of RxDB retrying forever.
 */

export interface CouchFetchOptions {
  pairing: Pairing;
  document: TObject;
  /** The phone's copy of a document, for a deletion stub. */
  localCopy: (id: string) => Promise<Record<string, unknown> | undefined>;
  onRefused: (status: number) => void;
  /** CouchDB answered (the phone is online, whatever the browser believes). */
  onAnswer: () => void;
  /** CouchDB could not be reached (no network, or no route to it): the phone is offline. */
  onUnreachable: () => void;
}

/**
 * The collections' enumerations are TypeBox `Unsafe` types (server/db/schema-fields.ts, EnumOf: a
 * string of a list, as RxDB wants it). TypeBox checks them with this rule; nothing else is Unsafe.
 */
if (!TypeRegistry.Has('Unsafe')) {
  TypeRegistry.Set<{ enum?: unknown[]; maxLength?: number }>(
    'Unsafe',
    (schema, value) => typeof value === 'string' && (schema.enum === undefined || schema.enum.includes(value)) && value.length <= (schema.maxLength ?? Infinity),
  );
}

type Row = { id?: string; doc?: Record<string, unknown> | null; value?: { rev?: string; deleted?: boolean }; error?: string };

const json = (body: unknown, status: number) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

export function basicAuth(user: string, password: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(`${user}:${password}`)) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

/** A CouchDB document as the collection's schema describes it: its `_id` is the primary key `id`, CouchDB's own fields go. */
function fields(doc: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(doc)) if (!key.startsWith('_')) out[key] = value;
  if (typeof doc._id === 'string') out.id = doc._id;
  return out;
}

export function couchFetch(options: CouchFetchOptions): typeof fetch {
  const { pairing } = options;
  const auth = basicAuth(pairing.user, pairing.pw);
  const fits = (doc: Record<string, unknown>) => Value.Check(options.document, fields(doc));

  return async (input, init = {}) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(pairing.url)) throw new Error('the phone app only talks to the CouchDB it is paired with');
    const headers = new Headers(init.headers);
    headers.set('authorization', auth);
    let answer: Response;
    try {
      answer = await fetch(url, { ...init, headers, credentials: 'omit', cache: 'no-store' });
    } catch (error) {
      if (!init.signal?.aborted) options.onUnreachable();
      throw error;
    }
    if (answer.status === 401 || answer.status === 403) {
      options.onRefused(answer.status);
      return answer;
    }
    options.onAnswer();
    const path = new URL(url).pathname;
    if (answer.ok && path.endsWith('/_changes')) {
      const body = (await answer.json()) as { results?: Array<Row & { deleted?: boolean }> };
      const results: Row[] = [];
      for (const row of body.results ?? []) {
        let doc = row.doc;
        if (doc?._deleted === true && doc.userId === undefined) {
          const local = await options.localCopy(String(doc._id));
          if (!local) continue;
          const { id: _primary, ...rest } = fields(local);
          doc = { ...rest, _id: doc._id, _rev: doc._rev, _deleted: true };
        } else if (doc && (doc.userId !== pairing.owner || (doc._deleted !== true && !fits(doc)))) continue;
        results.push({ ...row, doc });
      }
      return json({ ...body, results }, answer.status);
    }
    if (answer.ok && path.endsWith('/_all_docs')) {
      const body = (await answer.json()) as { rows?: Row[] };
      const rows = (body.rows ?? []).flatMap((row): Row[] => {
        if (!row.error && row.value?.deleted && !row.doc) return [{ ...row, doc: { _id: row.id, _rev: row.value.rev, _deleted: true, updatedAt: 0 } }];
        if (row.doc && row.doc._deleted !== true && (row.doc.userId !== pairing.owner || !fits(row.doc))) return [];
        return [row];
      });
      return json({ ...body, rows }, answer.status);
    }
    return answer;
  };
}
