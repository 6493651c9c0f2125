import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock';
import { FakeWechatMp } from '../../test-support/fakes/fake-wechat-mp';
import { registerUser } from '../../test-support/test-server';
import { MARK_PREFIX } from '../config';
import { DAY, NotifyHarness, type User } from './helpers';

/**
 * Budget alerts end to end: records written through /api move a budget past 80 % and 100 %, the
 * planning domain's alert check emits, the real notifier sends through the person's push app —
 * the fake WeChat for one account, this desktop for another — once per budget, month and level,
 * also across restarts and repeated checks.
 */

/** Sunday 2026-11-15 12:00 UTC: the middle of November in every time zone. */
const T0 = Date.UTC(2026, 10, 15, 12);
const clock = new ManualClock(T0);
const h = new NotifyHarness(clock);
let wx: FakeWechatMp;

beforeAll(async () => {
  wx = await new FakeWechatMp(undefined, undefined, () => clock.now()).start();
  await h.start();
}, 30_000);
afterAll(async () => {
  await h.close();
  await wx.close();
});

async function spend(user: User, asset: string, amount: number): Promise<void> {
  await h.ok(user, 'accounting.create', { type: 'expense', amount, asset, category: 'Food', date: clock.now() });
}

/** What the alert check would do on its timer, right now. */
const check = () => h.t.server.app.services.budgetAlerts.tick();

async function ledgerWithBudget(user: User): Promise<string> {
  const asset = await h.ok<{ id: string }>(user, 'asset.create', { name: 'Wallet', type: 'credit_card', currency: 'USD' });
  await h.ok(user, 'budget.create', { name: 'Everything', categories: 'all', amount: 100, period: 'month', startMonth: '2026-11', rollover: false });
  return asset.id;
}

describe('budget and bill alerts through the push channels', () => {
  it('reach WeChat recipients once at 80 % and once at 100 %, never again after checks and a restart', async () => {
    const user = await registerUser(h.t);
    const appId = await h.app(user, 'wechat', { appId: wx.appId, appSecret: wx.appSecret, apiBase: wx.url }, ['openid_budget']);
    await h.ok(user, 'notify.configure', { appId, events: { budget80: true, budget100: true } });
    const asset = await ledgerWithBudget(user);

    await spend(user, asset, 50);
    await check();
    expect(wx.sentTo('openid_budget')).toHaveLength(0);

    await spend(user, asset, 35);
    await check();
    await check();
    expect(wx.sentTo('openid_budget').map((m) => m.content!.split('\n')[0])).toEqual(['Budget "Everything" is 80% used']);

    await h.restart();
    await check();
    expect(wx.sentTo('openid_budget')).toHaveLength(1);

    await spend(user, asset, 20);
    await check();
    clock.advance(DAY);
    await check();
    const titles = wx.sentTo('openid_budget').map((m) => m.content!.split('\n')[0]);
    expect(titles).toEqual(['Budget "Everything" is 80% used', 'Budget "Everything" is used up']);
    const history = await h.history(user);
    expect(history.map((m) => m.status)).toEqual(['success', 'success']);
  });

  it('reach this desktop once per level for another account, and nothing for a third with alerts off', async () => {
    const user = await registerUser(h.t);
    const quiet = await registerUser(h.t);
    const appId = await h.app(user, 'desktop');
    await h.ok(user, 'notify.configure', { appId, events: { budget80: true, budget100: true } });
    const quietApp = await h.app(quiet, 'desktop');
    await h.ok(quiet, 'notify.configure', { appId: quietApp, events: { goalReached: true } });
    const asset = await ledgerWithBudget(user);
    const quietAsset = await ledgerWithBudget(quiet);
    const before = h.desktop.length;

    await spend(user, asset, 120);
    await spend(quiet, quietAsset, 120);
    await check();
    await check();
    const shown = h.desktop.slice(before);
    // Past 100 % at once: the 100 % alert only (80 % is behind it).
    expect(shown.map((m) => [m.userId, m.title])).toEqual([[user.id, 'Budget "Everything" is used up']]);
    expect(await h.history(quiet)).toHaveLength(0);
  });

  it('with only the 80 % warning on, a budget that jumps past 100 % still warns — once', async () => {
    const user = await registerUser(h.t);
    const appId = await h.app(user, 'desktop');
    await h.ok(user, 'notify.configure', { appId, events: { budget80: true } });
    const asset = await ledgerWithBudget(user);
    const before = h.desktop.length;
    await spend(user, asset, 150);
    await check();
    await check();
    expect(h.desktop.slice(before).map((m) => [m.userId, m.title])).toEqual([[user.id, 'Budget "Everything" is used up']]);
  });

  it('announce a bill on this desktop once, daysBefore its date, in the account’s language — not again after a restart', async () => {
    const params = { username: `zhuser${Date.now()}`, email: `zh${Date.now()}@example.com`, password: 'correct horse battery', language: 'zh-CN' };
    const registered = await h.t.api('user.register', params);
    const user: User = { ...params, token: registered.data.token as string, id: registered.data.id as string };
    const appId = await h.app(user, 'desktop');
    await h.ok(user, 'notify.configure', { appId, events: { billDue: { daysBefore: 2 } } });
    const asset = await h.ok<{ id: string }>(user, 'asset.create', { name: 'Card', type: 'credit_card', currency: 'USD' });
    const rent = await h.ok<{ id: string }>(user, 'recurring.create', {
      name: 'Rent',
      template: { type: 'expense', amount: 1500, category: '居住', asset: asset.id },
      rule: { freq: 'monthly', byMonthDay: 20 },
      startDate: Date.UTC(2026, 10, 20, 9),
      timeZone: 'UTC',
      mode: 'confirm',
    });
    const before = h.desktop.length;
    const remind = async () => {
      clock.advance(16 * 60_000); // past the scheduler's reminder interval
      await h.t.server.app.services.recurring.tick();
    };
    await remind();
    expect(h.desktop.slice(before)).toEqual([]); // the 20th is 5 days away
    clock.set(Date.UTC(2026, 10, 18, 10));
    await remind();
    await remind();
    await h.restart();
    await remind();
    const shown = h.desktop.slice(before).filter((m) => m.userId === user.id);
    expect(shown).toHaveLength(1);
    expect(shown[0]?.title).toBe('Rent：2026-11-20 需付 1500.00 USD');
    const marker = await h.t.server.app.db.local.get(`${MARK_PREFIX}${user.id}:billDue:${rent.id}:2026-11-20`);
    expect(marker).toMatchObject({ state: 'sent' });
  });
});
