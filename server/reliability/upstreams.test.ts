/**
 * WeChat misbehaving on the network, beyond the errcode-level cases of
 * server/push/tests/wechat.test.ts (busy, HTTP 500 once, slow answers, token errors): a
 * ChaosProxy between PennyPost and the fake WeChat drops connections, cuts answers in half,
 * answers garbage, HTML, 2 MiB, 500/502, or never answers — per recipient and on the token
 * endpoint. Each push must answer before its deadline (a request that takes longer than the
 * deadline plus a margin fails the test as a hang) with the right class for every recipient, and
 * the history must hold exactly what the caller was told.
 *
 * The CouchDB side (the stand-in disappears and returns; sync resumes without duplicates) is
 * server/sync/sync.test.ts › "offline and errors".
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeWechatMp } from '../test-support/fakes/fake-wechat-mp';
import { startPushServer, type PushTestServer } from '../push/tests/helpers';
import { ChaosProxy, type Fault } from './chaos-proxy';
import { request } from './helpers';
import { commonErrors } from '../lib/errors';
import { expectRefusal } from '../test-support/refusal';

const CALL_TIMEOUT_MS = 300;
const DEADLINE_MS = 2500;
/** An answer later than this is a hang (the deadline plus room for a loaded machine). */
const HANG_MS = DEADLINE_MS + 10_000;

let wx: FakeWechatMp;
let proxy: ChaosProxy;
let t: PushTestServer;

beforeAll(async () => {
  wx = await new FakeWechatMp().start();
  proxy = await new ChaosProxy(wx.url).start();
  t = await startPushServer({ settings: { push: { callTimeoutMs: CALL_TIMEOUT_MS, requestDeadlineMs: DEADLINE_MS, concurrency: 16 } } });
});
afterAll(async () => {
  await t.close();
  await proxy.close();
  await wx.close();
});
beforeEach(() => {
  proxy.reset();
  wx.reset();
});

const config = () => ({ appId: wx.appId, appSecret: wx.appSecret, apiBase: proxy.url });

async function push(appKey: string, title = 'alert') {
  const started = performance.now();
  const answer = await request(`${t.url}/send/${appKey}?title=${encodeURIComponent(title)}`, {}, HANG_MS);
  return { answer, ms: performance.now() - started };
}

describe('broken answers per recipient', () => {
  it('every kind of broken answer in one push: the right class per recipient, an answer before the deadline, the history as answered', async () => {
    const always: Record<string, Fault> = {
      o_drop: 'drop',
      o_dropmid: 'drop-mid',
      o_garbage: 'garbage',
      o_truncated: 'truncated',
      o_html: 'html',
      o_huge: 'huge',
      o_http500: 'status500',
      o_stall: 'stall',
    };
    const once: Record<string, Fault> = { o_drop_once: 'drop', o_502_once: 'status502', o_stall_once: 'stall', o_garbage_once: 'garbage' };
    const recipients = ['o_fine', 'o_unfollowed', ...Object.keys(always), ...Object.keys(once)];
    const { appKey, appId } = await t.setup({ type: 'wechat', config: config(), recipients });
    for (const [openid, fault] of Object.entries(always)) proxy.setAlways(openid, fault);
    for (const [openid, fault] of Object.entries(once)) proxy.program(openid, fault);
    wx.setAlways('o_unfollowed', { errcode: 43004 });

    const { answer } = await push(appKey);
    expect(answer.status).toBe(200);
    expect(answer.code).toBe(0);
    const by = Object.fromEntries(answer.data.results.map((r: any) => [r.recipient, r]));
    expect(by.o_fine).toMatchObject({ ok: true, class: 'ok', attempts: 1 });
    expect(by.o_unfollowed).toMatchObject({ ok: false, class: 'recipient', errcode: 43004, attempts: 1 });
    for (const openid of Object.keys(once)) expect(by[openid], openid).toMatchObject({ ok: true, class: 'ok', attempts: 2 });
    for (const openid of Object.keys(always)) {
      expect(by[openid], openid).toMatchObject({ ok: false, class: 'transient' });
      expect(by[openid].attempts, openid).toBeGreaterThanOrEqual(1);
      expect(by[openid].attempts, openid).toBeLessThanOrEqual(3);
    }
    expect(by.o_stall.errmsg).toMatch(/no answer within/);
    expect(by.o_garbage.errmsg).toMatch(/not JSON/);
    expect(by.o_huge.errmsg).toMatch(/larger than 1 MiB/);
    expect(by.o_dropmid.errmsg).toMatch(/broke mid-answer|not JSON|could not/);
    expect(by.o_http500.errmsg).toMatch(/HTTP 500/);
    expect(answer.data).toMatchObject({ total: recipients.length, success: 1 + Object.keys(once).length });
    // Delivered exactly once to each recipient that got it (no duplicate from a retry).
    for (const openid of ['o_fine', ...Object.keys(once)]) expect(wx.sentTo(openid).length, openid).toBe(1);

    const stored = await t.call('push.getMessage', { id: answer.data.pushId });
    expect(stored.data.status).toBe('partial');
    expect(stored.data.results).toEqual(answer.data.results);
    const list = await t.call('push.queryMessages', { appId });
    expect(list.data.total).toBe(1);
  });
});

describe('a broken token endpoint', () => {
  const cases: Array<[Fault, RegExp]> = [
    ['stall', /no answer within/],
    ['drop', /could not|broke/],
    ['garbage', /not JSON/],
    ['html', /not JSON/],
    ['status502', /HTTP 502/],
  ];
  for (const [fault, message] of cases) {
    it(`${fault}: every recipient fails as transient before the deadline; the next push after it heals delivers`, async () => {
      const { appKey } = await t.setup({ type: 'wechat', config: config(), recipients: ['tok_aa', 'tok_bb', 'tok_cc'] });
      proxy.setAlways('token', fault);
      const { answer } = await push(appKey, 'token trouble');
      expect(answer.status).toBe(500); // nothing delivered: the push failed as a whole
      expectRefusal(answer, commonErrors.rows.internal);
      expect(answer.data.results).toHaveLength(3);
      for (const r of answer.data.results) {
        expect(r).toMatchObject({ ok: false, class: 'transient' });
        expect(r.errmsg).toMatch(message);
      }
      expect(wx.calls.send).toBe(0);
      const stored = await t.call('push.getMessage', { id: answer.data.pushId });
      expect(stored.data.status).toBe('failed');

      proxy.setAlways('token', null);
      const healed = await push(appKey, 'healed');
      expect(healed.answer.data).toMatchObject({ total: 3, success: 3, failed: 0 });
    });
  }
});

describe('a stalled WeChat under load', () => {
  it('30 concurrent pushes to recipients that never answer: every one answers before its deadline, 30 history rows', async () => {
    const { appKey, appId } = await t.setup({ type: 'wechat', config: config(), recipients: ['stall_1', 'stall_2'] });
    await push(appKey, 'warm token'); // the token is cached; now the sends stall
    proxy.setAlways('stall_1', 'stall');
    proxy.setAlways('stall_2', 'drop');
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => push(appKey, `load ${i}`)));
    for (const { answer } of answers) {
      expectRefusal(answer, commonErrors.rows.internal);
      expect(answer.data.results.map((r: any) => r.class)).toEqual(['transient', 'transient']);
    }
    const history = await t.call('push.queryMessages', { appId, pageSize: 100 });
    expect(history.data.total).toBe(31);
    expect(history.data.list.filter((m: any) => m.status === 'failed').length).toBe(30);
  });

  it('failover mode skips a stalled first recipient and delivers to the next within the deadline', async () => {
    const { appKey } = await t.setup({ type: 'wechat', config: config(), app: { pushMode: 'first' }, recipients: ['fo_stall', 'fo_okay', 'fo_never'] });
    proxy.setAlways('fo_stall', 'stall');
    const { answer } = await push(appKey, 'failover');
    expect(answer.data.results.map((r: any) => [r.recipient, r.class])).toEqual([
      ['fo_stall', 'transient'],
      ['fo_okay', 'ok'],
    ]);
    expect(wx.sentTo('fo_never')).toEqual([]);
  });
});
