import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params } from '../api/action';
import { Id, Page, PageSize } from '../api/params';
import { commonErrors } from '../lib/errors';
import type { ConflictLog } from './conflict-log';
import { syncErrors } from './errors';
import { phoneActions } from './phone-actions';
import { ConflictList, ConflictShape, NotConfigured, SyncStatus } from './result-shapes';
import { PREFIX_PATTERN, type SyncService } from './service';

declare module '../app-context' {
  interface ServiceMap {
    sync: SyncService;
    syncConflicts: ConflictLog;
  }
}

const syncConfigure = defineAction({
  summary: 'Connect your ledger to a CouchDB server and start syncing at once.',
  notes:
    "`url` is the server's base URL (e.g. `https://couch.example.com/`). One remote database per collection, named `<prefix><collection>` " +
    '(default prefix `pennypost_<couchdb user>_`, so every PennyPost of the same person finds the same ledger), created when the credentials allow it. ' +
    "The ledger's owner id is kept in `<prefix>meta`; an existing ledger is joined. The password is stored encrypted and never returned. " +
    'It is always required: the stored password is used only with the url and username it was entered for (sync.start, sync.resync), never by a new ' +
    'sync.configure, so a new address or user needs it entered again; the `"********"` that sync.status shows in its place is refused (400).',
  auth: 'user',
  params: Params({
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    username: Type.String({ minLength: 1, maxLength: 256 }),
    password: Type.String({ minLength: 1, maxLength: 1024, description: 'The CouchDB password, entered again on every sync.configure.' }),
    live: Type.Optional(Type.Boolean({ default: true, description: 'Keep syncing continuously (true) or sync once (false).' })),
    collections: Type.Optional(
      Type.Array(Type.String({ maxLength: 32 }), { uniqueItems: true, minItems: 1, description: 'Subset of the synced collections (docs/sync.md lists them; default: all).' }),
    ),
    prefix: Type.Optional(Type.String({ pattern: PREFIX_PATTERN, hint: 'syncPrefix', description: 'Prefix of the remote database names (CouchDB name rules).' })),
  }),
  result: SyncStatus,
  errors: [
    [commonErrors.rows.invalid, 'wrong username or password (CouchDB refused them)'],
    [syncErrors.rows.urlNotAnAddress, 'url is not an address'],
    [syncErrors.rows.urlNotHttp, 'url is not http:// or https://'],
    [syncErrors.rows.credentialsInUrl, 'url carries a user name or password'],
    [syncErrors.rows.passwordPlaceholder, 'the password placeholder instead of the password'],
    [syncErrors.rows.passwordForOtherServer, "the password placeholder, with another url or username than the stored password's"],
    [syncErrors.rows.notSyncable, 'unknown collection'],
    [commonErrors.rows.forbidden, 'the user may not create or use the databases'],
    [commonErrors.rows.badGateway, 'the server cannot be reached or is not CouchDB'],
  ],
  handler: (params, ctx) => ctx.app.services.sync.configure(ctx.user.id, params),
});

const syncStatus = defineAction({
  summary: 'Sync state per collection: idle, active, paused (server unreachable, retrying) or error, with the last error in plain words.',
  auth: 'user',
  params: Params({}),
  result: SyncStatus,
  handler: (_params, ctx) => ctx.app.services.sync.status(ctx.user.id),
});

const syncStart = defineAction({
  summary: 'Start (or restart after an error) the configured sync.',
  auth: 'user',
  params: Params({}),
  result: SyncStatus,
  errors: [[syncErrors.rows.notConfiguredToStart, 'sync is not configured']],
  handler: (_params, ctx) => ctx.app.services.sync.start(ctx.user.id),
});

const syncStop = defineAction({
  summary: 'Pause syncing (the configuration is kept; local work goes on).',
  auth: 'user',
  params: Params({}),
  result: SyncStatus,
  errors: [[syncErrors.rows.notConfigured, 'sync is not configured']],
  handler: (_params, ctx) => ctx.app.services.sync.stop(ctx.user.id),
});

const syncResync = defineAction({
  summary: 'Forget the sync checkpoints and exchange everything again (recovers from a lost or damaged checkpoint; creates no duplicates).',
  auth: 'user',
  params: Params({}),
  result: SyncStatus,
  errors: [[syncErrors.rows.notConfigured, 'sync is not configured']],
  handler: (_params, ctx) => ctx.app.services.sync.resync(ctx.user.id),
});

const syncRemove = defineAction({
  summary: 'Stop syncing and forget the server and its credentials (the remote data stays).',
  auth: 'user',
  params: Params({}),
  result: NotConfigured,
  handler: (_params, ctx) => ctx.app.services.sync.remove(ctx.user.id),
});

const ConflictId = Id('', 64);

const syncConflicts = defineAction({
  summary: "The conflict log: what the sync's conflict rules overwrote that a person wrote, newest first.",
  notes:
    'Recorded on the PennyPost that resolved the conflict (the one that synced second), kept on this computer only (never synced), the latest 200. ' +
    'Changes of different fields of a document are merged and are not listed; listed are: `fields` — a field changed on both sides, the later edit ' +
    'kept its value and `fields[].lost` is the overwritten one; `edit-lost` — an edit lost to a later delete; `delete-undone` — a delete lost to a later ' +
    "edit. `lost` says whose version lost: this PennyPost's or the server's (another device or a phone). `open` counts the entries still open.",
  auth: 'user',
  params: Params({ page: Page(), pageSize: PageSize(100, 20) }),
  result: ConflictList,
  errors: [[commonErrors.rows.invalid, 'page or pageSize out of range']],
  handler: (params, ctx) => ctx.app.services.syncConflicts.list(ctx.user.id, params.page, params.pageSize),
});

const syncKeepOtherVersion = defineAction({
  summary: 'Undo a conflict resolution: write the overwritten version back as a new edit, which then syncs.',
  notes:
    '`fields`: the lost field values are written back; `edit-lost`: the lost edit is written back (the document returns); `delete-undone`: the document ' +
    'is deleted again. It is a new change with a later `updatedAt`, so it wins on every device. The entry becomes `kept-other`.',
  auth: 'user',
  params: Params({ conflictId: ConflictId }),
  result: ConflictShape,
  errors: [
    [syncErrors.rows.conflictNotFound, 'no such entry in your conflict log'],
    [syncErrors.rows.conflictClosed, 'the entry is closed already (kept or dismissed)'],
    [syncErrors.rows.collectionUnavailable, "the entry's collection is not open on this PennyPost"],
    [syncErrors.rows.documentDeletedSince, 'the document was deleted since (fields)'],
    [syncErrors.rows.otherVersionNotWritten, "the version no longer fits the document's rules"],
  ],
  handler: (params, ctx) => ctx.app.services.syncConflicts.keepOtherVersion(ctx.user.id, params.conflictId),
});

const syncDismissConflict = defineAction({
  summary: 'Close a conflict log entry, keeping the resolution as it is.',
  auth: 'user',
  params: Params({ conflictId: ConflictId }),
  result: ConflictShape,
  errors: [
    [syncErrors.rows.conflictNotFound, 'no such entry in your conflict log'],
    [syncErrors.rows.conflictClosed, 'the entry is closed already'],
  ],
  handler: (params, ctx) => ctx.app.services.syncConflicts.dismiss(ctx.user.id, params.conflictId),
});

export const syncActions = defineActions({
  'sync.configure': syncConfigure,
  'sync.status': syncStatus,
  'sync.start': syncStart,
  'sync.stop': syncStop,
  'sync.resync': syncResync,
  'sync.remove': syncRemove,
  'sync.conflicts': syncConflicts,
  'sync.keepOtherVersion': syncKeepOtherVersion,
  'sync.dismissConflict': syncDismissConflict,
  ...phoneActions,
});
