import { isIoError } from '../../db/leveldb-storage/health';
import { commonErrors, type DomainError } from '../../lib/errors';
import type { DeliveryResult, MessageStatus } from '../schema';
import { summarize } from './answer';

/** What became of a push: its history status, the sentence that sums it up, one result per recipient. */
export interface PushOutcome {
  status: MessageStatus;
  summary: string;
  results: DeliveryResult[];
}

/** The outcome of a delivery from its results. */
export function outcomeOf(results: DeliveryResult[]): PushOutcome {
  const success = results.filter((r) => r.ok).length;
  const failed = results.length - success;
  const status: MessageStatus = failed === 0 ? 'success' : success === 0 ? 'failed' : 'partial';
  return { status, summary: summarize(results, success, failed), results };
}

/**
 * Every recipient failed for one reason that is not theirs (the channel's secret cannot be opened,
 * the journal could not be written, delivery crashed): `systemic`, with the reason. `attempts` is
 * given where no call was made.
 */
export function failEveryone(recipients: ReadonlyArray<{ label: string; name?: string }>, message: string, attempts?: number): DeliveryResult[] {
  return recipients.map((r) => ({
    recipient: r.label,
    ...(r.name ? { name: r.name } : {}),
    ok: false,
    class: 'systemic',
    errmsg: message,
    ...(attempts === undefined ? {} : { attempts }),
  }));
}

/** The history could not be written, so nothing left the machine. */
export const NOTHING_SENT = 'PennyPost could not write the message history (is the disk full or read-only?), so nothing was sent. Free some disk space and try again.';

/** A write the disk refused: a full or read-only disk is "unavailable, try again later" (503), like every refused write of /api; anything else 500. */
export function storageError(error: unknown, message: string): DomainError {
  return isIoError(error) ? commonErrors.unavailable(message) : commonErrors.internal(message);
}
