import { Type, type Static } from '@sinclair/typebox';
import { defineCollection } from '../db/collections';
import { ID_MAX_LENGTH } from '../lib/ids';
import { Bool, EnumOf, IdField, Int, Ms, Str } from '../db/schema-fields';
import { legacyDefaultKey } from './default-categories';

/**
 * The ledger's collections. Money is integer minor units of the document's currency; times are
 * integer ms. These shapes are also what mobile clients see through CouchDB sync (docs/sync.md),
 * so fields are only ever added (with a schema version bump and a migration).
 */

export const ASSET_TYPES = ['cash', 'debit_card', 'credit_card', 'ewallet', 'savings', 'investment', 'loan', 'other'] as const;
export type AssetType = (typeof ASSET_TYPES)[number];
/** Types whose balance may go below zero (you owe the bank). */
export const NEGATIVE_ALLOWED: ReadonlySet<AssetType> = new Set<AssetType>(['credit_card', 'loan']);

export const ASSET_STATUSES = ['normal', 'archived'] as const;
export type AssetStatus = (typeof ASSET_STATUSES)[number];

export const AssetDocument = Type.Object({
  id: IdField(),
  userId: IdField(),
  name: Str(100),
  type: EnumOf(ASSET_TYPES, 20),
  currency: Str(3),
  /** Opening balance in minor units; the live balance is derived from records. */
  openingBalance: Int(-1e15, 1e15),
  description: Str(1000),
  icon: Str(200),
  status: EnumOf(ASSET_STATUSES, 10),
  isDefault: Bool(),
  delFlag: Bool(),
  createdAt: Ms(),
  updatedAt: Ms(),
});
export type AssetDoc = Static<typeof AssetDocument>;

export const RECORD_TYPES = ['income', 'expense', 'transfer'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

export const RecordDocument = Type.Object({
  id: IdField(),
  userId: IdField(),
  type: EnumOf(RECORD_TYPES, 10),
  /** Minor units of the (source) asset's currency, > 0. */
  amount: Int(1, 1e15),
  /** income/expense: the asset; transfer: the source asset. */
  asset: IdField(),
  /** transfer only: the target asset ('' otherwise). */
  toAsset: Str(ID_MAX_LENGTH),
  /** transfer only: amount received by the target in its currency (minor units); 0 = same as amount. */
  toAmount: Int(0, 1e15),
  /** transfer only: fee taken from the source, minor units, ≥ 0. */
  fee: Int(0, 1e15),
  /** income/expense: category name ('' for transfers). */
  category: Str(64),
  description: Str(1000),
  /** Lower-cased description for text search. */
  searchText: Str(1000),
  date: Ms(),
  tags: Type.Array(Str(32), { maxItems: 20 }),
  /** File ids attached to this record (receipts). */
  attachments: Type.Array(Str(ID_MAX_LENGTH), { maxItems: 20 }),
  /** Stable key of an imported row (idempotent CSV import); '' when typed in. */
  importKey: Str(80),
  createdAt: Ms(),
  updatedAt: Ms(),
});
export type RecordDoc = Static<typeof RecordDocument>;

export const CATEGORY_TYPES = ['income', 'expense'] as const;

export const CategoryDocument = Type.Object({
  id: IdField(),
  userId: IdField(),
  type: EnumOf(CATEGORY_TYPES, 10),
  name: Str(64),
  icon: Str(200),
  /** Sort position in pickers. */
  position: Int(0, 1e6),
  /**
   * The key of the default category it was seeded as (default-categories.ts); absent or '' for the
   * person's own. Optional, so documents from PennyPosts and phones that predate it still sync.
   */
  defaultKey: Type.Optional(Str(32)),
  createdAt: Ms(),
  updatedAt: Ms(),
});
export type CategoryDoc = Static<typeof CategoryDocument>;
/** A category document of version 0, before default keys. */
type CategoryDocV0 = Omit<CategoryDoc, 'defaultKey'>;

export const RateDocument = Type.Object({
  id: IdField(),
  userId: IdField(),
  /** 1 unit of `from` = `rate` units of `to`, on `date`. */
  from: Str(3),
  to: Str(3),
  /** Decimal rate as text to keep it exact (e.g. "7.1234"). */
  rate: Str(40),
  date: Ms(),
  createdAt: Ms(),
  updatedAt: Ms(),
});
export type RateDoc = Static<typeof RateDocument>;

export const assetsCollection = defineCollection({
  name: 'assets',
  version: 0,
  primaryKey: 'id',
  document: AssetDocument,
  indexes: [['userId', 'createdAt']],
  sync: true,
});

export const recordsCollection = defineCollection({
  name: 'records',
  version: 0,
  primaryKey: 'id',
  document: RecordDocument,
  indexes: [
    ['userId', 'date'],
    ['userId', 'type', 'date'],
    ['userId', 'category', 'date'],
    ['userId', 'asset', 'date'],
    ['userId', 'toAsset', 'date'],
    ['userId', 'importKey'],
  ],
  sync: true,
});

export const categoriesCollection = defineCollection({
  name: 'categories',
  version: 1,
  primaryKey: 'id',
  document: CategoryDocument,
  indexes: [['userId', 'type', 'position']],
  sync: true,
  // Version 1 added defaultKey. Every account was seeded with the English set then, so a category
  // still named like one of those is that default (and may follow a later language switch).
  migrationStrategies: {
    1: (doc: CategoryDocV0): CategoryDoc => ({ ...doc, defaultKey: legacyDefaultKey(doc.type, doc.name) }),
  },
});

export const ratesCollection = defineCollection({
  name: 'rates',
  version: 0,
  primaryKey: 'id',
  document: RateDocument,
  indexes: [['userId', 'from', 'to', 'date']],
  sync: true,
});

export const ledgerCollections = [assetsCollection, recordsCollection, categoriesCollection, ratesCollection];
