import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { forwardRequest } from '../forward-request';

const require = createRequire(import.meta.url);
const HERE = path.dirname(fileURLToPath(import.meta.url));

let PouchHttp: any;
function pouch(): any {
  PouchHttp ??= require('pouchdb-core').plugin(require('pouchdb-adapter-http')).plugin(require('pouchdb-replication')).plugin(require('pouchdb-mapreduce'));
  return PouchHttp;
}

/** The server admin of every test peer (the password the sync tests configure). */
export const COUCH_ADMIN = { username: 'admin', password: 'admin-secret' } as const;

export interface CouchPeerOptions {
  /** How long a user stays locked out after 5 failed sign-ins (CouchDB's default: 5 minutes). */
  lockoutMs?: number;
}

/**
 * The CouchDB-protocol peer of one test file: PouchDB Server from npm in a child process, behind
 * its CouchDB 3 front (pouchdb-server.ts, couchdb3-front.ts), seen through a recording pass-through
 * proxy:
 * - `url` is the proxy's (what PennyPost and phone clients use): `requests` lists what went through
 *   it, and `stop()` / `start()` take the server off the network and bring it back on the same
 *   address, data kept (a Wi-Fi drop, a server reboot) — the server itself keeps running.
 * - `directUrl` is the peer itself, answering as CouchDB 3 does, not recorded and never stopped.
 * - `admin` (`admin` / `admin-secret`) is its server admin; `setUser` creates or changes other users.
 */
export class CouchPeer {
  readonly requests: string[] = [];
  private proxy: Server | null = null;
  private proxyPort = 0;

  private constructor(
    private readonly dir: string,
    private readonly child: ChildProcess,
    /** The peer without the recording proxy (for setup that must not be counted). */
    readonly directUrl: string,
  ) {}

  static async start(options: CouchPeerOptions = {}): Promise<CouchPeer> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pennypost-couch-peer-'));
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(HERE, 'pouchdb-server.ts'), dir, COUCH_ADMIN.password, String(options.lockoutMs ?? 300_000)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`the CouchDB peer did not start in 30 s: ${stderr}`)), 30_000);
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /couch peer on (http:\/\/\S+)/.exec(out);
          if (match?.[1]) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        });
        child.on('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`the CouchDB peer exited with ${String(code)}: ${stderr}`));
        });
      });
      const peer = new CouchPeer(dir, child, url);
      await peer.start();
      return peer;
    } catch (error) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** The address clients use (the proxy), with a trailing slash. */
  get url(): string {
    return `http://127.0.0.1:${this.proxyPort}/`;
  }

  /** Puts the server (back) on the network, on the same address as before. */
  async start(): Promise<this> {
    if (this.proxy) return this;
    const target = new URL(this.directUrl);
    const proxy = createServer((req, res) => {
      this.requests.push(`${String(req.method)} ${String(req.url)}`);
      forwardRequest(req, res, target);
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
    if (!res.ok && !(res.status === 404 && (init.method ?? 'GET') === 'GET'))
      throw new Error(`CouchDB peer ${init.method ?? 'GET'} ${pathname}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  }

  /**
   * Creates a CouchDB user or changes its password (`_users`). `admin: true` also makes it a server
   * admin (may create databases); a plain user may read and write the databases listed in
   * `members` (their `_security`; created admin-only when missing), as a phone's account would.
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

  /** Removes a `_users` account (a revoked phone): its password stops working at once. */
  async removeUser(name: string): Promise<void> {
    const id = `org.couchdb.user:${name}`;
    const existing = await this.admin(`_users/${encodeURIComponent(id)}`);
    if (existing?._rev) await this.admin(`_users/${encodeURIComponent(id)}?rev=${existing._rev}`, { method: 'DELETE' });
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
    if (this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
