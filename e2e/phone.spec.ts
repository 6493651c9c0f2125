import AxeBuilder from '@axe-core/playwright';
import { devices, expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { COUCH_ADMIN, CouchPeer } from '../server/test-support/couch-peer/couch-peer';
import { api, registerAccount, signInPage, type Account } from './api';
import { startE2eServer, watchPage } from './support';

/**
 * The phone app's journey (docs/phone.md) in a phone-sized Chromium against the CouchDB peer of the
 * test suite and a running PennyPost: pair from the desktop, open and install, go offline and
 * reload, record three expenses and a transfer with no network, come back online (CouchDB and the
 * desktop get them, balances change), an edit on the desktop reaches the phone, the same record
 * edited on both ends the same on both, two phones and the desktop converge, revoke; zh-CN and
 * dark mode; axe.
 */

const PREFIX = 'pp_phone_e2e_';
const PHONE = devices['Pixel 7'];

let couch: CouchPeer;
let running: Awaited<ReturnType<typeof startE2eServer>>;
let owner: Account;
let url: string;
let cash: string;
let bank: string;
let euro: string;

let phoneContext: BrowserContext;
let phone: Page;

interface Rec {
  id: string;
  description: string;
  amount: number;
  type: string;
}

const records = async () => (await api<{ list: Rec[] }>(url, owner.token, 'accounting.query', { page: 1, pageSize: 200 })).list;
const balance = async (id: string) => (await api<{ balance: number }>(url, owner.token, 'asset.detail', { id })).balance;

async function openPhone(browser: Browser, link: string, options: Parameters<Browser['newContext']>[0] = {}) {
  const context = await browser.newContext({ ...PHONE, ...options });
  const page = await context.newPage();
  if (process.env.PHONE_DEBUG) {
    page.on('console', (m) => console.log('console', m.type(), m.text()));
    page.on('response', (r) => console.log('resp', r.status(), r.request().method(), r.url().slice(0, 160)));
    await page.addInitScript(() => ((globalThis as { PHONE_DEBUG?: boolean }).PHONE_DEBUG = true));
  }
  await page.goto(link);
  // The service worker controls the page: from now on it opens with no network.
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null), { timeout: 15_000 }).toBe(true);
  return { context, page };
}

async function typeAmount(page: Page, amount: string) {
  for (const key of amount) await page.locator(`.keypad [data-key="${key}"]`).click();
}

async function addExpense(page: Page, amount: string, category: string, note: string) {
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await page.getByRole('button', { name: 'Expense', exact: true }).click();
  await typeAmount(page, amount);
  await page.getByRole('group', { name: 'Category' }).getByRole('button', { name: category, exact: true }).click();
  await page.getByRole('button', { name: 'Note, tags, date' }).click();
  await page.getByLabel('Note').fill(note);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved' })).toBeVisible();
}

/** Picks the option of a select whose text starts with `name` (the options also show balances). */
async function pick(page: Page, field: string, name: string) {
  const select = page.getByRole('combobox', { name: field, exact: true });
  const value = await select.evaluate((element, wanted) => Array.from((element as HTMLSelectElement).options).find((o) => o.text.startsWith(`${wanted} ·`))?.value ?? '', name);
  await select.selectOption(value);
}

async function pairLink(label: string, extra: Record<string, unknown> = {}): Promise<string> {
  return (await api<{ link: string }>(url, owner.token, 'sync.addPhone', { label, appUrl: `${url}/phone/`, ...extra })).link;
}

test.describe.configure({ mode: 'serial', timeout: 120_000 });

test.beforeAll(async () => {
  couch = await CouchPeer.start();
  running = await startE2eServer({ settings: { sync: { retrySeconds: 0.5, requestTimeoutMs: 5000 } } });
  url = running.server.url;
  owner = await registerAccount(url, 'phoneowner');
  cash = (await api<{ id: string }>(url, owner.token, 'asset.create', { name: 'Cash', type: 'cash', balance: 100, currency: 'USD' })).id;
  bank = (await api<{ id: string }>(url, owner.token, 'asset.create', { name: 'Bank', type: 'debit_card', balance: 500, currency: 'USD' })).id;
  euro = (await api<{ id: string }>(url, owner.token, 'asset.create', { name: 'Euro wallet', type: 'cash', balance: 50, currency: 'EUR' })).id;
  await api(url, owner.token, 'category.list', {}); // the default categories, as the desktop's first screen makes them
  await api(url, owner.token, 'sync.configure', { url: couch.url, username: COUCH_ADMIN.username, password: COUCH_ADMIN.password, prefix: PREFIX });
  await running.server.app.services.sync.awaitInSync(owner.id);
});

test.afterAll(async () => {
  await (phoneContext as BrowserContext | undefined)?.close();
  await (running as typeof running | undefined)?.stop();
  await (couch as CouchPeer | undefined)?.close();
});

test('pairs a phone from the desktop: QR code and link', async ({ page, browser }) => {
  const watch = watchPage(page);
  await signInPage(page, owner);
  await page.goto(`${url}/settings?tab=server`);
  const form = page.getByRole('form', { name: 'Add a phone' });
  await form.getByRole('textbox', { name: 'Phone', exact: true }).fill("Anna's phone");
  await form.getByRole('button', { name: 'Add a phone' }).click();
  await expect(page.getByRole('img', { name: 'QR code of the pairing link' })).toBeVisible();
  const link = (await page.getByTestId('phone-link').textContent()) ?? '';
  expect(link).toMatch(new RegExp(`^${url}/phone/#pair=`));
  await expect(page.getByRole('table', { name: 'Phones' })).toContainText("Anna's phone");
  watch.expectClean();

  ({ context: phoneContext, page: phone } = await openPhone(browser, link));
  // The credential is read and the fragment is gone from the address.
  expect(new URL(phone.url()).hash).toBe('');
  await phone.getByRole('button', { name: 'Overview' }).click();
  await expect(phone.locator('[data-asset="Cash"]')).toHaveText('$100.00');
  await expect(phone.locator('[data-asset="Euro wallet"]')).toHaveText('€50.00');
  await expect(phone.getByTestId('sync-status')).toContainText('Synced');
});

test('is installable: manifest and service worker meet Chromium’s rules', async () => {
  const cdp = await phoneContext.newCDPSession(phone);
  const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as { installabilityErrors: Array<{ errorId: string }> };
  // A test context is incognito; nothing else keeps the app from being installed.
  expect(installabilityErrors.map((e) => e.errorId).filter((id) => id !== 'in-incognito')).toEqual([]);
  const manifest = await (await phone.request.get(`${url}/phone/manifest.webmanifest`)).json();
  expect(manifest).toMatchObject({ display: 'standalone', start_url: './' });
});

test('opens offline, records three expenses and a transfer, and sends them when back online', async () => {
  // Offline, the phone's requests to CouchDB fail as they should; nothing else may go wrong.
  const watch = watchPage(phone, { offline: true });
  await phoneContext.setOffline(true);
  await phone.reload();
  await phone.getByRole('button', { name: 'Overview' }).click();
  await expect(phone.locator('[data-asset="Cash"]')).toHaveText('$100.00');
  await expect(phone.getByTestId('sync-status')).toContainText('Offline');

  await addExpense(phone, '12.5', 'Food', 'Lunch');
  await addExpense(phone, '3', 'Transport', 'Bus');
  await addExpense(phone, '4.25', 'Food', 'Coffee');
  await phone.getByRole('button', { name: 'Transfer', exact: true }).click();
  await typeAmount(phone, '20');
  await pick(phone, 'From', 'Bank');
  await pick(phone, 'To', 'Euro wallet');
  await phone.getByLabel('Amount received (EUR)').fill('18.4');
  await phone.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(phone.getByTestId('sync-status')).toHaveText('Offline · 4 changes waiting');
  expect((await records()).length).toBe(0);
  await phone.getByRole('button', { name: 'Overview' }).click();
  await expect(phone.locator('[data-asset="Cash"]')).toHaveText('$80.25');

  await phoneContext.setOffline(false);
  await expect(phone.getByTestId('sync-status')).toContainText('Synced', { timeout: 20_000 });
  await expect.poll(async () => (await records()).length, { timeout: 20_000 }).toBe(4);
  expect((await records()).map((r) => r.description).sort()).toEqual(['', 'Bus', 'Coffee', 'Lunch']);
  expect(await balance(cash)).toBe(80.25);
  expect(await balance(bank)).toBe(480);
  expect(await balance(euro)).toBe(68.4);
  // Nothing doubled: once more after a reload.
  await phone.reload();
  await expect(phone.getByTestId('sync-status')).toContainText('Synced');
  expect((await records()).length).toBe(4);
  watch.expectClean();
});

test('an edit on the desktop reaches the phone; the same record edited on both ends the same on both', async () => {
  const lunch = (await records()).find((r) => r.description === 'Lunch')!;
  await api(url, owner.token, 'accounting.update', { id: lunch.id, description: 'Lunch with Ann' });
  await phone.getByRole('button', { name: 'Records' }).click();
  await expect(phone.getByTestId('record-row').filter({ hasText: 'Lunch with Ann' })).toBeVisible({ timeout: 20_000 });

  // Apart: the phone edits offline first, the desktop later; the later edit of the field wins everywhere.
  await phoneContext.setOffline(true);
  await phone.getByTestId('record-row').filter({ hasText: 'Coffee' }).click();
  await phone.getByLabel('Note').fill('Coffee (phone)');
  await phone.getByRole('button', { name: 'Save', exact: true }).click();
  const coffee = (await records()).find((r) => r.description === 'Coffee')!;
  await new Promise((r) => setTimeout(r, 20)); // the desktop's edit is later
  await api(url, owner.token, 'accounting.update', { id: coffee.id, description: 'Coffee (desktop)' });
  await phoneContext.setOffline(false);
  await expect(phone.getByTestId('record-row').filter({ hasText: 'Coffee (desktop)' })).toBeVisible({ timeout: 20_000 });
  await expect.poll(async () => (await records()).find((r) => r.id === coffee.id)?.description, { timeout: 20_000 }).toBe('Coffee (desktop)');
});

test('two phones and the desktop converge; zh-CN and dark mode; accessible', async ({ browser }) => {
  const second = await openPhone(browser, await pairLink('第二台手机', { language: 'zh-CN', baseCurrency: 'USD' }), { colorScheme: 'dark', locale: 'zh-CN' });
  const p2 = second.page;
  await expect(p2.getByRole('button', { name: '记一笔' })).toBeVisible();
  const background = await p2.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(background).toBe('rgb(16, 18, 20)');
  await p2.getByRole('button', { name: '支出', exact: true }).click();
  await typeAmount(p2, '7');
  await p2.getByRole('group', { name: '分类' }).getByRole('button').first().click();
  await p2.getByRole('button', { name: '保存', exact: true }).click();
  await expect(p2.getByRole('status').filter({ hasText: '已保存' })).toBeVisible();
  await expect.poll(async () => (await records()).length, { timeout: 20_000 }).toBe(5);
  // The first phone gets it too, and the desktop's change of the first phone's record reached both.
  await phone.getByRole('button', { name: 'Overview' }).click();
  await expect(phone.locator('[data-asset="Cash"]')).toHaveText(`$${(await balance(cash)).toFixed(2)}`, { timeout: 20_000 });
  await p2.getByRole('button', { name: '流水' }).click();
  await expect(p2.getByTestId('record-row').filter({ hasText: 'Coffee (desktop)' })).toBeVisible({ timeout: 20_000 });

  for (const tab of ['记一笔', '流水', '概览']) {
    await p2.getByRole('button', { name: tab }).click();
    const scan = await new AxeBuilder({ page: p2 }).analyze();
    expect(scan.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${tab}: ${v.id}`)).toEqual([]);
  }
  for (const tab of ['Add', 'Records', 'Overview']) {
    await phone.getByRole('button', { name: tab }).click();
    const scan = await new AxeBuilder({ page: phone }).analyze();
    expect(scan.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${tab}: ${v.id}`)).toEqual([]);
  }
  await second.context.close();

  // A recurring bill that waits for a tap is recorded from the phone, as the desktop would record it.
  const rent = await api<{ id: string }>(url, owner.token, 'recurring.create', {
    name: 'Rent',
    template: { type: 'expense', amount: 30, category: 'Food', asset: bank },
    rule: { freq: 'monthly' },
    startDate: Date.now() - 2 * 86_400_000,
    timeZone: 'UTC',
    mode: 'confirm',
  });
  await phone.getByRole('button', { name: 'Overview' }).click();
  await phone.getByRole('button', { name: /^Record it: Rent/ }).click({ timeout: 20_000 });
  await expect.poll(async () => (await records()).filter((r) => r.description === 'Rent').length, { timeout: 20_000 }).toBe(1);
  await expect(phone.getByRole('button', { name: /^Record it: Rent/ })).toHaveCount(0);
  const doneThrough = async () =>
    (await api<{ list: Array<{ id: string; doneThrough: string }> }>(url, owner.token, 'recurring.query', {})).list.find((r) => r.id === rent.id)?.doneThrough;
  await expect.poll(doneThrough, { timeout: 20_000 }).not.toBe('');
});

test('revoked on the desktop: the phone says so plainly, keeps what it has, and syncs nothing more', async ({ page }) => {
  await signInPage(page, owner);
  await page.goto(`${url}/settings?tab=server`);
  page.once('dialog', (dialog) => void dialog.accept());
  await page
    .getByRole('table', { name: 'Phones' })
    .getByRole('row', { name: /Anna's phone/ })
    .getByRole('button', { name: 'Revoke' })
    .click();
  await expect(page.getByRole('table', { name: 'Phones' })).not.toContainText("Anna's phone");

  // A long-poll the phone opened before the revoke was let in then (CouchDB checks a request when it
  // starts): the phone is reopened first, so every request it makes from now on is a new one.
  await phone.reload();
  await expect(phone.getByTestId('sync-status')).toContainText('disconnected', { timeout: 20_000 });
  await api(url, owner.token, 'accounting.create', { type: 'expense', amount: 1, asset: cash, category: 'Food', description: 'after the revoke' });
  await running.server.app.services.sync.awaitInSync(owner.id);
  await phone.reload();
  await expect(phone.getByTestId('sync-status')).toContainText('disconnected');
  await phone.getByRole('button', { name: 'Records' }).click();
  await expect(phone.getByTestId('record-row').filter({ hasText: 'Lunch with Ann' })).toBeVisible();
  await expect(phone.getByTestId('record-row').filter({ hasText: 'after the revoke' })).toHaveCount(0);
  await phone.getByRole('button', { name: 'Add' }).click();
  await expect(phone.getByRole('button', { name: 'Save', exact: true })).toBeDisabled();
});
