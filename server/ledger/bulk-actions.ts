import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params } from '../api/action';
import { Id, Ms } from '../api/params';
import { BULK_MAX } from './bulk-edits';
import { ledgerErrors } from './errors';
import { OUT_OF_RANGE_ERROR } from './limits';
import { BulkDeleted, BulkUpdated, RecordShape, Restored } from './record-shapes';

const Ids = Type.Array(Id(), { minItems: 1, maxItems: BULK_MAX, description: `Record ids (at most ${BULK_MAX}).` });
const TagList = (description: string) => Type.Array(Type.String({ minLength: 1, maxLength: 32 }), { maxItems: 20, description });

const accountingBulkUpdate = defineAction({
  summary: 'Re-categorise or re-tag many records at once; all or nothing.',
  notes:
    "`category` sets the category of every record (each record's type must have it; transfers have none, so a selection with a transfer is refused). " +
    '`addTags` adds tags a record does not have yet, `removeTags` removes tags (both case-insensitive). Every id is checked before anything is written: ' +
    'one unknown or foreign id, one transfer given a category, or one record past 20 tags changes nothing.',
  auth: 'user',
  params: Params({
    ids: Ids,
    category: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    addTags: Type.Optional(TagList('Tags to add.')),
    removeTags: Type.Optional(TagList('Tags to remove.')),
  }),
  result: BulkUpdated,
  writes: { undoable: true },
  errors: [
    [ledgerErrors.rows.recordNotFound, "an unknown, deleted or another user's record (`data.ids` lists them)"],
    [ledgerErrors.rows.bulkNothingToDo, 'neither category nor tags given'],
    [ledgerErrors.rows.bulkTransferCategory, 'a category for a selection with transfers'],
    [ledgerErrors.rows.unknownCategory, 'the category does not exist for income or expense records of the selection'],
    [ledgerErrors.rows.bulkTooManyTags, 'a record would get more than 20 tags'],
  ],
  handler: (params, ctx) => ctx.app.services.ledger.bulk.update(ctx.user.id, params),
});

const accountingBulkDelete = defineAction({
  summary: 'Delete many records at once; all or nothing. Attached files are kept.',
  auth: 'user',
  params: Params({ ids: Ids }),
  result: BulkDeleted,
  writes: { undoable: true },
  errors: [
    [ledgerErrors.rows.recordNotFound, "an unknown, deleted or another user's record (`data.ids` lists them)"],
    [ledgerErrors.rows.insufficientBalance, 'deleting these incomes would leave an asset that cannot be negative below zero'],
    OUT_OF_RANGE_ERROR,
  ],
  handler: (params, ctx) => ctx.app.services.ledger.bulk.delete(ctx.user.id, params.ids),
});

const accountingUndo = defineAction({
  summary: 'Undo a delete (accounting.delete, accounting.bulkDelete) or a bulk edit (accounting.bulkUpdate) within 60 s.',
  notes:
    'Deleted records come back with the same ids; edited categories and tags go back. Each token works once. Refused with nothing changed when a record was changed again since (409) ' +
    'or the token expired, was used, or the server restarted (404).',
  auth: 'user',
  params: Params({ token: Type.String({ minLength: 1, maxLength: 64 }) }),
  result: Restored,
  errors: [
    [ledgerErrors.rows.undoUnavailable, "unknown, expired, used, or another user's token"],
    [ledgerErrors.rows.undoConflict, 'a record of the change was changed since (`data.id`)'],
    [ledgerErrors.rows.insufficientBalance, 'putting an expense back would take an asset below zero'],
    OUT_OF_RANGE_ERROR,
  ],
  handler: (params, ctx) => ctx.app.services.ledger.bulk.restore(ctx.user.id, params.token),
});

const accountingDuplicate = defineAction({
  summary: 'Copy a record as a new one (new id), dated now unless `date` is given.',
  notes:
    'Amount, asset(s), fee, amount received, category, description and tags are copied; attachments are not (a receipt belongs to one purchase). The balance rule applies as to a new record.',
  auth: 'user',
  params: Params({ id: Id(), date: Type.Optional(Ms('Date of the copy (default: now).')) }),
  result: RecordShape,
  errors: [
    [ledgerErrors.rows.recordNotFound, "unknown or another user's record"],
    [ledgerErrors.rows.assetNotFound, 'an asset of the record was deleted'],
    [ledgerErrors.rows.insufficientBalance, 'the copy would take an asset below zero'],
    OUT_OF_RANGE_ERROR,
  ],
  handler: (params, ctx) => ctx.app.services.ledger.bulk.duplicate(ctx.user.id, params.id, params.date),
});

/** Changes of many records, copies of a record and undo (bulk-edits.ts). */
export const bulkActions = defineActions({
  'accounting.bulkUpdate': accountingBulkUpdate,
  'accounting.bulkDelete': accountingBulkDelete,
  'accounting.undo': accountingUndo,
  'accounting.duplicate': accountingDuplicate,
});
