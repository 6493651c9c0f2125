import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { start as startCouch, stop as stopCouch } from '../../scripts/couchdb.mjs';

const require = createRequire(import.meta.url);

let PouchHttp: any;
function pouch(): any {
  PouchHttp ??= require('pouchdb-core').plugin(require('pouchdb-adapter-http')).plugin(require('pouchdb-replication')).plugin(require('pouchdb-mapreduce'));
  return PouchHttp;
}

/** The server admin of every test CouchDB (the password the sync tests configure). */
export const COUCH_ADMIN = { username: 'admin', password: 'admin-secret' } as const;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A real Apache CouchDB 3.4.3 (built by scripts/couchdb.mjs from vendor/) for one test file, seen
 * through a recording pass-through proxy:
 * - `url` is the proxy's (what PennyPost and phone clients use): `requests` lists what went through
 *   it, and `stop()` / `start()` take the server off the network and bring it back on the same
 *   address, data kept (a Wi-Fi drop, a server reboot) — CouchDB itself keeps running.
 * - `admin` (`admin` / `admin-secret`) is its server admin; `setUser` creates or changes other users.
 */
export class RealCouchDb {
  readonly requests: string[] = [];
  private proxy: Server | null = null;
  private proxyPort = 0;

  private constructor(
    private readonly dir: string,
    /** The CouchDB itself, without the proxy (for setup that must not be counted). */
    readonly directUrl: string,
  ) {}

  static async start(): Promise<RealCouchDb> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pennypost-couchdb-'));
    const port = await freePort();
    await startCouch(port, dir, { adminPassword: COUCH_ADMIN.password });
    const couch = new RealCouchDb(dir, `http://127.0.0.1:${port}/`);
    await couch.systemDatabases();
    await couch.start();
    return couch;
  }

  /**
   * A single-node CouchDB creates `_users` and `_replicator` a moment after it starts answering:
   * until then a new user is refused (404). Made sure of here (creating them if need be).
   */
  private async systemDatabases(): Promise<void> {
    for (const db of ['_users', '_replicator']) {
      for (let i = 0; ; i++) {
        const info = await this.admin(db);
        if (info && !info.error) break;
        const created = await this.admin(db, { method: 'PUT' }).catch(() => null);
        if (created?.ok) break;
        if (i >= 40) throw new Error(`CouchDB has no ${db} database`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  /** The address clients use (the proxy), with a trailing slash. */
  get url(): string {
    return `http://127.0.0.1:${this.proxyPort}/`;
  }

  private get target(): URL {
    return new URL(this.directUrl);
  }

  /** Puts the server (back) on the network, on the same address as before. */
  async start(): Promise<this> {
    if (this.proxy) return this;
    const target = this.target;
    const proxy = createServer((req, res) => {
      this.requests.push(`${String(req.method)} ${String(req.url)}`);
      const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(this.proxyPort, '127.0.0.1', resolve));
    this.proxyPort = (proxy.address() as AddressInfo).port;
    this.proxy = proxy;
    return this;
  }

  /** Takes the server off the network (open connections are cut; data kept). */
  async stop(): Promise<void> {
    const proxy = this.proxy;
    if (!proxy) return;
    this.proxy = null;
    proxy.closeAllConnections();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
  }

  private async admin(pathname: string, init: Omit<RequestInit, 'headers'> & { headers?: Record<string, string> } = {}): Promise<any> {
    const auth = 'Basic ' + Buffer.from(`${COUCH_ADMIN.username}:${COUCH_ADMIN.password}`).toString('base64');
    const res = await fetch(new URL(pathname, this.directUrl), { ...init, headers: { 'content-type': 'application/json', authorization: auth, ...(init.headers ?? {}) } });
    const body = await res.json().catch(() => null);
    if (!res.ok && !(res.status === 404 && (init.method ?? 'GET') === 'GET')) throw new Error(`CouchDB ${init.method ?? 'GET'} ${pathname}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  }

  /**
   * Creates a CouchDB user or changes its password (`_users`). `admin: true` also makes it a server
   * admin (may create databases); a plain user may read and write the databases listed in
   * `members` (their `_security`), as a phone's account would.
   */
  async setUser(name: string, password: string, { admin = false, members = [] as string[] } = {}): Promise<void> {
    if (admin) {
      await this.admin(`_node/_local/_config/admins/${encodeURIComponent(name)}`, { method: 'PUT', body: JSON.stringify(password) });
      return;
    }
    const id = `org.couchdb.user:${name}`;
    const existing = await this.admin(`_users/${encodeURIComponent(id)}`);
    const rev = existing && existing._rev ? { _rev: existing._rev } : {};
    await this.admin(`_users/${encodeURIComponent(id)}`, { method: 'PUT', body: JSON.stringify({ _id: id, name, password, roles: [], type: 'user', ...rev }) });
    // A new account: waited for until it signs in. A changed password is not (the old one keeps
    // working for a few seconds, and every refusal of the new one would count towards the lockout).
    if (!existing?._rev) await this.untilSignInWorks(name, password);
    for (const db of members) {
      await this.admin(encodeURIComponent(db), { method: 'PUT' }).catch(() => undefined);
      const security = (await this.admin(`${encodeURIComponent(db)}/_security`)) ?? {};
      const names = new Set<string>(security.members?.names ?? []);
      names.add(name);
      await this.admin(`${encodeURIComponent(db)}/_security`, {
        method: 'PUT',
        body: JSON.stringify({ ...security, members: { ...(security.members ?? {}), names: [...names] } }),
      });
    }
  }

  /**
   * CouchDB may refuse a new `_users` account for a moment after it was written (its auth cache). Waits (a few spaced tries, fewer than its lockout
   * counts) until it works, so that a test never starts with a refusal it did not ask for.
   */
  private async untilSignInWorks(name: string, password: string): Promise<void> {
    const auth = 'Basic ' + Buffer.from(`${name}:${password}`).toString('base64');
    for (const wait of [100, 300, 600, 1200]) {
      await new Promise((resolve) => setTimeout(resolve, wait));
      const res = await fetch(new URL('_session', this.directUrl), { headers: { authorization: auth } });
      await res.body?.cancel();
      if (res.status === 200) return;
    }
    throw new Error(`CouchDB still refuses the new password of ${name}`);
  }

  /** A PouchDB client on a remote database through the proxy, as a phone app would use it. */
  client(db: string, user: { username: string; password: string } = COUCH_ADMIN): any {
    return new (pouch())(`${this.url}${db}`, { adapter: 'http', auth: { username: user.username, password: user.password } });
  }

  /** Direct admin access to a database (not through the proxy, not counted in `requests`). */
  local(db: string): any {
    return new (pouch())(`${this.directUrl}${db}`, { adapter: 'http', auth: { username: COUCH_ADMIN.username, password: COUCH_ADMIN.password } });
  }

  /** Names of the databases on the server. */
  async databases(): Promise<string[]> {
    return (await this.admin('_all_dbs')) as string[];
  }

  async close(): Promise<void> {
    await this.stop();
    stopCouch(this.dir);
    // The VM needs a moment to let go of its files.
    await new Promise((resolve) => setTimeout(resolve, 200));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
