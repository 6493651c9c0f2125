import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { settingsActions } from './actions';

const settingsUpdate = settingsActions['settings.update'];
import { registerUser, startTestServer, type TestServer } from '../test-support/test-server';
import { apiErrors } from '../api/errors';
import { commonErrors } from '../lib/errors';
import { expectRefusal } from '../test-support/refusal';

let t: TestServer;
let owner: Awaited<ReturnType<typeof registerUser>>;
beforeAll(async () => {
  t = await startTestServer();
  owner = await registerUser(t); // the first account: the owner, who may change settings
});
afterAll(() => t.close());

describe('settings.get / settings.update', () => {
  it('shows the safe settings and where the server listens, and saves changes to settings.json', async () => {
    const u = owner;
    const got = await t.api('settings.get', {}, u.token);
    expect(got.data).toMatchObject({
      network: { lan: false, lanApi: false, allowedHosts: [], corsOrigins: [], publicBaseUrl: '' },
      listening: { host: '127.0.0.1', url: t.url },
      restartRequired: false,
      dataDir: t.dataDir,
    });
    expect(JSON.stringify(got.data)).not.toMatch(/appSecret|privateKey|secret/i);
    const updated = await t.api(
      'settings.update',
      { network: { lan: true, publicBaseUrl: 'https://pp.example.org', allowedHosts: ['pp.example.org'] }, push: { retentionDays: 90 } },
      u.token,
    );
    expect(updated.code).toBe(200);
    expect(updated.data).toMatchObject({ network: { lan: true, publicBaseUrl: 'https://pp.example.org' }, push: { retentionDays: 90 }, restartRequired: true });
    const file = JSON.parse(readFileSync(path.join(t.dataDir, 'settings.json'), 'utf8'));
    expect(file.network.lan).toBe(true);
    expect(file.push.retentionDays).toBe(90);
    expect(file.rateLimit).toBeDefined(); // the rest of the file is kept
    expect((await t.api('settings.update', { network: { lan: false } }, u.token)).data.restartRequired).toBe(false);
  });

  it('refuses bad values and unknown fields with 400, and changes nothing', async () => {
    const u = owner;
    expectRefusal(await t.api('settings.update', { network: { publicBaseUrl: 'javascript:alert(1)' } }, u.token), commonErrors.rows.invalid);
    expectRefusal(await t.api('settings.update', { push: { retentionDays: 0 } }, u.token), commonErrors.rows.invalid);
    expectRefusal(await t.api('settings.update', { auth: { tokenLifetimeSeconds: 1 } }, u.token), commonErrors.rows.invalid);
    expectRefusal(await t.api('settings.update', { network: { corsOrigins: ['*'] } }, u.token), commonErrors.rows.invalid);
    expect((await t.api('settings.get', {}, u.token)).data.push.retentionDays).toBe(90);
    expectRefusal(await t.api('settings.get', {}), commonErrors.rows.unauthorized);
    // A household member is refused before any value is looked at.
    const member = await registerUser(t);
    expectRefusal(await t.api('settings.update', { push: { retentionDays: 5 } }, member.token), apiErrors.rows.adminOnly);
    expect((await t.api('settings.get', {}, owner.token)).data.push.retentionDays).toBe(90);
  });

  it('allows changes only from this computer', () => {
    const ctx = {
      app: t.server.app,
      clientAddress: '192.168.1.20',
      requestId: 'r',
      token: 't',
      user: { id: 'u', username: 'u', role: 'owner', mustChangePassword: false },
      session: { id: 's', userId: 'u', expiresAt: 0 },
    };
    expect(() => settingsUpdate.handler({ network: { lan: true } }, ctx as never)).toThrow(/only be changed on the computer/);
    expect(t.server.app.settings.get().network.lan).toBe(false);
  });
});
