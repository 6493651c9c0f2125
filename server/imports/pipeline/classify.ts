import type { StatementLine } from '../formats/types';

/**
 * The bookkeeper's status rules (docs/import.md "What becomes a record"): which statement lines
 * become records, as what, and why the others do not. One payment is never counted twice.
 */
export const SKIP_REASONS = ['failed', 'pending', 'closed', 'refundOfClosed', 'ownTransfer', 'zero'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export const SKIP_TEXT: Record<SkipReason, string> = {
  failed: 'the payment failed: no money moved',
  pending: 'not finished yet (waiting for payment or confirmation): import it again once it is done',
  closed: 'the payment was closed or cancelled: no money moved, or all of it came back',
  refundOfClosed: 'a refund of a payment that is closed in this file: neither is counted',
  ownTransfer: 'money moved between your own accounts (neither income nor expense): include it as a transfer if you keep both accounts here',
  zero: 'the amount is zero',
};

export type Decision = { kind: 'create'; type: 'income' | 'expense'; refund: boolean } | { kind: 'skip'; reason: SkipReason };

/** Ids of the payments that are closed in this file (a refund of one of them is not counted either). */
export function closedIds(lines: readonly StatementLine[]): Set<string> {
  const ids = new Set<string>();
  for (const line of lines) if (line.status === 'closed' && line.externalId) ids.add(line.externalId);
  return ids;
}

export function classify(line: StatementLine, closed: ReadonlySet<string>): Decision {
  if (/^0+(\.0+)?$/.test(line.amount)) return { kind: 'skip', reason: 'zero' };
  switch (line.status) {
    case 'failed':
      return { kind: 'skip', reason: 'failed' };
    case 'pending':
      return { kind: 'skip', reason: 'pending' };
    case 'closed':
      return { kind: 'skip', reason: 'closed' };
    case 'refund':
      // Money coming back is income, whatever column the source put it in (Alipay lists refunds as
      // 不计收支) — unless the payment it refunds is closed in this same file: then the payment was
      // never counted, and counting its refund would add money that never left.
      if (line.originalId && closed.has(line.originalId)) return { kind: 'skip', reason: 'refundOfClosed' };
      return { kind: 'create', type: 'income', refund: true };
    case 'done':
      if (line.direction === 'neutral') return { kind: 'skip', reason: 'ownTransfer' };
      return { kind: 'create', type: line.direction, refund: false };
  }
}
