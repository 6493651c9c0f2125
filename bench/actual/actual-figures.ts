/**
 * The types of actual-baseline.mjs, which stays plain JavaScript so that it runs with bare `node`:
 * what `measureActual` takes and returns. A TypeScript caller imports them with `import type`.
 */

/** Actual Budget (@actual-app/api) on one dataset; times in ms, sizes in MB (2^20 bytes). */
export interface ActualFigures {
  /** The installed @actual-app/api version, e.g. '26.9.0'. */
  version: string;
  /** Transactions in the budget (without Actual's 10 starting-balance transactions). */
  records: number;
  /** Import of the dataset into a new budget (runImport), measured when the cache was built. */
  bulkLoadSeconds: number;
  /** True when this run reused the cached budget (bulkLoadSeconds is then the earlier run's). */
  bulkLoadCached: boolean;
  /** Per start: spawn of a fresh `node` → its income/expense answer (start + import + init + loadBudget + query). */
  coldIncomeExpenseMs: number[];
  /** Per start, in separate processes: spawn → all account balances answered. */
  coldBalancesMs: number[];
  /** Per start: the first income/expense query's own time, after loadBudget. */
  firstQueryMs: number[];
  /** p50 over `warmRuns` calls in one warm process (after 5 warm-up calls). */
  warmIncomeExpenseP50Ms: number;
  warmBalancesP50Ms: number;
  /** Per start: VmRSS of the cold income/expense child 3 s after its queries (income/expense, then balances). */
  rssIdleMb: number[];
  /** Every byte of the budget's folder (db.sqlite, cache.sqlite, metadata.json). */
  diskMb: number;
}

export interface MeasureActualOptions {
  /** The dataset JSON (accounts, categories, transactions; amounts in minor units, dates in ms UTC). */
  datasetFile: string;
  /** Holds `actual-<records>-<hash>/`: the imported budget and its meta.json. */
  cacheDir: string;
  /** Cold starts per figure. */
  starts: number;
  warmRuns: number;
  /** The year of the income/expense question (UTC months). */
  year: number;
  log?: (line: string) => void;
}

export interface ActualBaseline {
  ensureActualInstalled(): Promise<void>;
  measureActual(options: MeasureActualOptions): Promise<ActualFigures>;
}
