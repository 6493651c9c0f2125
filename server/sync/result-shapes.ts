import { Type, type Static } from '@sinclair/typebox';
import { Result, Shape } from '../api/result';

/**
 * Result shapes of the sync actions (server/api/result.ts); the presenters are typed by them.
 * Closed objects: the CouchDB password (sealed or not) and the stored configuration's internals
 * (generation, configuredAt) fail the result check if they ever reach an answer.
 */

/** What sync.status shows instead of the password. sync.configure refuses it: it is not a password. */
export const PASSWORD_PLACEHOLDER = '********';

const Ms = (description = 'ms') => Type.Integer({ description });
const MsOrNull = (description: string) => Type.Union([Type.Integer(), Type.Null()], { description });

const SYNC_STATES = ['idle', 'active', 'paused', 'error', 'stopped'] as const;

export const SyncCollectionShape = Shape(
  'SyncCollection',
  {
    collection: Type.String({ description: 'a synced collection (docs/sync.md lists them)' }),
    remoteDatabase: Type.String({ description: 'its CouchDB database: `<prefix><collection>`' }),
    state: Type.Union(
      SYNC_STATES.map((s) => Type.Literal(s)),
      { description: 'paused: the server could not be reached lately, retrying; stopped: not running (sync.stop, or not started yet)' },
    ),
    lastError: Type.Union([Type.String(), Type.Null()], { description: 'the last error in plain words, only while paused or in error' }),
    lastPushedAt: MsOrNull('when a change was last sent, ms; null: not yet'),
    lastPulledAt: MsOrNull('when a change was last received, ms; null: not yet'),
    pending: Type.Integer({ description: 'local changes not yet sent' }),
    ignored: Type.Array(Result({ id: Type.String(), reason: Type.String(), at: Ms() }), {
      description: 'documents from the server that wait or were not imported, with the reason in plain words: the 10 newest',
    }),
    ignoredCount: Type.Integer({ description: 'how many documents wait or were ignored in all' }),
  },
  'One synced collection of a configured sync.',
);

export const SyncStatusShape = Shape(
  'SyncStatus',
  {
    configured: Type.Literal(true),
    enabled: Type.Boolean({ description: 'false after sync.stop' }),
    url: Type.String({ description: "the CouchDB server's base URL" }),
    username: Type.String({ description: 'the CouchDB user' }),
    password: Type.Literal(PASSWORD_PLACEHOLDER, { description: 'always this placeholder: the password is stored encrypted and never returned' }),
    live: Type.Boolean({ description: 'keeps syncing continuously (false: syncs once)' }),
    prefix: Type.String({ description: 'prefix of the remote database names' }),
    ownerId: Type.String({ description: 'the ledger owner kept in `<prefix>meta`' }),
    joined: Type.Boolean({ description: "true when this account joined another account's ledger (ownerId is not its own id)" }),
    collections: Type.Array(SyncCollectionShape),
  },
  "A configured sync: the server, the CouchDB user and each collection's state.",
);
export type SyncStatusView = Static<typeof SyncStatusShape>;

export const NotConfigured = Result({ configured: Type.Literal(false) }, { description: 'sync is not configured' });

export const SyncStatus = Type.Union([SyncStatusShape, NotConfigured], { description: '`{configured: false}` before sync.configure' });

const CONFLICT_KINDS = ['fields', 'edit-lost', 'delete-undone'] as const;
const CONFLICT_STATUSES = ['open', 'kept-other', 'dismissed'] as const;

export const ConflictShape = Shape(
  'Conflict',
  {
    id: Type.String(),
    collection: Type.String(),
    documentId: Type.String(),
    at: Ms('when the conflict was resolved, ms'),
    kind: Type.Union(
      CONFLICT_KINDS.map((k) => Type.Literal(k)),
      {
        description:
          'fields: a field changed on both sides, the later edit kept its value; edit-lost: an edit lost to a later delete; delete-undone: a delete lost to a later edit',
      },
    ),
    lost: Type.Union([Type.Literal('this-device'), Type.Literal('other-device')], {
      description: "whose version lost: this PennyPost's, or the server's (another device or a phone)",
    }),
    fields: Type.Array(
      Result({
        field: Type.String(),
        // A field of a synced document: any JSON value (absent when the field was absent).
        lost: Type.Optional(Type.Unknown()),
        kept: Type.Optional(Type.Unknown()),
      }),
      { description: '`{field, lost, kept}`: the overwritten value and the one that stays (absent: the field was absent)' },
    ),
    summary: Type.String({ description: 'one line a person can read' }),
    lostUpdatedAt: MsOrNull("the lost version's updatedAt, ms"),
    keptUpdatedAt: MsOrNull("the kept version's updatedAt, ms"),
    status: Type.Union(
      CONFLICT_STATUSES.map((s) => Type.Literal(s)),
      { description: 'kept-other: sync.keepOtherVersion wrote the lost version back; dismissed: closed as it is' },
    ),
  },
  'One entry of the conflict log: what a conflict rule overwrote that a person wrote.',
);
export type ConflictView = Static<typeof ConflictShape>;

export const ConflictList = Result(
  { list: Type.Array(ConflictShape), total: Type.Integer(), open: Type.Integer(), page: Type.Integer(), pageSize: Type.Integer() },
  { description: 'newest first; `open` counts the entries still open' },
);

export const PhoneShape = Shape(
  'Phone',
  {
    username: Type.String({ description: "the phone's own CouchDB user (`pennypost-phone-…`)" }),
    label: Type.String({ description: 'the name it was given when paired' }),
    pairedAt: Ms('when it was paired, ms'),
    lastSyncAt: MsOrNull('when it last synced, as the phone reports it in `<prefix>meta`, ms; null: not yet'),
  },
  'A phone paired with this ledger (docs/phone.md).',
);
export type PhoneView = Static<typeof PhoneShape>;

export const PhoneList = Result({ list: Type.Array(PhoneShape) }, { description: 'oldest pairing first' });

export const AddedPhone = Result(
  {
    phone: PhoneShape,
    link: Type.String({ description: "the phone app's address with the pairing in its fragment (`#pair=…`): shown once, as a QR code and a link" }),
    pairing: Result(
      {
        v: Type.Literal(1),
        url: Type.String(),
        prefix: Type.String(),
        user: Type.String(),
        pw: Type.String({ description: "the phone's own password: returned this once, kept by CouchDB only" }),
        owner: Type.String(),
        label: Type.String(),
        lang: Type.Optional(Type.Union([Type.Literal('en'), Type.Literal('zh-CN')])),
        base: Type.Optional(Type.String()),
      },
      { description: 'what the link carries' },
    ),
    cors: Type.Union(
      (['enabled', 'already', 'same-origin', 'not-changed'] as const).map((s) => Type.Literal(s)),
      { description: 'whether CouchDB now lets the phone app at appUrl call it from a browser (not-changed: set it by hand, docs/phone.md)' },
    ),
  },
  { description: 'the new phone and how it pairs' },
);

export const RevokedPhone = Result({ username: Type.String(), revoked: Type.Literal(true) });
