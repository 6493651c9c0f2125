import { toMajor } from '../lib/money';
import type { AssetDoc, RecordDoc } from './schema';
import type { RecordView } from './record-shapes';
import type { AssetView } from './result-shapes';

export type { RecordView } from './record-shapes';
export type { AssetView } from './result-shapes';
import type { Entry, UserLedgerView } from './views';

/**
 * How assets and records are shown to callers: money in the major units of its currency, balances
 * derived from the user's view.
 */

const RECURRING_KEY = /^recurring:(.+):(\d{4}-\d{2}-\d{2})$/;

/** An asset with its live balance (and its record count with `withCount`). */
export function assetView(view: UserLedgerView, doc: AssetDoc, withCount = false): AssetView {
  const result: AssetView = {
    _id: doc.id,
    id: doc.id,
    name: doc.name,
    type: doc.type,
    balance: toMajor(view.exactBalanceOf(doc.id), doc.currency),
    openingBalance: toMajor(doc.openingBalance, doc.currency),
    currency: doc.currency,
    description: doc.description,
    status: doc.status,
    icon: doc.icon,
    isDefault: doc.isDefault,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    delFlag: doc.delFlag,
  };
  if (withCount) result.recordCount = view.recordCountOf(doc.id);
  if (!view.balanceInRange(doc.id)) result.inexact = ['balance'];
  return result;
}

/** A record as the actions answer it; transfers add their target, fee and amount received. */
export function recordView(view: UserLedgerView, doc: RecordDoc | (Entry & Partial<RecordDoc>)): RecordView {
  const asset = view.assets.get(doc.asset);
  const currency = asset?.currency ?? 'USD';
  const base: RecordView = {
    id: doc.id,
    type: doc.type,
    amount: toMajor(doc.amount, currency),
    currency,
    category: doc.category,
    asset: doc.asset,
    assetName: asset?.name ?? '(unknown asset)',
    description: doc.description ?? '',
    date: doc.date,
    tags: doc.tags,
    attachments: doc.attachments ?? [],
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt ?? 0,
  };
  const recurring = doc.importKey ? RECURRING_KEY.exec(doc.importKey) : null;
  if (recurring) {
    base.recurringId = recurring[1];
    base.occurrence = recurring[2];
  }
  if (doc.type === 'transfer') {
    const target = view.assets.get(doc.toAsset);
    const toCurrency = target?.currency ?? currency;
    base.fromAsset = doc.asset;
    base.toAsset = doc.toAsset;
    base.toAssetName = target?.name ?? '(unknown asset)';
    base.fee = toMajor(doc.fee, currency);
    base.toAmount = toMajor(doc.toAmount > 0 ? doc.toAmount : doc.amount, toCurrency);
    base.toCurrency = toCurrency;
  }
  return base;
}
