import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { api, registerAccount, signInPage, type Account } from './api';
import { startE2eServer, watchPage } from './support';

/** Issue 21: the Budgets screen — create in the UI, bars from records, overspending in red, month switcher, delete. */
let running: Awaited<ReturnType<typeof startE2eServer>>;
let users = 0;
test.beforeAll(async () => {
  running = await startE2eServer();
});
test.afterAll(async () => {
  await (running as typeof running | undefined)?.stop();
});

const call = <T = unknown>(account: Account, action: string, params: unknown) => api<T>(running.server.url, account.token, action, params);

async function open(page: Page, language = 'en'): Promise<Account> {
  const account = await registerAccount(running.server.url, `budgetui${++users}`);
  await signInPage(page, account, { language });
  return account;
}

test('a budget made in the UI shows its bar, turns red when overspent, follows the month switcher and is deleted', async ({ page }) => {
  const watch = watchPage(page);
  const account = await open(page);
  const cash = await call<{ id: string }>(account, 'asset.create', { name: 'Cash', type: 'cash', currency: 'USD', balance: 1000 });
  await page.goto(`${running.server.url}/budgets`);
  await expect(page.getByRole('heading', { name: 'Budgets', level: 1 })).toBeVisible();
  await expect(page.getByText('No budgets for this month.', { exact: false })).toBeVisible();

  await page.getByRole('button', { name: 'New budget' }).click();
  const dialog = page.getByRole('dialog', { name: 'New budget' });
  await dialog.getByLabel('Name').fill('Groceries');
  await dialog.getByLabel('Amount per month (USD)').fill('100');
  await dialog.getByLabel('Categories').click();
  await page.getByRole('option', { name: 'Food' }).click();
  await dialog.getByLabel('Categories').press('Escape');
  await dialog.getByRole('button', { name: 'Create budget' }).click();
  await expect(dialog).toBeHidden();
  const budgets = await call<{ list: Array<{ name: string; categoryNames: string[]; amount: number }> }>(account, 'budget.query', {
    month: new Date().toISOString().slice(0, 7),
  });
  expect(budgets.list).toMatchObject([{ name: 'Groceries', categoryNames: ['Food'], amount: 100 }]);

  await call(account, 'accounting.create', { type: 'expense', amount: 30, asset: cash.id, category: 'Food' });
  await call(account, 'accounting.create', { type: 'expense', amount: 500, asset: cash.id, category: 'Travel' });
  await page.reload();
  const bar = page.getByTestId('budget-bar-Groceries');
  await expect(page.getByRole('progressbar', { name: 'Groceries: 30% used' })).toBeVisible();
  await expect(bar).toHaveAttribute('data-over', 'false');
  await expect(bar.getByText('$70.00 left')).toBeVisible();
  await expect(bar.getByText('Today: +$30.00')).toBeVisible();

  await call(account, 'accounting.create', { type: 'expense', amount: 90, asset: cash.id, category: 'Food' });
  await page.reload();
  await expect(bar).toHaveAttribute('data-over', 'true');
  await expect(bar.getByText('$20.00 over')).toBeVisible();
  await expect(page.getByText('Overspent')).toBeVisible();
  const fill = bar.locator('.pp-bar-fill');
  await expect(fill).toHaveClass(/pp-expense-fill/);
  const color = await bar.getByText('$20.00 over').evaluate((el) => getComputedStyle(el).color);
  expect(color).not.toBe(await page.getByTestId('budget-month').evaluate((el) => getComputedStyle(el).color));

  // No serious or critical accessibility problem on the screen with an overspent budget, nor in its form.
  const serious = async () =>
    (
      await new AxeBuilder({ page })
        .setLegacyMode(true)
        .options({ resultTypes: ['violations'] })
        .analyze()
    ).violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.id);
  expect(await serious()).toEqual([]);

  // Editing: a larger amount is no longer overspent.
  await page.getByRole('button', { name: 'Edit “Groceries”' }).click();
  const editor = page.getByRole('dialog', { name: 'Edit budget “Groceries”' });
  await expect(editor.getByLabel('Amount per month (USD)')).toHaveValue('100');
  expect(await serious()).toEqual([]);
  await editor.getByLabel('Amount per month (USD)').fill('200');
  await editor.getByRole('button', { name: 'Save budget' }).click();
  await expect(editor).toBeHidden();
  await expect(bar).toHaveAttribute('data-over', 'false');
  await expect(bar.getByText('$80.00 left')).toBeVisible();

  // Months before the budget's first month list nothing; back to this month shows it again.
  await page.getByRole('button', { name: 'Previous month' }).click();
  await expect(page.getByText('No budgets for this month.', { exact: false })).toBeVisible();
  await page.getByRole('button', { name: 'Next month' }).click();
  await expect(bar).toBeVisible();

  // The dashboard card lists it too.
  await page.goto(`${running.server.url}/`);
  await expect(page.getByRole('region', { name: 'Budgets this month' }).getByRole('progressbar', { name: /Groceries/ })).toBeVisible();

  await page.goto(`${running.server.url}/budgets`);
  await page.getByRole('button', { name: 'Delete “Groceries”' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(page.getByText('No budgets for this month.', { exact: false })).toBeVisible();
  expect((await call<{ list: unknown[] }>(account, 'budget.query', { month: new Date().toISOString().slice(0, 7) })).list).toEqual([]);
  watch.expectClean();
});

test('the Budgets screen speaks Chinese', async ({ page }) => {
  const account = await open(page, 'zh-CN');
  await call(account, 'budget.create', { name: '买菜', categories: 'all', amount: 100, startMonth: new Date().toISOString().slice(0, 7), rollover: true });
  await page.goto(`${running.server.url}/budgets`);
  await expect(page.getByRole('heading', { name: '预算', level: 1 })).toBeVisible();
  await expect(page.getByText('剩余', { exact: false }).first()).toBeVisible();
  await expect(page.getByText('结转', { exact: false }).first()).toBeVisible();
});
