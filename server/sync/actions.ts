import { Type } from '@sinclair/typebox';
import { defineAction, Params } from '../api/action';
import { PREFIX_PATTERN, type SyncService } from './service';
import { SYNCED_COLLECTIONS } from './synced-collections';

declare module '../app-context' {
  interface ServiceMap {
    sync: SyncService;
  }
}

const STATUS =
  '`{configured, enabled, url, username, password: "********", live, prefix, ownerId, joined, collections: [{collection, remoteDatabase, state: idle|active|paused|error|stopped, lastError, lastPushedAt, lastPulledAt, pending, ignored: [{id, reason, at}], ignoredCount}]}` (`{configured: false}` before sync.configure)';

export const syncConfigure = defineAction({
  name: 'sync.configure',
  summary: 'Connect your ledger to a CouchDB server and start syncing at once.',
  notes:
    '`url` is the server\'s base URL (e.g. `https://couch.example.com/`). One remote database per collection, named `<prefix><collection>` ' +
    '(default prefix `pennypost_<couchdb user>_`, so every PennyPost of the same person finds the same ledger), created when the credentials allow it. ' +
    'The ledger\'s owner id is kept in `<prefix>meta`; an existing ledger is joined. The password is stored encrypted and never returned. ' +
    'It is always required: the stored password is used only with the url and username it was entered for (sync.start, sync.resync), never by a new ' +
    'sync.configure, so a new address or user needs it entered again; the `"********"` that sync.status shows in its place is refused (400).',
  auth: 'user',
  params: Params({
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    username: Type.String({ minLength: 1, maxLength: 256 }),
    password: Type.String({ minLength: 1, maxLength: 1024, description: 'The CouchDB password, entered again on every sync.configure.' }),
    live: Type.Optional(Type.Boolean({ default: true, description: 'Keep syncing continuously (true) or sync once (false).' })),
    collections: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { uniqueItems: true, minItems: 1, description: `Subset of ${SYNCED_COLLECTIONS.join(', ')} (default: all).` })),
    prefix: Type.Optional(Type.String({ pattern: PREFIX_PATTERN, description: 'Prefix of the remote database names (CouchDB name rules).' })),
  }),
  returns: STATUS,
  errors: [
    [400, 'bad URL, wrong username or password, the password placeholder instead of the password, unknown collection'],
    [403, 'the user may not create or use the databases'],
    [502, 'the server cannot be reached or is not CouchDB'],
  ],
  handler: (params, ctx) => ctx.app.services.sync.configure(ctx.user.id, params),
});

export const syncStatus = defineAction({
  name: 'sync.status',
  summary: 'Sync state per collection: idle, active, paused (server unreachable, retrying) or error, with the last error in plain words.',
  auth: 'user',
  params: Params({}),
  returns: STATUS,
  handler: (_params, ctx) => ctx.app.services.sync.status(ctx.user.id),
});

export const syncStart = defineAction({
  name: 'sync.start',
  summary: 'Start (or restart after an error) the configured sync.',
  auth: 'user',
  params: Params({}),
  returns: STATUS,
  errors: [[404, 'sync is not configured']],
  handler: (_params, ctx) => ctx.app.services.sync.start(ctx.user.id),
});

export const syncStop = defineAction({
  name: 'sync.stop',
  summary: 'Pause syncing (the configuration is kept; local work goes on).',
  auth: 'user',
  params: Params({}),
  returns: STATUS,
  errors: [[404, 'sync is not configured']],
  handler: (_params, ctx) => ctx.app.services.sync.stop(ctx.user.id),
});

export const syncResync = defineAction({
  name: 'sync.resync',
  summary: 'Forget the sync checkpoints and exchange everything again (recovers from a lost or damaged checkpoint; creates no duplicates).',
  auth: 'user',
  params: Params({}),
  returns: STATUS,
  errors: [[404, 'sync is not configured']],
  handler: (_params, ctx) => ctx.app.services.sync.resync(ctx.user.id),
});

export const syncRemove = defineAction({
  name: 'sync.remove',
  summary: 'Stop syncing and forget the server and its credentials (the remote data stays).',
  auth: 'user',
  params: Params({}),
  returns: '`{configured: false}`',
  handler: (_params, ctx) => ctx.app.services.sync.remove(ctx.user.id),
});

export const syncActions = [syncConfigure, syncStatus, syncStart, syncStop, syncResync, syncRemove];
