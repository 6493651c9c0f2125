import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zonedTime } from '../lib/calendar';
import { ManualClock } from '../lib/clock';
import { createAsset } from '../test-support/ledger';
import { registerUser, startTestServer, type TestServer } from '../test-support/test-server';

/**
 * Issue 36, finding 10: on a home server in UTC with the browser in Asia/Shanghai, a CMB SMS of
 * "11月28日18:42" became a draft dated 11月29日 02:42, the message page showed another time than
 * the app, and two exports made at the same moment were named with different dates. What has no
 * viewer to ask uses the person's own zone (user.setTimeZone, sent by the UI).
 */

// 18:30 UTC on 28 November: already 29 November in Shanghai.
const clock = new ManualClock(Date.UTC(2026, 10, 28, 18, 30));
const ZONE = 'Asia/Shanghai';
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ clock, settings: { push: { sendPerAppKey: 1000, sendPerAddress: 1000 } } });
});
afterAll(() => t.close());

describe("the person's time zone", () => {
  it('is kept per account; a name that is not a zone is refused', async () => {
    const u = await registerUser(t);
    expect(await t.api('user.setTimeZone', { timeZone: 'Mars/Olympus' }, u.token)).toMatchObject({ status: 400, data: { field: 'params.timeZone' } });
    expect((await t.api('user.setTimeZone', { timeZone: ZONE }, u.token)).data).toEqual({ timeZone: ZONE });
    expect(await t.server.app.services.users.timeZone(u.id)).toBe(ZONE);
  });

  it("reads a notice's time in the person's zone, not this computer's", async () => {
    const u = await registerUser(t);
    await t.api('user.setTimeZone', { timeZone: ZONE }, u.token);
    await createAsset(t, u, { name: '招商银行 1234', type: 'debit_card', currency: 'CNY', isDefault: true, balance: 100 });
    const { inboxKey } = (await t.api('inbox.getKey', {}, u.token)).data;
    const res = await fetch(`${t.url}/in/${inboxKey}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '您尾号1234的招商银行卡11月28日18:42消费25.50元【招商银行】',
    });
    const draft = (await res.json()).data;
    expect(draft.date).toBe(zonedTime(2026, 11, 28, 18, 42, 0, ZONE));
  });

  it("shows a message page's time in the app owner's zone, naming it", async () => {
    const u = await registerUser(t);
    await t.api('user.setTimeZone', { timeZone: ZONE }, u.token);
    const channel = (await t.api('push.createChannel', { name: 'desk', type: 'desktop', config: {} }, u.token)).data;
    const app = (await t.api('push.createApp', { name: 'Alerts', channelId: channel.id }, u.token)).data;
    const sent = await (await fetch(`${t.url}/send/${app.appKey}?title=Hello&desp=world`)).json();
    const message = (await t.api('push.getMessage', { id: sent.data.pushId }, u.token)).data;
    const page = await (await fetch(new URL(message.url, t.url))).text();
    expect(page).toContain('2026-11-29 02:30 (Asia/Shanghai)');
  });

  it("names a CSV export with the date in the viewer's zone (or the person's)", async () => {
    const u = await registerUser(t);
    expect((await t.api('accounting.exportCsv', { timeZone: ZONE }, u.token)).data.filename).toBe('pennypost-records-2026-11-29.csv');
    expect((await t.api('accounting.exportCsv', { timeZone: 'America/New_York' }, u.token)).data.filename).toBe('pennypost-records-2026-11-28.csv');
    await t.api('user.setTimeZone', { timeZone: ZONE }, u.token);
    expect((await t.api('accounting.exportCsv', {}, u.token)).data.filename).toBe('pennypost-records-2026-11-29.csv');
  });
});
