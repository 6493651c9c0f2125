import type { AppContext } from '../app-context';
import { accept, registerArrivalCheck, type ArrivalCheckContext, type SyncVerdict } from '../arrival-checks';
import { assetVerdict, recordVerdict } from './record-verdict';
import type { AssetDoc, RecordDoc } from './schema';

/**
 * The ledger's checks of documents that arrive by sync (docs/sync.md, "Arrival checks"): the rules
 * of record-verdict.ts (the same the phone app applies before it writes), with this server's
 * assets as the lookup. Deleting a record or an asset is always allowed (balances just lose its effect).
 */

export function registerLedgerArrivalChecks(app: AppContext): void {
  registerArrivalCheck<RecordDoc>(app, 'records', validateSyncedRecord);
  registerArrivalCheck<AssetDoc>(app, 'assets', validateSyncedAsset);
}

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

async function validateSyncedRecord(doc: RecordDoc, ctx: ArrivalCheckContext): Promise<SyncVerdict> {
  if (ctx.deleted) return accept;
  return recordVerdict(doc, ctx.userId, (id) => assetOf(ctx, id));
}

function validateSyncedAsset(doc: AssetDoc, ctx: ArrivalCheckContext): SyncVerdict {
  if (ctx.deleted) return accept;
  return assetVerdict(doc);
}
