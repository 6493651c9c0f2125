import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset } from '../../test-support/ledger';
import { registerUser, startTestServer, type TestServer } from '../../test-support/test-server';
import { importErrors } from '../errors';
import { expectRefusal } from '../../test-support/refusal';

/**
 * Issue 22: the record-by-message inbox end to end — a private URL per account, notices as text,
 * JSON or a form becoming drafts with the rules applied, confirm exactly once, dismiss, an
 * auto-confirming rule, and bad input (unknown key, no amount, too large, wrong method) that
 * creates nothing.
 */

type User = Awaited<ReturnType<typeof registerUser>>;

const ROOT = path.resolve(__dirname, '../../..');

let t: TestServer;
beforeAll(async () => {
  // The per-address notice limit is raised: one test sends hundreds of notices at once.
  t = await startTestServer({ settings: { rateLimit: { inboxPerAddress: 1_000_000 } } });
});
afterAll(() => t.close());

async function ok<T = any>(action: string, params: Record<string, unknown>, u: User): Promise<T> {
  const answer = await t.api(action, params, u.token);
  if (answer.code !== 200) throw new Error(`${action}: ${answer.code} ${answer.message}`);
  return answer.data as T;
}

async function post(path: string, body: string, type = 'text/plain; charset=utf-8') {
  const response = await fetch(`${t.url}${path}`, { method: 'POST', headers: { 'content-type': type }, body });
  return { status: response.status, body: (await response.json()) as { code: number; message: string; data: any } };
}

const recordCount = async (u: User) => (await ok<{ total: number }>('accounting.query', { page: 1, pageSize: 1 }, u)).total;

describe('the inbox', () => {
  it('turns a forwarded notice into a draft on the card it names, and records it once', async () => {
    const u = await registerUser(t);
    await createAsset(t, u, { name: 'Cash', currency: 'CNY', isDefault: true });
    const card = await createAsset(t, u, { name: '招商银行 1234', type: 'debit_card', currency: 'CNY', balance: 500 });
    const { inboxKey, url } = await ok<{ inboxKey: string; url: string }>('inbox.getKey', {}, u);
    expect(url).toBe(`${t.url}/in/${inboxKey}`);
    expect((await ok('inbox.getKey', {}, u)).inboxKey).toBe(inboxKey);

    const sent = await post(`/in/${inboxKey}`, '您尾号1234的招商银行卡11月27日12:30消费25.50元，商户：星巴克【招商银行】');
    expect(sent.status).toBe(200);
    expect(sent.body.data).toMatchObject({ amount: 25.5, type: 'expense', autoConfirmed: false });
    expect(JSON.stringify(sent.body)).not.toContain('招商银行 1234'); // the sender never learns the person's assets

    const { list } = await ok<{ list: any[] }>('inbox.query', {}, u);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ amount: 25.5, currency: 'CNY', type: 'expense', cardTail: '1234', asset: card, assetName: '招商银行 1234', category: 'Other' });
    expect(list[0].problem).toBeUndefined();

    const confirmed = await ok('inbox.confirm', { id: list[0].id, overrides: { category: 'Food' } }, u);
    expect(confirmed.created).toBe(true);
    const record = await ok('accounting.get', { id: confirmed.id }, u);
    expect(record).toMatchObject({ amount: 25.5, asset: card, category: 'Food', type: 'expense' });
    expect((await ok<{ list: any[] }>('inbox.query', {}, u)).list).toEqual([]);
    // Confirming again: the draft is gone, nothing more is written.
    expectRefusal(await t.api('inbox.confirm', { id: list[0].id }, u.token), importErrors.rows.draftNotFound);
    expect(await recordCount(u)).toBe(1);
  });

  it('takes JSON and forms, applies rules, and confirms at once with an auto-confirming rule', async () => {
    const u = await registerUser(t);
    const cash = await createAsset(t, u, { name: 'Wallet', currency: 'CNY', isDefault: true });
    const { inboxKey } = await ok('inbox.getKey', {}, u);
    await ok('rule.create', { match: { field: 'payee', op: 'contains', value: '星巴克' }, set: { category: 'Food', tags: ['coffee'] } }, u);
    const json = await post(`/in/${inboxKey}`, JSON.stringify({ amount: '18.00', merchant: '星巴克 国贸店', type: 'expense' }), 'application/json');
    expect(json.status).toBe(200);
    const form = await post(`/in/${inboxKey}`, new URLSearchParams({ amount: '3', merchant: 'Bus', type: 'expense' }).toString(), 'application/x-www-form-urlencoded');
    expect(form.status).toBe(200);
    const { list } = await ok<{ list: any[] }>('inbox.query', {}, u);
    const coffee = list.find((d) => d.merchant === '星巴克 国贸店');
    expect(coffee).toMatchObject({ asset: cash, category: 'Food', tags: ['coffee'], rules: [{ ruleId: expect.any(String), fields: ['category', 'tags'] }] });
    await ok('inbox.dismiss', { id: list.find((d) => d.merchant === 'Bus').id }, u);

    await ok('rule.create', { match: { field: 'amount', op: 'lt', value: 10 }, set: { tags: ['small'] }, autoConfirm: true }, u);
    const auto = await post(`/in/${inboxKey}`, JSON.stringify({ amount: 4, merchant: 'Metro', type: 'expense' }), 'application/json');
    expect(auto.body.data).toMatchObject({ autoConfirmed: true, recordId: expect.any(String) });
    expect(await ok('accounting.get', { id: auto.body.data.recordId }, u)).toMatchObject({ amount: 4, tags: ['small'], asset: cash });
    expect((await ok<{ list: any[] }>('inbox.query', {}, u)).list.map((d) => d.merchant)).toEqual(['星巴克 国贸店']);
    // A time far in the future (a typo) is not believed: the notice's arrival is its time, and it is recorded.
    const before = Date.now();
    const future = await post(`/in/${inboxKey}`, JSON.stringify({ amount: 2, merchant: 'Kiosk', type: 'expense', time: 9e16 }), 'application/json');
    expect(future.status).toBe(200);
    expect(future.body.data.autoConfirmed).toBe(true);
    expect(future.body.data.date).toBeGreaterThanOrEqual(before);
  });

  it('refuses what it cannot use and writes nothing', async () => {
    const u = await registerUser(t);
    const other = await registerUser(t);
    await createAsset(t, u, { name: 'Wallet', currency: 'CNY', isDefault: true });
    const { inboxKey } = await ok('inbox.getKey', {}, u);
    expect((await post('/in/inNOSUCHKEY0000000000000', '消费25.00元')).status).toBe(404);
    const noAmount = await post(`/in/${inboxKey}`, '您的验证码是123456，请勿泄露');
    expect([noAmount.status, noAmount.body.message]).toEqual([400, expect.stringMatching(/No amount/)]);
    expect((await post(`/in/${inboxKey}`, '')).status).toBe(400);
    const large = await post(`/in/${inboxKey}`, `消费25.00元 ${'x'.repeat(9000)}`);
    expect([large.status, large.body.message]).toEqual([400, expect.stringMatching(/larger than 8KB/)]);
    expect((await fetch(`${t.url}/in/${inboxKey}`)).status).toBe(400);
    expect((await ok<{ list: any[] }>('inbox.query', {}, u)).list).toEqual([]);
    // Another account's drafts are not reachable.
    await post(`/in/${inboxKey}`, JSON.stringify({ amount: 5, merchant: 'X' }), 'application/json');
    const [draft] = (await ok<{ list: any[] }>('inbox.query', {}, u)).list;
    expectRefusal(await t.api('inbox.confirm', { id: draft.id }, other.token), importErrors.rows.draftNotFound);
    expectRefusal(await t.api('inbox.dismiss', { id: draft.id }, other.token), importErrors.rows.draftNotFound);
    expect((await ok<{ list: any[] }>('inbox.query', {}, other)).list).toEqual([]);
    // A new URL: the old one stops working.
    const rotated = await ok('inbox.getKey', { rotate: true }, u);
    expect(rotated.inboxKey).not.toBe(inboxKey);
    expect((await post(`/in/${inboxKey}`, JSON.stringify({ amount: 5 }), 'application/json')).status).toBe(404);
    expect(await recordCount(u)).toBe(0);
  });

  it("asks for an asset while there is none, and for the amount in the asset's currency", async () => {
    const u = await registerUser(t);
    const { inboxKey } = await ok('inbox.getKey', {}, u);
    await post(`/in/${inboxKey}`, JSON.stringify({ amount: 12, merchant: 'Shop', currency: 'CNY' }), 'application/json');
    const [draft] = (await ok<{ list: any[] }>('inbox.query', {}, u)).list;
    expect(draft.problem).toBe('needsAsset');
    expectRefusal(await t.api('inbox.confirm', { id: draft.id }, u.token), importErrors.rows.draftNeedsAsset);
    const a = await createAsset(t, u, { name: 'A', currency: 'USD' }); // the first asset is the default
    expect((await ok<{ list: any[] }>('inbox.query', {}, u)).list[0]).toMatchObject({ asset: a, problem: 'currencyMismatch' });
    const mismatch = await t.api('inbox.confirm', { id: draft.id }, u.token);
    expect([mismatch.code, mismatch.message]).toEqual([400, expect.stringMatching(/CNY/)]);
    expect((await ok('inbox.confirm', { id: draft.id, overrides: { amount: 1.7 } }, u)).created).toBe(true);
    expect(await recordCount(u)).toBe(1);
  });
});

describe('the inbox under many notices at once', () => {
  it('never holds more than 500 drafts, however many notices arrive together', async () => {
    const u = await registerUser(t);
    const key = (await t.api('inbox.getKey', {}, u.token)).data.inboxKey as string;
    const send = (i: number) =>
      fetch(`${t.url}/in/${key}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 1 + i / 100, merchant: `Shop ${i}` }),
      }).then(async (r) => {
        await r.body?.cancel();
        return r.status;
      });
    for (let batch = 0; batch < 24; batch++) {
      const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => send(batch * 20 + i)));
      expect(statuses.every((s) => s === 200)).toBe(true);
    }
    // 480 held: 100 notices at once, room for 20 of them.
    const statuses = await Promise.all(Array.from({ length: 100 }, (_, i) => send(1000 + i)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 409)).toHaveLength(80);
    expect((await t.api('inbox.query', {}, u.token)).data.list).toHaveLength(500);
  }, 60_000);
});

/** A `curl` command line as curl sends it: `-H 'name: value'`, `-d '<data>'` (POST, form type unless a header says otherwise, the data as written), the URL. */
async function asCurlSends(line: string, url: string): Promise<{ status: number; body: any }> {
  const words = [...line.replace('<key>', '').matchAll(/'([^']*)'|(\S+)/g)].map((m) => m.at(1) ?? m.at(2) ?? '');
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  let data: string | undefined;
  for (let i = 1; i < words.length; i++) {
    const word = words.at(i);
    if (word === '-H') {
      const header = words.at(++i) ?? '';
      const colon = header.indexOf(':');
      headers[(colon === -1 ? header : header.slice(0, colon)).trim().toLowerCase()] = colon === -1 ? '' : header.slice(colon + 1).trim();
    } else if (word === '-d') data = words.at(++i);
  }
  const response = await fetch(url, { method: data === undefined ? 'GET' : 'POST', headers, body: data });
  return { status: response.status, body: await response.json() };
}

describe('the inbox as a newcomer uses it', () => {
  it('every curl example of docs/import.md and of the Inbox screen makes a draft, exactly as written', async () => {
    const u = await registerUser(t);
    await createAsset(t, u, { name: 'Card 1234', currency: 'CNY', isDefault: true });
    const { url } = await ok<{ url: string }>('inbox.getKey', {}, u);
    const docs = readFileSync(path.join(ROOT, 'docs/import.md'), 'utf8')
      .split('\n')
      .filter((line) => /^curl .*\/in\/<key>$/.test(line));
    const screen = [...readFileSync(path.join(ROOT, 'renderer/src/screens/inbox/InboxAddress.tsx'), 'utf8').matchAll(/`(curl [^`]*) \$\{url\}`/g)].map((m) => m.at(1)!);
    expect(docs.length).toBeGreaterThanOrEqual(2);
    expect(screen.length).toBeGreaterThanOrEqual(2);
    for (const example of [...docs.map((line) => line.replace(/ \S+\/in\/<key>$/, '')), ...screen]) {
      const sent = await asCurlSends(example, url);
      expect(sent.status, example).toBe(200);
      expect(sent.body.data.amount, example).toBeGreaterThan(0);
    }
    // `--data-urlencode 'text'` (a percent-encoded text without a field name) reads the same.
    const encoded = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: encodeURIComponent('您尾号1234的卡消费31.50元') });
    expect((await encoded.json()).data).toMatchObject({ amount: 31.5, type: 'expense' });
  });

  it('an Alipay notice names its merchant and goes to the asset named 支付宝; a salary SMS is "工资"; the same SMS twice is one draft', async () => {
    const u = await registerUser(t);
    await createAsset(t, u, { name: '招商银行 8888', type: 'debit_card', currency: 'CNY', isDefault: true });
    const alipay = await createAsset(t, u, { name: '支付宝', type: 'ewallet', currency: 'CNY' });
    const icbc = await createAsset(t, u, { name: '工商银行 7432', type: 'debit_card', currency: 'CNY' });
    const { inboxKey } = await ok<{ inboxKey: string }>('inbox.getKey', {}, u);
    const coffee = await post(`/in/${inboxKey}`, '支付宝：你在瑞幸咖啡成功付款15.90元');
    expect(coffee.body.data).toMatchObject({ merchant: '瑞幸咖啡', amount: 15.9, type: 'expense' });
    const salarySms = '您尾号7432卡11月28日09:31代发工资收入12,000.00元，余额15,234.56元。【工商银行】';
    const salary = await post(`/in/${inboxKey}`, salarySms);
    expect(salary.body.data).toMatchObject({ type: 'income', amount: 12000 });
    const { list } = await ok<{ list: any[] }>('inbox.query', {}, u);
    expect(list.find((d) => d.id === coffee.body.data.id)).toMatchObject({ asset: alipay, description: '瑞幸咖啡' });
    expect(list.find((d) => d.id === salary.body.data.id)).toMatchObject({ asset: icbc, description: '工资', type: 'income' });

    // Forwarded twice (a retry, a second forwarder): one draft, the answer names it.
    const again = await post(`/in/${inboxKey}`, `${salarySms}\n`);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ id: salary.body.data.id, duplicate: true });
    expect((await ok<{ list: any[] }>('inbox.query', {}, u)).list).toHaveLength(2);
    // Confirmed, then forwarded again: still nothing new.
    await ok('inbox.confirm', { id: salary.body.data.id }, u);
    expect((await post(`/in/${inboxKey}`, salarySms)).body.data).toMatchObject({ duplicate: true });
    expect(await recordCount(u)).toBe(1);
    // A notice without a time is the same only for a few minutes: the same purchase may happen twice.
    const bare = '您尾号8888的卡消费25.00元';
    expect((await post(`/in/${inboxKey}`, bare)).body.data.duplicate).toBeUndefined();
    expect((await post(`/in/${inboxKey}`, bare)).body.data.duplicate).toBe(true);
  });
});
