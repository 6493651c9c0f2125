import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../test-support/test-server';
import { commonErrors } from '../lib/errors';
import { usersErrors } from '../users/errors';
import { expectRefusal } from '../test-support/refusal';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

let counter = 0;
async function signUp(language?: string): Promise<{ token: string; answer: Awaited<ReturnType<TestServer['api']>> }> {
  counter++;
  const name = `locale${process.pid}x${counter}`;
  const answer = await t.api('user.register', { username: name, email: `${name}@example.com`, password: 'correct horse battery', ...(language === undefined ? {} : { language }) });
  return { token: answer.data?.token as string, answer };
}

const names = async (token: string, type: 'income' | 'expense') => ((await t.api('category.list', { type }, token)).data.list as Array<{ name: string }>).map((c) => c.name);

describe('the language chosen at sign-up', () => {
  it('zh-CN: Chinese default categories and CNY before the first asset', async () => {
    const { token } = await signUp('zh-CN');
    const expense = await names(token, 'expense');
    expect(expense.slice(0, 4)).toEqual(['餐饮', '交通', '购物', '居住']);
    expect(expense).toEqual(expect.arrayContaining(['娱乐', '医疗', '教育', '通讯', '人情', '其他']));
    expect(expense.join('')).not.toMatch(/[A-Za-z]/);
    const income = await names(token, 'income');
    expect(income).toEqual(expect.arrayContaining(['工资', '奖金', '理财收益', '兼职', '其他']));
    expect((await t.api('currency.get', {}, token)).data).toEqual({ baseCurrency: 'CNY', explicit: false });
    // What the dashboard shows before the first asset.
    expect((await t.api('stats.getAssetStats', {}, token)).data.currency).toBe('CNY');
    expect((await t.api('asset.query', {}, token)).data.baseCurrency).toBe('CNY');
    const cash = (await t.api('asset.create', { name: '现金', type: 'cash', balance: 100 }, token)).data.id as string;
    expect((await t.api('asset.detail', { id: cash }, token)).data.currency).toBe('CNY');
    // A record without a category gets the account's own "Other".
    const record = await t.api('accounting.create', { type: 'expense', amount: 5, asset: cash }, token);
    expect(record.data.category).toBe('其他');
  });

  it('without a language (or en): the English set and USD, as before', async () => {
    for (const language of [undefined, 'en']) {
      const { token } = await signUp(language);
      expect(await names(token, 'expense')).toEqual(['Food', 'Transport', 'Shopping', 'Housing', 'Utilities', 'Health', 'Entertainment', 'Education', 'Travel', 'Gifts', 'Other']);
      expect(await names(token, 'income')).toEqual(['Salary', 'Bonus', 'Investment', 'Gift', 'Refund', 'Other']);
      expect((await t.api('currency.get', {}, token)).data).toEqual({ baseCurrency: 'USD', explicit: false });
    }
  });

  it('the first asset still sets the base currency of a Chinese account', async () => {
    const { token } = await signUp('zh-CN');
    await t.api('asset.create', { name: 'Wallet', type: 'cash', currency: 'EUR' }, token);
    expect((await t.api('currency.get', {}, token)).data).toEqual({ baseCurrency: 'EUR', explicit: false });
  });

  it('refuses an unknown language with a 400 naming the field, and creates nothing', async () => {
    const name = `badlang${process.pid}`;
    const answer = await t.api('user.register', { username: name, email: `${name}@example.com`, password: 'correct horse battery', language: 'fr' });
    expectRefusal(answer, commonErrors.rows.invalid);
    expect(answer.message).toContain('params.language');
    expect(answer.message).toContain('"zh-CN"');
    const login = await t.api('user.login', { email: `${name}@example.com`, password: 'correct horse battery' });
    expectRefusal(login, usersErrors.rows.invalidCredentials);
    // The same name and email are still free.
    expect((await t.api('user.register', { username: name, email: `${name}@example.com`, password: 'correct horse battery' })).status).toBe(200);
  });
});

describe('category.renameDefaults', () => {
  it('renames only the untouched defaults, records follow, edited and own categories keep their names', async () => {
    const { token } = await signUp('zh-CN');
    const list = (await t.api('category.list', {}, token)).data.list as Array<{ id: string; name: string; type: string }>;
    const byName = (n: string) => list.find((c) => c.name === n)?.id as string;
    await t.api('category.update', { id: byName('交通'), name: '打车' }, token);
    await t.api('category.create', { type: 'expense', name: '宠物' }, token);
    // Someone already has a category called Shopping: 购物 keeps its name.
    await t.api('category.create', { type: 'expense', name: 'shopping' }, token);
    const cash = (await t.api('asset.create', { name: '现金', type: 'cash', balance: 100 }, token)).data.id as string;
    await t.api('accounting.create', { type: 'expense', amount: 3, asset: cash, category: '餐饮' }, token);
    await t.api('accounting.create', { type: 'expense', amount: 4, asset: cash, category: '打车' }, token);

    const preview = await t.api('category.renameDefaults', { language: 'en', preview: true }, token);
    expect(preview.status).toBe(200);
    expect(preview.data.changes).toContainEqual({ type: 'expense', from: '餐饮', to: 'Food' });
    expect(await names(token, 'expense')).toContain('餐饮');

    const done = await t.api('category.renameDefaults', { language: 'en' }, token);
    expect(done.data.renamed).toBe(preview.data.renamed);
    expect(done.data.kept).toBe(1);
    // 12 expense defaults − 交通 (edited) − 购物 (its English name is taken) + 7 income defaults
    expect(done.data.renamed).toBe(10 + 7);
    const expense = await names(token, 'expense');
    expect(expense).toEqual(expect.arrayContaining(['Food', 'Housing', 'Phone & internet', 'Other', '打车', '宠物', '购物', 'shopping']));
    expect(await names(token, 'income')).toEqual(['Salary', 'Bonus', 'Investment', 'Side job', 'Gift', 'Refund', 'Other']);
    const records = (await t.api('accounting.query', {}, token)).data.list as Array<{ category: string }>;
    expect(records.map((r) => r.category).sort()).toEqual(['Food', '打车']);

    // Back again; a second run changes nothing more.
    expect((await t.api('category.renameDefaults', { language: 'zh-CN' }, token)).data.renamed).toBe(17);
    expect((await t.api('category.renameDefaults', { language: 'zh-CN' }, token)).data).toEqual({ renamed: 0, kept: 0, changes: [] });
    expect(await names(token, 'expense')).toEqual(expect.arrayContaining(['餐饮', '打车', '宠物']));
  });

  it("touches only the caller's categories and refuses an unknown language", async () => {
    const a = await signUp('en');
    const b = await signUp('en');
    await names(a.token, 'expense');
    await names(b.token, 'expense');
    expect((await t.api('category.renameDefaults', { language: 'zh-CN' }, a.token)).data.renamed).toBe(11 + 6);
    expect((await names(b.token, 'expense'))[0]).toBe('Food');
    const bad = await t.api('category.renameDefaults', { language: 'de' }, b.token);
    expectRefusal(bad, commonErrors.rows.invalid);
    expect(bad.message).toContain('params.language');
    expect((await names(b.token, 'expense'))[0]).toBe('Food');
    expectRefusal(await t.api('category.renameDefaults', { language: 'en' }, undefined), commonErrors.rows.unauthorized);
  });
});
