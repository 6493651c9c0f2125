import { createHash } from 'node:crypto';
import { formatMajor, toMinor } from '../../lib/money';
import type { AssetDoc, RecordDoc } from '../../ledger/public';
import { lowerBoundByDate, newRecord, RECORD_TEXT, recordTextProblems, type UserLedgerView } from '../../ledger/public';
import type { ParsedStatement, StatementFormat, StatementLine } from '../formats/types';
import { categoryKey, ruledCategory } from '../category-names';
import { defaultKeyOf, sourceCategoryKey } from '../source-categories';
import type { RuleBook } from '../rules/rule-matcher';
import type { RuleApplication } from '../rules/rule-types';
import type { ImportLineView } from '../result-shapes';
import { classify, closedIds, SKIP_TEXT, type OriginalState, type SkipReason } from './classify';
import { nameKey } from '../../lib/fold-text';

/** Longest text a record keeps (the ledger's limit). */
export const DESCRIPTION_MAX = RECORD_TEXT.description;
/** How long the rules of one import may take in all (docs/import.md, "Budgets"); past it the import is refused (RulesTooSlow). */
export const RULE_BUDGET_MS = 30_000;
/** Planning gives the server's thread back at least this often. */
export const SLICE_MS = 20;
/** A payment in two files is "likely the same" when the dates are this close (a bank books a card payment a day or two later). */
export const LIKELY_DAYS = 3;

/** One line of the file and what the import does with it. */
export interface PlannedLine {
  line: number;
  /** What the preview shows and the commit writes (id, createdAt and updatedAt are set when it is written). */
  doc: RecordDoc;
  payee: string;
  externalId: string;
  status: StatementLine['status'];
  direction: StatementLine['direction'];
  rules: RuleApplication[];
  refund: boolean;
  /** 'create' | 'duplicate' (imported before: never written again) | 'likely' (a record that looks the same is in the ledger) | 'skip' (status rules). */
  outcome: 'create' | 'duplicate' | 'likely' | 'skip';
  reason: string;
  skipReason?: SkipReason;
  /** The ledger record this line looks like (outcome 'likely') or is (when known). */
  matchId?: string;
  /** A skipped line in another currency than its asset (it cannot be included): that currency. */
  foreignCurrency?: string;
  /** The source's own category (交易分类…), for learning from the person's corrections. */
  sourceCategory?: string;
}

export interface InvalidPlanLine {
  line: number;
  kind: string;
  reason: string;
}

export interface Plan {
  format: StatementFormat;
  account?: string;
  lines: PlannedLine[];
  invalid: InvalidPlanLine[];
  newCategories: Array<{ type: 'income' | 'expense'; name: string }>;
  /** Lines that go to the asset chosen for the file: in its currency, and in another. */
  chosenAsset?: { matched: number; mismatched: number };
  /** The file's dates read as real dates in more than one order (QIF): the order used and those possible. */
  dateOrder?: ParsedStatement['dateOrder'];
}

export interface PlanContext {
  userId: string;
  format: StatementFormat;
  now: number;
  view: UserLedgerView;
  asset: AssetDoc;
  rules: RuleBook;
  /** Live categories by `${type}:${normalised name}` → name. */
  categories: Map<string, string>;
  fallback: { income: string; expense: string };
  refundCategory?: string;
  importedKeys: { has(key: string): boolean };
  /** Stored importKeys of ledger records (fetched for likely-duplicate candidates only). */
  importKeysOf(ids: string[]): Promise<Map<string, string>>;
  /** The rules' time budget for this import (default RULE_BUDGET_MS). */
  ruleBudgetMs?: number;
  /**
   * How source categories become the person's: `learned` (`${type}:${sourceCategoryKey}` → a
   * category the person chose for it before) and `defaults` (`${type}:${default key}` → the
   * person's category of that default, renamed or not).
   */
  sourceCategories?: { learned: ReadonlyMap<string, string>; defaults: ReadonlyMap<string, string> };
}

/**
 * The person's category for a source's category (交易分类, a QIF L, a bank's category column), in
 * this order: the one they chose for it in an earlier import; one of theirs with its very name;
 * the default category it is (餐饮美食 → the person's 餐饮 / Food, wherever renamed:
 * source-categories.ts). Undefined when none.
 */
function categoryFromSource(source: string | undefined, type: 'income' | 'expense', ctx: PlanContext): string | undefined {
  if (!source) return undefined;
  const learned = ctx.sourceCategories?.learned.get(`${type}:${sourceCategoryKey(source)}`);
  const live = learned === undefined ? undefined : ctx.categories.get(categoryKey(type, learned));
  if (live) return live;
  const named = ctx.categories.get(categoryKey(type, source));
  if (named) return named;
  const key = defaultKeyOf(type, source);
  return key === undefined ? undefined : ctx.sourceCategories?.defaults.get(`${type}:${key}`);
}

/** The length of a text in characters (code points), counted only as far as `limit` + 1. */
function charactersUpTo(text: string, limit: number): number {
  if (text.length <= limit) return Array.from(text).length;
  let count = 0;
  for (let i = 0; i < text.length && count <= limit; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) i++;
    count++;
  }
  return count;
}

const hash = (text: string, length = 32) => createHash('sha256').update(text).digest('base64url').slice(0, length);

/** Formats whose transaction ids are unique across all of a person's accounts (the payment app's order numbers). */
const GLOBAL_IDS: ReadonlySet<StatementFormat> = new Set(['alipay', 'wechat']);

/**
 * The idempotency key of a transaction id. A payment app's order number is unique on its own; a
 * bank's id (OFX FITID, CAMT reference, a CSV id column) only within its account, so the key also
 * names the account: the file's account number, else the asset chosen for the import.
 */
export function idKey(format: StatementFormat, externalId: string, scope: string): string {
  const prefix = GLOBAL_IDS.has(format) ? `${format}:` : `${format}:${hash(scope, 8)}:`;
  return externalId.length + prefix.length <= 80 ? `${prefix}${externalId}` : `${prefix}#${hash(externalId)}`;
}

/** The latest instant a record may carry (the schema's Ms bound). */
const LAST_INSTANT = 8.64e15;

/** The asset a line belongs to: the one whose name carries the card's last digits or is the payment method's name, else the chosen asset. */
function assetFor(line: StatementLine, ctx: PlanContext, byName: Map<string, AssetDoc>, byTail: Map<string, AssetDoc | null>): AssetDoc {
  if (line.cardTail) {
    const found = byTail.get(line.cardTail);
    if (found) return found;
  }
  if (line.method) {
    const found = byName.get(methodName(line.method));
    if (found) return found;
  }
  return ctx.asset;
}

/**
 * A payment method as an asset's name: without the card number in brackets and without what was
 * added to the payment after `&` (`花呗&优惠`, `招商银行信用卡(1234)&红包`: a discount or a red
 * packet paid part of it, the method is 花呗 or the card).
 */
export function methodName(method: string): string {
  return method
    .replace(/[&＆].*$/, '')
    .replace(/[(（].*$/, '')
    .normalize('NFKC')
    .trim()
    .toLowerCase();
}

/** The ledger's description: "payee — what" (either alone when the other is empty or the same). */
export function describe(payee: string, description: string): string {
  if (!payee) return description;
  if (!description || description === payee) return payee;
  return `${payee} — ${description}`;
}

/**
 * Turns a parsed statement into what the import would do, line by line: the status rules
 * (classify.ts), the asset of each line, the rules, the category, the idempotency key, and the
 * duplicate checks — exact (this payment was imported before: its key is in the ledger) and likely
 * (a record with the same asset, type and amount within LIKELY_DAYS is in the ledger and did not
 * come from this source: the same payment seen through another file, or typed in by hand).
 */
export async function planImport(statement: ParsedStatement, ctx: PlanContext): Promise<Plan> {
  const live = [...ctx.view.assets.values()].filter((a) => !a.delFlag);
  const byName = new Map(live.map((a) => [nameKey(a.name), a]));
  const byTail = new Map<string, AssetDoc | null>();
  for (const asset of live) {
    for (const tail of new Set(`${asset.name} ${asset.description}`.match(/(?<!\d)\d{4}(?!\d)/g) ?? [])) byTail.set(tail, byTail.has(tail) ? null : asset);
  }
  const closed = closedIds(statement.lines);
  const scopeOf = (line: StatementLine) => line.method ?? statement.account ?? ctx.asset.id;
  const payments = new Set(statement.lines.filter((l) => l.status === 'done' && l.externalId).map((l) => l.externalId));
  // Where the payment a refund refunds stands: booked (in the ledger already, or booked by this
  // file), closed in this file (so never booked), or nowhere to be seen.
  const originalOf = (line: StatementLine): OriginalState => {
    const id = line.originalId;
    if (!id) return 'unknown';
    if (ctx.importedKeys.has(idKey(ctx.format, id, scopeOf(line)))) return 'booked';
    if (closed.has(id)) return 'closed';
    return payments.has(id) ? 'booked' : 'missing';
  };
  const occurrences = new Map<string, number>();
  const invalid: InvalidPlanLine[] = statement.invalid.map((i) => ({ line: i.line, kind: i.kind, reason: i.reason }));
  const lines: PlannedLine[] = [];
  const newCategories = new Map<string, { type: 'income' | 'expense'; name: string }>();

  let mismatchedOnChosen = 0;
  let matchedOnChosen = 0;
  const rules = ctx.rules.runner({ budgetMs: ctx.ruleBudgetMs ?? RULE_BUDGET_MS, sliceMs: SLICE_MS });
  for (const line of statement.lines) {
    await rules.pause();
    // Text over the ledger's limit is refused before any rule reads it (a rule takes time per character).
    const described = describe(line.payee, line.description);
    if (charactersUpTo(described, DESCRIPTION_MAX) > DESCRIPTION_MAX) {
      invalid.push({
        line: line.line,
        kind: 'tooLong',
        reason: `the description ("payee — text") has more than ${DESCRIPTION_MAX} characters, the most a record keeps: the line is left out (rules were not run on it)`,
      });
      continue;
    }
    if (!Number.isFinite(line.date) || line.date < 0 || line.date > LAST_INSTANT) {
      invalid.push({ line: line.line, kind: 'badDate', reason: 'the date is outside what PennyPost can keep (1970 to the year 275,000)' });
      continue;
    }
    const asset = assetFor(line, ctx, byName, byTail);
    const decision = classify(line, originalOf(line));
    // A line in another currency than its asset cannot be written there. One the status rules
    // skip anyway stays skipped (and cannot be included); one to create is invalid, and counted:
    // when the chosen asset is in another currency than the whole file, the preview says so once
    // (import-service.ts, imports.wrongAsset) instead of listing every line.
    const foreign = line.currency !== undefined && line.currency.toUpperCase() !== asset.currency ? line.currency.toUpperCase() : undefined;
    if (foreign !== undefined && asset.id === ctx.asset.id) mismatchedOnChosen++;
    else if (asset.id === ctx.asset.id) matchedOnChosen++;
    if (foreign !== undefined && decision.kind === 'create') {
      invalid.push({
        line: line.line,
        kind: 'currencyMismatch',
        reason: `the amount is in ${line.currency ?? ''} but ${asset.name} keeps ${asset.currency}: choose an asset in ${line.currency ?? ''}`,
      });
      continue;
    }
    let amount: number;
    try {
      amount = toMinor(Number(line.amount), foreign ?? asset.currency);
    } catch (error) {
      invalid.push({ line: line.line, kind: 'badAmount', reason: `amount ${line.amount}: ${(error as Error).message}` });
      continue;
    }
    const type = decision.kind === 'create' ? decision.type : line.direction === 'income' ? 'income' : 'expense';
    const outcome = await rules.run({ description: described, payee: line.payee, amount: Number(line.amount), assetId: asset.id });
    const ruled = ruledCategory(outcome, type, ctx.categories);
    outcome.applied = ruled.applied;
    let category: string;
    if (ruled.category) category = ruled.category;
    // Money back is income: the account's Refund category (退款), not the payment's expense category.
    else if (decision.kind === 'create' && decision.refund) category = ctx.refundCategory ?? ctx.fallback.income;
    else category = categoryFromSource(line.sourceCategory, type, ctx) ?? ctx.fallback[type];
    if (!category) {
      category = 'Other';
      newCategories.set(categoryKey(type, category), { type, name: category });
    }
    const description = outcome.set.description ?? described;
    const tags = outcome.set.tags ?? [];
    const problems = recordTextProblems({ description, tags });
    if (problems.length > 0) {
      invalid.push({ line: line.line, kind: 'tooLong', reason: problems.join('; ') });
      continue;
    }
    // The idempotency key: the source's own id, else the line's content (+ how many identical lines came before it).
    const base = line.externalId
      ? idKey(ctx.format, line.externalId, scopeOf(line))
      : `${ctx.format}:~${hash([asset.id, line.date, line.amount, line.direction, line.status, line.payee, line.description].join('\u0001'))}`;
    const seen = occurrences.get(base) ?? 0;
    occurrences.set(base, seen + 1);
    const importKey = seen === 0 ? base : `${base}#${seen}`;
    const doc: RecordDoc = newRecord({ type, amount, asset: asset.id, category, description, date: line.date, tags, importKey }, { id: '', userId: ctx.userId, now: ctx.now });
    const planned: PlannedLine = {
      line: line.line,
      doc,
      payee: line.payee,
      externalId: line.externalId,
      status: line.status,
      direction: line.direction,
      rules: outcome.applied,
      refund: decision.kind === 'create' && decision.refund,
      outcome: 'create',
      reason: '',
      ...(foreign !== undefined ? { foreignCurrency: foreign } : {}),
      ...(line.sourceCategory ? { sourceCategory: line.sourceCategory } : {}),
    };
    if (ctx.importedKeys.has(importKey)) {
      planned.outcome = 'duplicate';
      planned.reason = 'imported before: this payment is already in your ledger';
    } else if (decision.kind === 'skip') {
      planned.outcome = 'skip';
      planned.skipReason = decision.reason;
      planned.reason = SKIP_TEXT[decision.reason];
    }
    lines.push(planned);
  }
  await markLikelyDuplicates(lines, ctx);
  return {
    format: statement.format,
    account: statement.account,
    lines,
    invalid: invalid.sort((a, b) => a.line - b.line),
    newCategories: [...newCategories.values()],
    chosenAsset: { matched: matchedOnChosen, mismatched: mismatchedOnChosen },
    ...(statement.dateOrder ? { dateOrder: statement.dateOrder } : {}),
  };
}

/**
 * Lines to create that look like a record already in the ledger (same asset, type and amount, at
 * most LIKELY_DAYS apart) become 'likely' duplicates, each ledger record claimed by one line at
 * most. A record that came from this same source with its own id is a different payment (two
 * coffees), not a duplicate.
 */
export async function markLikelyDuplicates(lines: PlannedLine[], ctx: Pick<PlanContext, 'view' | 'format' | 'importKeysOf'>): Promise<void> {
  const wanted = new Map<string, PlannedLine[]>();
  for (const planned of lines) {
    if (planned.outcome !== 'create') continue;
    const key = `${planned.doc.asset}|${planned.doc.type}|${planned.doc.amount}`;
    const list = wanted.get(key);
    if (list) list.push(planned);
    else wanted.set(key, [planned]);
  }
  if (wanted.size === 0) return;
  const window = LIKELY_DAYS * 86_400_000;
  const candidates = new Map<PlannedLine, Array<{ id: string; date: number }>>();
  // Only the ledger's records dated near the lines can match (the entries are sorted by date).
  let first = Infinity;
  let last = -Infinity;
  for (const list of wanted.values()) {
    for (const planned of list) {
      first = Math.min(first, planned.doc.date);
      last = Math.max(last, planned.doc.date);
    }
  }
  const entries = ctx.view.entries;
  for (let e = lowerBoundByDate(entries, first - window); ; e++) {
    const entry = entries.at(e);
    if (entry === undefined || entry.date > last + window) break;
    if (entry.type === 'transfer') continue;
    const list = wanted.get(`${entry.asset}|${entry.type}|${entry.amount}`);
    if (!list) continue;
    for (const planned of list) {
      if (Math.abs(entry.date - planned.doc.date) > window) continue;
      const found = candidates.get(planned);
      if (found) found.push({ id: entry.id, date: entry.date });
      else candidates.set(planned, [{ id: entry.id, date: entry.date }]);
    }
  }
  if (candidates.size === 0) return;
  const keys = await ctx.importKeysOf([...new Set([...candidates.values()].flat().map((c) => c.id))]);
  const sameSource = (id: string) => {
    const key = keys.get(id) ?? '';
    return key.startsWith(`${ctx.format}:`) && !key.startsWith(`${ctx.format}:~`);
  };
  const claimed = new Set<string>();
  for (const planned of lines) {
    const list = candidates.get(planned);
    if (!list) continue;
    const best = list
      .filter((c) => !claimed.has(c.id) && !(planned.externalId && sameSource(c.id)))
      .sort((a, b) => Math.abs(a.date - planned.doc.date) - Math.abs(b.date - planned.doc.date))
      .at(0);
    if (!best) continue;
    claimed.add(best.id);
    planned.outcome = 'likely';
    planned.matchId = best.id;
    const days = Math.round(Math.abs(best.date - planned.doc.date) / 86_400_000);
    planned.reason = `likely the same payment as a record already in your ledger (same asset and amount, ${days === 0 ? 'same day' : `${days} day${days === 1 ? '' : 's'} apart`}): not imported unless you include it`;
  }
}

/** A line as the preview shows it (amounts in major units). */
export function lineView(planned: PlannedLine, view: UserLedgerView): ImportLineView {
  const asset = view.assets.get(planned.doc.asset);
  const currency = planned.foreignCurrency ?? asset?.currency ?? 'USD';
  return {
    line: planned.line,
    date: planned.doc.date,
    type: planned.doc.type,
    amount: Number(formatMajor(planned.doc.amount, currency)),
    currency,
    asset: planned.doc.asset,
    assetName: asset?.name ?? '',
    category: planned.doc.category,
    tags: planned.doc.tags,
    description: planned.doc.description,
    payee: planned.payee,
    externalId: planned.externalId,
    status: planned.status,
    refund: planned.refund,
    rules: planned.rules,
    ...(planned.reason ? { reason: planned.reason } : {}),
    ...(planned.skipReason ? { skipReason: planned.skipReason } : {}),
    ...(planned.matchId ? { matchId: planned.matchId } : {}),
  };
}
export type LineView = ImportLineView;
