import { isCurrencyCode, MAX_MINOR } from '../lib/money';
import { accept, reject, waitFor, type SyncVerdict } from '../arrival-checks';
import type { AssetDoc, RecordDoc } from './schema';

/**
 * The ledger's rules for a record or an asset that comes from another device (docs/sync.md,
 * "Arrival checks"), as plain functions of the document and a lookup of assets:
 *
 * - Amounts are whole minor units within the exact range (±10^15, server/ledger/limits.ts):
 *   amount ≥ 1, fee and toAmount ≥ 0, and a transfer's amount + fee no more than 10^15.
 * - A record refers to assets of the same account; a transfer to two different ones, and one
 *   between two currencies says what arrived (toAmount).
 * - An asset that is not here yet is not a broken rule: assets and records replicate separately,
 *   in any order. Such a record waits (not counted anywhere) and is imported the moment its asset
 *   arrives. An asset id that belongs to another account here is broken for good.
 * - An asset's currency must be one PennyPost knows (every amount of the asset is read in its decimals).
 *
 * Every PennyPost's sync gate applies them to what arrives (arrival-checks.ts); the phone app
 * applies the same functions to what it is about to write, so whatever a phone writes is accepted
 * everywhere. Plain TypeScript without Node: server/architecture.test.ts keeps it that way.
 */

const minor = (value: number, min: number) => Number.isSafeInteger(value) && value >= min && value <= MAX_MINOR;
const RANGE = '±10^15 minor units, the largest amount PennyPost keeps exactly';

/** Finds an asset by id (here: the server's storage; on the phone: its local copy). */
export type AssetLookup = (id: string) => AssetDoc | undefined | Promise<AssetDoc | undefined>;

/** What the rules say of `doc`, a live (not deleted) record of the account `userId`. */
export async function recordVerdict(doc: RecordDoc, userId: string, assetOf: AssetLookup): Promise<SyncVerdict> {
  if (!minor(doc.amount, 1)) return reject(`the amount ${doc.amount} is not a whole number of minor units from 1 to 10^15 (${RANGE})`);
  if (!minor(doc.fee, 0)) return reject(`the fee ${doc.fee} is not a whole number of minor units from 0 to 10^15`);
  if (!minor(doc.toAmount, 0)) return reject(`the amount received (toAmount) ${doc.toAmount} is not a whole number of minor units from 0 to 10^15`);
  if (!doc.asset) return reject('a record needs its asset');
  const ids = [doc.asset];
  if (doc.type === 'transfer') {
    if (doc.amount + doc.fee > MAX_MINOR) return reject(`amount + fee of the transfer (${doc.amount + doc.fee}) is beyond ${RANGE}`);
    if (!doc.toAsset) return reject('a transfer needs the asset it goes to (toAsset)');
    if (doc.toAsset === doc.asset) return reject(`a transfer needs two different assets (both are ${doc.asset})`);
    ids.push(doc.toAsset);
  }
  const currencies: string[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    const asset = await assetOf(id);
    if (!asset) missing.push(id);
    else if (asset.userId !== userId) return reject(`the asset ${id} belongs to another account here`);
    else currencies.push(asset.currency);
  }
  if (missing.length > 0) {
    return waitFor(`waiting for the asset ${missing.join(' and ')}: it is not here (yet); the record is kept, counted nowhere, and imported as soon as the asset arrives`, [
      'assets',
    ]);
  }
  if (doc.type === 'transfer' && new Set(currencies).size > 1 && doc.toAmount === 0) {
    return reject(`a transfer from ${currencies.join(' to ')} needs the amount received (toAmount)`);
  }
  return accept;
}

/** What the rules say of `doc`, a live (not deleted) asset. */
export function assetVerdict(doc: AssetDoc): SyncVerdict {
  if (!isCurrencyCode(doc.currency)) return reject(`"${doc.currency}" is not a currency PennyPost knows (ISO 4217 code)`);
  if (!Number.isSafeInteger(doc.openingBalance) || Math.abs(doc.openingBalance) > MAX_MINOR) {
    return reject(`the opening balance ${doc.openingBalance} is not a whole number of minor units within ${RANGE}`);
  }
  return accept;
}
