import { expect, test } from '@playwright/test';
import { api, registerAccount, signInPage } from './api';
import { startE2eServer, watchPage } from './support';

/**
 * Issue 36, finding 16: clicking an asset did nothing. Its name now opens its register: the
 * records that moved its money, newest first, each with what it did and the balance after it,
 * down to the opening balance; at a desktop width and on a phone (rows as cards).
 */
let running: Awaited<ReturnType<typeof startE2eServer>>;
test.beforeAll(async () => {
  running = await startE2eServer();
});
test.afterAll(async () => {
  await (running as typeof running | undefined)?.stop();
});

const DAY = 86_400_000;

test("an asset's name opens its register: every record with the balance after it, down to the opening balance", async ({ page }) => {
  const watch = watchPage(page);
  const url = running.server.url;
  const account = await registerAccount(url, 'registrar');
  const call = <T = { id: string }>(action: string, params: unknown) => api<T>(url, account.token, action, params);
  await call('currency.setBase', { currency: 'CNY' });
  const cash = await call('asset.create', { name: 'Cash', type: 'cash', currency: 'CNY', balance: 100 });
  const bank = await call('asset.create', { name: 'Bank', type: 'debit_card', currency: 'CNY', balance: 0 });
  const card = await call('asset.create', { name: 'US card', type: 'debit_card', currency: 'USD', balance: 500 });
  const now = Date.now();
  await call('accounting.create', { type: 'income', amount: 50, asset: cash.id, description: 'Refund', date: now - 4 * DAY });
  await call('accounting.create', { type: 'expense', amount: 20, asset: cash.id, description: 'Lunch', date: now - 3 * DAY });
  await call('accounting.create', { type: 'transfer', amount: 30, fee: 1, asset: cash.id, toAsset: bank.id, description: 'Deposit', date: now - 2 * DAY });
  await call('accounting.create', { type: 'transfer', amount: 10, asset: card.id, toAsset: cash.id, toAmount: 71, description: 'Change money', date: now - DAY });
  // Another asset's record stays out of it.
  await call('accounting.create', { type: 'expense', amount: 5, asset: bank.id, description: 'Bank fee', date: now - DAY });

  await signInPage(page, account);
  await page.goto(`${url}/assets`);
  await page.getByRole('link', { name: 'Cash: show its records' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Cash' })).toBeVisible();
  await expect(page).toHaveURL(/\/assets\?asset=/);
  await expect(page.getByTestId('register-balance')).toHaveText('CN¥170.00');
  const rows = page.getByTestId('register-row');
  await expect(rows).toHaveCount(4);
  const seen = await rows.evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent.trim())));
  expect(seen.map((cells) => [cells[1], cells[2], cells[3]])).toEqual([
    ['Change moneyUS card → Cash', '+CN¥71.00', 'CN¥170.00'],
    ['DepositCash → Bank', '-CN¥31.00', 'CN¥99.00'],
    ['LunchOther', '-CN¥20.00', 'CN¥130.00'],
    ['RefundOther', '+CN¥50.00', 'CN¥150.00'],
  ]);
  await expect(page.getByTestId('register-opening')).toContainText('Opening balance');
  await expect(page.getByTestId('register-opening')).toContainText('CN¥100.00');
  await expect(page.getByTestId('asset-register')).not.toContainText('Bank fee');

  // Back to the list; on a phone the register's rows are cards with their column names.
  await page.getByRole('link', { name: 'All assets' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Assets' })).toBeVisible();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole('link', { name: 'Bank: show its records' }).click();
  await expect(page.getByTestId('register-row')).toHaveCount(2);
  await expect(page.getByTestId('register-balance-after').first()).toHaveAttribute('data-label', 'Balance after');
  await expect(page.getByTestId('register-opening')).toContainText('CN¥0.00');
  watch.expectClean();
});
