import { errorCatalogue } from '../lib/errors';
import { ASSET_STATUSES, ASSET_TYPES } from './schema';

/**
 * The ledger's errors (docs/api.md): its business codes (2001–2003 assets, 3001–3003 records) and
 * the 400/404/409 answers specific to its rules. Field names are given in domain terms with
 * `.at('amount')`; the router shows them as `params.amount`.
 */
export const ledgerErrors = errorCatalogue(
  {
    // ---------------------------------------------------------------- business codes
    /** `field`: the param that named the asset, when the asset came from a record's fields. */
    assetNotFound: { code: 2001, status: 404, message: (field?: string) => (field === undefined ? 'Asset not found.' : `Asset not found (${field}).`) },
    insufficientBalance: {
      code: 2002,
      status: 409,
      message: (asset: string, balance: number, needed: number, currency: string) =>
        `Not enough money in ${asset}: the balance is ${balance} ${currency} and this needs ${needed} ${currency}. Only credit_card and loan assets can go below zero.`,
    },
    /** An edit of the asset itself (opening balance, type) that would leave it below zero. */
    assetBelowZero: { code: 2002, status: 409, message: (asset: string, type: string) => `This change would take ${asset} below zero, which a ${type} asset cannot be.` },
    invalidAssetType: { code: 2003, status: 400, message: (type: string) => `Unknown asset type "${type}". Use one of: ${ASSET_TYPES.join(', ')}.` },
    recordNotFound: { code: 3001, status: 404, message: () => 'Record not found.' },
    invalidRecordType: { code: 3002, status: 400, message: (type: string) => `Unknown record type "${type}". Use income, expense or transfer.` },
    /** The type filter of accounting.query. */
    unknownRecordTypeFilter: { code: 3002, status: 400, message: (type: string) => `Unknown record type "${type}".` },
    invalidAmount: { code: 3003, status: 400, message: (field: string) => `${field} must be greater than zero.` },

    // ---------------------------------------------------------------- assets and currencies
    unknownCurrency: { code: 400, status: 400, message: (currency: string) => `Unknown currency "${currency}".` },
    /** The status filter of asset.query (names the statuses). */
    unknownAssetStatusFilter: { code: 400, status: 400, message: (status: string) => `Unknown asset status "${status}". Use one of: ${ASSET_STATUSES.join(', ')}.` },
    unknownAssetStatus: { code: 400, status: 400, message: (status: string) => `Unknown asset status "${status}".` },
    negativeOpeningBalance: { code: 400, status: 400, message: (type: string) => `A ${type} asset cannot start below zero; only credit_card and loan can.` },
    openingBalanceNotWhole: { code: 400, status: 400, message: (asset: string) => `The opening balance of ${asset} is not a whole number of minor units.` },
    currencyLocked: { code: 409, status: 409, message: () => 'The currency of an asset with records cannot change: its amounts are in that currency.' },
    /** Optimistic concurrency: `expectedUpdatedAt` is not the stored `updatedAt`. */
    changedElsewhere: { code: 409, status: 409, message: (what: 'asset' | 'record') => `This ${what} was changed elsewhere since you loaded it. Reload and try again.` },

    // ---------------------------------------------------------------- records
    required: { code: 400, status: 400, message: (field: string) => `${field} is required` },
    requiredForTransfer: { code: 400, status: 400, message: (field: string) => `${field} is required for a transfer` },
    sameAssetTransfer: { code: 400, status: 400, message: () => 'A transfer needs two different assets.' },
    transferWithCategory: { code: 400, status: 400, message: () => 'Transfers have no category.' },
    transferFieldsOnly: { code: 400, status: 400, message: (type: string) => `fromAsset, toAsset, fee and toAmount apply to transfers only, not to ${type}.` },
    negativeFee: { code: 400, status: 400, message: (field: string) => `${field} must be zero or more.` },
    toAmountNotAmount: {
      code: 400,
      status: 400,
      message: (field: string) => `${field} must equal amount when both assets use the same currency (put costs in fee).`,
    },
    toAmountNeeded: {
      code: 400,
      status: 400,
      message: (field: string, from: string, to: string) =>
        `${field} is required for a transfer from ${from} to ${to}: there is no exchange rate to compute it (set one with currency.setRate).`,
    },
    /** Attachments were given but this server runs without the files domain. */
    attachmentsUnavailable: { code: 5001, status: 404, message: () => 'File attachments are not available.' },
    endBeforeStart: { code: 400, status: 400, message: () => 'endDate must be after startDate' },
    tooManyPeriods: { code: 400, status: 400, message: (groupBy: string) => `Too many ${groupBy}s in this range; pick a coarser groupBy.` },
    unknownTimeZone: { code: 400, status: 400, message: (timeZone: string) => `Unknown time zone "${timeZone}".` },

    /** The search syntax of accounting.query's `q` (server/ledger/search-query.ts); details name the problem and the token. */
    badSearch: {
      code: 400,
      status: 400,
      message: (problem: string, token: string) =>
        ({
          unclosedQuote: `The search has a quote that is not closed: ${token}`,
          needsValue: `"${token}" needs a value after it, e.g. >100, tag:trip.`,
          notAmountOrDate: `"${token}" needs an amount (100, 35.5) or a date (2026-11, 2026-11-03).`,
          notADate: `${token} is not a date.`,
          mixedRange: `"${token}" mixes an amount and a date; a range is two amounts or two dates.`,
          emptyRange: `"${token}" is an empty range: the first value is after the second.`,
          tooManyTerms: `The search has ${token} terms; at most 20 are allowed.`,
        })[problem] ?? `The search cannot be read near "${token}".`,
    },
    /** accounting.undo: the token is unknown, expired, already used, another user's, or the server restarted since. */
    undoUnavailable: { code: 404, status: 404, message: () => 'There is nothing to undo any more: undo is possible for 60 seconds after a change, once.' },
    /** accounting.undo: a record of the change was changed again (or deleted/re-created) since. */
    undoConflict: { code: 409, status: 409, message: () => 'Cannot undo: some of these records were changed since. Nothing was changed.' },
    /** Bulk edits: a transfer cannot take a category. */
    bulkTransferCategory: { code: 400, status: 400, message: (count: number) => `${count} of the selected records are transfers, which have no category. Nothing was changed.` },
    bulkTooManyTags: { code: 400, status: 400, message: () => 'A record would have more than 20 tags. Nothing was changed.' },
    bulkNothingToDo: { code: 400, status: 400, message: () => 'Give a category, tags to add or tags to remove.' },

    // ---------------------------------------------------------------- categories
    unknownCategory: { code: 400, status: 400, message: (type: string, name: string) => `Unknown ${type} category "${name}". Create it with category.create first.` },
    categoryExists: { code: 409, status: 409, message: (type: string, name: string) => `There is already a ${type} category "${name}".` },
    categoryNotFound: { code: 404, status: 404, message: () => 'Category not found.' },
    categoryInUse: {
      code: 409,
      status: 409,
      message: (records: number, name: string, type: string) => `${records} records use "${name}". Pass moveTo with another ${type} category to move them.`,
    },
    moveToSameCategory: { code: 400, status: 400, message: () => 'moveTo must be a different category.' },

    // ---------------------------------------------------------------- exchange rates
    unknownRateCurrency: { code: 400, status: 400, message: () => 'Unknown currency.' },
    sameCurrencyRate: { code: 400, status: 400, message: () => 'A rate needs two different currencies.' },
    invalidRate: { code: 400, status: 400, message: (field: string) => `${field} must be a positive decimal with at most 12 decimals` },
    rateNotFound: { code: 404, status: 404, message: () => 'Rate not found.' },

    // ---------------------------------------------------------------- import, backup, restore
    csvUnreadable: { code: 400, status: 400, message: (reason: string) => `The CSV cannot be read: ${reason}` },
    csvEmpty: { code: 400, status: 400, message: () => 'The CSV is empty.' },
    csvMissingColumn: { code: 400, status: 400, message: (column: string, columns: readonly string[]) => `The CSV needs a "${column}" column (columns: ${columns.join(', ')}).` },
    invalidBackup: { code: 400, status: 400, message: (problem: string) => `Invalid backup: ${problem}` },
    restoreNeedsEmptyLedger: {
      code: 409,
      status: 409,
      message: () => 'Restore needs an empty ledger: this account already has assets or records. Use a new account, or append: true to continue a restore.',
    },
    nothingToAppend: { code: 400, status: 400, message: () => 'append: true continues a restore, but this account has no restored assets yet.' },
  },
  'ledger',
);
