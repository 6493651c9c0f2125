import type { TObject } from '@sinclair/typebox';
import type { CollectionDefinition } from '../../../server/db/collections';
import {
  AssetDocument,
  assetsCollection,
  CategoryDocument,
  categoriesCollection,
  RateDocument,
  ratesCollection,
  RecordDocument,
  recordsCollection,
} from '../../../server/ledger/schema';
import { PlanDocument, plansCollection } from '../../../server/planning/schema';
import type { PhoneCollection } from '../../../server/sync/pairing-link';

/**
 * The collections the phone keeps: the desktop's own definitions (schema, version, migrations),
 * imported, never copied, with the TypeBox document each is checked against when it arrives.
 */
export interface PhoneCollectionDef {
  definition: CollectionDefinition;
  document: TObject;
}

export const PHONE_DEFS: Record<PhoneCollection, PhoneCollectionDef> = {
  assets: { definition: assetsCollection, document: AssetDocument },
  records: { definition: recordsCollection, document: RecordDocument },
  categories: { definition: categoriesCollection, document: CategoryDocument },
  rates: { definition: ratesCollection, document: RateDocument },
  plans: { definition: plansCollection, document: PlanDocument },
};
