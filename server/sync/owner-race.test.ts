import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, startTestServer, type TestServer } from '../test-support/test-server';
import { OWNER_DOC_ID } from './service';

/**
 * A CouchDB stand-in for one race: another device stores the ledger owner document between
 * PennyPost's read and its write (PUT → 409), and what is then read back is not an owner document.
 * sync.configure must refuse in words and store nothing, not carry on with an undefined owner.
 */
let couch: Server;
let url = '';
let t: TestServer;
const ownerReads: number[] = [];
beforeAll(async () => {
  couch = createServer((req, res) => {
    const [path = ''] = (req.url ?? '/').split('?');
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    req.resume();
    if (path === '/') return send(200, { couchdb: 'Welcome', version: '3.4.3' });
    if (path.endsWith(`/${OWNER_DOC_ID}`)) {
      if (req.method === 'PUT') return send(409, { error: 'conflict', reason: 'Document update conflict.' });
      ownerReads.push(Date.now());
      // First read: not there yet. Second read (after the 409): a document without an owner.
      return ownerReads.length === 1 ? send(404, { error: 'not_found', reason: 'missing' }) : send(200, { _id: OWNER_DOC_ID, app: 'someone else' });
    }
    return send(200, { db_name: path.slice(1) });
  });
  await new Promise<void>((resolve) => couch.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(couch.address() as AddressInfo).port}/`;
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
  couch.close();
});

describe('sync.configure when another device wins the owner document', () => {
  it('refuses with a clear message when the stored owner document names no owner, and stores no configuration', async () => {
    const u = await registerUser(t);
    const answer = await t.api('sync.configure', { url, username: 'admin', password: 'secret-pass' }, u.token);
    expect(ownerReads.length).toBe(2);
    expect(answer.code).not.toBe(200);
    expect(answer.message).toMatch(/ledger owner document that PennyPost cannot read/);
    expect(JSON.stringify(answer)).not.toContain('secret-pass');
    const status = await t.api('sync.status', {}, u.token);
    expect(status.data).toMatchObject({ configured: false });
  });
});
