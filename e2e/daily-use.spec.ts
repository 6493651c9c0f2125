import { expect, test, type Page } from '@playwright/test';
import { api, registerAccount, signInPage, type Account } from './api';
import { startE2eServer, watchPage } from './support';

/**
 * Issue 36 ("daily use, tried as a new user would"), the findings about the records and assets
 * screens at a desktop width: the entry form says when its date is not today (13); a total that
 * leaves out records without an exchange rate says so, and the rate form starts on the missing
 * pair (14).
 */
let running: Awaited<ReturnType<typeof startE2eServer>>;

test.beforeAll(async () => {
  running = await startE2eServer();
});
test.afterAll(async () => {
  await (running as typeof running | undefined)?.stop();
});

async function account(name: string): Promise<{ account: Account; call: <T = { id: string }>(action: string, params: unknown) => Promise<T> }> {
  const made = await registerAccount(running.server.url, name);
  return { account: made, call: (action, params) => api(running.server.url, made.token, action, params) };
}

/** `YYYY-MM-DD` of a local day `days` from today. */
function dayInput(days: number): string {
  const d = new Date();
  d.setDate(d.getDate() + days);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

async function openRecords(page: Page, who: Account) {
  await signInPage(page, who);
  await page.goto(`${running.server.url}/records`);
  return page.getByRole('form', { name: 'New record' });
}

test('13: the entry form says when its date is not today, keeps it for the next record, and goes back to today in one click', async ({ page }) => {
  const watch = watchPage(page);
  const { account: who, call } = await account('datekeeper');
  await call('asset.create', { name: 'Cash', type: 'cash', currency: 'USD', balance: 500 });
  const form = await openRecords(page, who);
  const date = form.getByRole('textbox', { name: 'Date' });
  const notToday = form.getByTestId('entry-not-today');
  await expect(notToday).toHaveCount(0);

  await date.fill(dayInput(-1));
  await date.press('Tab');
  await expect(notToday).toHaveText(/^Not today: yesterday\./);
  await form.getByLabel('Amount').fill('7');
  await form.getByLabel('Note').fill('Forgotten coffee');
  await form.getByLabel('Amount').press('Enter');
  await expect(page.getByText('Record saved.')).toBeVisible();
  // The date is kept for the next record (entering a past day's receipts), and still said.
  await expect(notToday).toHaveText(/^Not today: yesterday\./);
  await date.fill(dayInput(-3));
  await date.press('Tab');
  await expect(notToday).toHaveText(/^Not today: 3 days ago\./);
  await notToday.getByRole('button', { name: 'Use today' }).click();
  await expect(notToday).toHaveCount(0);
  await expect(date).toHaveValue(new Intl.DateTimeFormat('en-US', { month: '2-digit', day: '2-digit', year: 'numeric' }).format(new Date()));
  watch.expectClean();
});

test('14: Records says which records a total leaves out for want of a rate; the link opens the rate form on that pair ("1 CNY = ? USD")', async ({ page }) => {
  const watch = watchPage(page);
  const { account: who, call } = await account('rateless');
  await call('currency.setBase', { currency: 'USD' });
  await call('asset.create', { name: 'Card', type: 'debit_card', currency: 'USD', balance: 500 });
  const yuan = await call('asset.create', { name: 'Alipay', type: 'ewallet', currency: 'CNY', balance: 300 });
  await call('accounting.create', { type: 'expense', amount: 25, asset: yuan.id, description: 'Noodles' });
  await call('accounting.create', { type: 'expense', amount: 12, asset: yuan.id, description: 'Tea' });
  await openRecords(page, who);
  const note = page.getByTestId('missing-rates');
  await expect(note).toHaveText(/^2 records are not in these totals: no exchange rate for CNY → USD\./);
  await note.getByRole('link', { name: 'Set the CNY → USD rate' }).click();
  await expect(page.getByRole('tab', { name: 'Currency & rates', selected: true })).toBeVisible();
  await expect(page.getByRole('combobox', { name: 'From' })).toHaveValue('CNY');
  await expect(page.getByRole('combobox', { name: 'To' })).toHaveValue('USD');
  await expect(page.getByText('1 CNY = ? USD')).toBeVisible();

  // Opened without a link, the form starts on the missing pair too (it said "1 USD = ? USD").
  await page.goto(`${running.server.url}/settings?tab=currency`);
  await expect(page.getByRole('combobox', { name: 'From' })).toHaveValue('CNY');
  await expect(page.getByText('1 CNY = ? USD')).toBeVisible();
  await page.getByRole('textbox', { name: 'Rate' }).fill('0.14');
  await page.getByRole('button', { name: 'Add rate' }).click();
  await expect(page.getByRole('cell', { name: '1 CNY → USD' })).toBeVisible();
  // With the rate set, the total counts them and says nothing more.
  await page.goto(`${running.server.url}/records`);
  await expect(page.getByTestId('record-totals')).toContainText('2 records');
  await expect(page.getByTestId('record-totals')).toContainText('$5.18');
  await expect(page.getByTestId('missing-rates')).toHaveCount(0);
  watch.expectClean();
});
