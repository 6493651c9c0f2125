import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { couchdb3Front } from './couchdb3-front';
import { ADMIN_ONLY_SECURITY, Lockout } from './couchdb3-behaviour';

/**
 * The CouchDB-protocol peer of the test suite, in a process of its own (started by couch-peer.ts):
 * PouchDB Server (`express-pouchdb` over PouchDB 9's memory adapter, with `_users`, `_session`,
 * `_security` and the replication endpoints) on an internal port, behind the CouchDB 3 front
 * (couchdb3-front.ts) on the port it prints:
 *
 *   node --import tsx pouchdb-server.ts <work dir> <admin password> [lockout ms]
 *   → couch peer on http://127.0.0.1:<port>/
 *
 * The work dir holds PouchDB Server's config and log files; the data lives in memory and ends
 * with the process.
 */
const require = createRequire(import.meta.url);
const PouchDB = require('pouchdb-core').plugin(require('pouchdb-adapter-memory')).plugin(require('pouchdb-replication')).plugin(require('pouchdb-mapreduce'));
const expressPouchDb = require('express-pouchdb');

const [dir = '.', adminPassword = 'admin-secret', lockoutMs = '300000'] = process.argv.slice(2);

const app = expressPouchDb(PouchDB.defaults({ adapter: 'memory' }), {
  mode: 'fullCouchDB',
  configPath: path.join(dir, 'config.json'),
  logPath: path.join(dir, 'log.txt'),
  overrideMode: { exclude: ['routes/fauxton'] },
});

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

await new Promise<void>((resolve, reject) => {
  app.couchConfig.set('admins', 'admin', adminPassword, (error: unknown) =>
    error ? reject(error instanceof Error ? error : new Error('cannot set the admin password')) : resolve(),
  );
});
const backendPort = await listen(createServer(app as never));
// CouchDB 3's system databases are admin-only like every other database (couchdb3-behaviour.ts).
for (const db of ['_users', '_replicator']) {
  const answer = await fetch(`http://127.0.0.1:${backendPort}/${db}/_security`, {
    method: 'PUT',
    headers: { authorization: 'Basic ' + Buffer.from(`admin:${adminPassword}`).toString('base64'), 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN_ONLY_SECURITY),
  });
  if (!answer.ok) throw new Error(`cannot secure ${db}: ${answer.status} ${await answer.text()}`);
}
const front = createServer(
  couchdb3Front({ backendUrl: `http://127.0.0.1:${backendPort}/`, admin: { username: 'admin', password: adminPassword }, lockout: new Lockout(5, Number(lockoutMs)) }),
);
const port = await listen(front);
process.stdout.write(`couch peer on http://127.0.0.1:${port}/\n`);
process.on('SIGTERM', () => process.exit(0));
