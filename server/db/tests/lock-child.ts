/** Child process of the lock test: tries to open the data dir given as argv[2] and reports. */
import { openDatabase } from '../database';
import { recordSchema } from './fixtures';

const dataDir = process.argv[2];
if (dataDir === undefined) throw new Error('usage: lock-child <dataDir>');
try {
  const db = await openDatabase({ dataDir, collections: [{ name: 'records', schema: recordSchema }] });
  await db.close();
  process.stdout.write(JSON.stringify({ opened: true }) + '\n');
} catch (error) {
  const e = error as { name?: string; code?: string; dataDir?: string; message?: string };
  process.stdout.write(
    JSON.stringify({
      opened: false,
      name: e.name,
      code: e.code,
      dataDir: e.dataDir,
      mentionsDir: typeof e.message === 'string' && e.message.includes(dataDir),
    }) + '\n',
  );
}
