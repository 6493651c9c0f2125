import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPushServer, type PushTestServer } from './helpers';

/**
 * Channel secrets are sealed with the key of the server's own data dir. Two servers in one process
 * (tests, the desktop shell restarting its server) each keep theirs: the one started last does not
 * take over the sealing of the other (it used to, through a module-global box).
 */
let first: PushTestServer;
let second: PushTestServer;
beforeAll(async () => {
  first = await startPushServer();
});
afterAll(async () => {
  // Undefined when beforeAll (or the test) failed before starting them.
  await (first as PushTestServer | undefined)?.close();
  await (second as PushTestServer | undefined)?.close();
});

it('each server seals and opens channel secrets with its own data dir key', async () => {
  const created = await first.call('push.createChannel', { name: 'ntfy', type: 'webhook', config: { format: 'ntfy', token: 'tk_firstservertoken1234' } });
  expect(created.code).toBe(200);
  second = await startPushServer();
  const other = await second.call('push.createChannel', { name: 'ntfy', type: 'webhook', config: { format: 'ntfy', token: 'tk_secondservertoken5678' } });
  expect(other.code).toBe(200);

  const listed = await first.call('push.queryChannels', {});
  expect(listed.code).toBe(200);
  expect(listed.data.list[0].config.token).toBe('••••1234');
  const push = first.server.app.services.push;
  expect(push.targets.openConfig(push.targets.get(created.data.id)!).token).toBe('tk_firstservertoken1234');
  const push2 = second.server.app.services.push;
  const stored = push2.targets.get(other.data.id)!;
  expect(push2.targets.openConfig(stored).token).toBe('tk_secondservertoken5678');
  // The second server's sealed value means nothing to the first one's key: it reads as not entered, and is named unreadable.
  expect(push.targets.openConfig(stored).token).toBe('');
  expect(push.targets.configs.unreadableSecrets(stored)).toEqual(['token']);
  expect(push2.targets.configs.unreadableSecrets(stored)).toEqual([]);
});
