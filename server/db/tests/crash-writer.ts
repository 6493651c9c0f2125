/**
 * Child process of the crash test. Opens the data dir (argv[2]) with openDatabase and writes
 * records forever — single inserts and small bulk inserts — printing `ack <id>` for each id
 * only after the write promise resolved. The test kills it with SIGKILL at a random moment.
 * (On Linux, stdout writes to a pipe are synchronous, so a printed ack left the process.)
 */
import { openDatabase } from '../database';
import { crashRecord, recordSchema, type AccountRecord } from './fixtures';

const [dataDir, round] = process.argv.slice(2);
if (dataDir === undefined || round === undefined) throw new Error('usage: crash-writer <dataDir> <round>');
const db = await openDatabase({ dataDir, collections: [{ name: 'records', schema: recordSchema }] });
const records = db.collection<AccountRecord>('records');
process.stdout.write('ready\n');

for (let n = 0; ;) {
  if (n % 3 === 0) {
    const size = 2 + (n % 4);
    const batch: AccountRecord[] = [];
    for (let i = 0; i < size; i++) batch.push(crashRecord(`r${round}-${n++}`));
    const result = await records.bulkInsert(batch);
    const [failed] = result.error;
    if (failed) throw new Error(`bulk insert failed: ${JSON.stringify(failed.status)}`);
    process.stdout.write(batch.map((r) => `ack ${r.id}\n`).join(''));
  } else {
    const record = crashRecord(`r${round}-${n++}`);
    await records.insert(record);
    process.stdout.write(`ack ${record.id}\n`);
  }
}
