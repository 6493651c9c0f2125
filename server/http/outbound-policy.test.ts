import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenFake, sendJson, type FakeServer } from '../test-support/fakes/listen';
import { isLocalAddress, OutboundPolicy, type OutboundRole, type Resolver } from './outbound-policy';
import { OutboundCallError, outboundRequest } from './outbound-request';

/**
 * The outbound policy on its own (docs/security.md, "Outbound requests"): which addresses are
 * local, and that a name is judged by the addresses it resolves to when the connection is made —
 * not only when it was saved — so a name that changes its answer in between (DNS rebinding) reaches
 * nothing it may not.
 */

describe('local addresses', () => {
  it('counts loopback, private, link-local and every other non-public range as local, in any IPv6 form', () => {
    const local = [
      '127.0.0.1',
      '127.255.0.9',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.254',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '255.255.255.255',
      '224.0.0.1',
      '::1',
      '::',
      'fd00::1',
      'fc12:3456::1',
      'fe80::1',
      'fe80::1%eth0',
      '::ffff:10.0.0.1',
      '::ffff:127.0.0.1',
      '2002:a00:1::1',
      '64:ff9b::a00:1',
      'not an address',
    ];
    for (const address of local) expect(isLocalAddress(address), address).toBe(true);
    for (const address of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e']) {
      expect(isLocalAddress(address), address).toBe(false);
    }
  });
});

describe('names are checked by what they resolve to, at every connection', () => {
  let page: FakeServer;
  const hits: string[] = [];
  /** What the resolver answers for `rebind.example` next: a public address first, then this machine. */
  const answers: LookupAddress[][] = [];
  const resolve: Resolver = (hostname, _options, callback) => {
    if (hostname !== 'rebind.example' && hostname !== 'lan-name.example') {
      callback(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []);
      return;
    }
    const next = hostname === 'lan-name.example' ? [{ address: '10.1.2.3', family: 4 }] : (answers.shift() ?? [{ address: '127.0.0.1', family: 4 }]);
    setImmediate(() => callback(null, next));
  };
  const policyFor = (role: OutboundRole, listeningPort?: number) =>
    new OutboundPolicy(
      {
        settings: { get: () => ({ network: { allowedHosts: [], publicBaseUrl: '', localDestinations: 'owner' as const } }) },
        listening: listeningPort ? { host: '127.0.0.1', port: listeningPort, url: `http://127.0.0.1:${listeningPort}` } : null,
      },
      { roleOf: () => Promise.resolve(role), resolve },
    );

  beforeAll(async () => {
    page = await listenFake((req, res) => {
      hits.push(req.url ?? '');
      sendJson(res, { secret: 'only this machine reads this' });
    });
  });
  afterAll(() => page.close());

  it('a name that answered a public address when saved and this machine when used reaches nothing for a member', async () => {
    const port = Number(new URL(page.url).port);
    const policy = policyFor('member');
    answers.push([{ address: '93.184.216.34', family: 4 }]);
    // Saved: the name resolved to a public address.
    await expect(policy.check('m', [{ field: 'config.url', host: 'rebind.example', port }])).resolves.toBeUndefined();
    // Used: it now resolves to 127.0.0.1, where the page listens. The connection is never made.
    answers.push([{ address: '127.0.0.1', family: 4 }]);
    const refused = await outboundRequest(await policy.scopeFor('m'), `http://rebind.example:${port}/secret`, { timeoutMs: 2000, maxBytes: 1024 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OutboundCallError);
    expect(refused).toMatchObject({ kind: 'refused', message: expect.stringMatching(/this computer or the local network/) });
    expect(hits).toEqual([]);
    policy.close();
  });

  it('a public-looking name that resolves to 10.x is refused when saved (403 naming the field)', async () => {
    const policy = policyFor('member');
    await expect(policy.check('m', [{ field: 'config.url', host: 'lan-name.example', port: 80 }])).rejects.toMatchObject({ status: 403, details: { field: 'config.url' } });
    policy.close();
  });

  it('the owner reaches the same name on this machine, but never this server itself, whatever the name resolves to', async () => {
    const port = Number(new URL(page.url).port);
    const owner = policyFor('owner');
    answers.push([{ address: '127.0.0.1', family: 4 }]);
    const answer = await outboundRequest(await owner.scopeFor('o'), `http://rebind.example:${port}/ok`, { timeoutMs: 2000, maxBytes: 1024 });
    expect(answer.status).toBe(200);
    expect(hits).toEqual(['/ok']);
    owner.close();
    // Now the page's port is "this server": a name resolving to 127.0.0.1 there is refused even for the owner.
    const itself = policyFor('owner', port);
    answers.push([{ address: '127.0.0.1', family: 4 }]);
    const refused = await outboundRequest(await itself.scopeFor('o'), `http://rebind.example:${port}/loop`, { timeoutMs: 2000, maxBytes: 1024 }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ kind: 'refused', message: expect.stringMatching(/this PennyPost server itself/) });
    expect(hits).toEqual(['/ok']);
    itself.close();
  });

  it('keeps only the allowed addresses of a name that resolves to several', async () => {
    const port = Number(new URL(page.url).port);
    const member = policyFor('member');
    const scope = await member.scopeFor('m');
    const lookup = scope.lookupFor(port);
    answers.push([
      { address: '10.0.0.5', family: 4 },
      { address: '93.184.216.34', family: 4 },
    ]);
    const kept = await new Promise<unknown>((resolve) => lookup('rebind.example', { all: true }, (_error, addresses) => resolve(addresses)));
    expect(kept).toEqual([{ address: '93.184.216.34', family: 4 }]);
    member.close();
  });
});
