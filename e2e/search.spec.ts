import { expect, test, type Page } from '@playwright/test';
import { api, registerAccount, signInPage, type Account } from './api';
import { startE2eServer, watchPage } from './support';

/**
 * Issue 19, finding 10: one search over notes, categories, tags, assets, amounts and dates; `/`
 * focuses it from anywhere; bulk re-categorise, re-tag and delete with undo from the toast; delete
 * with undo; duplicate a record; `?` lists the keyboard shortcuts.
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

const day = (m: number, d: number) => Date.UTC(2026, m - 1, d, 12);

/** A fresh account with a wallet, a bank card and four records, signed in on `path`. */
async function open(page: Page, path = '/records'): Promise<{ account: Account; ids: Record<'coffee' | 'rent' | 'book' | 'pay', string> }> {
  const url = running.server.url;
  const account = await registerAccount(url, `search${++users}`);
  const wallet = (await api<{ id: string }>(url, account.token, 'asset.create', { name: 'Wallet', type: 'cash', currency: 'USD', balance: 1000 })).id;
  const bank = (await api<{ id: string }>(url, account.token, 'asset.create', { name: 'Bank card', type: 'debit_card', currency: 'USD', balance: 1000 })).id;
  const create = async (params: Record<string, unknown>) => (await api<{ id: string }>(url, account.token, 'accounting.create', params)).id;
  const ids = {
    coffee: await create({ type: 'expense', amount: 35.5, asset: wallet, category: 'Food', description: 'Coffee beans', date: day(11, 3), tags: ['trip'] }),
    rent: await create({ type: 'expense', amount: 800, asset: bank, category: 'Housing', description: 'November rent', date: day(11, 1) }),
    book: await create({ type: 'expense', amount: 120, asset: wallet, category: 'Shopping', description: 'A novel', date: day(10, 20) }),
    pay: await create({ type: 'income', amount: 2500, asset: bank, category: 'Salary', description: 'Pay', date: day(10, 28) }),
  };
  await signInPage(page, account);
  await page.goto(`${url}${path}`);
  return { account, ids };
}

const list = (page: Page) => page.getByRole('list', { name: 'Records' });
const searchBox = (page: Page) => page.getByRole('searchbox', { name: 'Search records' });
const records = (account: Account) =>
  api<{ total: number; list: Array<{ id: string; category: string; description: string; date: number }> }>(running.server.url, account.token, 'accounting.query', {});

async function expectRows(page: Page, count: number, text?: string | RegExp) {
  await expect(list(page).getByRole('listitem')).toHaveCount(count);
  if (text) await expect(list(page)).toContainText(text);
}

test('one box searches notes, categories, tags, assets, amounts and dates; / focuses it from any screen', async ({ page }) => {
  const watch = watchPage(page);
  await open(page, '/assets');
  await page.locator('body').press('/');
  await expect(page).toHaveURL(/\/records$/);
  await expect(searchBox(page)).toBeFocused();
  for (const [q, count, text] of [
    ['coffee', 1, 'Coffee beans'],
    ['housing', 1, 'November rent'],
    ['tag:trip', 1, 'Coffee beans'],
    ['bank', 2, 'November rent'],
    ['35.5', 1, 'Coffee beans'],
    ['>100', 3, 'A novel'],
    ['2026-11', 2, 'November rent'],
    ['wallet >100', 1, 'A novel'],
  ] as const) {
    await searchBox(page).fill(q);
    await expectRows(page, count, text);
    await expect(page.getByTestId('record-totals')).toContainText(count === 1 ? '1 record' : `${count} records`);
  }
  // a search the server cannot read says why under the box
  await searchBox(page).fill('>abc');
  await expect(page.getByText('“>abc” needs an amount (100, 35.5) or a date (2026-11, 2026-11-03).')).toBeVisible();
  // Esc clears the box; typing "/" in a field types it (no shortcut)
  await searchBox(page).press('Escape');
  await expectRows(page, 4);
  await page.getByRole('textbox', { name: 'Note' }).first().fill('a/b');
  await expect(page.getByRole('textbox', { name: 'Note' }).first()).toHaveValue('a/b');
  watch.expectClean();
});

test('bulk re-categorise and re-tag, then undo from the toast', async ({ page }) => {
  const { account, ids } = await open(page);
  await expectRows(page, 4);
  await page.getByRole('checkbox', { name: /Select .*Coffee beans/ }).click();
  await page.getByRole('checkbox', { name: /Select .*A novel/ }).click();
  const bar = page.getByTestId('bulk-bar');
  await expect(bar).toContainText('2 selected');
  await bar.getByRole('combobox', { name: 'Move to category…' }).click();
  await page.getByRole('option', { name: 'Entertainment' }).click();
  const toast = page.getByTestId('undo-toast');
  await expect(toast).toContainText('2 records moved to Entertainment.');
  const after = await records(account);
  expect(
    after.list
      .filter((r) => r.category === 'Entertainment')
      .map((r) => r.id)
      .sort(),
  ).toEqual([ids.coffee, ids.book].sort());
  await toast.getByRole('button', { name: 'Undo' }).click();
  await expect(page.getByText('Undone: 2 records restored.')).toBeVisible();
  const undone = await records(account);
  expect(Object.fromEntries(undone.list.map((r) => [r.id, r.category]))).toMatchObject({ [ids.coffee]: 'Food', [ids.book]: 'Shopping' });

  // select all in the results, add a tag
  await searchBox(page).fill('wallet');
  await expectRows(page, 2);
  await page.getByRole('checkbox', { name: 'Select all 2 records found' }).click();
  await bar.getByRole('textbox', { name: 'Tag to add' }).fill('books');
  await bar.getByRole('button', { name: 'Add tag' }).click();
  await expect(page.getByTestId('undo-toast')).toContainText('Tag books added to 2 records.');
  await searchBox(page).fill('tag:books');
  await expectRows(page, 2);
});

test('delete (one, and several with shift-click) can be undone for at least 10 s', async ({ page }) => {
  // The page's clock (timers, Date) runs as usual but can be moved on: the 10 s pass at once.
  await page.clock.install();
  const { account, ids } = await open(page);
  await expectRows(page, 4);
  await list(page).getByRole('listitem').filter({ hasText: 'Coffee beans' }).getByRole('button', { name: 'Record actions' }).click();
  await page.getByRole('menuitem', { name: 'Delete' }).click();
  await expectRows(page, 3);
  const toast = page.getByTestId('undo-toast');
  await expect(toast).toContainText('Record deleted.');
  await page.mouse.move(0, 0); // a toast under the pointer never closes: the pointer goes elsewhere
  await page.clock.runFor(10_500);
  await expect(toast).toBeVisible();
  await toast.getByRole('button', { name: 'Undo' }).click();
  await expectRows(page, 4, 'Coffee beans');
  expect((await records(account)).list.map((r) => r.id)).toContain(ids.coffee);

  // newest first: Coffee (11-03), rent (11-01), pay (10-28), novel (10-20): shift-click selects the three from coffee to pay
  await page.getByRole('checkbox', { name: /Select .*Coffee beans/ }).click();
  await page.getByRole('checkbox', { name: /Select .*, Pay$/ }).click({ modifiers: ['Shift'] });
  await expect(page.getByTestId('bulk-bar')).toContainText('3 selected');
  await page.getByTestId('bulk-bar').getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete 3 records' }).click();
  await expectRows(page, 1, 'A novel');
  await page.getByTestId('undo-toast').getByRole('button', { name: 'Undo' }).click();
  await expectRows(page, 4);
  expect((await records(account)).total).toBe(4);
});

test('duplicate a record: a copy dated today opens for editing', async ({ page }) => {
  const { account } = await open(page);
  await list(page).getByRole('listitem').filter({ hasText: 'November rent' }).getByRole('button', { name: 'Record actions' }).click();
  await page.getByRole('menuitem', { name: 'Duplicate (dated today)' }).click();
  await expect(page.getByRole('dialog', { name: 'Edit Expense' })).toBeVisible();
  await expect(page.getByText('Record duplicated, dated today.', { exact: false })).toBeVisible();
  const after = await records(account);
  expect(after.total).toBe(5);
  const copy = after.list.find((r) => r.description === 'November rent' && r.date > day(11, 2));
  expect(copy?.category).toBe('Housing');
  expect(Math.abs((copy?.date ?? 0) - Date.now())).toBeLessThan(60_000);
});

test('? opens the keyboard-shortcut sheet; n starts a new record; shortcuts never fire while typing', async ({ page }) => {
  await open(page, '/');
  await page.locator('body').press('?');
  const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(sheet).toBeVisible();
  for (const text of ['Search records (from any screen)', 'New record', 'Show this list', 'Go to Records']) await expect(sheet).toContainText(text);
  await page.keyboard.press('Escape');
  await expect(sheet).toBeHidden();
  await page.locator('body').press('g');
  await page.locator('body').press('a');
  await expect(page).toHaveURL(/\/assets$/);
  await page.locator('body').press('n');
  await expect(page).toHaveURL(/\/records$/);
  await expect(page.getByLabel('Amount').first()).toBeFocused();
  // typing "?" in the amount field is typing, not a shortcut
  await page.getByLabel('Amount').first().press('?');
  await expect(sheet).toBeHidden();
});
