import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenFake, sendJson, type FakeServer } from '../../test-support/fakes/listen';
import { registerUser, startTestServer, tempDataDir, type TestServer } from '../../test-support/test-server';
import { usersDomain } from '../../users';
import { pushDomain } from '..';
import { commonErrors } from '../../lib/errors';
import { expectRefusal } from '../../test-support/refusal';

/**
 * Push channels never lead back to this PennyPost (docs/security.md, "Outbound requests"): a
 * channel or recipient that reaches this server — by any of its names, addresses or spellings, on
 * the port it listens on, or by a name configured as its own on any port — is refused when it is
 * saved (400 naming the field), and a stored one is refused when a push is delivered, so one /send
 * can never become a flood of pushes to itself. Other ports of this machine (a local ntfy, the
 * fakes of the tests) stay the owner's to use.
 */

const TOKEN = '123456789:AAfakeTelegramBotTokenForTests_0123';

/** A port nothing listens on now (the test server is started on it later). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('push channels never target this server', () => {
  let t: TestServer;
  let port: number;
  let owner: { token: string; id: string };
  let other: FakeServer;
  const otherHits: string[] = [];

  beforeAll(async () => {
    other = await listenFake((req, res) => {
      otherHits.push(req.url ?? '');
      sendJson(res, { id: 'x1', event: 'message' });
    });
    t = await startTestServer({
      domains: [usersDomain(), pushDomain()],
      settings: {
        push: { sendPerAppKey: 100_000, sendPerAddress: 100_000, callTimeoutMs: 1000 },
        network: { allowedHosts: ['pennypost.home.arpa', '[fd00::99]'], publicBaseUrl: 'https://pp.example.net:8443/base/' },
      },
    });
    port = t.server.port;
    owner = await registerUser(t);
  });
  afterAll(async () => {
    await t.close();
    await other.close();
  });

  const api = (action: string, params: unknown) => t.api(action, params, owner.token);

  /** This machine's own names and addresses, on this server's port. */
  function machineTargets(): string[] {
    const host = os.hostname();
    const out = [`http://${host}:${port}/`, `https://${host.toUpperCase()}.local:${port}/x`, `http://${host}.:${port}/send`];
    for (const list of Object.values(os.networkInterfaces())) {
      for (const info of list ?? []) {
        const [address = ''] = info.address.split('%');
        out.push(info.family === 'IPv6' ? `http://[${address}]:${port}/` : `http://${address}:${port}/`);
      }
    }
    return out;
  }

  /** Every spelling of this server the URL parser accepts (the short links' list, on this server's port). */
  const SPELLINGS = () => [
    `http://localhost:${port}`,
    `http://LOCALHOST:${port}/send`,
    `http://LocalHost.:${port}/`,
    `http://localhost..:${port}/`,
    `http://foo.localhost:${port}/`,
    `http://ｌｏｃａｌｈｏｓｔ:${port}/`,
    `http://127.0.0.1:${port}`,
    `http://127.0.0.1.:${port}/`,
    `http://127.1:${port}/`,
    `http://127.255.255.254:${port}/`,
    `http://2130706433:${port}/`,
    `http://0x7f.1:${port}/`,
    `http://0x7f000001:${port}/`,
    `http://0177.0.0.1:${port}/`,
    `http://[::1]:${port}/`,
    `http://[0:0:0:0:0:0:0:1]:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://[::ffff:7f00:1]:${port}/`,
    `http://0.0.0.0:${port}/`,
    `http://0:${port}/`,
    `http://[::]:${port}/`,
    t.url,
    // the names configured as this server's, on any port, scheme, case, trailing dot
    'https://pennypost.home.arpa',
    'http://PennyPost.Home.Arpa.:80/x',
    'http://[fd00::99]',
    'http://[FD00:0:0::99]:1',
    'https://pp.example.net',
    'http://pp.example.net:9999/base',
    'https://PP.EXAMPLE.NET.',
    ...machineTargets(),
  ];

  it('refuses every spelling of this server as a channel address (400 naming the field), on create and update', async () => {
    const kept = await api('push.createChannel', { name: 'ntfy', type: 'webhook', config: { format: 'ntfy', url: other.url } });
    expect(kept.status).toBe(200);
    for (const url of SPELLINGS()) {
      const created = await api('push.createChannel', { name: 'loop', type: 'webhook', config: { format: 'ntfy', url } });
      expectRefusal(created, commonErrors.rows.invalid, { label: url });
      expect(created.data, url).toMatchObject({ field: 'params.config.url' });
      expect(created.message, url).toMatch(/this PennyPost server itself/);
      const updated = await api('push.updateChannel', { id: kept.data.id, config: { url } });
      expectRefusal(updated, commonErrors.rows.invalid, { label: url });
      expect(updated.data, url).toMatchObject({ field: 'params.config.url' });
    }
    expect((await api('push.queryChannels', {})).data.list.find((c: { id: string }) => c.id === kept.data.id).config.url).toBe(other.url);
  });

  it('refuses it in every channel type that names an address, and as a recipient URL', async () => {
    const self = `http://127.1:${port}`;
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['telegram', { botToken: TOKEN, telegramApiBase: self }, 'telegramApiBase'],
      ['wechat', { appId: 'wx0123456789abcdef', appSecret: 'secret0123456789', apiBase: `http://localhost:${port}` }, 'apiBase'],
      ['discord', { webhookUrl: `http://[::1]:${port}/api/webhooks/123456789012345678/abcdefghijklmnopqrstuvwxyz012345` }, 'webhookUrl'],
      ['slack', { webhookUrl: `http://2130706433:${port}/services/T0000000/B0000000/abcdefgh12345678` }, 'webhookUrl'],
      ['wecom', { webhookUrl: `http://0.0.0.0:${port}/cgi-bin/webhook/send?key=abcdefgh12345678` }, 'webhookUrl'],
      ['email', { smtpHost: '127.0.0.1', smtpPort: port, smtpSecurity: 'none', fromAddress: 'me@example.com' }, 'smtpHost'],
      ['email', { smtpHost: 'pennypost.home.arpa', fromAddress: 'me@example.com' }, 'smtpHost'],
    ];
    for (const [type, config, field] of cases) {
      const created = await api('push.createChannel', { name: type, type, config });
      expectRefusal(created, commonErrors.rows.invalid, { label: type });
      expect(created.data, type).toMatchObject({ field: `params.config.${field}` });
    }
    const channel = (await api('push.createChannel', { name: 'json', type: 'webhook', config: { format: 'json' } })).data;
    const app = (await api('push.createApp', { name: 'json app', channelId: channel.id })).data;
    for (const address of [`http://localhost:${port}/send/${app.appKey}`, `${t.url}/${app.appKey}`, 'https://pp.example.net/send/x']) {
      const added = await api('push.addRecipient', { appId: app.id, address, name: 'loop' });
      expectRefusal(added, commonErrors.rows.invalid, { label: address });
      expect(added.data, address).toMatchObject({ field: 'params.address' });
    }
    // Another port of this machine is another program: the owner may use it.
    expect((await api('push.addRecipient', { appId: app.id, address: `${other.url}/hook`, name: 'local hook' })).status).toBe(200);
  });
});

describe('a stored channel that leads to this server is refused when it delivers', () => {
  it('one /send to an app whose ntfy channel is this server and whose topic is its own key makes one push, not a flood', async () => {
    const dataDir = tempDataDir('self-loop');
    const port = await freePort();
    const settings = { push: { sendPerAppKey: 100_000, sendPerAddress: 100_000, callTimeoutMs: 1000, requestDeadlineMs: 5000 } };
    // Saved while nothing listened on that port: the address was another program's then.
    let t = await startTestServer({ domains: [usersDomain(), pushDomain()], dataDir, settings });
    try {
      const owner = await registerUser(t);
      const channel = await t.api('push.createChannel', { name: 'ntfy', type: 'webhook', config: { format: 'ntfy', url: `http://127.0.0.1:${port}` } }, owner.token);
      expect(channel.status).toBe(200);
      const app = (await t.api('push.createApp', { name: 'loop', channelId: channel.data.id }, owner.token)).data;
      expect((await t.api('push.addRecipient', { appId: app.id, address: app.appKey, name: 'itself' }, owner.token)).status).toBe(200);
      await t.close(true);
      // Now this server listens there: the channel leads back to it.
      t = await startTestServer({ domains: [usersDomain(), pushDomain()], dataDir, settings, port });
      const sent = await t.fetch(`/send/${app.appKey}?title=once`);
      const answer = (await sent.json()) as { data: { results: Array<{ ok: boolean; class: string; errmsg: string }> } };
      expect(answer.data.results).toHaveLength(1);
      expect(answer.data.results[0]).toMatchObject({ ok: false, class: 'systemic' });
      expect(answer.data.results[0]?.errmsg).toMatch(/this PennyPost server itself/);
      // Nothing came back as another push.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const history = await t.api('push.queryMessages', { appId: app.id }, owner.token);
      expect(history.data.total).toBe(1);
      // The test of the channel says the same, and sends nothing either.
      const test = await t.api('push.testChannel', { id: channel.data.id, address: app.appKey }, owner.token);
      expect(test.data).toMatchObject({ ok: false, class: 'systemic' });
      expect(test.data.message).toMatch(/this PennyPost server itself/);
      expect((await t.api('push.queryMessages', { appId: app.id }, owner.token)).data.total).toBe(1);
    } finally {
      await t.close(true);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
