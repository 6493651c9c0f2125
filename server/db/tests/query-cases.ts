/**
 * Query cases shared by the storage-level and the collection-level conformance tests. Each
 * case carries an independent oracle (a plain JS predicate and comparator), so a storage that
 * returns the wrong documents, in the wrong order, fails — whichever storage it is.
 */
import type { MangoQuerySelector, MangoQuerySortPart } from 'rxdb';
import type { AccountRecord } from './fixtures';

export interface QueryCase {
  name: string;
  selector: MangoQuerySelector<AccountRecord>;
  sort?: MangoQuerySortPart<AccountRecord>[];
  skip?: number;
  limit?: number;
  matches(doc: AccountRecord): boolean;
  /** Sort keys in order; the primary key ascending is always the final tie-breaker (as in RxDB). */
  order: Array<[keyof AccountRecord, 'asc' | 'desc']>;
}

const U = 'user-1';
const D1 = Date.UTC(2022, 2, 1);
const D2 = Date.UTC(2023, 5, 15);

function cmp(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  return (a as any) < (b as any) ? -1 : 1;
}

export function oracle(docs: AccountRecord[], c: QueryCase): string[] {
  const rows = docs.filter((d) => c.matches(d));
  rows.sort((a, b) => {
    for (const [field, dir] of c.order) {
      const r = cmp(a[field], b[field]);
      if (r !== 0) return dir === 'asc' ? r : -r;
    }
    return cmp(a.id, b.id);
  });
  const skip = c.skip ?? 0;
  const end = c.limit === undefined ? undefined : skip + c.limit;
  return rows.slice(skip, end).map((d) => d.id);
}

const byDate = { order: [['date', 'asc']] as QueryCase['order'], sort: [{ date: 'asc' as const }] };

export const QUERY_CASES: QueryCase[] = [
  {
    name: '$eq + date range $gte/$lt, indexed sort asc',
    selector: { userId: { $eq: U }, date: { $gte: D1, $lt: D2 } },
    matches: (d) => d.userId === U && d.date >= D1 && d.date < D2,
    ...byDate,
  },
  {
    name: 'date range $gt/$lte, sort desc',
    selector: { userId: U, date: { $gt: D1, $lte: D2 } },
    sort: [{ date: 'desc' }],
    matches: (d) => d.userId === U && d.date > D1 && d.date <= D2,
    order: [['date', 'desc']],
  },
  {
    name: 'category $eq on the [userId,category,date] index',
    selector: { userId: U, category: 'rent' },
    matches: (d) => d.userId === U && d.category === 'rent',
    ...byDate,
  },
  {
    name: 'category $in (including an emoji category)',
    selector: { userId: U, category: { $in: ['food', 'rent', '🍕 pizza'] } },
    matches: (d) => d.userId === U && ['food', 'rent', '🍕 pizza'].includes(d.category),
    ...byDate,
  },
  {
    name: 'category $nin',
    selector: { userId: U, category: { $nin: ['food', 'rent', 'salary', 'travel'] } },
    matches: (d) => d.userId === U && !['food', 'rent', 'salary', 'travel'].includes(d.category),
    ...byDate,
  },
  {
    name: 'type $ne, non-indexed sort amount desc',
    selector: { userId: U, type: { $ne: 'transfer' } },
    sort: [{ amount: 'desc' }],
    matches: (d) => d.userId === U && d.type !== 'transfer',
    order: [['amount', 'desc']],
  },
  {
    name: 'non-indexed sort amount asc with $gte/$lte on amount',
    selector: { userId: U, amount: { $gte: 100_000, $lte: 200_000 } },
    sort: [{ amount: 'asc' }],
    matches: (d) => d.userId === U && d.amount >= 100_000 && d.amount <= 200_000,
    order: [['amount', 'asc']],
  },
  {
    name: 'description $exists true',
    selector: { userId: U, description: { $exists: true } },
    matches: (d) => d.userId === U && d.description !== undefined,
    ...byDate,
  },
  {
    name: 'description $exists false',
    selector: { userId: U, description: { $exists: false } },
    matches: (d) => d.userId === U && d.description === undefined,
    ...byDate,
  },
  {
    name: '$regex anchored',
    selector: { userId: U, description: { $regex: '^rent' } },
    matches: (d) => d.userId === U && /^rent/.test(d.description ?? ''),
    ...byDate,
  },
  {
    name: '$regex case-insensitive',
    selector: { userId: U, description: { $regex: 'groceries', $options: 'i' } },
    matches: (d) => d.userId === U && /groceries/i.test(d.description ?? ''),
    ...byDate,
  },
  {
    name: '$or',
    selector: { userId: U, $or: [{ type: 'income' }, { amount: { $gt: 450_000 } }] },
    matches: (d) => d.userId === U && (d.type === 'income' || d.amount > 450_000),
    ...byDate,
  },
  {
    name: '$and',
    selector: { $and: [{ userId: U }, { amount: { $gte: 1_000 } }, { amount: { $lte: 50_000 } }, { type: 'expense' }] },
    matches: (d) => d.userId === U && d.amount >= 1_000 && d.amount <= 50_000 && d.type === 'expense',
    ...byDate,
  },
  {
    name: 'open-ended range $gt "z" finds non-BMP (emoji) categories',
    selector: { userId: U, category: { $gt: 'z' } },
    sort: [{ category: 'asc' }, { date: 'asc' }],
    matches: (d) => d.userId === U && d.category > 'z',
    order: [
      ['category', 'asc'],
      ['date', 'asc'],
    ],
  },
  {
    name: 'open-ended range $gte on an emoji asset',
    selector: { userId: U, asset: { $gte: '💳' } },
    sort: [{ asset: 'asc' }, { date: 'asc' }],
    matches: (d) => d.userId === U && d.asset >= '💳',
    order: [
      ['asset', 'asc'],
      ['date', 'asc'],
    ],
  },
  {
    name: 'sort on indexed category desc',
    selector: { userId: U },
    sort: [{ category: 'desc' }, { date: 'desc' }],
    matches: (d) => d.userId === U,
    order: [
      ['category', 'desc'],
      ['date', 'desc'],
    ],
  },
  {
    name: 'sort on non-indexed type asc, amount desc',
    selector: { userId: U, date: { $lt: D2 } },
    sort: [{ type: 'asc' }, { amount: 'desc' }],
    matches: (d) => d.userId === U && d.date < D2,
    order: [
      ['type', 'asc'],
      ['amount', 'desc'],
    ],
  },
  {
    name: 'skip + limit on an index range',
    selector: { userId: U, date: { $gte: D1 } },
    skip: 5,
    limit: 10,
    matches: (d) => d.userId === U && d.date >= D1,
    ...byDate,
  },
  {
    name: 'skip + limit with a non-indexed filter',
    selector: { userId: U, type: 'expense' },
    skip: 7,
    limit: 13,
    matches: (d) => d.userId === U && d.type === 'expense',
    ...byDate,
  },
  {
    name: 'skip + limit with a non-indexed sort',
    selector: { userId: U },
    sort: [{ amount: 'asc' }],
    skip: 3,
    limit: 4,
    matches: (d) => d.userId === U,
    order: [['amount', 'asc']],
  },
  {
    name: 'skip past the end',
    selector: { userId: U },
    skip: 1_000_000,
    limit: 10,
    matches: (d) => d.userId === U,
    ...byDate,
  },
  {
    name: 'limit 0',
    selector: { userId: U },
    limit: 0,
    matches: (d) => d.userId === U,
    ...byDate,
  },
  {
    name: 'limit 1 desc',
    selector: { userId: U },
    sort: [{ date: 'desc' }],
    limit: 1,
    matches: (d) => d.userId === U,
    order: [['date', 'desc']],
  },
  {
    name: 'no user scope, sort by primary key',
    selector: { amount: { $lt: 10_000 } },
    sort: [{ id: 'asc' }],
    matches: (d) => d.amount < 10_000,
    order: [['id', 'asc']],
  },
  {
    name: 'id $in',
    selector: { id: { $in: ['rec-0000005', 'rec-0000010', 'rec-0000999', 'nope'] } },
    sort: [{ id: 'desc' }],
    matches: (d) => ['rec-0000005', 'rec-0000010', 'rec-0000999'].includes(d.id),
    order: [['id', 'desc']],
  },
];
