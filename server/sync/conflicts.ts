import { defaultConflictHandler, type RxConflictHandler } from 'rxdb';

/**
 * The conflict rule of a synced collection, applied the same way on every device:
 * the version with the later `updatedAt` wins; on a tie (or for documents without it, such as
 * the append-only trade log, which cannot conflict because entries are never edited) the server's
 * version wins, which is RxDB's default. A deletion does not change `updatedAt`, so an edit made
 * after the last change before a delete wins over that delete (nothing a user did later is lost).
 */
export const lastWriteWins: RxConflictHandler<any> = {
  isEqual: defaultConflictHandler.isEqual,
  resolve(input) {
    const mine = (input.newDocumentState as { updatedAt?: number }).updatedAt;
    const theirs = (input.realMasterState as { updatedAt?: number }).updatedAt;
    if (typeof mine === 'number' && typeof theirs === 'number' && mine > theirs) return input.newDocumentState;
    return input.realMasterState;
  },
};
