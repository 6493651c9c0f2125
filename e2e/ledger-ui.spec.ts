import { expect, test, type Page } from '@playwright/test';
import { api, registerAccount, signInPage, type Account } from './api';
import { startE2eServer, watchPage } from './support';

/**
 * Issue 19, findings 3 (text limits), 4 (transfers across currencies) and 5 (the currency picker);
 * docs/ui.md, "Transfers across currencies", "Text limits", "The currency picker".
 */
let running: Awaited<ReturnType<typeof startE2eServer>>;
let users = 0;
test.beforeAll(async () => {
  running = await startE2eServer();
});
test.afterAll(async () => {
  // Unset when beforeAll failed.
  await (running as typeof running | undefined)?.stop();
});

const call = <T = unknown>(account: Account, action: string, params: unknown) => api<T>(running.server.url, account.token, action, params);

async function open(page: Page, path: string, language = 'en'): Promise<Account> {
  const account = await registerAccount(running.server.url, `ledgerui${++users}`);
  await signInPage(page, account, { language });
  if (path) await page.goto(`${running.server.url}${path}`);
  return account;
}

type Rec = { amount: number; currency: string; toAmount?: number; toCurrency?: string; description: string };
const records = async (account: Account) => (await call<{ list: Rec[] }>(account, 'accounting.query', {})).list;

test('a transfer across currencies shows the amount received before saving, saves what it showed, lists both amounts and edits the amount received', async ({ page }) => {
  const watch = watchPage(page);
  const account = await open(page, '');
  await call(account, 'asset.create', { name: 'Bank', type: 'debit_card', currency: 'USD', balance: 1000 });
  await call(account, 'asset.create', { name: 'Alipay', type: 'ewallet', currency: 'CNY' });
  await call(account, 'currency.setRate', { from: 'USD', to: 'CNY', rate: '7.1', date: 0 });
  await page.goto(`${running.server.url}/records`);

  const form = page.getByRole('form', { name: 'New record' });
  await form.getByText('Transfer', { exact: true }).click();
  await form.getByRole('combobox', { name: 'To' }).click();
  await page.getByRole('option', { name: 'Alipay (CNY)' }).click();
  const received = form.getByRole('textbox', { name: 'Amount received (CNY)' });
  await expect(received).toHaveAccessibleDescription('at 1 USD = 7.10 CNY'); // the rate, before any amount
  await form.getByRole('textbox', { name: 'Amount', exact: true }).fill('100');
  // The suggestion is visible: placeholder and hint; nothing is filled in unseen.
  await expect(received).toHaveAttribute('placeholder', '710.00');
  await expect(received).toHaveAccessibleDescription('at 1 USD = 7.10 CNY · left empty, 710.00 CNY is saved');
  await expect(received).toHaveValue('');
  await received.press('Enter');
  await expect(page.getByText('Record saved: −100.00 USD → +710.00 CNY.')).toBeVisible();
  expect(await records(account)).toMatchObject([{ amount: 100, currency: 'USD', toAmount: 710, toCurrency: 'CNY' }]);

  // Every list shows both amounts.
  const list = page.getByRole('list', { name: 'Records' });
  await expect(list.getByRole('listitem').first()).toContainText('−100.00 USD → +710.00 CNY');
  await page.goto(`${running.server.url}/`);
  await expect(page.getByRole('list', { name: 'Recent records' })).toContainText('−100.00 USD → +710.00 CNY');

  // The edit dialog shows the saved amounts and changes the amount received.
  await page.goto(`${running.server.url}/records`);
  await list.getByRole('button', { name: /−100\.00 USD → \+710\.00 CNY/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit Transfer' });
  await expect(dialog.getByLabel('Sent and received: −100.00 USD → +710.00 CNY')).toBeVisible();
  const edit = dialog.getByRole('textbox', { name: 'Amount received (CNY)' });
  await expect(edit).toHaveValue('710');
  await edit.fill('705.5');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  expect(await records(account)).toMatchObject([{ amount: 100, toAmount: 705.5, toCurrency: 'CNY' }]);
  await expect(list.getByRole('listitem').first()).toContainText('−100.00 USD → +705.50 CNY');

  // Without a rate the field says so and the form asks for the amount instead of saving.
  await call(account, 'asset.create', { name: 'Yen', type: 'cash', currency: 'JPY' });
  await page.reload();
  await form.getByText('Transfer', { exact: true }).click();
  await form.getByRole('textbox', { name: 'Amount', exact: true }).fill('10');
  await form.getByRole('combobox', { name: 'To' }).click();
  await page.getByRole('option', { name: 'Yen (JPY)' }).click();
  const yen = form.getByRole('textbox', { name: 'Amount received (JPY)' });
  await expect(yen).toHaveAccessibleDescription(/^No USD → JPY exchange rate/);
  await yen.press('Enter');
  await expect(form.getByText('Enter the amount received in JPY.')).toBeVisible();
  await expect(yen).toBeFocused();
  expect(await records(account)).toHaveLength(1);
  watch.expectClean();
});

test('在中文界面，跨币种转账也显示两个金额和汇率提示', async ({ page }) => {
  const watch = watchPage(page);
  const account = await open(page, '', 'zh-CN');
  await call(account, 'asset.create', { name: '银行卡', type: 'debit_card', currency: 'USD', balance: 1000 });
  await call(account, 'asset.create', { name: '支付宝', type: 'ewallet', currency: 'CNY' });
  await call(account, 'currency.setRate', { from: 'USD', to: 'CNY', rate: '7.1', date: 0 });
  await page.goto(`${running.server.url}/records`);
  const form = page.getByRole('form', { name: '新记录' });
  await form.getByText('转账', { exact: true }).click();
  await form.getByRole('combobox', { name: '转入资产' }).click();
  await page.getByRole('option', { name: '支付宝 (CNY)' }).click();
  await form.getByRole('textbox', { name: '金额', exact: true }).fill('100');
  const received = form.getByRole('textbox', { name: '到账金额（CNY）' });
  await expect(received).toHaveAccessibleDescription('按 1 USD = 7.10 CNY 换算 · 留空则保存 710.00 CNY');
  await received.press('Enter');
  await expect(page.getByText('记录已保存：−100.00 USD → +710.00 CNY。')).toBeVisible();
  await expect(page.getByRole('list', { name: '记录' }).getByRole('listitem').first()).toContainText('−100.00 USD → +710.00 CNY');
  watch.expectClean();
});

test('the currency picker searches codes and names, typing replaces the chosen code, and says when nothing matches', async ({ page }) => {
  const watch = watchPage(page);
  const account = await open(page, '/assets?new=1');
  const dialog = page.getByRole('dialog', { name: 'New asset' });
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Alipay');
  const currency = dialog.getByRole('combobox', { name: 'Currency' });
  await expect(currency).toHaveValue('USD');
  await currency.click();
  await page.keyboard.type('CN');
  await expect(currency).toHaveValue('CN'); // was "USDCN"
  await expect(page.getByRole('option').first()).toHaveText(/^CNY\s*Chinese Yuan/);
  await currency.fill('yuan');
  await expect(page.getByRole('option', { name: /^CNY/ })).toBeVisible();
  await currency.fill('zzz');
  await expect(page.getByText('No currency matches what you typed.')).toBeVisible();
  await expect(page.getByRole('option')).toHaveCount(0);
  await currency.fill('cny');
  await page.getByRole('option', { name: /^CNY/ }).click();
  await expect(currency).toHaveValue('CNY');
  await dialog.getByRole('button', { name: 'Create asset' }).click();
  await expect(dialog).toBeHidden();
  const assets = await call<{ list: { name: string; currency: string }[] }>(account, 'asset.query', {});
  expect(assets.list).toMatchObject([{ name: 'Alipay', currency: 'CNY' }]);

  // The same picker in Settings → Currency & rates.
  await page.goto(`${running.server.url}/settings?tab=currency`);
  const from = page.getByRole('combobox', { name: 'From' });
  await from.click();
  await page.keyboard.type('eu');
  await expect(from).toHaveValue('eu');
  await expect(page.getByRole('option').first()).toHaveText(/^EUR/);
  watch.expectClean();
});

test('货币选择器：按中文名称搜索，找不到时用中文说明', async ({ page }) => {
  const watch = watchPage(page);
  await open(page, '/assets?new=1', 'zh-CN');
  const dialog = page.getByRole('dialog', { name: '新建资产' });
  const currency = dialog.getByRole('combobox', { name: '币种' });
  await currency.click();
  await page.keyboard.type('人民');
  await expect(currency).toHaveValue('人民');
  await expect(page.getByRole('option').first()).toHaveText(/^CNY\s*人民币/);
  await currency.fill('xyz');
  await expect(page.getByText('没有与输入内容匹配的币种。')).toBeVisible();
  watch.expectClean();
});

test('names and notes are never cut: a counter near the limit, a message past it, nothing sent', async ({ page }) => {
  const watch = watchPage(page);
  const account = await open(page, '/assets?new=1');
  const sent: string[] = [];
  page.on('request', (request) => {
    const body = request.postDataJSON() as { action?: string } | null;
    if (request.url().endsWith('/api') && body?.action && /\.(create|update)$/.test(body.action)) sent.push(body.action);
  });
  const dialog = page.getByRole('dialog', { name: 'New asset' });
  const name = dialog.getByRole('textbox', { name: 'Name' });
  await name.fill('n'.repeat(79));
  await expect(dialog.getByText('79 / 100')).toHaveCount(0);
  await name.fill('n'.repeat(80));
  await expect(dialog.getByText('80 / 100')).toBeVisible();
  const pasted = 'A long name pasted from elsewhere. '.repeat(4); // 140 characters
  await name.fill(pasted);
  await expect(name).toHaveValue(pasted); // was cut to 100 without a word
  await expect(name).toHaveAttribute('aria-invalid', 'true');
  await expect(dialog.getByText('Too long: 140 characters, at most 100 fit. Nothing was cut: shorten it by 40.')).toBeVisible();
  await dialog.getByRole('button', { name: 'Create asset' }).click();
  await expect(name).toBeFocused();
  expect(sent).toEqual([]);
  await name.fill(pasted.slice(0, 100));
  await expect(dialog.getByText('100 / 100')).toBeVisible();
  await dialog.getByRole('button', { name: 'Create asset' }).click();
  await expect(dialog).toBeHidden();
  expect((await call<{ list: { name: string }[] }>(account, 'asset.query', {})).list[0]?.name).toHaveLength(100);

  // A record's note: 1,000 characters, emoji counted as one (as the server counts them).
  await page.goto(`${running.server.url}/records`);
  const form = page.getByRole('form', { name: 'New record' });
  const note = form.getByRole('textbox', { name: 'Note' });
  await form.getByText('Income', { exact: true }).click();
  await form.getByRole('textbox', { name: 'Amount', exact: true }).fill('1');
  await note.fill('😀'.repeat(1001));
  await expect(form.getByText('Too long: 1,001 characters, at most 1,000 fit. Nothing was cut: shorten it by 1.')).toBeVisible();
  await note.press('Enter');
  await expect(note).toBeFocused();
  expect(sent).toEqual(['asset.create']);
  await note.fill('😀'.repeat(1000));
  await expect(form.getByText('1,000 / 1,000')).toBeVisible();
  await note.press('Enter');
  await expect(page.getByText('Record saved.')).toBeVisible();
  expect((await records(account))[0]?.description).toBe('😀'.repeat(1000));
  watch.expectClean();
});

test('文字超长时用中文说明，不会截断', async ({ page }) => {
  const watch = watchPage(page);
  await open(page, '/assets?new=1', 'zh-CN');
  const dialog = page.getByRole('dialog', { name: '新建资产' });
  const name = dialog.getByRole('textbox', { name: '名称' });
  await name.fill('长'.repeat(101));
  await expect(name).toHaveValue('长'.repeat(101));
  await expect(dialog.getByText('太长：共 101 个字符，最多 100 个。内容没有被截断，请删去 1 个字符。')).toBeVisible();
  watch.expectClean();
});
