import { Type, type Static } from '@sinclair/typebox';
import { defineCollection } from '../db/collections';
import { EnumOf, IdField, Int, Ms, Str } from '../db/schema-fields';

/**
 * The push domain's two collections (docs/architecture.md #9 and #10). Neither is synced:
 * channel configs hold secrets, and delivery history is about this machine's webhook.
 *
 * `push_targets` keeps channels, apps and recipients in one collection with a `kind` field; the
 * fields of the other kinds are '' or {} so that every document has the same shape.
 */

export const TARGET_KINDS = ['channel', 'app', 'recipient'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

export const MESSAGE_TYPES = ['custom', 'template'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export const PUSH_MODES = ['all', 'first'] as const;
export type PushMode = (typeof PUSH_MODES)[number];

export const RESULT_CLASSES = ['ok', 'token', 'recipient', 'systemic', 'transient'] as const;
export type ResultClass = (typeof RESULT_CLASSES)[number];

export const MESSAGE_STATUSES = ['success', 'partial', 'failed', 'empty'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export const NAME_MAX = 64;
export const ADDRESS_MAX = 2048;
export const REMARK_MAX = 256;
export const TEMPLATE_ID_MAX = 128;
/** Hard ceilings of the stored text (the settings' limits stay below them). */
export const TITLE_STORE_MAX = 1024;
export const DESP_STORE_MAX = 262144;

/** A free-form object field (`{type: 'object'}` in the stored schema). */
const AnyObject = <T>() => Type.Unsafe<T>({ type: 'object' });
/** A string field whose values the service keeps to a known set ('' where it does not apply). */
const Known = <V extends string>(maxLength: number) => Type.Unsafe<V>(Str(maxLength));

export const TargetDocument = Type.Object({
  id: IdField(),
  userId: IdField(),
  kind: EnumOf(TARGET_KINDS, 16),
  name: Str(NAME_MAX),
  // channel
  /** The channel type: the name of its driver (server/push/channels/). */
  type: Str(16),
  /** Channel configuration, secrets sealed (stored locally only, never returned in full). */
  config: AnyObject<Record<string, unknown>>(),
  // app
  channelId: IdField(),
  messageType: Known<MessageType | ''>(16),
  templateId: Str(TEMPLATE_ID_MAX),
  /** Template data keys for title, desp and time: `{title, desp, time}`. */
  templateFields: AnyObject<Record<string, string>>(),
  pushMode: Known<PushMode | ''>(16),
  appKey: Str(80),
  // recipient
  appId: IdField(),
  address: Str(ADDRESS_MAX),
  remark: Str(REMARK_MAX),
  createdAt: Ms(),
  updatedAt: Ms(),
});
export type TargetDoc = Static<typeof TargetDocument>;

/** One recipient's delivery outcome (also the shape of /send `data.results[]`). */
export interface DeliveryResult {
  recipient: string;
  name?: string;
  ok: boolean;
  class: ResultClass;
  errcode?: number;
  errmsg?: string;
  msgId?: string;
  attempts?: number;
}

const Count = () => Int(0, 1e6);

export const MessageDocument = Type.Object({
  /** newId(): time-ordered, so retention pruning walks the primary key. */
  id: IdField(),
  userId: IdField(),
  appId: IdField(),
  appName: Str(NAME_MAX),
  channelId: IdField(),
  channelType: Str(16),
  title: Str(TITLE_STORE_MAX),
  desp: Str(DESP_STORE_MAX),
  status: EnumOf(MESSAGE_STATUSES, 16),
  /** Plain-words summary that the /send answer carried. */
  summary: Str(2048),
  total: Count(),
  success: Count(),
  failed: Count(),
  results: Type.Array(AnyObject<DeliveryResult>()),
  /** Address of the /send caller. */
  caller: Str(64),
  createdAt: Ms(),
  finishedAt: Ms(),
});
export type MessageDoc = Static<typeof MessageDocument>;

export const pushTargetsCollection = defineCollection({
  name: 'push_targets',
  title: 'PennyPost push channels, apps and recipients',
  version: 0,
  primaryKey: 'id',
  document: TargetDocument,
  indexes: [['userId', 'kind', 'createdAt']],
});

export const pushMessagesCollection = defineCollection({
  name: 'push_messages',
  title: 'PennyPost push history',
  version: 0,
  primaryKey: 'id',
  document: MessageDocument,
  indexes: [
    ['userId', 'createdAt'],
    ['userId', 'appId', 'createdAt'],
  ],
});

export const pushCollections = [pushTargetsCollection, pushMessagesCollection];
