import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock';
import { FakeWechatMp } from '../../test-support/fakes/fake-wechat-mp';
import { registerUser } from '../../test-support/test-server';
import { MARK_PREFIX } from '../config';
import { MARKER_DAYS, REMINDER_CALLER } from '../notifier';
import { DAY, NotifyHarness, type User } from './helpers';
import { notifyErrors } from '../errors';
import { expectRefusal } from '../../test-support/refusal';

/** Monday 2026-11-23 00:00 UTC. */
const T0 = Date.UTC(2026, 10, 23);
const clock = new ManualClock(T0);
const h = new NotifyHarness(clock);
let wx: FakeWechatMp;
let alice: User;
let bob: User;

beforeAll(async () => {
  wx = await new FakeWechatMp(undefined, undefined, () => clock.now()).start();
  await h.start();
  alice = await registerUser(h.t);
  bob = await registerUser(h.t);
}, 30_000);
afterAll(async () => {
  await h.close();
  await wx.close();
});
beforeEach(() => wx.reset());

const wechat = () => ({ appId: wx.appId, appSecret: wx.appSecret, apiBase: wx.url });
const msg = (title: string) => ({ title, desp: `**${title}** in Markdown` });

describe('notify.configure and notify.get', () => {
  it('starts off, stores only the events that are on, and answers the same on get', async () => {
    const user = await registerUser(h.t);
    expect(await h.ok(user, 'notify.get')).toEqual({ configured: false, appId: null, appName: null, events: {}, updatedAt: null });
    const appId = await h.app(user, 'desktop');
    const saved = await h.ok(user, 'notify.configure', {
      appId,
      events: { budget80: true, budget100: false, billDue: { daysBefore: 3 }, weeklySummary: { weekday: 'FR', hour: 18 }, syncProblem: true },
    });
    expect(saved).toEqual({
      configured: true,
      appId,
      appName: 'Reminders via desktop',
      events: { budget80: true, billDue: { daysBefore: 3 }, weeklySummary: { weekday: 'FR', hour: 18 }, syncProblem: true },
      updatedAt: clock.now(),
    });
    expect(await h.ok(user, 'notify.get')).toEqual(saved);
    expect(await h.notifier.billDueDays(user.id)).toBe(3);
    expect(await h.notifier.wants(user.id, 'budget80')).toBe(true);
    expect(await h.notifier.wants(user.id, 'budget100')).toBe(false);
    // The whole setting is replaced: what is absent now is off.
    await h.ok(user, 'notify.configure', { appId, events: { goalReached: true } });
    expect((await h.ok(user, 'notify.get')).events).toEqual({ goalReached: true });
    expect(await h.notifier.billDueDays(user.id)).toBeNull();
  });

  it('refuses bad fields and apps that are not the caller’s, and keeps accounts apart', async () => {
    const appId = await h.app(alice, 'desktop');
    const bad = [
      { appId, events: { billDue: { daysBefore: 31 } } },
      { appId, events: { billDue: { daysBefore: -1 } } },
      { appId, events: { weeklySummary: { weekday: 'XX', hour: 9 } } },
      { appId, events: { weeklySummary: { weekday: 'MO', hour: 24 } } },
      { appId, events: { weeklySummary: { weekday: 'MO' } } },
      { appId, events: { nope: true } },
      { appId, events: { budget80: 'yes' } },
      { events: {} },
    ];
    for (const params of bad) expect((await h.call(alice, 'notify.configure', params)).code, JSON.stringify(params)).toBe(400);
    const missing = await h.call(alice, 'notify.configure', { appId: 'nosuchapp0000000000', events: {} });
    expect([missing.code, missing.status]).toEqual([404, 404]);
    // Bob cannot send his reminders through Alice's app, nor see her setting.
    await h.ok(alice, 'notify.configure', { appId, events: { budget80: true } });
    const theirs = await h.call(bob, 'notify.configure', { appId, events: { budget80: true } });
    expectRefusal(theirs, notifyErrors.rows.appNotFound);
    expect(theirs.message).not.toContain('Reminders via');
    expect((await h.ok(bob, 'notify.get')).configured).toBe(false);
    expect(await h.notifier.emit(bob.id, 'budget80', 'x', msg('not bob'))).toBe('off');
  });
});

describe('emit', () => {
  it('sends once through the WeChat app with a history row, then duplicate — also after a restart; an event that is off sends nothing', async () => {
    // The fake WeChat listens on 127.0.0.1, where only the owner (alice, the first account) may send (docs/security.md, "Outbound requests").
    const user = alice;
    const appId = await h.app(user, 'wechat', wechat(), ['openid_r1', 'openid_r2']);
    await h.ok(user, 'notify.configure', { appId, events: { budget80: true } });
    expect(await h.notifier.emit(user.id, 'budget80', 'b1:2026-11:80', msg('Food budget at 80 %'))).toBe('sent');
    expect(wx.sentTo('openid_r1')).toHaveLength(1);
    expect(wx.sentTo('openid_r2')).toHaveLength(1);
    expect(wx.sentTo('openid_r1')[0]?.content).toMatch(/^Food budget at 80 %\n\n\*\*Food budget at 80 %\*\* in Markdown/);
    const history = await h.history(user);
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ title: 'Food budget at 80 %', status: 'success', appId });
    const detail = await h.ok(user, 'push.getMessage', { id: (history[0] as unknown as { id: string }).id });
    expect(detail.caller).toBe(REMINDER_CALLER);
    expect(detail.results.map((r: { class: string }) => r.class)).toEqual(['ok', 'ok']);

    expect(await h.notifier.emit(user.id, 'budget80', 'b1:2026-11:80', msg('again'))).toBe('duplicate');
    expect(await h.notifier.emit(user.id, 'budget100', 'b1:2026-11:100', msg('off'))).toBe('off');
    expect(wx.sentTo('openid_r1')).toHaveLength(1);

    await h.restart();
    expect(await h.notifier.emit(user.id, 'budget80', 'b1:2026-11:80', msg('after restart'))).toBe('duplicate');
    expect(await h.notifier.emit(user.id, 'budget80', 'b1:2026-12:80', msg('next month'))).toBe('sent');
    expect(wx.sentTo('openid_r1').map((m) => m.content!.split('\n')[0])).toEqual(['Food budget at 80 %', 'next month']);
    expect(await h.history(user)).toHaveLength(2);
  });

  it('sends through the desktop channel, and never twice when two emits of one key race', async () => {
    const user = await registerUser(h.t);
    const appId = await h.app(user, 'desktop');
    await h.ok(user, 'notify.configure', { appId, events: { budget100: true } });
    const before = h.desktop.length;
    const outcomes = await Promise.all([1, 2, 3].map(() => h.notifier.emit(user.id, 'budget100', 'b9:2026-11:100', msg('Budget used up'))));
    expect(outcomes.sort()).toEqual(['duplicate', 'duplicate', 'sent']);
    const shown = h.desktop.slice(before);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({ userId: user.id, appId, title: 'Budget used up' });
    expect(await h.history(user)).toHaveLength(1);
  });

  it('writes its marker before the push: a key left "sending" by a crash is never sent again', async () => {
    const user = await registerUser(h.t);
    const appId = await h.app(user, 'desktop');
    await h.ok(user, 'notify.configure', { appId, events: { budget80: true } });
    await h.t.server.app.db.local.put(`${MARK_PREFIX}${user.id}:budget80:crashed`, { state: 'sending', event: 'budget80', at: clock.now() });
    expect(await h.notifier.emit(user.id, 'budget80', 'crashed', msg('x'))).toBe('duplicate');
    expect(await h.history(user)).toHaveLength(0);
    // The marker of a sent key says so, with its push.
    expect(await h.notifier.emit(user.id, 'budget80', 'fine', msg('y'))).toBe('sent');
    const marker = await h.t.server.app.db.local.get<{ state: string; pushId: string }>(`${MARK_PREFIX}${user.id}:budget80:fine`);
    expect(marker).toMatchObject({ state: 'sent', pushId: expect.any(String) });
  });

  it('answers failed and marks nothing when the chosen app was deleted', async () => {
    const user = await registerUser(h.t);
    const appId = await h.app(user, 'desktop');
    await h.ok(user, 'notify.configure', { appId, events: { goalReached: true } });
    await h.ok(user, 'push.deleteApp', { id: appId });
    expect((await h.ok(user, 'notify.get')).appName).toBeNull();
    expect(await h.notifier.emit(user.id, 'goalReached', 'g1', msg('x'))).toBe('failed');
    expect(await h.t.server.app.db.local.get(`${MARK_PREFIX}${user.id}:goalReached:g1`)).toBeUndefined();
  });

  it('prunes markers older than the retention', async () => {
    const user = await registerUser(h.t);
    const local = h.t.server.app.db.local;
    await local.put(`${MARK_PREFIX}${user.id}:budget80:old`, { state: 'sent', event: 'budget80', at: clock.now() - (MARKER_DAYS + 1) * DAY });
    await local.put(`${MARK_PREFIX}${user.id}:budget80:recent`, { state: 'sent', event: 'budget80', at: clock.now() - 10 * DAY });
    expect(await h.notifier.prune()).toBeGreaterThanOrEqual(1);
    expect(await local.get(`${MARK_PREFIX}${user.id}:budget80:old`)).toBeUndefined();
    expect(await local.get(`${MARK_PREFIX}${user.id}:budget80:recent`)).toBeDefined();
  });

  it('forgets an account’s setting and markers when the account is deleted', async () => {
    const user = await registerUser(h.t);
    const appId = await h.app(user, 'desktop');
    await h.ok(user, 'notify.configure', { appId, events: { budget80: true } });
    await h.notifier.emit(user.id, 'budget80', 'k', msg('x'));
    await h.notifier.forgetUser(user.id);
    expect(await h.t.server.app.db.local.entries(`${MARK_PREFIX}${user.id}:`)).toEqual([]);
    expect(await h.notifier.wants(user.id, 'budget80')).toBe(false);
  });
});
