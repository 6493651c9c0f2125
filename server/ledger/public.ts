/**
 * What other domains may use of the ledger beside its service (app.services.ledger): the stored
 * shapes of assets and records, the read-only ledger view and its helpers, and the ledger's errors.
 * The layer check (.dependency-cruiser.cjs) lets other domains import this file and index.ts only.
 */
export type { AssetDoc, RecordDoc } from './schema';
export { lowerBoundByDate, type UserLedgerView } from './views';
export type { CategoryRename } from './categories';
export type { MissingRate } from './stats';
export type { PeriodExpenses } from './spending';
export { ledgerErrors } from './errors';
export { RecordShape, type RecordView } from './record-shapes';
export { RECORD_TEXT } from './text-limits';
export { cleanTags, newRecord, recordTextProblems, searchTextOf, withText, type RecordFields, type RecordStamp } from './record-factory';
