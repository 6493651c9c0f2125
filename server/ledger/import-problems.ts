/**
 * Why a CSV row cannot be imported, for a client to say in its own words: `kind` and the values
 * it concerns (the cells as written, asset names, currencies); `errors` has the same in English.
 */
export const IMPORT_PROBLEM_KINDS = [
  'badType',
  'badDate',
  'unknownAsset',
  'badAmount',
  'currencyMismatch',
  'amountNotExact',
  'unknownToAsset',
  'sameAsset',
  'badFee',
  'toAmountNeeded',
  'unknownCategory',
] as const;
export interface ImportProblem {
  kind: (typeof IMPORT_PROBLEM_KINDS)[number];
  args: string[];
}
