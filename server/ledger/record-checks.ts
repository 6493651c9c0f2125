import type { AttachmentView } from '../files/public';
import { newId } from '../lib/ids';
import { inRange, MAX_MINOR, outOfRangeError, toMajor, toMinor } from '../lib/money';
import type { CategoryService } from './categories';
import { ledgerErrors } from './errors';
import { assertLedgerInRange } from './limits';
import { editedRecord, newRecord, withText } from './record-factory';
import { NEGATIVE_ALLOWED, RECORD_TYPES, type AssetDoc, type RecordDoc, type RecordType } from './schema';
import { effectsOf, type Entry, type UserLedgerView } from './views';

/**
 * The checks of a record write (docs/ledger.md): its type, amounts in the asset's minor units, live
 * assets, transfers between two assets (across currencies with the amount received or a rate),
 * categories, tags and attachments, and the balance check (2002).
 */

/** An attached file as a record's details show it (the files domain describes it). */
export type AttachmentInfo = AttachmentView;

/** What the files domain offers the ledger (server/files). Optional: the ledger works without it. */
export interface FileAttachments {
  assertOwned(userId: string, fileIds: string[]): Promise<void>;
  describe(userId: string, fileIds: string[]): Promise<AttachmentInfo[]>;
}

export interface RecordInput {
  type: string;
  amount?: number;
  asset?: string;
  fromAsset?: string;
  toAsset?: string;
  fee?: number;
  toAmount?: number;
  category?: string;
  description?: string;
  date?: number;
  tags?: string[];
  attachments?: string[];
}

export interface RecordPatch {
  id: string;
  amount?: number;
  description?: string;
  category?: string;
  date?: number;
  tags?: string[];
  asset?: string;
  fromAsset?: string;
  toAsset?: string;
  fee?: number;
  toAmount?: number;
  attachments?: string[];
  expectedUpdatedAt?: number;
}

/** What building a record needs besides the user's view. */
export interface RecordContext {
  /** The time of the write (ms). */
  now: number;
  categories: Pick<CategoryService, 'resolve' | 'fallbackName'>;
  /** The attachments, deduplicated, once they are known to be the user's files. */
  checkAttachments(ids: string[]): Promise<string[]>;
}

/** A live (not deleted) asset of this user, or 2001 blaming `field`. */
export function liveAsset(view: UserLedgerView, id: string, field = 'asset'): AssetDoc {
  const asset = view.assets.get(id);
  if (!asset || asset.delFlag) throw ledgerErrors.assetNotFound(field).at(field);
  return asset;
}

export function checkRecordType(type: string): RecordType {
  if (!(RECORD_TYPES as readonly string[]).includes(type)) {
    throw ledgerErrors.invalidRecordType(type).at('type');
  }
  return type as RecordType;
}

/** A positive amount in minor units, or 3003 blaming `field`. */
export function positiveMinor(amount: number, currency: string, field: string): number {
  if (typeof amount !== 'number' || !(amount > 0)) {
    throw ledgerErrors.invalidAmount(field).at(field);
  }
  return toMinor(amount, currency, field);
}

/** What the balance check reads of a record (a stored record or a view's entry). */
export type BalanceEntry = Omit<Entry, 'textId'>;

/**
 * The balance checks of every record write: refuses a change that would take a balance beyond
 * the exact range (±10^15 minor units, 3003) — always — and, unless `allowBelowZero` (a bill that
 * was paid: recurring occurrences, inbox notices), one that would leave an asset that cannot go
 * negative below zero and lower than it was (2002). `before` entries are taken out, `after` put in.
 */
export function checkBalances(view: UserLedgerView, before: BalanceEntry[], after: BalanceEntry[], { allowBelowZero = false } = {}): void {
  assertLedgerInRange(view, { removed: before, records: after }, 'amount');
  if (allowBelowZero) return;
  const delta = new Map<string, number>();
  for (const entry of before) for (const [asset, d] of effectsOf(entry)) delta.set(asset, (delta.get(asset) ?? 0) - d);
  for (const entry of after) for (const [asset, d] of effectsOf(entry)) delta.set(asset, (delta.get(asset) ?? 0) + d);
  for (const [assetId, d] of delta) {
    if (d >= 0) continue;
    const asset = view.assets.get(assetId);
    if (!asset || NEGATIVE_ALLOWED.has(asset.type)) continue;
    const now = view.exactBalanceOf(assetId);
    const next = now + BigInt(d);
    if (next < 0n) {
      throw ledgerErrors
        .insufficientBalance(asset.name, toMajor(now, asset.currency), toMajor(-d, asset.currency), asset.currency)
        .with({ assetId, balance: toMajor(now, asset.currency) });
    }
  }
}

/** Builds the stored record from an input, checking all of it; `current` for updates. */
export async function buildRecord(context: RecordContext, userId: string, view: UserLedgerView, input: RecordInput, current?: RecordDoc): Promise<RecordDoc> {
  const type = checkRecordType(input.type);
  const now = context.now;
  // The record factory makes the stored shape (defaults, tags, searchText, updatedAt): record-factory.ts.
  const doc: RecordDoc = current ? editedRecord(current, now) : newRecord({ type, amount: 0, asset: '', date: now }, { id: newId(now), userId, now });
  if (type === 'transfer') {
    if (input.category !== undefined && input.category !== '') throw ledgerErrors.transferWithCategory().at('category');
    const fromId = input.fromAsset ?? input.asset ?? current?.asset;
    const toId = input.toAsset ?? current?.toAsset;
    if (!fromId) throw ledgerErrors.requiredForTransfer('fromAsset').at('fromAsset');
    if (!toId) throw ledgerErrors.requiredForTransfer('toAsset').at('toAsset');
    if (fromId === toId) throw ledgerErrors.sameAssetTransfer().at('toAsset');
    const from = liveAsset(view, fromId, 'fromAsset');
    const to = liveAsset(view, toId, 'toAsset');
    // An edit that moves a transfer to assets of the same currencies keeps the amount received;
    // only a change of currency (or of the amount or date, below) converts it anew.
    const oldFrom = current && view.assets.get(current.asset)?.currency;
    const oldTo = current && view.assets.get(current.toAsset)?.currency;
    const currencyChanged = !current || oldFrom !== from.currency || oldTo !== to.currency;
    doc.asset = from.id;
    doc.toAsset = to.id;
    // Kept amounts move to another currency's decimals as the same major value (like income/expense).
    const rescale = (minor: number, field: string) => (oldFrom && oldFrom !== from.currency ? toMinor(toMajor(minor, oldFrom), from.currency, field) : minor);
    if (input.amount !== undefined || !current) doc.amount = positiveMinor(input.amount as number, from.currency, 'amount');
    else doc.amount = rescale(doc.amount, 'amount');
    if (input.fee !== undefined) {
      if (!(input.fee >= 0)) throw ledgerErrors.negativeFee('fee').at('fee');
      doc.fee = toMinor(input.fee, from.currency, 'fee');
    } else doc.fee = rescale(doc.fee, 'fee');
    if (doc.amount + doc.fee > MAX_MINOR) throw outOfRangeError('amount + fee', from.currency, input.fee !== undefined ? 'fee' : 'amount');
    if (from.currency === to.currency) {
      if (input.toAmount !== undefined && toMinor(input.toAmount, to.currency, 'toAmount') !== doc.amount) {
        throw ledgerErrors.toAmountNotAmount('toAmount').at('toAmount');
      }
      doc.toAmount = 0;
    } else if (input.toAmount !== undefined) {
      doc.toAmount = positiveMinor(input.toAmount, to.currency, 'toAmount');
    } else if (currencyChanged || input.amount !== undefined || input.date !== undefined) {
      const exact = view.rates.convertExact(doc.amount, from.currency, to.currency, input.date ?? doc.date);
      if (exact !== undefined && !inRange(exact)) throw outOfRangeError('The amount received (converted at the exchange rate)', to.currency, 'toAmount');
      const converted = exact === undefined ? undefined : Number(exact);
      if (converted === undefined || converted <= 0) {
        throw ledgerErrors.toAmountNeeded('toAmount', from.currency, to.currency).at('toAmount');
      }
      doc.toAmount = converted;
    }
    doc.category = '';
  } else {
    if (input.fromAsset !== undefined || input.toAsset !== undefined || input.fee !== undefined || input.toAmount !== undefined) {
      throw ledgerErrors.transferFieldsOnly(type);
    }
    const assetId = input.asset ?? current?.asset;
    if (!assetId) throw ledgerErrors.required('asset').at('asset');
    const asset = liveAsset(view, assetId);
    doc.asset = asset.id;
    if (input.amount !== undefined || !current) doc.amount = positiveMinor(input.amount as number, asset.currency, 'amount');
    else if (current.asset !== asset.id) doc.amount = toMinor(toMajor(current.amount, view.assets.get(current.asset)?.currency ?? asset.currency), asset.currency, 'amount');
    if (input.category !== undefined) doc.category = await context.categories.resolve(userId, type, input.category);
    else if (!current) doc.category = await context.categories.fallbackName(userId, type);
  }
  if (input.date !== undefined) doc.date = input.date;
  if (input.attachments !== undefined) doc.attachments = await context.checkAttachments(input.attachments);
  return withText(doc, { description: input.description, tags: input.tags });
}
