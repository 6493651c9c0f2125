import { randomUUID } from 'node:crypto';
import { isCorruptionError } from '../db/integrity';
import { errorChain } from '../lib/error-chain';
import { DomainError, commonErrors } from '../lib/errors';
import type { Logger } from '../lib/logger';
import { describeError } from '../lib/logger';

const STORAGE_CODES = new Set(['LEVEL_IO_ERROR', 'LEVEL_DATABASE_NOT_OPEN', 'STORAGE_UNAVAILABLE', 'ENOSPC', 'EROFS', 'EACCES', 'EIO', 'EDQUOT']);

/**
 * Maps errors that are not DomainErrors: storage trouble (disk full, read-only, damaged data) is
 * 503, everything else 500 (null here: the caller turns it into the request-id answer). The storage
 * error may be wrapped (RxDB errors carry it in `parameters.error`, others in `cause`).
 */
export function classifyUnexpected(error: unknown): DomainError | null {
  // Damaged data (LevelDB "Corruption: …", e.g. a table file with flipped bytes), anywhere in the
  // chain: retrying will not help and the person must act (docs/data-safety.md).
  if (isCorruptionError(error)) {
    return commonErrors
      .unavailable(
        'The database on disk is damaged: part of the stored data cannot be read (LevelDB reported corruption). Nothing was changed. ' +
          'Stop PennyPost, then run `pennypost check --data-dir <data dir>` to see what is affected and `pennypost repair --data-dir <data dir>` to recover (it keeps a copy first).',
      )
      .with({ storage: 'damaged' });
  }
  const storageTrouble = errorChain(error).some(
    (e) =>
      (typeof e.code === 'string' && STORAGE_CODES.has(e.code)) ||
      (typeof e.message === 'string' && /No space left|Read-only file system|Input\/output error|Disk quota exceeded/i.test(e.message)),
  );
  if (storageTrouble) return commonErrors.unavailable('Storage is unavailable right now (disk full or not writable). Nothing was changed; try again later.');
  return null;
}

/** The answer's message for a crash: the request id, never the details (those go to the log). */
export const crashMessage = (requestId: string): string => `Internal error. Quote request id ${requestId} when reporting it.`;

/**
 * Any error as the DomainError to answer with: DomainErrors as they are, storage trouble as 503
 * (logged as a warning), anything else as 500 naming the request id (logged with its details).
 * `what` and `fields` say in the log what failed.
 */
export function answerableError(
  error: unknown,
  {
    log,
    requestId = randomUUID(),
    what,
    fields = {},
    message = crashMessage,
  }: { log: Logger; requestId?: string; what: string; fields?: Record<string, unknown>; message?: (requestId: string) => string },
): DomainError {
  if (error instanceof DomainError) return error;
  const storage = classifyUnexpected(error);
  if (storage) {
    log.warn('storage unavailable', { requestId, ...fields, ...describeError(error) });
    return storage;
  }
  log.error(`${what} failed`, { requestId, ...fields, ...describeError(error) });
  return commonErrors.internal(message(requestId)).with({ requestId });
}
