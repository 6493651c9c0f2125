import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { startE2eServer, watchPage } from './support';

/**
 * The whole journey of issue 9 in one browser session against a real server (port 0, temp data
 * dir): every step checks what the person sees, every screen is screenshotted into
 * e2e/screenshots/ (git-ignored) and checked for CSP violations and page errors.
 */
const SHOTS = path.join(import.meta.dirname, 'screenshots');
mkdirSync(SHOTS, { recursive: true });

let running: Awaited<ReturnType<typeof startE2eServer>>;
let page: Page;
let watch: ReturnType<typeof watchPage>;

test.describe.configure({ mode: 'serial' });
test.beforeAll(async ({ browser }) => {
  running = await startE2eServer();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  watch = watchPage(page);
});
test.afterAll(async () => {
  await page?.close();
  await running?.stop();
});
test.afterEach(() => {
  watch.expectClean();
});

async function shot(name: string) {
  // Toasts come and go; close them so the screenshot shows the screen itself.
  for (const close of await page.locator('.mantine-Notification-root .mantine-CloseButton-root').all()) await close.click({ timeout: 1000 }).catch(() => undefined);
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: false });
}
/** Mantine's SegmentedControl hides its radios: click the label, then check the radio is on. */
async function pickSegment(scope: Locator, name: string) {
  const radio = scope.getByRole('radio', { name, exact: true });
  const id = await radio.getAttribute('id');
  await scope.locator(`label[for="${id}"]`).click();
  await expect(radio).toBeChecked();
}
async function go(name: RegExp | string) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();
}

test('register a new account', async () => {
  await page.goto(running.server.url);
  await shot('01-sign-in');
  await page.getByRole('tab', { name: 'Create account' }).click();
  await page.getByLabel('Username').fill('alice');
  await page.getByLabel('Email').fill('alice@example.com');
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill('correct horse battery');
  await page.getByRole('textbox', { name: 'Repeat password' }).fill('correct horse battery');
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Start by adding an asset' })).toBeVisible();
  await shot('02-dashboard-empty');
});

test('create assets', async () => {
  await go('Assets');
  await expect(page.getByRole('heading', { name: 'Assets' })).toBeVisible();
  for (const [name, type, opening] of [
    ['Wallet', 'Cash', '200'],
    ['Bank card', 'Debit card', '1000'],
  ] as const) {
    await page.getByRole('button', { name: 'New asset' }).click();
    const dialog = page.getByRole('dialog', { name: 'New asset' });
    await dialog.getByLabel('Name').fill(name);
    await dialog.getByRole('combobox', { name: 'Type' }).click();
    await page.getByRole('option', { name: type, exact: true }).click();
    await dialog.getByRole('combobox', { name: 'Currency' }).fill('USD');
    await page.getByRole('option', { name: 'USD', exact: true }).click();
    await dialog.getByLabel('Opening balance').fill(opening);
    await dialog.getByRole('button', { name: 'Create asset' }).click();
    await expect(dialog).toBeHidden();
  }
  await expect(page.getByTestId('asset-row-Wallet').getByTestId('asset-balance')).toHaveText('$200.00');
  await expect(page.getByTestId('asset-row-Bank card').getByTestId('asset-balance')).toHaveText('$1,000.00');
  await expect(page.getByTestId('asset-row-Wallet')).toContainText('Default');
  await shot('03-assets');
});

test('record income, expense and transfer', async () => {
  await go('Records');
  const form = page.getByRole('form', { name: 'New record' });
  // expense from the default asset (Wallet), category defaults to the first expense category
  await form.getByLabel('Amount').fill('12.50');
  await form.getByLabel('Note').fill('Lunch');
  await form.getByLabel('Amount').press('Enter');
  await expect(page.getByText('Record saved.')).toBeVisible();
  await expect(form.getByLabel('Amount')).toBeFocused();
  // income to the bank card
  await pickSegment(form, 'Income');
  await form.getByRole('combobox', { name: 'Asset' }).click();
  await page.getByRole('option', { name: 'Bank card (USD)' }).click();
  await form.getByLabel('Amount').fill('3000');
  await form.getByLabel('Note').fill('Salary');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('list', { name: 'Records' }).getByRole('button', { name: /Salary/ })).toBeVisible();
  // transfer bank card → wallet
  await pickSegment(form, 'Transfer');
  await form.getByRole('combobox', { name: 'To' }).click();
  await page.getByRole('option', { name: 'Wallet (USD)' }).click();
  await form.getByLabel('Amount').fill('100');
  await form.getByRole('button', { name: 'Save' }).click();
  const list = page.getByRole('list', { name: 'Records' });
  await expect(list.getByRole('listitem')).toHaveCount(3);
  await expect(page.getByTestId('record-totals')).toContainText('3 records');
  await expect(page.getByTestId('record-totals')).toContainText('$3,000.00');
  await expect(page.getByTestId('record-totals')).toContainText('$12.50');
  await shot('04-records');
});

test('balances and dashboard follow', async () => {
  await go('Assets');
  // Wallet 200 − 12.50 + 100 = 287.50; Bank card 1000 + 3000 − 100 = 3900
  await expect(page.getByTestId('asset-row-Wallet').getByTestId('asset-balance')).toHaveText('$287.50');
  await expect(page.getByTestId('asset-row-Bank card').getByTestId('asset-balance')).toHaveText('$3,900.00');
  await go('Dashboard');
  await expect(page.getByTestId('net-worth')).toContainText('$4,187.50');
  await expect(page.getByTestId('month-income')).toContainText('$3,000.00');
  await expect(page.getByTestId('month-expense')).toContainText('$12.50');
  await expect(page.getByRole('list', { name: 'Recent records' }).getByRole('listitem')).toHaveCount(3);
  await expect(page.getByRole('img', { name: /Income, expense and net per month/ }).locator('canvas')).toBeVisible();
  await shot('05-dashboard');
});
