import type { RxCollection } from 'rxdb';
import { newId } from '../lib/ids';
import type { RecordDoc } from '../ledger/schema';

/** mulberry32: a small seeded PRNG, so every benchmark builds the same ledger and every "random" test input is the same each run. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = s;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** One item of `list`, chosen with `random`. */
function pick<T>(list: readonly T[], random: () => number): T {
  const item = list.at(Math.floor(random() * list.length));
  if (item === undefined) throw new Error('syntheticRecordBatches: a list to pick from is empty');
  return item;
}

export const BENCH_CATEGORIES = ['Food', 'Transport', 'Shopping', 'Housing', 'Utilities', 'Health', 'Entertainment', 'Education', 'Travel', 'Gifts'];

export interface SyntheticRecordOptions {
  userId: string;
  assets: string[];
  count: number;
  years?: number;
  end?: number;
  seed?: number;
}

/**
 * `count` realistic records for one user, 1,000 a batch: dates spread over `years` before `end`,
 * 10 % income, amounts 1.00–500.99, ten expense categories, 30 % tagged "work". Seed 42 unless
 * told otherwise. Pure (writes nothing): the same options give the same records (ids aside, which
 * are random after their time prefix), so a benchmark can hand the same ledger to another program.
 */
export function* syntheticRecordBatches(options: SyntheticRecordOptions): Generator<RecordDoc[]> {
  const random = seededRandom(options.seed ?? 42);
  const end = options.end ?? Date.UTC(2026, 0, 1);
  const start = end - (options.years ?? 5) * 365 * 86_400_000;
  for (let done = 0; done < options.count; done += 1000) {
    const batch: RecordDoc[] = [];
    for (let i = 0; i < 1000 && done + i < options.count; i++) {
      const date = Math.floor(start + random() * (end - start));
      const income = random() < 0.1;
      const description = income ? 'salary and bonus' : `purchase ${Math.floor(random() * 1000)}`;
      batch.push({
        id: newId(date),
        userId: options.userId,
        type: income ? 'income' : 'expense',
        amount: 100 + Math.floor(random() * 50_000),
        asset: pick(options.assets, random),
        toAsset: '',
        toAmount: 0,
        fee: 0,
        category: income ? 'Salary' : pick(BENCH_CATEGORIES, random),
        description,
        searchText: description,
        date,
        tags: random() < 0.3 ? ['work'] : [],
        attachments: [],
        importKey: '',
        createdAt: date,
        updatedAt: date,
      });
    }
    yield batch;
  }
}

/**
 * Writes the records of `syntheticRecordBatches` straight into the records collection (like sync
 * would). Used by every benchmark that needs a big ledger (bench:ledger, bench:ui, npm run bench).
 */
export async function seedSyntheticRecords(records: RxCollection<RecordDoc>, options: SyntheticRecordOptions): Promise<void> {
  for (const batch of syntheticRecordBatches(options)) await records.bulkInsert(batch);
}
