import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/* eslint-disable @typescript-eslint/no-explicit-any */
let PouchBase: any;
function pouch(): any {
  if (!PouchBase) {
    PouchBase = require('pouchdb-core')
      .plugin(require('pouchdb-adapter-memory'))
      .plugin(require('pouchdb-adapter-http'))
      .plugin(require('pouchdb-replication'))
      .plugin(require('pouchdb-mapreduce'));
  }
  return PouchBase;
}

export interface StandinUser {
  password: string;
  /** May create databases (CouchDB server admin). */
  admin: boolean;
}

/**
 * A CouchDB stand-in for tests: express-pouchdb over PouchDB's in-memory adapter, behind our
 * own Basic-auth check (401 for wrong credentials; 403 when a non-admin creates a database, as
 * CouchDB does). `stop()` drops the socket but keeps the data, `start()` brings it back on the
 * same port, so tests can take the server away and return it mid-sync.
 */
export class CouchStandin {
  readonly users = new Map<string, StandinUser>([['admin', { password: 'admin-secret', admin: true }]]);
  /** Requests seen (method + path), for assertions about retry storms. */
  readonly requests: string[] = [];
  private server: Server | null = null;
  private port = 0;
  private readonly prefix = `standin${Math.random().toString(36).slice(2, 8)}_`;
  private readonly Pouch = pouch().defaults({ adapter: 'memory', prefix: this.prefix });
  private readonly app: any = require('express-pouchdb')(this.Pouch, { mode: 'minimumForPouchDB', inMemoryConfig: true, logPath: `/tmp/${this.prefix}log.txt` });

  get url(): string {
    return `http://127.0.0.1:${this.port}/`;
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      this.requests.push(`${req.method} ${req.url}`);
      const header = req.headers.authorization ?? '';
      const [name, password] = header.startsWith('Basic ') ? Buffer.from(header.slice(6), 'base64').toString().split(/:(.*)/s) : ['', ''];
      const user = this.users.get(name);
      if (!user || user.password !== password) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end('{"error":"unauthorized","reason":"Name or password is incorrect."}');
        return;
      }
      const path = (req.url ?? '/').split('?')[0];
      const isDbCreate = req.method === 'PUT' && /^\/[^/_][^/]*\/?$/.test(path);
      if (isDbCreate && !user.admin) {
        res.writeHead(403, { 'content-type': 'application/json' });
        res.end('{"error":"forbidden","reason":"You are not a server admin."}');
        return;
      }
      const bulk = req.method === 'POST' ? /^\/([^/_][^/]*)\/_bulk_docs$/.exec(path) : null;
      if (bulk) {
        void this.bulkDocs(decodeURIComponent(bulk[1]), req, res);
        return;
      }
      this.app(req, res);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /**
   * `_bulk_docs` as CouchDB answers it: a deletion without `_rev` of a document that already
   * exists (deleted or not) is a conflict. (PouchDB would write it as a new branch; CouchDB does
   * not, which is what exposes RxDB's "Cannot read properties of null" push loop.)
   */
  private async bulkDocs(db: string, req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { docs?: any[]; new_edits?: boolean };
    const database = this.local(db);
    const results: any[] = [];
    const toWrite: Array<{ index: number; doc: any }> = [];
    for (const [index, doc] of (body.docs ?? []).entries()) {
      if (doc._deleted && !doc._rev && body.new_edits !== false) {
        const existing = await database.get(doc._id).then(
          () => true,
          (error: { reason?: string }) => error.reason === 'deleted',
        );
        if (existing) {
          results[index] = { id: doc._id, error: 'conflict', reason: 'Document update conflict.' };
          continue;
        }
      }
      toWrite.push({ index, doc });
    }
    const written = toWrite.length > 0 ? await database.bulkDocs(toWrite.map((w) => w.doc), { new_edits: body.new_edits !== false }) : [];
    toWrite.forEach((w, i) => (results[w.index] = written[i]));
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end(JSON.stringify(results));
  }

  /** Takes the server off the network (data kept). */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** A PouchDB client on a remote database, as a mobile app would use it. */
  client(db: string, user = 'admin'): any {
    const credentials = this.users.get(user)!;
    return new (pouch())(`${this.url}${db}`, { adapter: 'http', auth: { username: user, password: credentials.password } });
  }

  /** Direct access to a database's contents (no HTTP). */
  local(db: string): any {
    return new this.Pouch(db);
  }

  async close(): Promise<void> {
    await this.stop();
  }
}
