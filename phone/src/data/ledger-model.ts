import type { AssetDoc, CategoryDoc, RateDoc, RecordDoc } from '../../../server/ledger/schema';
import { UserLedgerView } from '../../../server/ledger/views';
import { nextPending } from '../../../server/planning/recurring-store';
import type { PlanDoc } from '../../../server/planning/schema';
import { foldText } from '../../../server/lib/fold-text';

/**
 * What the phone's screens show, computed from its copy of the ledger with the desktop's own
 * balance view (server/ledger/views.ts: opening balance + every record's effect, exact minor
 * units) and rate book. Recomputed when a collection changes; the first screen's part is saved so
 * the next open shows it at once (saved.ts).
 */

export interface AssetRow {
  id: string;
  name: string;
  type: AssetDoc['type'];
  currency: string;
  balance: number;
  archived: boolean;
  /** The desktop's default asset: a new record starts there until another one is used. */
  isDefault: boolean;
}

export interface Money {
  minor: number;
  currency: string;
}

export interface BudgetRow {
  id: string;
  name: string;
  amount: Money;
  spent: number;
}

export interface UpcomingRow {
  id: string;
  name: string;
  date: string;
  /** The instant the occurrence's record is dated, ms. */
  at: number;
  type: string;
  amount: Money | null;
  /** A `confirm` item: its record is written when the person taps (here or on the desktop). */
  waitsForTap: boolean;
  /** Its time has come. */
  due: boolean;
}

export interface Summary {
  base: string;
  assets: AssetRow[];
  /** Net worth in the base currency; `unconverted` lists currencies without a rate to it. */
  netWorth: Money & { unconverted: string[] };
  month: { label: string; income: number; expense: number; currency: string };
}

export interface LedgerModel extends Summary {
  records: RecordDoc[];
  assetById: Map<string, AssetDoc>;
  /** Expense and income categories, the most used in the last 90 days first, then the desktop's order. */
  categories: { expense: string[]; income: string[] };
  budgets: BudgetRow[];
  upcoming: UpcomingRow[];
  plans: Map<string, PlanDoc>;
  view: UserLedgerView;
}

export interface LedgerDocs {
  assets: AssetDoc[];
  records: RecordDoc[];
  categories: CategoryDoc[];
  rates: RateDoc[];
  plans: PlanDoc[];
}

const DAY = 86_400_000;

/** The base currency: the desktop's (from the pairing), else the currency most assets use. */
function baseCurrencyOf(assets: readonly AssetDoc[], preferred: string | undefined): string {
  if (preferred) return preferred;
  const counts = new Map<string, number>();
  for (const asset of assets) counts.set(asset.currency, (counts.get(asset.currency) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1]).at(0)?.[0] ?? 'USD';
}

function monthBounds(now: number): { start: number; end: number; label: string } {
  const d = new Date(now);
  const start = new Date(d.getFullYear(), d.getMonth(), 1).getTime();
  const end = new Date(d.getFullYear(), d.getMonth() + 1, 1).getTime();
  return { start, end, label: `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}` };
}

export function buildModel(docs: LedgerDocs, ownerId: string, preferredBase: string | undefined, now = Date.now()): LedgerModel {
  const assetsLive = docs.assets.filter((a) => a.userId === ownerId && !a.delFlag);
  const records = docs.records.filter((r) => r.userId === ownerId);
  const view = new UserLedgerView(ownerId);
  view.load(records, assetsLive, docs.rates);
  const base = baseCurrencyOf(assetsLive, preferredBase);
  const assetById = new Map(assetsLive.map((a) => [a.id, a]));
  const convert = (minor: number, currency: string, at: number): number | undefined => (currency === base ? minor : view.rates.convert(minor, currency, base, at));

  const assets: AssetRow[] = assetsLive
    .map((a) => ({ id: a.id, name: a.name, type: a.type, currency: a.currency, balance: view.balanceOf(a.id), archived: a.status === 'archived', isDefault: a.isDefault }))
    .sort((a, b) => Number(a.archived) - Number(b.archived) || a.name.localeCompare(b.name));
  let net = 0;
  const unconverted = new Set<string>();
  for (const asset of assets) {
    const value = convert(asset.balance, asset.currency, now);
    if (value === undefined) unconverted.add(asset.currency);
    else net += value;
  }

  const month = monthBounds(now);
  let income = 0;
  let expense = 0;
  const spentByCategory = new Map<string, number>();
  for (const record of records) {
    if (record.date < month.start || record.date >= month.end || record.type === 'transfer') continue;
    const asset = assetById.get(record.asset);
    if (!asset) continue;
    const value = convert(record.amount, asset.currency, record.date);
    if (value === undefined) continue;
    if (record.type === 'income') income += value;
    else {
      expense += value;
      spentByCategory.set(record.category, (spentByCategory.get(record.category) ?? 0) + value);
    }
  }

  const sorted = [...records].sort((a, b) => b.date - a.date || b.createdAt - a.createdAt);
  const use = new Map<string, number>();
  for (const record of sorted) {
    if (record.date < now - 90 * DAY) break;
    if (record.category) use.set(`${record.type}:${record.category}`, (use.get(`${record.type}:${record.category}`) ?? 0) + 1);
  }
  const categoriesOf = (type: 'income' | 'expense') =>
    docs.categories
      .filter((c) => c.userId === ownerId && c.type === type)
      .sort((a, b) => (use.get(`${type}:${b.name}`) ?? 0) - (use.get(`${type}:${a.name}`) ?? 0) || a.position - b.position)
      .map((c) => c.name);

  const plans = docs.plans.filter((p) => p.userId === ownerId);
  const budgets: BudgetRow[] = plans
    .filter((p) => p.kind === 'budget' && p.startMonth <= month.label)
    .map((p) => {
      const names = new Set(p.categories.map((c) => foldText(c)));
      let spent = 0;
      for (const [category, value] of spentByCategory) if (p.allCategories || names.has(foldText(category))) spent += value;
      const inBudgetCurrency = p.currency === base ? spent : (view.rates.convert(spent, base, p.currency, now) ?? spent);
      return { id: p.id, name: p.name, amount: { minor: p.amount, currency: p.currency || base }, spent: inBudgetCurrency };
    });

  const upcoming: UpcomingRow[] = [];
  for (const plan of plans) {
    if (plan.kind !== 'recurring' || !plan.rule.freq) continue;
    // The first occurrence not yet handled on any device (written, confirmed or skipped): the desktop's rule.
    const next = nextPending(plan);
    if (!next || next.at > now + 31 * DAY) continue;
    const asset = assetById.get(plan.template.asset);
    upcoming.push({
      id: plan.id,
      name: plan.name,
      date: next.date,
      at: next.at,
      type: plan.template.type,
      amount: asset ? { minor: plan.template.amount, currency: asset.currency } : null,
      waitsForTap: plan.mode === 'confirm',
      due: next.at <= now,
    });
  }
  upcoming.sort((a, b) => a.date.localeCompare(b.date));

  return {
    base,
    assets,
    netWorth: { minor: net, currency: base, unconverted: [...unconverted] },
    month: { label: month.label, income, expense, currency: base },
    records: sorted,
    assetById,
    categories: { expense: categoriesOf('expense'), income: categoriesOf('income') },
    budgets,
    upcoming,
    plans: new Map(plans.map((p) => [p.id, p])),
    view,
  };
}
