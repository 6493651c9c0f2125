import { readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDataDir } from '../../test-support/test-server';
import { startPushServer, type PushTestServer } from './helpers';

/**
 * A channel secret sealed with a key the data folder no longer has (the key file was replaced or
 * damaged): /send, the channel list and the channel test say so in words and ask for the secret
 * again, instead of answering 500 with a request id; entering it again makes the channel work.
 */
const received: string[] = [];
const receiver = createServer((req, res) => {
  received.push(req.headers.authorization ?? '');
  req.resume();
  res.end('{}');
});
let receiverUrl = '';
const dataDir = tempDataDir();
let t: PushTestServer;
let ids: { channelId: string; appKey: string };
let owner = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const first = await startPushServer({ dataDir });
  const setup = await first.setup({ type: 'webhook', config: { format: 'json', url: receiverUrl, token: 'first-token-123456' }, recipients: ['hook'] });
  owner = first.user.token;
  await first.close(true);
  // The sealing key is gone: the next start makes a new one, which cannot open the stored token.
  const secrets = path.join(dataDir, 'secrets');
  for (const file of readdirSync(secrets)) if (file.startsWith('push-secrets')) rmSync(path.join(secrets, file));
  t = await startPushServer({ dataDir });
  // The channel belongs to the first server's user; their session survives the restart (only the push key was removed).
  ids = { channelId: setup.channelId, appKey: setup.appKey };
});
afterAll(async () => {
  await t.close();
  rmSync(dataDir, { recursive: true, force: true });
  receiver.close();
});

describe('a channel secret the data folder can no longer open', () => {
  it('/send answers in words, sends nothing and records the push as failed', async () => {
    const res = await t.push(`/send/${ids.appKey}`, { query: { title: 'after the key changed' } });
    expect(res.status).toBe(500);
    expect(res.body.message).toMatch(/cannot open this channel's stored token .*Enter it again/);
    expect(res.body.message).not.toMatch(/request id/i);
    expect(res.body.data.results).toMatchObject([{ ok: false, class: 'systemic' }]);
    expect(received).toEqual([]);
    const history = await t.api('push.queryMessages', {}, owner);
    expect(history.data.list[0]).toMatchObject({ title: 'after the key changed', status: 'failed' });
  });

  it('the channel still lists (the token reads as not entered), its test says what to do, and entering the token again makes it work', async () => {
    const list = await t.api('push.queryChannels', {}, owner);
    expect(list.status).toBe(200);
    expect(list.data.list[0]).toMatchObject({ id: ids.channelId, config: { token: '' } });
    const test = await t.api('push.testChannel', { id: ids.channelId }, owner);
    expect(test.data).toMatchObject({ ok: false, class: 'systemic', message: expect.stringMatching(/cannot open this channel's stored token/) });

    expect((await t.api('push.updateChannel', { id: ids.channelId, config: { token: 'second-token-654321' } }, owner)).code).toBe(200);
    const res = await t.push(`/send/${ids.appKey}`, { query: { title: 'works again' } });
    expect(res.status).toBe(200);
    expect(received).toEqual(['Bearer second-token-654321']);
  });
});
