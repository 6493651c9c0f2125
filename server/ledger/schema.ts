import type { CollectionDefinition } from '../db/collections';
import { ID_MAX_LENGTH } from '../lib/ids';
import { idField as id, int, ms, str } from '../db/schema-fields';

/**
 * The ledger's collections. Money is integer minor units of the document's currency; times are
 * integer ms. These shapes are also what mobile clients see through CouchDB sync (docs/sync.md),
 * so fields are only ever added (with a schema version bump and a migration).
 */

export const ASSET_TYPES = ['cash', 'debit_card', 'credit_card', 'ewallet', 'savings', 'investment', 'loan', 'other'] as const;
export type AssetType = (typeof ASSET_TYPES)[number];
/** Types whose balance may go below zero (you owe the bank). */
export const NEGATIVE_ALLOWED: ReadonlySet<AssetType> = new Set<AssetType>(['credit_card', 'loan']);
/** Types counted as liabilities in net-worth statistics when their balance is negative or always. */
export const LIABILITY_TYPES: ReadonlySet<AssetType> = new Set<AssetType>(['credit_card', 'loan']);

export const ASSET_STATUSES = ['normal', 'archived'] as const;
export type AssetStatus = (typeof ASSET_STATUSES)[number];

export interface AssetDoc {
  id: string;
  userId: string;
  name: string;
  type: AssetType;
  currency: string;
  /** Opening balance in minor units; the live balance is derived from records. */
  openingBalance: number;
  description: string;
  icon: string;
  status: AssetStatus;
  isDefault: boolean;
  delFlag: boolean;
  createdAt: number;
  updatedAt: number;
}

export const RECORD_TYPES = ['income', 'expense', 'transfer'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

export interface RecordDoc {
  id: string;
  userId: string;
  type: RecordType;
  /** Minor units of the (source) asset's currency, > 0. */
  amount: number;
  /** income/expense: the asset; transfer: the source asset. */
  asset: string;
  /** transfer only: the target asset ('' otherwise). */
  toAsset: string;
  /** transfer only: amount received by the target in its currency (minor units); 0 = same as amount. */
  toAmount: number;
  /** transfer only: fee taken from the source, minor units, ≥ 0. */
  fee: number;
  /** income/expense: category name ('' for transfers). */
  category: string;
  description: string;
  /** Lower-cased description for text search. */
  searchText: string;
  date: number;
  tags: string[];
  /** File ids attached to this record (receipts). */
  attachments: string[];
  /** Stable key of an imported row (idempotent CSV import); '' when typed in. */
  importKey: string;
  createdAt: number;
  updatedAt: number;
}

export interface CategoryDoc {
  id: string;
  userId: string;
  type: 'income' | 'expense';
  name: string;
  icon: string;
  /** Sort position in pickers. */
  position: number;
  createdAt: number;
  updatedAt: number;
}

export interface RateDoc {
  id: string;
  userId: string;
  /** 1 unit of `from` = `rate` units of `to`, on `date`. */
  from: string;
  to: string;
  /** Decimal rate as text to keep it exact (e.g. "7.1234"). */
  rate: string;
  date: number;
  createdAt: number;
  updatedAt: number;
}


export const assetsCollection: CollectionDefinition<AssetDoc> = {
  name: 'assets',
  sync: true,
  schema: {
    version: 0,
    primaryKey: 'id',
    type: 'object',
    properties: {
      id,
      userId: id,
      name: str(100),
      type: { type: 'string', enum: [...ASSET_TYPES], maxLength: 20 },
      currency: str(3),
      openingBalance: int(-1e15, 1e15),
      description: str(1000),
      icon: str(200),
      status: { type: 'string', enum: [...ASSET_STATUSES], maxLength: 10 },
      isDefault: { type: 'boolean' },
      delFlag: { type: 'boolean' },
      createdAt: ms,
      updatedAt: ms,
    },
    required: ['id', 'userId', 'name', 'type', 'currency', 'openingBalance', 'description', 'icon', 'status', 'isDefault', 'delFlag', 'createdAt', 'updatedAt'],
    indexes: [['userId', 'createdAt']],
  } as any,
};

export const recordsCollection: CollectionDefinition<RecordDoc> = {
  name: 'records',
  sync: true,
  schema: {
    version: 0,
    primaryKey: 'id',
    type: 'object',
    properties: {
      id,
      userId: id,
      type: { type: 'string', enum: [...RECORD_TYPES], maxLength: 10 },
      amount: int(1, 1e15),
      asset: id,
      toAsset: str(ID_MAX_LENGTH),
      toAmount: int(0, 1e15),
      fee: int(0, 1e15),
      category: str(64),
      description: str(1000),
      searchText: str(1000),
      date: ms,
      tags: { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 32 } },
      attachments: { type: 'array', maxItems: 20, items: { type: 'string', maxLength: ID_MAX_LENGTH } },
      importKey: str(80),
      createdAt: ms,
      updatedAt: ms,
    },
    required: [
      'id', 'userId', 'type', 'amount', 'asset', 'toAsset', 'toAmount', 'fee', 'category', 'description', 'searchText',
      'date', 'tags', 'attachments', 'importKey', 'createdAt', 'updatedAt',
    ],
    indexes: [
      ['userId', 'date'],
      ['userId', 'type', 'date'],
      ['userId', 'category', 'date'],
      ['userId', 'asset', 'date'],
      ['userId', 'toAsset', 'date'],
      ['userId', 'importKey'],
    ],
  } as any,
};

export const categoriesCollection: CollectionDefinition<CategoryDoc> = {
  name: 'categories',
  sync: true,
  schema: {
    version: 0,
    primaryKey: 'id',
    type: 'object',
    properties: {
      id,
      userId: id,
      type: { type: 'string', enum: ['income', 'expense'], maxLength: 10 },
      name: str(64),
      icon: str(200),
      position: int(0, 1e6),
      createdAt: ms,
      updatedAt: ms,
    },
    required: ['id', 'userId', 'type', 'name', 'icon', 'position', 'createdAt', 'updatedAt'],
    indexes: [['userId', 'type', 'position']],
  } as any,
};

export const ratesCollection: CollectionDefinition<RateDoc> = {
  name: 'rates',
  sync: true,
  schema: {
    version: 0,
    primaryKey: 'id',
    type: 'object',
    properties: {
      id,
      userId: id,
      from: str(3),
      to: str(3),
      rate: str(40),
      date: ms,
      createdAt: ms,
      updatedAt: ms,
    },
    required: ['id', 'userId', 'from', 'to', 'rate', 'date', 'createdAt', 'updatedAt'],
    indexes: [['userId', 'from', 'to', 'date']],
  } as any,
};

export const ledgerCollections = [assetsCollection, recordsCollection, categoriesCollection, ratesCollection];
