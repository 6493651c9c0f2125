import { currencyDigits } from '../../lib/format';
import type { LedgerRecord } from '../../lib/ledger';

export interface RegisterRow {
  record: LedgerRecord;
  /** What the record did to this asset's balance, in its currency (major units). */
  change: number;
  /** The balance right after the record. */
  balance: number;
}

/** A record's effect on one asset, in that asset's minor units (the ledger's rule: income +, expense −, a transfer − amount and fee out, + amount received in). */
export function effectOn(record: LedgerRecord, assetId: string, digits: number): number {
  const minor = (value: number | undefined) => Math.round((value ?? 0) * 10 ** digits);
  if (record.type === 'income') return record.asset === assetId ? minor(record.amount) : 0;
  if (record.type === 'expense') return record.asset === assetId ? -minor(record.amount) : 0;
  let effect = 0;
  if (record.asset === assetId) effect -= minor(record.amount) + minor(record.fee);
  if (record.toAsset === assetId) effect += minor(record.toAmount ?? record.amount);
  return effect;
}

/**
 * An asset's register: its records newest first, each with the balance right after it. The newest
 * record leaves the asset at its current balance; each older one's balance is the next one's less
 * what the next one did. `after` is the balance after the first of `records` (the current
 * balance, or where the previous page ended). Sums run in minor units, so no float drifts.
 */
export function registerRows(records: readonly LedgerRecord[], assetId: string, currency: string, after: number): RegisterRow[] {
  const digits = currencyDigits(currency);
  const scale = 10 ** digits;
  let balance = Math.round(after * scale);
  return records.map((record) => {
    const change = effectOn(record, assetId, digits);
    const row = { record, change: change / scale, balance: balance / scale };
    balance -= change;
    return row;
  });
}

/** The balance before the oldest of `rows` (the opening balance once every record is listed). */
export function balanceBefore(rows: readonly RegisterRow[], currency: string): number | null {
  const last = rows.at(-1);
  if (!last) return null;
  const scale = 10 ** currencyDigits(currency);
  return (Math.round(last.balance * scale) - Math.round(last.change * scale)) / scale;
}
