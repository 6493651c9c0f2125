import type { ActionErrorDoc } from '../api/action';
import { commonErrors } from '../lib/errors';
import { inRange, MAX_MINOR, outOfRangeError, toMajor } from '../lib/money';
import { ledgerErrors } from './errors';
import type { AssetDoc, RecordDoc } from './schema';
import { effectsOf, type UserLedgerView } from './views';

/**
 * The exact range of the ledger (docs/ledger.md, "Exact amounts and their limits"): every amount
 * and every balance stays within ±10^15 minor units of its currency (MAX_MINOR). A write that
 * would take a balance beyond it, or further beyond it than it already is, is refused with a 400
 * naming the limit in the currency's major units.
 */

/** How the actions document the 400 of the exact range (docs/ledger.md, "Exact amounts and their limits"). */
export const OUT_OF_RANGE_ERROR: ActionErrorDoc = [
  commonErrors.rows.invalid,
  'an amount or the resulting balance of an asset beyond ±10^15 minor units (10,000,000,000,000.00 with 2 decimals), the exact range: `data.limit`, `data.currency`',
];

export type RangeRecord = Pick<RecordDoc, 'id' | 'type' | 'amount' | 'asset' | 'toAsset' | 'toAmount' | 'fee'>;
export type RangeAsset = Pick<AssetDoc, 'id' | 'name' | 'currency' | 'openingBalance'>;

/** One write (or one batch: an import, a restore) as the range check sees it. */
export interface LedgerChange {
  /** Records written (new ones, or the new version of updated ones). */
  records?: readonly RangeRecord[];
  /** Records taken out (deleted ones, or the old version of updated ones). */
  removed?: readonly RangeRecord[];
  /** Assets created or whose opening balance changes (new assets: not yet in the view). */
  assets?: readonly RangeAsset[];
}

const abs = (v: bigint) => (v < 0n ? -v : v);

/**
 * Refuses (400, `outOfRangeError`) a change of one user's ledger that would leave any amount or
 * any asset balance outside ±10^15 minor units — the check behind every write of the ledger:
 * records (create, update, delete), transfers (amount + fee, toAmount), opening balances, and
 * the batches of accounting.importCsv and ledger.restore (call it with all their assets and
 * records before writing anything; the whole batch is then refused or accepted).
 *
 * Balances are computed exactly (BigInt) from the user's view plus the change. A balance already
 * beyond the range (records that arrived by sync) may move back towards it, never further out.
 * `field` (domain terms: 'amount', 'csv') goes into the error's `data.field`.
 */
export function assertLedgerInRange(view: UserLedgerView, change: LedgerChange, field: string): void {
  const newAssets = new Map((change.assets ?? []).map((a) => [a.id, a]));
  const assetOf = (id: string): RangeAsset | undefined => newAssets.get(id) ?? view.assets.get(id);
  const currencyOf = (id: string) => assetOf(id)?.currency ?? 'USD';

  const records = change.records ?? [];
  for (const record of records) {
    const source = currencyOf(record.asset);
    const label = records.length > 1 ? `Record ${record.id}: ` : '';
    for (const [name, value] of [
      ['amount', record.amount],
      ['fee', record.fee],
    ] as const) {
      if (!Number.isSafeInteger(value) || value < 0 || value > MAX_MINOR) throw outOfRangeError(`${label}the ${name}`, source, field, { recordId: record.id });
    }
    if (record.type === 'transfer') {
      if (record.amount + record.fee > MAX_MINOR) throw outOfRangeError(`${label}amount + fee`, source, field, { recordId: record.id });
      const target = currencyOf(record.toAsset);
      if (!Number.isSafeInteger(record.toAmount) || record.toAmount < 0 || record.toAmount > MAX_MINOR) {
        throw outOfRangeError(`${label}the amount received`, target, field, { recordId: record.id });
      }
    }
  }

  const delta = new Map<string, bigint>();
  const add = (asset: string, d: bigint) => delta.set(asset, (delta.get(asset) ?? 0n) + d);
  for (const record of change.records ?? []) for (const [asset, d] of effectsOf(record)) add(asset, BigInt(d));
  for (const record of change.removed ?? []) for (const [asset, d] of effectsOf(record)) add(asset, -BigInt(d));
  for (const asset of change.assets ?? []) {
    if (!Number.isSafeInteger(asset.openingBalance)) {
      throw ledgerErrors.openingBalanceNotWhole(asset.name).with({ field, assetId: asset.id });
    }
    add(asset.id, BigInt(asset.openingBalance) - BigInt(view.assets.get(asset.id)?.openingBalance ?? 0));
  }

  for (const [assetId, d] of delta) {
    if (d === 0n) continue;
    const now = view.exactBalanceOf(assetId);
    const next = now + d;
    if (inRange(next) || abs(next) <= abs(now)) continue;
    const asset = assetOf(assetId);
    const currency = asset?.currency ?? 'USD';
    throw outOfRangeError(`The balance of ${asset?.name ?? assetId} (${toMajor(next, currency)} ${currency} after this change)`, currency, field, {
      assetId,
      balance: toMajor(now, currency),
    });
  }
}
