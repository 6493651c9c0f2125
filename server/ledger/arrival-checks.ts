import type { AppContext } from '../app-context';
import { isCurrencyCode, MAX_MINOR } from '../lib/money';
import { accept, registerArrivalCheck, reject, waitFor, type ArrivalCheckContext, type SyncVerdict } from '../arrival-checks';
import type { AssetDoc, RecordDoc } from './schema';

/**
 * The ledger's checks of documents that arrive by sync (docs/sync.md, "Arrival checks"): the same
 * rules the API applies when a record is written here, as far as they concern what a record
 * does to balances.
 *
 * - Amounts are whole minor units within the exact range (±10^15, server/ledger/limits.ts):
 *   amount ≥ 1, fee and toAmount ≥ 0, and a transfer's amount + fee no more than 10^15.
 * - A record refers to assets of the same account; a transfer to two different ones, and one
 *   between two currencies says what arrived (toAmount).
 * - An asset that is not here yet is not a broken rule: assets and records replicate separately,
 *   in any order. Such a record waits (not counted anywhere) and is imported the moment its asset
 *   arrives. An asset id that belongs to another account here is broken for good.
 * - Deleting a record is always allowed (balances just lose its effect); an asset's currency
 *   must be one PennyPost knows (every amount of the asset is read in its decimals).
 */

export function registerLedgerArrivalChecks(app: AppContext): void {
  registerArrivalCheck<RecordDoc>(app, 'records', validateSyncedRecord);
  registerArrivalCheck<AssetDoc>(app, 'assets', validateSyncedAsset);
}

const minor = (value: number, min: number) => Number.isSafeInteger(value) && value >= min && value <= MAX_MINOR;
const RANGE = '±10^15 minor units, the largest amount PennyPost keeps exactly';

/** Assets found here, per account (only hits: a missing asset may arrive any moment). */
async function assetOf(ctx: ArrivalCheckContext, id: string): Promise<AssetDoc | undefined> {
  let known = ctx.scratch.get('assets') as Map<string, AssetDoc> | undefined;
  if (!known) ctx.scratch.set('assets', (known = new Map()));
  const hit = known.get(id);
  if (hit) return hit;
  const found = (await ctx.app.db.collection<AssetDoc>('assets').storageInstance.findDocumentsById([id], false)).at(0);
  if (found) known.set(id, found);
  return found;
}

export async function validateSyncedRecord(doc: RecordDoc, ctx: ArrivalCheckContext): Promise<SyncVerdict> {
  if (ctx.deleted) return accept;
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
  const assets: AssetDoc[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    const asset = await assetOf(ctx, id);
    if (!asset) missing.push(id);
    else if (asset.userId !== ctx.userId) return reject(`the asset ${id} belongs to another account here`);
    else assets.push(asset);
  }
  if (missing.length > 0) {
    return waitFor(`waiting for the asset ${missing.join(' and ')}: it is not here (yet); the record is kept, counted nowhere, and imported as soon as the asset arrives`, [
      'assets',
    ]);
  }
  if (doc.type === 'transfer' && assets[0].currency !== assets[1].currency && doc.toAmount === 0) {
    return reject(`a transfer from ${assets[0].currency} to ${assets[1].currency} needs the amount received (toAmount)`);
  }
  return accept;
}

export function validateSyncedAsset(doc: AssetDoc, ctx: ArrivalCheckContext): SyncVerdict {
  if (ctx.deleted) return accept;
  if (!isCurrencyCode(doc.currency)) return reject(`"${doc.currency}" is not a currency PennyPost knows (ISO 4217 code)`);
  if (!Number.isSafeInteger(doc.openingBalance) || Math.abs(doc.openingBalance) > MAX_MINOR) {
    return reject(`the opening balance ${doc.openingBalance} is not a whole number of minor units within ${RANGE}`);
  }
  return accept;
}
