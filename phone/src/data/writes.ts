import { newId } from '../../../server/lib/ids';
import { toMinor } from '../../../server/lib/money';
import { checkBalances, type BalanceEntry } from '../../../server/ledger/record-checks';
import { editedRecord, newRecord, recordTextProblems, withText, type RecordFields } from '../../../server/ledger/record-factory';
import { recordVerdict } from '../../../server/ledger/record-verdict';
import type { RecordDoc, RecordType } from '../../../server/ledger/schema';
import { nextPending, occurrenceImportKey, occurrenceRecordId } from '../../../server/planning/recurring-store';
import type { LedgerModel } from './ledger-model';
import type { PhoneLedger } from './phone-db';

/**
 * The phone's record writes, made with the desktop's own rules (docs/phone.md, "Same rules"): the
 * record factory (defaults, tags, searchText, text limits), the balance check (an asset that cannot
 * go below zero, the exact range) and the sync gate's verdict (amounts in minor units within range,
 * records on this ledger's assets, transfers between two different assets, the amount received
 * across currencies). So whatever the phone saves, every PennyPost accepts when it arrives.
 */

export class WriteRefused extends Error {}

export interface RecordInput {
  type: RecordType;
  /** Major units as typed ("12.5"). */
  amount: string;
  asset: string;
  toAsset?: string;
  /** Received in the target asset's currency, major units; needed between two currencies. */
  toAmount?: string;
  category?: string;
  description?: string;
  tags?: readonly string[];
  date: number;
}

function minorOf(text: string | undefined, currency: string, what: string): number {
  const value = Number((text ?? '').trim().replace(',', '.'));
  if (!text?.trim() || !Number.isFinite(value) || value <= 0) throw new WriteRefused(`${what}: enter an amount above zero`);
  try {
    return toMinor(value, currency, what);
  } catch (error) {
    throw new WriteRefused((error as Error).message);
  }
}

const balanceEntry = (doc: RecordDoc): BalanceEntry => ({ ...doc, tags: [...doc.tags] });

function fieldsOf(input: RecordInput, model: LedgerModel): RecordFields {
  const asset = model.assetById.get(input.asset);
  if (!asset) throw new WriteRefused('Choose an asset.');
  const fields: RecordFields = {
    type: input.type,
    amount: minorOf(input.amount, asset.currency, 'amount'),
    asset: asset.id,
    date: input.date,
    description: (input.description ?? '').trim(),
    tags: input.tags ?? [],
  };
  if (input.type === 'transfer') {
    const to = input.toAsset ? model.assetById.get(input.toAsset) : undefined;
    if (!to) throw new WriteRefused('Choose the asset the money goes to.');
    fields.toAsset = to.id;
    if (to.currency !== asset.currency) fields.toAmount = minorOf(input.toAmount, to.currency, 'amount received');
  } else {
    fields.category = input.category ?? '';
  }
  return fields;
}

/** Checks a record as the desktop and its sync gate would; throws WriteRefused with the reason in words. */
async function check(doc: RecordDoc, before: RecordDoc | undefined, model: LedgerModel, ownerId: string): Promise<void> {
  const problems = recordTextProblems(doc);
  if (problems.length > 0) throw new WriteRefused(problems.join('; '));
  const verdict = await recordVerdict(doc, ownerId, (id) => model.assetById.get(id));
  if (!verdict.ok) throw new WriteRefused(verdict.reason);
  try {
    checkBalances(model.view, before ? [balanceEntry(before)] : [], [balanceEntry(doc)]);
  } catch (error) {
    throw new WriteRefused((error as Error).message);
  }
}

export async function addRecord(ledger: PhoneLedger, model: LedgerModel, input: RecordInput): Promise<RecordDoc> {
  if (ledger.sync.revoked) throw new WriteRefused('This phone was disconnected from the ledger: it is read-only.');
  const now = Date.now();
  const doc = newRecord(fieldsOf(input, model), { id: newId(now), userId: ledger.pairing.owner, now });
  await check(doc, undefined, model, ledger.pairing.owner);
  await ledger.docs.records.insert(doc);
  ledger.noteWrite('records', doc.id);
  return doc;
}

export async function editRecord(ledger: PhoneLedger, model: LedgerModel, current: RecordDoc, input: RecordInput): Promise<RecordDoc> {
  if (ledger.sync.revoked) throw new WriteRefused('This phone was disconnected from the ledger: it is read-only.');
  const fields = fieldsOf(input, model);
  const base = editedRecord(current, Date.now());
  const doc = withText(
    {
      ...base,
      type: fields.type,
      amount: fields.amount,
      asset: fields.asset,
      toAsset: fields.toAsset ?? '',
      toAmount: fields.toAmount ?? 0,
      category: fields.category ?? '',
      date: fields.date,
    },
    { description: fields.description ?? '', tags: fields.tags ?? [] },
  );
  await check(doc, current, model, ledger.pairing.owner);
  await ledger.docs.records.upsert(doc);
  ledger.noteWrite('records', doc.id);
  return doc;
}

/**
 * Deletes a record as the desktop does: a deletion with its time (`updatedAt` of the delete), so a
 * later edit elsewhere wins over it and an earlier one loses (docs/sync.md, "Conflicts").
 */
export async function deleteRecord(ledger: PhoneLedger, current: RecordDoc): Promise<void> {
  if (ledger.sync.revoked) throw new WriteRefused('This phone was disconnected from the ledger: it is read-only.');
  const found = await ledger.docs.records.findOne(current.id).exec();
  if (!found) return;
  const stamped = await found.incrementalPatch({ updatedAt: Math.max(Date.now(), current.updatedAt + 1) });
  await stamped.remove();
  ledger.noteWrite('records', current.id);
}

/** Undo of a delete: the record comes back as a new edit (a later updatedAt), so it returns everywhere. */
export async function restoreRecord(ledger: PhoneLedger, deleted: RecordDoc): Promise<void> {
  const doc = editedRecord(deleted, Date.now());
  await ledger.docs.records.upsert(doc);
  ledger.noteWrite('records', doc.id);
}

/**
 * The one tap of a recurring item in `confirm` mode: writes the record of its next occurrence that
 * nobody handled yet, exactly as the desktop's recurring.confirm writes it — the same id and
 * importKey (from the item and the date), so the occurrence is written once wherever it is
 * confirmed — and moves the item's `doneThrough` to that date.
 */
export async function confirmOccurrence(ledger: PhoneLedger, model: LedgerModel, planId: string): Promise<RecordDoc> {
  if (ledger.sync.revoked) throw new WriteRefused('This phone was disconnected from the ledger: it is read-only.');
  const plan = model.plans.get(planId);
  if (plan?.kind !== 'recurring') throw new WriteRefused('This recurring item is not on the phone (any more).');
  const next = nextPending(plan);
  if (!next || next.at > Date.now()) throw new WriteRefused('Nothing of this item is due.');
  const id = occurrenceRecordId(plan.id, next.date);
  if (await ledger.docs.records.findOne(id).exec()) throw new WriteRefused('This occurrence is written already.');
  const t = plan.template;
  if (t.type === '') throw new WriteRefused('This recurring item has no record to write.');
  const now = Date.now();
  const fields: RecordFields = {
    type: t.type,
    amount: t.amount,
    asset: t.asset,
    date: next.at,
    // As on the desktop: an item without a description writes its name ("Netflix").
    description: t.description || plan.name,
    tags: t.tags,
    importKey: occurrenceImportKey(plan.id, next.date),
  };
  if (t.type === 'transfer') Object.assign(fields, { toAsset: t.toAsset, toAmount: t.toAmount, fee: t.fee });
  else fields.category = t.category;
  const doc = newRecord(fields, { id, userId: ledger.pairing.owner, now });
  await check(doc, undefined, model, ledger.pairing.owner);
  await ledger.docs.records.insert(doc);
  ledger.noteWrite('records', doc.id);
  const through = plan.doneThrough > next.date ? plan.doneThrough : next.date;
  await ledger.docs.plans.upsert({ ...plan, doneThrough: through, updatedAt: Math.max(now, plan.updatedAt + 1) });
  ledger.noteWrite('plans', plan.id);
  return doc;
}
