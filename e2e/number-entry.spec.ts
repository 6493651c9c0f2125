import { expect, test, type Page } from '@playwright/test';
import { api, registerAccount, signInPage, type Account } from './api';
import { startE2eServer, watchPage } from './support';

/**
 * Issue 15, finding 7: numbers are taken exactly as typed or refused with a message on the field —
 * never rounded, cut or reinterpreted (`1e5` was saved as 15, `1.999` as 1.99, `12abc` as 12,
 * 23 nines as 1e23; shares `-5` bought 1 and `2.5` bought 2). Every refusal is checked through the
 * API: nothing was written.
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

const NOT_A_NUMBER = 'Not a number: type digits and at most one decimal point, like 1,234.56 (commas only between groups of three digits).';

/** A fresh account with a USD wallet, signed in on `path`. */
async function open(page: Page, path: string, language = 'en'): Promise<Account> {
  const account = await registerAccount(running.server.url, `numbers${++users}`);
  await api(running.server.url, account.token, 'asset.create', { name: 'Wallet', type: 'cash', currency: 'USD', balance: 10000 });
  await signInPage(page, account, { language });
  await page.goto(`${running.server.url}${path}`);
  return account;
}

const records = (account: Account) => api<{ total: number; list: { amount: number }[] }>(running.server.url, account.token, 'accounting.query', {});

for (const [typed, message] of [
  ['1e5', NOT_A_NUMBER],
  ['12abc', NOT_A_NUMBER],
  ['1.999', 'USD has at most 2 decimal places.'],
  ['9'.repeat(23), 'Too large: the largest amount is 10,000,000,000,000.00.'],
] as const) {
  test(`record amount "${typed}" is refused on the field and saves nothing`, async ({ page }) => {
    const watch = watchPage(page);
    const account = await open(page, '/records');
    const sent: unknown[] = [];
    page.on('request', (request) => {
      const body = request.postDataJSON() as { action?: string; params?: { amount?: unknown } } | null;
      if (request.url().endsWith('/api') && body?.action === 'accounting.create') sent.push(body.params?.amount);
    });
    const form = page.getByRole('form', { name: 'New record' });
    const amount = form.getByRole('textbox', { name: 'Amount' });
    await amount.fill(typed);
    await amount.press('Enter');
    await expect(amount).toHaveAttribute('aria-invalid', 'true');
    await expect(amount).toHaveAccessibleDescription(message);
    await expect(amount).toHaveValue(typed); // what was typed stays, to be corrected
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(amount).toBeFocused();
    expect(sent).toEqual([]); // refused by the field itself: nothing was even sent
    // Correct it and save: only the corrected record exists (the server handles one user's writes in order).
    await amount.fill('2.5');
    await expect(amount).not.toHaveAttribute('aria-invalid', 'true');
    await amount.press('Enter');
    await expect(page.getByText('Record saved.')).toBeVisible();
    const after = await records(account);
    expect(after.list.map((r) => r.amount)).toEqual([2.5]);
    expect(sent).toEqual([2.5]);
    watch.expectClean();
  });
}

test('record amount "1,234.56" saves 1234.56', async ({ page }) => {
  const watch = watchPage(page);
  const account = await open(page, '/records');
  const form = page.getByRole('form', { name: 'New record' });
  await form.getByRole('textbox', { name: 'Amount' }).fill('1,234.56');
  await form.getByRole('textbox', { name: 'Amount' }).press('Enter');
  await expect(page.getByText('Record saved.')).toBeVisible();
  expect((await records(account)).list.map((r) => r.amount)).toEqual([1234.56]);
  await expect(page.getByRole('list', { name: 'Records' }).getByRole('listitem')).toContainText(['$1,234.56']);
  watch.expectClean();
});

test('shares "-5" and "2.5" are refused on the field and buy nothing', async ({ page }) => {
  const watch = watchPage(page);
  const account = await open(page, '/savings?tab=market');
  await page.getByRole('button', { name: /Show PennyPost Holdings/ }).click();
  const panel = page.getByRole('region', { name: 'PNYP chart and trading' });
  const shares = panel.getByRole('textbox', { name: 'Shares' });
  for (const typed of ['-5', '2.5']) {
    await shares.fill(typed);
    await panel.getByRole('button', { name: 'Buy' }).click();
    await expect(shares).toHaveAttribute('aria-invalid', 'true');
    await expect(shares).toHaveAccessibleDescription('Enter a whole number from 1 to 1,000,000.');
    await expect(shares).toHaveValue(typed);
  }
  await expect(panel.getByText('You hold 0 shares.')).toBeVisible();
  // A whole number buys exactly that many; before it, nothing had been bought.
  await shares.fill('2');
  await panel.getByRole('button', { name: 'Buy' }).click();
  await expect(panel.getByText('You hold 2 shares.')).toBeVisible();
  const { positions } = await api<{ positions: { stockId: string; quantity: number }[] }>(running.server.url, account.token, 'savings.getPositions', {});
  expect(positions.map((p) => [p.stockId, p.quantity])).toEqual([['PNYP', 2]]);
  const wallet = await api<{ history: { list: { kind: string; quantity: number | null }[] } }>(running.server.url, account.token, 'savings.getWallet', {});
  expect(wallet.history.list.filter((e) => e.kind === 'buy').map((e) => e.quantity)).toEqual([2]);
  watch.expectClean();
});

test('opening balance, goal target and exchange rate follow the same rules', async ({ page }) => {
  const watch = watchPage(page);
  const account = await open(page, '/assets');
  // opening balance: an exponent is refused, the dialog stays open, no asset is created
  await page.getByRole('button', { name: 'New asset' }).click();
  const dialog = page.getByRole('dialog', { name: 'New asset' });
  await dialog.getByLabel('Name').fill('Savings');
  const opening = dialog.getByRole('textbox', { name: 'Opening balance' });
  await opening.fill('1e5');
  await dialog.getByRole('button', { name: 'Create asset' }).click();
  await expect(opening).toHaveAccessibleDescription(new RegExp(NOT_A_NUMBER.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  await opening.fill('100,000');
  await dialog.getByRole('button', { name: 'Create asset' }).click();
  await expect(dialog).toBeHidden();
  const assets = await api<{ list: { name: string; openingBalance: number }[] }>(running.server.url, account.token, 'asset.query', {});
  expect(assets.list.map((a) => [a.name, a.openingBalance]).sort()).toEqual([
    ['Savings', 100000],
    ['Wallet', 10000],
  ]);
  // goal target: letters are refused, no goal is created
  await page.goto(`${running.server.url}/savings`);
  await page.getByRole('button', { name: 'New goal' }).click();
  const goal = page.getByRole('dialog', { name: 'New goal' });
  await goal.getByRole('textbox', { name: 'Goal', exact: true }).fill('Bike');
  const target = goal.getByRole('textbox', { name: 'Target amount' });
  await target.fill('12abc');
  await goal.getByRole('button', { name: 'Create goal' }).click();
  await expect(target).toHaveAccessibleDescription(NOT_A_NUMBER);
  const goals = await api<{ list: unknown[] }>(running.server.url, account.token, 'savings.queryGoals', {});
  expect(goals.list).toEqual([]);
  await goal.getByRole('button', { name: 'Cancel' }).click();
  // exchange rate: grouping is read, an exponent refused
  await page.goto(`${running.server.url}/settings?tab=currency`);
  await page.getByRole('combobox', { name: 'From' }).fill('EUR');
  await page.getByRole('option', { name: 'EUR', exact: true }).click();
  const rate = page.getByRole('textbox', { name: 'Rate' });
  await rate.fill('1e5');
  await page.getByRole('button', { name: 'Add rate' }).click();
  await expect(rate).toHaveAccessibleDescription(/^Enter a rate above zero, like 7\.1234/);
  await rate.fill('1,234.5');
  await page.getByRole('button', { name: 'Add rate' }).click();
  await expect(rate).toHaveValue('');
  const rates = await api<{ list: { rate: string }[] }>(running.server.url, account.token, 'currency.listRates', {});
  expect(rates.list.map((r) => r.rate)).toEqual(['1234.5']);
  watch.expectClean();
});

test('in Chinese the refusal is said in Chinese', async ({ page }) => {
  const account = await open(page, '/records', 'zh-CN');
  const form = page.getByRole('form', { name: '新记录' });
  const amount = form.getByRole('textbox', { name: '金额' });
  await amount.fill('1.999');
  await amount.press('Enter');
  await expect(amount).toHaveAccessibleDescription('USD 最多 2 位小数。');
  expect((await records(account)).total).toBe(0);
});
