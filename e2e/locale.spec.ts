import { expect, test, type Page } from '@playwright/test';
import { api, signInPage, type Account } from './api';
import { startE2eServer, watchPage } from './support';

/**
 * Issue 19, finding 6: the language chosen at sign-up decides the default categories, the base
 * currency before the first asset and how dates are written; a later switch keeps the data and
 * offers to rename the defaults nobody edited.
 */
let running: Awaited<ReturnType<typeof startE2eServer>>;
test.beforeAll(async () => {
  running = await startE2eServer();
});
test.afterAll(async () => {
  // Unset when beforeAll failed.
  await (running as typeof running | undefined)?.stop();
});

const pad = (n: number) => String(n).padStart(2, '0');
const today = new Date();
const todayZh = `${today.getFullYear()}/${pad(today.getMonth() + 1)}/${pad(today.getDate())}`;
const todayEn = `${pad(today.getMonth() + 1)}/${pad(today.getDate())}/${today.getFullYear()}`;

async function chooseLanguage(page: Page, scope: ReturnType<Page['getByRole']> | Page, label: string, option: string) {
  await scope.getByRole('combobox', { name: label }).click();
  await page.getByRole('option', { name: option }).click();
}

test('a sign-up in Chinese gets Chinese categories, ¥ before any asset and dates written the Chinese way', async ({ page }) => {
  const watch = watchPage(page);
  await page.goto(running.server.url);
  await chooseLanguage(page, page, 'Language', '简体中文');
  await page.getByRole('tab', { name: '注册账号' }).click();
  await page.getByLabel('用户名').fill('xiaoming');
  await page.getByLabel('邮箱').fill('xiaoming@example.com');
  await page.getByRole('textbox', { name: '密码', exact: true }).fill('correct horse battery');
  await page.getByRole('textbox', { name: '再次输入密码' }).fill('correct horse battery');
  await page.getByRole('button', { name: '注册账号' }).click();

  await expect(page.getByRole('heading', { name: '概览' })).toBeVisible();
  await expect(page.getByTestId('net-worth')).toContainText('¥0.00');
  await expect(page.getByTestId('month-income')).toContainText('¥0.00');
  await expect(page.locator('main')).not.toContainText('US$');

  // Settings → Categories: the Chinese set, no English names.
  await page.goto(`${running.server.url}/settings?tab=categories`);
  const categories = page.getByRole('tabpanel', { name: '分类' });
  for (const name of ['餐饮', '交通', '购物', '居住', '通讯', '人情', '工资', '奖金', '理财收益', '兼职'])
    await expect(categories.getByText(name, { exact: true }).first()).toBeVisible();
  await expect(categories).not.toContainText('Food');
  await expect(categories).not.toContainText('Salary');

  // The first asset's currency defaults to CNY.
  await page.goto(`${running.server.url}/assets?new=1`);
  await expect(page.getByRole('dialog')).toBeVisible();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('combobox', { name: '币种' })).toHaveValue('CNY');
  await dialog.getByRole('textbox', { name: '名称' }).fill('现金');
  await dialog.getByRole('button', { name: '创建资产' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole('main')).toContainText('¥');
  await expect(page.getByRole('main')).not.toContainText('US$');

  // Records: the date input is written year first and reads what a Chinese user types.
  await page.goto(`${running.server.url}/records?new=expense`);
  const date = page.getByRole('textbox', { name: '日期' });
  await expect(date).toHaveValue(todayZh);
  await expect(date).toHaveAttribute('placeholder', '年/月/日');
  await date.click();
  // The calendar speaks Chinese: weekdays 一 … 日 from Monday, the month as 2026年11月.
  await expect(page.getByRole('row', { name: '一 二 三 四 五 六 日' })).toBeVisible();
  await expect(page.getByRole('button', { name: '选择月份' })).toHaveText(/^\d{4}年\d{1,2}月$/);
  await expect(page.getByRole('button', { name: '下个月' })).toBeVisible();
  await date.fill('2026年3月5日');
  await date.blur();
  await expect(date).toHaveValue('2026/03/05');
  await date.fill('2026-03-07');
  await date.blur();
  await expect(date).toHaveValue('2026/03/07');
  // The category picker offers the Chinese names.
  await page.getByRole('form', { name: '新记录' }).getByRole('combobox', { name: '分类' }).click();
  await expect(page.getByRole('option', { name: '餐饮' })).toBeVisible();
  await expect(page.getByRole('option', { name: 'Food' })).toHaveCount(0);
  await page.keyboard.press('Escape');

  // The filters of the list too.
  const filters = page.getByRole('search');
  await filters.getByRole('textbox', { name: '开始' }).fill('2026/1/2');
  await filters.getByRole('textbox', { name: '开始' }).blur();
  await expect(filters.getByRole('textbox', { name: '开始' })).toHaveValue('2026/01/02');
  watch.expectClean();
});

test('switching to English offers to rename the untouched defaults; edited ones keep their names', async ({ page }) => {
  const watch = watchPage(page);
  const account = await api<Account>(running.server.url, null, 'user.register', {
    username: 'lihua',
    email: 'lihua@example.com',
    password: 'correct horse battery',
    language: 'zh-CN',
  });
  const list = (await api<{ list: Array<{ id: string; name: string }> }>(running.server.url, account.token, 'category.list', {})).list;
  await api(running.server.url, account.token, 'category.update', { id: list.find((c) => c.name === '交通')?.id, name: '打车' });
  const cash = await api<{ id: string }>(running.server.url, account.token, 'asset.create', { name: '现金', type: 'cash', balance: 100 });
  await api(running.server.url, account.token, 'accounting.create', { type: 'expense', amount: 12, asset: cash.id, category: '餐饮', description: '午饭' });
  await api(running.server.url, account.token, 'accounting.create', { type: 'expense', amount: 30, asset: cash.id, category: '打车', description: '回家' });
  await signInPage(page, account, { language: 'zh-CN' });

  await page.goto(`${running.server.url}/settings`);
  const general = page.getByRole('tabpanel', { name: '通用' });
  await expect(general.getByRole('combobox', { name: '语言' })).toBeVisible();
  // Nothing to offer while the names match the language.
  await expect(page.getByTestId('rename-defaults')).toHaveCount(0);
  await chooseLanguage(page, general, '语言', 'English');
  const offer = page.getByTestId('rename-defaults');
  await expect(offer).toContainText('Rename the default categories to English?');
  await expect(offer).toContainText('餐饮 → Food');
  await expect(offer).not.toContainText('打车');
  await offer.getByRole('button', { name: 'Rename them' }).click();
  await expect(page.getByText('Categories renamed: 18.')).toBeVisible();
  await expect(offer).toHaveCount(0);

  await page.getByRole('tab', { name: 'Categories' }).click();
  const categories = page.getByRole('tabpanel', { name: 'Categories' });
  for (const name of ['Food', 'Shopping', 'Phone & internet', 'Salary', 'Side job', '打车']) await expect(categories.getByText(name, { exact: true }).first()).toBeVisible();
  await expect(categories).not.toContainText('餐饮');

  // The records kept their money and follow the new names; the list and its dates are in English now.
  // (signInPage sets the language at every page load: move within the app.)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Records' }).click();
  const rows = page.getByRole('region', { name: 'Records' });
  await expect(rows).toContainText('Food');
  await expect(rows).toContainText('打车');
  await expect(page.getByRole('textbox', { name: 'Date' })).toHaveValue(todayEn);
  await page.getByRole('textbox', { name: 'Date' }).click();
  await expect(page.getByRole('row', { name: 'Su Mo Tu We Th Fr Sa' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Choose the month' })).toHaveText(/^[A-Z][a-z]+ \d{4}$/);
  watch.expectClean();
});
