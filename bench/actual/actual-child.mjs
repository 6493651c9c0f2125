/**
 * Child process of the Actual Budget baseline (actual-baseline.mjs): one @actual-app/api session per
 * process, so that the parent can time a start from its spawn. Modes:
 *
 *   seed     <datasetFile> <dataDir>                    a new local budget from the dataset → SEEDED
 *   cold-ie  <dataDir> <budgetId> <year>                init + load + income/expense → ANSWER, then balances → IDLE
 *   cold-bal <dataDir> <budgetId>                       init + load + all balances → ANSWER
 *   warm     <dataDir> <budgetId> <year> <runs>         5 warm-ups, then `runs` timed calls of each → WARM
 *
 * Results are lines `@@actual-bench <KIND> <json>` on stdout; everything Actual logs goes to stderr.
 * After its last line a cold child waits until the parent closes its stdin (so the parent can read
 * its idle RSS), then shuts the API down and exits.
 */
import { readFileSync } from 'node:fs';

const MARK = '@@actual-bench';
const writeOut = process.stdout.write.bind(process.stdout);
// Actual logs through console.log/info/debug: keep stdout for the markers alone.
console.log = console.info = console.debug = (/** @type {unknown[]} */ ...args) => console.error(...args);

let answered = false;
/** @param {string} kind @param {unknown} data */
function mark(kind, data) {
  answered = true;
  writeOut(`${MARK} ${kind} ${JSON.stringify(data)}\n`);
}

/** @typedef {{ month: string, income: number, expense: number }} MonthTotals */
/** @typedef {{ name: string, balance: number }} AccountBalance */

const [mode, ...args] = process.argv.slice(2);
const { default: api } = await import('@actual-app/api');
/** ms from this process's start until the API's bundle was imported. */
const importedAtMs = performance.now();

/** Balances up to the last representable day: every transaction counts, whatever today's date. */
const CUTOFF = new Date(Date.UTC(9999, 11, 31));

/**
 * Income and expense per month of `year` through ActualQL: transactions (splits inline, no
 * tombstones) of the year that are neither transfers nor starting balances, grouped by month, one
 * query for money in and one for money out. Amounts in minor units, expense positive.
 * @param {number} year
 * @returns {Promise<MonthTotals[]>}
 */
async function incomeExpense(year) {
  /** @param {object} sign */
  const byMonth = async (sign) => {
    const query = api
      .q('transactions')
      .filter({ $and: [{ date: { $gte: `${year}-01-01` } }, { date: { $lte: `${year}-12-31` } }], transfer_id: null, starting_balance_flag: false, amount: sign })
      .groupBy({ $month: '$date' })
      .select([{ month: { $month: '$date' } }, { total: { $sum: '$amount' } }]);
    const { data } = /** @type {{ data: { month: string, total: number }[] }} */ (await api.aqlQuery(query));
    return new Map(data.map((row) => [row.month, row.total]));
  };
  const income = await byMonth({ $gt: 0 });
  const expense = await byMonth({ $lt: 0 });
  return Array.from({ length: 12 }, (_, i) => {
    const month = `${year}-${String(i + 1).padStart(2, '0')}`;
    return { month, income: income.get(month) ?? 0, expense: -(expense.get(month) ?? 0) };
  });
}

/**
 * Every account's balance, the way an API client asks for it: getAccounts, then getAccountBalance each.
 * @returns {Promise<AccountBalance[]>}
 */
async function balances() {
  const accounts = await api.getAccounts();
  const out = [];
  for (const account of accounts) out.push({ name: account.name, balance: await api.getAccountBalance(account.id, CUTOFF) });
  return out;
}

/** @param {() => Promise<unknown>} fn */
async function timed(fn) {
  const t0 = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - t0 };
}

/**
 * Ends this process when its parent is gone (re-parented): the import runs for minutes on
 * microtasks alone, with no turn of the event loop that would see stdin close.
 */
const parentPid = process.ppid;
function exitIfOrphaned() {
  if (process.ppid !== parentPid) process.exit(2);
}

/** Resolves when the parent closes stdin (its signal to shut down) or is gone. */
const parentDone = new Promise((resolve) => {
  process.stdin.once('end', resolve);
  process.stdin.once('error', resolve);
  process.stdin.resume();
});

/**
 * @typedef {{ accounts: { id: string, name: string, type: string, openingBalance: number }[],
 *   categories: { name: string, income: boolean }[],
 *   transactions: { date: number, amount: number, type: 'income' | 'expense', account: string, category: string, notes?: string }[] }} Dataset
 */

/**
 * A new local budget (no server) from the dataset, through the API's import path: runImport (one
 * budget, no sync messages), accounts with their opening balance as Actual's starting-balance
 * transaction (dated today), categories (income ones in Actual's income group), then
 * addTransactions per account in chunks of 10,000 inside one batchBudgetUpdates (one SQLite
 * transaction in import mode) with learnCategories and runTransfers off. Larger calls are faster:
 * Actual prepares every new transaction for its rules with a running-balance query over the rows
 * already stored, so 5,000-row chunks took twice the CPU of 10,000-row ones at 100,000.
 * @param {string} datasetFile
 * @param {string} dataDir
 */
async function seed(datasetFile, dataDir) {
  const dataset = /** @type {Dataset} */ (JSON.parse(readFileSync(datasetFile, 'utf8')));
  /** @type {Map<string, { date: string, amount: number, category: string, notes?: string }[]>} */
  const byAccount = new Map(dataset.accounts.map((a) => [a.id, []]));
  for (const t of dataset.transactions) {
    const rows = byAccount.get(t.account);
    if (!rows) throw new Error(`transaction of unknown account ${t.account}`);
    rows.push({ date: new Date(t.date).toISOString().slice(0, 10), amount: t.type === 'income' ? t.amount : -t.amount, category: t.category, notes: t.notes });
  }
  await api.init({ dataDir, verbose: false });
  const t0 = performance.now();
  await api.runImport('PennyPost bench', async () => {
    const groups = await api.getCategoryGroups();
    const incomeGroup = groups.find((g) => g.is_income);
    if (!incomeGroup) throw new Error('Actual created no income category group');
    const expenseGroup = await api.createCategoryGroup({ name: 'Expenses', is_income: false, hidden: false });
    const existing = new Map((incomeGroup.categories ?? []).map((c) => [c.name, c.id]));
    /** @type {Map<string, string>} */
    const categoryIds = new Map();
    for (const c of dataset.categories) {
      const id =
        (c.income && existing.get(c.name)) || (await api.createCategory({ name: c.name, group_id: c.income ? incomeGroup.id : expenseGroup, is_income: c.income, hidden: false }));
      categoryIds.set(c.name, id);
    }
    /** @type {Map<string, string>} */
    const accountIds = new Map();
    for (const a of dataset.accounts) accountIds.set(a.id, await api.createAccount({ name: a.name, offbudget: false, closed: false }, a.openingBalance));
    await api.batchBudgetUpdates(async () => {
      for (const [account, rows] of byAccount) {
        for (let i = 0; i < rows.length; i += 10_000) {
          const chunk = rows.slice(i, i + 10_000).map((r) => ({ ...r, category: categoryIds.get(r.category) }));
          exitIfOrphaned();
          await api.addTransactions(/** @type {string} */ (accountIds.get(account)), chunk, { learnCategories: false, runTransfers: false });
        }
      }
    });
  });
  const seconds = (performance.now() - t0) / 1000;
  const budget = (await api.getBudgets()).find((b) => b.name === 'PennyPost bench');
  if (!budget?.id) throw new Error('the imported budget is not among the local budgets');
  const { data: count } = /** @type {{ data: number }} */ (await api.aqlQuery(api.q('transactions').filter({ starting_balance_flag: false }).calculate({ $count: '$id' })));
  mark('SEEDED', { budgetId: budget.id, seconds, records: count });
}

/**
 * init (no server) and loadBudget, with the phases of the start so far (ms).
 * @param {string} dataDir
 * @param {string} budgetId
 */
async function open(dataDir, budgetId) {
  const t0 = performance.now();
  await api.init({ dataDir, verbose: false });
  const t1 = performance.now();
  await api.loadBudget(budgetId);
  return { importedAtMs, initMs: t1 - t0, loadMs: performance.now() - t1 };
}

try {
  if (mode === 'seed' || mode === 'warm') {
    // These end by themselves after their one line; a parent gone before it (killed, timed out) ends them.
    void parentDone.then(() => answered || process.exit(2));
  }
  if (mode === 'seed') {
    await seed(args[0], args[1]);
  } else if (mode === 'cold-ie') {
    const phases = await open(args[0], args[1]);
    const { value, ms } = await timed(() => incomeExpense(Number(args[2])));
    mark('ANSWER', { firstQueryMs: ms, phases, months: value });
    await balances();
    mark('IDLE', {});
    await parentDone;
  } else if (mode === 'cold-bal') {
    const phases = await open(args[0], args[1]);
    const { value, ms } = await timed(balances);
    mark('ANSWER', { firstQueryMs: ms, phases, balances: value });
    await parentDone;
  } else if (mode === 'warm') {
    await open(args[0], args[1]);
    const year = Number(args[2]);
    for (let i = 0; i < 5; i++) {
      await incomeExpense(year);
      await balances();
    }
    const runs = Number(args[3]);
    const ie = [];
    const bal = [];
    for (let i = 0; i < runs; i++) {
      exitIfOrphaned();
      ie.push((await timed(() => incomeExpense(year))).ms);
    }
    for (let i = 0; i < runs; i++) bal.push((await timed(balances)).ms);
    mark('WARM', { incomeExpenseMs: ie, balancesMs: bal });
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
  await api.shutdown();
  process.exit(0);
} catch (error) {
  console.error(error);
  process.exit(1);
}
