import type { CollectionDefinition } from '../db/collections';
import { ID_MAX_LENGTH } from '../lib/ids';
import { ms, str } from '../db/schema-fields';

/**
 * The push domain's two collections (docs/architecture.md #9 and #10). Neither is synced:
 * channel configs hold secrets, and delivery history is about this machine's webhook.
 *
 * `push_targets` keeps channels, apps and recipients in one collection with a `kind` field; the
 * fields of the other kinds are '' or {} so that every document has the same shape.
 */

export const TARGET_KINDS = ['channel', 'app', 'recipient'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

export const CHANNEL_TYPES = ['wechat', 'desktop', 'webhook'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

export const MESSAGE_TYPES = ['custom', 'template'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export const PUSH_MODES = ['all', 'first'] as const;
export type PushMode = (typeof PUSH_MODES)[number];

export interface TargetDoc {
  id: string;
  userId: string;
  kind: TargetKind;
  name: string;
  // channel
  type: ChannelType | '';
  /** Channel configuration, secrets included (stored locally only, never returned in full). */
  config: Record<string, unknown>;
  // app
  channelId: string;
  messageType: MessageType | '';
  templateId: string;
  /** Template data keys for title, desp and time: `{title, desp, time}`. */
  templateFields: Record<string, string>;
  pushMode: PushMode | '';
  appKey: string;
  // recipient
  appId: string;
  address: string;
  remark: string;
  createdAt: number;
  updatedAt: number;
}

export const RESULT_CLASSES = ['ok', 'token', 'recipient', 'systemic', 'transient'] as const;
export type ResultClass = (typeof RESULT_CLASSES)[number];

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

export const MESSAGE_STATUSES = ['success', 'partial', 'failed', 'empty'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export interface MessageDoc {
  /** newId(): time-ordered, so retention pruning walks the primary key. */
  id: string;
  userId: string;
  appId: string;
  appName: string;
  channelId: string;
  channelType: ChannelType;
  title: string;
  desp: string;
  status: MessageStatus;
  /** Plain-words summary that the /send answer carried. */
  summary: string;
  total: number;
  success: number;
  failed: number;
  results: DeliveryResult[];
  /** Address of the /send caller. */
  caller: string;
  createdAt: number;
  finishedAt: number;
}

const count = { type: 'integer', minimum: 0, maximum: 1e6, multipleOf: 1 } as const;

export const NAME_MAX = 64;
export const ADDRESS_MAX = 2048;
export const REMARK_MAX = 256;
export const TEMPLATE_ID_MAX = 128;
/** Hard ceilings of the stored text (the settings' limits stay below them). */
export const TITLE_STORE_MAX = 1024;
export const DESP_STORE_MAX = 262144;

export const pushTargetsCollection: CollectionDefinition<TargetDoc> = {
  name: 'push_targets',
  schema: {
    title: 'PennyPost push channels, apps and recipients',
    version: 0,
    primaryKey: 'id',
    type: 'object',
    properties: {
      id: str(ID_MAX_LENGTH),
      userId: str(ID_MAX_LENGTH),
      kind: { type: 'string', enum: [...TARGET_KINDS], maxLength: 16 },
      name: str(NAME_MAX),
      type: str(16),
      config: { type: 'object' },
      channelId: str(ID_MAX_LENGTH),
      messageType: str(16),
      templateId: str(TEMPLATE_ID_MAX),
      templateFields: { type: 'object' },
      pushMode: str(16),
      appKey: str(80),
      appId: str(ID_MAX_LENGTH),
      address: str(ADDRESS_MAX),
      remark: str(REMARK_MAX),
      createdAt: ms,
      updatedAt: ms,
    },
    required: [
      'id', 'userId', 'kind', 'name', 'type', 'config', 'channelId', 'messageType', 'templateId', 'templateFields',
      'pushMode', 'appKey', 'appId', 'address', 'remark', 'createdAt', 'updatedAt',
    ],
    indexes: [['userId', 'kind', 'createdAt']],
  } as any,
};

export const pushMessagesCollection: CollectionDefinition<MessageDoc> = {
  name: 'push_messages',
  schema: {
    title: 'PennyPost push history',
    version: 0,
    primaryKey: 'id',
    type: 'object',
    properties: {
      id: str(ID_MAX_LENGTH),
      userId: str(ID_MAX_LENGTH),
      appId: str(ID_MAX_LENGTH),
      appName: str(NAME_MAX),
      channelId: str(ID_MAX_LENGTH),
      channelType: str(16),
      title: str(TITLE_STORE_MAX),
      desp: str(DESP_STORE_MAX),
      status: { type: 'string', enum: [...MESSAGE_STATUSES], maxLength: 16 },
      summary: str(2048),
      total: count,
      success: count,
      failed: count,
      results: { type: 'array', items: { type: 'object' } },
      caller: str(64),
      createdAt: ms,
      finishedAt: ms,
    },
    required: [
      'id', 'userId', 'appId', 'appName', 'channelId', 'channelType', 'title', 'desp', 'status', 'summary', 'total',
      'success', 'failed', 'results', 'caller', 'createdAt', 'finishedAt',
    ],
    indexes: [
      ['userId', 'createdAt'],
      ['userId', 'appId', 'createdAt'],
    ],
  } as any,
};

export const pushCollections = [pushTargetsCollection, pushMessagesCollection];
