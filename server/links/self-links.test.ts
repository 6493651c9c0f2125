import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, startTestServer, type TestServer } from '../test-support/test-server';
import { usersDomain } from '../users';
import { linksDomain } from '.';
import type { LinkDoc } from './schema';
import { linksErrors } from './errors';
import { expectRefusal } from '../test-support/refusal';

describe('short links never lead back to this server', () => {
  let t: TestServer;
  let port: number;
  let user: { token: string; id: string };
  beforeAll(async () => {
    t = await startTestServer({
      domains: [usersDomain(), linksDomain()],
      settings: {
        links: { missesPerAddress: 1000 },
        network: { allowedHosts: ['pennypost.home.arpa', '[fd00::99]'], publicBaseUrl: 'https://pp.example.net:8443/base/' },
      },
    });
    port = t.server.port;
    user = await registerUser(t);
  });
  afterAll(() => t.close());

  const create = (url: string, extra: Record<string, unknown> = {}) => t.api('shortlink.create', { url, ...extra }, user.token);
  const hit = (code: string) => t.fetch(`/s/${code}`, { redirect: 'manual' });

  /** This machine's own names and addresses, as os.networkInterfaces() and os.hostname() give them. */
  function machineTargets(): string[] {
    const host = os.hostname();
    const out = [`http://${host}/`, `https://${host.toUpperCase()}.local:8080/x`, `http://${host}./s/abc`];
    for (const list of Object.values(os.networkInterfaces())) {
      for (const info of list ?? []) {
        const address = info.address.replace(/%.*/, ''); // without the zone of a link-local address
        out.push(info.family === 'IPv6' ? `http://[${address}]:${port}/s/abc` : `http://${address}:1/`);
      }
    }
    return out;
  }

  const SPELLINGS = () => [
    // localhost, any case, trailing dots, subdomains, full-width letters, user info
    'http://localhost/',
    `http://LOCALHOST:${port}/s/abc`,
    `http://LocalHost./S/abc`,
    'http://localhost../',
    'https://foo.localhost/',
    'http://a.b.LOCALHOST.:8443/',
    'https://ｌｏｃａｌｈｏｓｔ/',
    // 127.0.0.0/8 in every spelling the URL parser accepts
    'http://127.0.0.1/',
    `http://127.0.0.1:${port}/s/abc`,
    'http://127.0.0.1./',
    'http://127.1/',
    'http://127.255.255.254:1/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://0x7f000001/',
    'http://0177.0.0.1/',
    'HTTPS://127.0.0.1:443/',
    // IPv6 loopback, IPv4-mapped loopback, the unspecified addresses
    'http://[::1]/',
    `http://[::1]:${port}/S/abc`,
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]:80/',
    'http://0.0.0.0/',
    'http://0/',
    `http://0.0.0.0:${port}/s/abc`,
    'http://[::]/',
    // this server's own URL, with /S/ instead of /s/
    `${t.url}/s/abc`,
    `${t.url}/S/abc`,
    // settings.network.allowedHosts and publicBaseUrl, any port, scheme, case, trailing dot
    'https://pennypost.home.arpa/',
    'http://PennyPost.Home.Arpa.:80/x',
    'http://[fd00::99]/',
    'http://[FD00:0:0::99]:1/',
    'https://pp.example.net/',
    'http://pp.example.net:9999/s/x',
    'https://PP.EXAMPLE.NET./base/s/abc',
    // the machine's host name and interface addresses
    ...machineTargets(),
  ];

  it('refuses every spelling of this server on shortlink.create and shortlink.update (400, params.url)', async () => {
    const { data: link } = await create('https://example.com/start');
    for (const url of SPELLINGS()) {
      const created = await create(url);
      expectRefusal(created, linksErrors.rows.urlReachesThisServer, { field: 'params.url', label: url });
      expect(created.message, url).toMatch(/this PennyPost server itself/);
      const updated = await t.api('shortlink.update', { id: link.id, url }, user.token);
      expectRefusal(updated, linksErrors.rows.urlReachesThisServer, { field: 'params.url', label: url });
    }
    expect((await t.api('shortlink.query', { code: link.code }, user.token)).data.url).toBe('https://example.com/start');
  });

  it('recognises user info in front of this server too (refused anyway for carrying credentials)', async () => {
    const links = t.server.app.services.links;
    for (const url of ['http://x@localhost/', 'http://user:pw@127.1:80/', 'http://a@[::1]/s/abc']) {
      expect(links.reachesThisServer(url), url).toBe(true);
      expect((await create(url)).data, url).toMatchObject({ field: 'params.url' });
    }
  });

  it('still takes outside targets, /s/ paths of other sites included', async () => {
    for (const url of [
      'https://example.com/s/abc',
      'https://example.com/S/abc',
      'http://localhost.example.com/',
      'http://127.0.0.1.example.com/s/abc',
      'http://128.0.0.1/',
      'https://pp.example.net.evil.example/',
      'http://[2001:db8::1]/',
    ]) {
      const created = await create(url);
      expect(created.status, url).toBe(200);
      expect(t.server.app.services.links.reachesThisServer(url), url).toBe(false);
    }
  });

  it('cannot make two links that point at each other through /S/ and [::1] or localhost', async () => {
    const a = await create('https://example.com/a', { alias: 'loop-a' });
    expect(a.status).toBe(200);
    const b = await create(`http://[::1]:${port}/S/loop-a`, { alias: 'loop-b' });
    expect(b).toMatchObject({ status: 400, data: { field: 'params.url' } });
    const b2 = await create('https://example.com/b', { alias: 'loop-b' });
    expect(b2.status).toBe(200);
    expectRefusal(await t.api('shortlink.update', { id: a.data.id, url: `http://[::1]:${port}/S/loop-b` }, user.token), linksErrors.rows.urlReachesThisServer);
    expectRefusal(await t.api('shortlink.update', { id: b2.data.id, url: `http://localhost:${port}/S/loop-a` }, user.token), linksErrors.rows.urlReachesThisServer);
    expect((await hit('loop-a')).headers.get('location')).toBe('https://example.com/a');
    expect((await hit('loop-b')).headers.get('location')).toBe('https://example.com/b');
  });

  it('does not follow stored links that lead back to this server (a 410 page, no redirect, not counted)', async () => {
    const a = (await create('https://example.com/old-a', { alias: 'old-loop-a' })).data;
    const b = (await create('https://example.com/old-b', { alias: 'old-loop-b' })).data;
    // As if stored before the rule (or synced from an older device): written past the service.
    const collection = t.server.app.db.collection<LinkDoc>('links');
    await (await collection.findOne(a.id).exec())!.incrementalPatch({ url: `http://[::1]:${port}/S/old-loop-b` });
    await (await collection.findOne(b.id).exec())!.incrementalPatch({ url: `http://localhost:${port}/s/old-loop-a` });
    for (const code of ['old-loop-a', 'old-loop-b']) {
      const res = await hit(code);
      expect(res.status, code).toBe(410);
      expect(res.headers.get('location'), code).toBeNull();
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await res.text()).toMatch(/Link not followed/);
    }
    expect((await t.api('shortlink.query', { code: 'old-loop-a' }, user.token)).data.accessCount).toBe(0);
    // Its owner can still point it elsewhere.
    expect((await t.api('shortlink.update', { id: a.id, url: 'https://example.com/fixed' }, user.token)).status).toBe(200);
    expect((await hit('old-loop-a')).headers.get('location')).toBe('https://example.com/fixed');
  });
});
