import type { StatementLine } from '../formats/types';

/**
 * The bookkeeper's status rules (docs/import.md "What becomes a record"): which statement lines
 * become records, as what, and why the others do not. One payment is never counted twice.
 */
export const SKIP_REASONS = ['failed', 'pending', 'closed', 'refundOfClosed', 'refundOfUnknown', 'ownTransfer', 'zero', 'openingBalance'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export const SKIP_TEXT: Record<SkipReason, string> = {
  failed: 'the payment failed: no money moved',
  pending: 'not finished yet (waiting for payment or confirmation): import it again once it is done',
  closed: 'the payment was closed or cancelled: no money moved, or all of it came back',
  refundOfClosed: 'a refund of a payment that is closed in this file: neither is counted',
  refundOfUnknown:
    'a refund of a payment that is neither in this file nor in your ledger (it may have been closed in an earlier file): include it if you recorded that payment yourself',
  ownTransfer: 'money moved between your own accounts (neither income nor expense): include it as a transfer if you keep both accounts here',
  zero: 'the amount is zero',
  openingBalance: "the account's starting balance, not a transaction: give it as the asset's balance instead",
};

/**
 * Where the payment a refund refunds stands: `booked` (already in the ledger, or a completed
 * payment of this file), `closed` in this file (so never booked), `missing` (the refund names it,
 * but it is in neither), `unknown` (the refund does not say which payment it refunds).
 */
export type OriginalState = 'booked' | 'closed' | 'missing' | 'unknown';

export type Decision = { kind: 'create'; type: 'income' | 'expense'; refund: boolean } | { kind: 'skip'; reason: SkipReason };

/** Ids of the payments that are closed in this file (a refund of one of them is not counted either). */
export function closedIds(lines: readonly StatementLine[]): Set<string> {
  const ids = new Set<string>();
  for (const line of lines) if (line.status === 'closed' && line.externalId) ids.add(line.externalId);
  return ids;
}

export function classify(line: StatementLine, original: OriginalState): Decision {
  if (/^0+(\.0+)?$/.test(line.amount)) return { kind: 'skip', reason: 'zero' };
  if (line.openingBalance) return { kind: 'skip', reason: 'openingBalance' };
  switch (line.status) {
    case 'failed':
      return { kind: 'skip', reason: 'failed' };
    case 'pending':
      return { kind: 'skip', reason: 'pending' };
    case 'closed':
      return { kind: 'skip', reason: 'closed' };
    case 'refund':
      // Money coming back is income, whatever column the source put it in (Alipay lists refunds as
      // 不计收支) — but only when the payment it refunds was counted: a payment closed in this file
      // (Alipay closes a fully refunded payment) was never booked, so its refund is not either; one
      // that was already booked from an earlier file (and is closed in this one) keeps its expense,
      // and the refund balances it. A refund of a payment that is nowhere to be seen may belong to
      // one closed in an earlier file: it waits for the person to include it.
      if (original === 'closed') return { kind: 'skip', reason: 'refundOfClosed' };
      if (original === 'missing') return { kind: 'skip', reason: 'refundOfUnknown' };
      return { kind: 'create', type: 'income', refund: true };
    case 'done':
      if (line.direction === 'neutral') return { kind: 'skip', reason: 'ownTransfer' };
      return { kind: 'create', type: line.direction, refund: false };
  }
}
