/**
 * Child process of the storage benchmark: cold-opens an existing data dir (argv[2]) through
 * openDatabase and runs one indexed range query. Prints JSON timings and RSS.
 */
import { openDatabase } from '../../server/db/database';
import { recordSchema, type AccountRecord } from '../../server/db/tests/fixtures';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('cold-open-child: give the data dir to open as the first argument');
const userId = process.argv[3] ?? 'user-3';
const from = Number(process.argv[4] ?? Date.UTC(2023, 0, 1));

const importsDoneMs = performance.now(); // ms since this process started
const rssBeforeOpen = process.memoryUsage().rss;
const t0 = performance.now();
const db = await openDatabase({ dataDir, collections: [{ name: 'records', schema: recordSchema }] });
const openedMs = performance.now() - t0;
const docs = await db
  .collection<AccountRecord>('records')
  .find({ selector: { userId, date: { $gte: from } }, sort: [{ date: 'asc' }], limit: 1000 })
  .exec();
const openToFirstQueryMs = performance.now() - t0;
const processStartToFirstQueryMs = performance.now();
const rss = process.memoryUsage().rss;
await db.close();
process.stdout.write(JSON.stringify({ importsDoneMs, openedMs, openToFirstQueryMs, processStartToFirstQueryMs, rssBeforeOpen, rss, results: docs.length }) + '\n');
