import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { startE2eServer, untilStill, watchPage } from './support';
import { FakeWechatMp } from '../server/test-support/fakes/fake-wechat-mp';

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
let wechat: FakeWechatMp;

test.describe.configure({ mode: 'serial' });
test.beforeAll(async ({ browser }) => {
  running = await startE2eServer();
  wechat = await new FakeWechatMp().start();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  watch = watchPage(page);
});
test.afterAll(async () => {
  // Unset when beforeAll failed.
  await (page as typeof page | undefined)?.close();
  await (running as typeof running | undefined)?.stop();
  await (wechat as typeof wechat | undefined)?.close();
});
test.afterEach(() => {
  watch.expectClean();
});

async function shot(name: string) {
  // Toasts come and go; close them so the screenshot shows the screen itself.
  for (const close of await page.locator('.mantine-Notification-root .mantine-CloseButton-root').all()) await close.click({ timeout: 1000 }).catch(() => undefined);
  await untilStill(page); // chart and toast animations settle
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: false });
}
/** Mantine's SegmentedControl hides its radios: click the label, then check the radio is on. */
async function pickSegment(scope: Locator, name: string) {
  const radio = scope.getByRole('radio', { name, exact: true });
  const id = await radio.getAttribute('id');
  await scope.locator(`label[for="${String(id)}"]`).click();
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
  // filters: by type, by text; totals follow the filtered set
  const filters = page.getByRole('search', { name: 'Filter records' });
  await filters.getByRole('combobox', { name: 'Type' }).click();
  await page.getByRole('option', { name: 'Income' }).click();
  await expect(list.getByRole('listitem')).toHaveCount(1);
  await expect(page.getByTestId('record-totals')).toContainText('1 record');
  await filters.getByRole('button', { name: 'Clear' }).click();
  await page.getByRole('searchbox', { name: 'Search records' }).fill('lunch');
  await expect(list.getByRole('listitem')).toHaveCount(1);
  await expect(list.getByRole('button', { name: /Lunch/ })).toBeVisible();
  await filters.getByRole('button', { name: 'Clear' }).click();
  await expect(list.getByRole('listitem')).toHaveCount(3);
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

test('statistics chart renders', async () => {
  await go('Statistics');
  await expect(page.getByRole('heading', { name: 'Statistics' })).toBeVisible();
  await expect(page.getByRole('img', { name: 'Income, expense and net per period' }).locator('canvas')).toBeVisible();
  await expect(page.getByRole('img', { name: 'Share of each category' }).locator('canvas')).toBeVisible();
  await expect(page.getByRole('img', { name: 'Net worth at the end of each period' }).locator('canvas')).toBeVisible();
  await page.getByRole('combobox', { name: 'Range' }).click();
  await page.getByRole('option', { name: 'This month' }).click();
  await expect(page.getByRole('radio', { name: 'Day' })).toBeChecked();
  await expect(page.getByText('$3,000.00').first()).toBeVisible();
  await shot('06-statistics');
});

test('create and complete a goal', async () => {
  await go('Savings game');
  await page.getByRole('button', { name: 'New goal' }).click();
  const dialog = page.getByRole('dialog', { name: 'New goal' });
  await dialog.getByRole('textbox', { name: 'Goal', exact: true }).fill('New laptop');
  await dialog.getByRole('textbox', { name: 'Target amount' }).fill('500');
  await dialog.getByRole('button', { name: 'Create goal' }).click();
  await expect(dialog).toBeHidden();
  const card = page.getByTestId('goal-New laptop');
  await expect(card.getByTestId('goal-amounts')).toContainText('$0.00 / $500.00');
  await card.getByLabel('Amount for New laptop').fill('200');
  await card.getByRole('button', { name: 'Add money' }).click();
  await expect(card.getByTestId('goal-amounts')).toContainText('$200.00 / $500.00 (40%)');
  await shot('07-goals');
  await card.getByLabel('Amount for New laptop').fill('300');
  await card.getByRole('button', { name: 'Add money' }).click();
  await expect(page.getByText('Goal completed!')).toBeVisible();
  await pickSegment(page.getByRole('tabpanel', { name: 'Goals' }), 'Completed');
  await expect(page.getByTestId('goal-New laptop').getByTestId('goal-status')).toHaveText('Completed');
});

test('buy and sell a stock', async () => {
  await page.getByRole('tab', { name: 'Market' }).click();
  await page.getByRole('button', { name: /Show PennyPost Holdings/ }).click();
  const panel = page.getByRole('region', { name: 'PNYP chart and trading' });
  await expect(panel.getByRole('img', { name: 'Price of PNYP' }).locator('canvas')).toBeVisible();
  await expect(panel.getByText('You hold 0 shares.')).toBeVisible();
  await panel.getByLabel('Shares').fill('3');
  await panel.getByRole('button', { name: 'Buy' }).click();
  await expect(panel.getByText('You hold 3 shares.')).toBeVisible();
  await panel.getByLabel('Shares').fill('1');
  await panel.getByRole('button', { name: 'Sell' }).click();
  await expect(panel.getByText('You hold 2 shares.')).toBeVisible();
  await shot('08-market');
  await page.getByRole('tab', { name: 'Portfolio' }).click();
  await expect(page.getByRole('table', { name: 'Positions' }).getByRole('row', { name: /PNYP/ })).toContainText('2');
  await shot('09-portfolio');
  await page.getByRole('tab', { name: 'Achievements' }).click();
  await expect(page.getByTestId('achievement-first_trade')).toContainText('Unlocked');
  await shot('10-achievements');
});

test('create a push app on WeChat, send to it, see it in history', async () => {
  await go('Push');
  await expect(page.getByText('Create a channel first')).toBeVisible();
  await page.getByRole('tab', { name: 'Channels' }).click();
  await page.getByRole('button', { name: 'New channel' }).click();
  let dialog = page.getByRole('dialog', { name: 'New channel' });
  await dialog.getByRole('textbox', { name: 'Name' }).fill('My Official Account');
  await dialog.getByRole('combobox', { name: 'Type' }).click();
  await page.getByRole('option', { name: 'WeChat Official Account' }).click();
  await dialog.getByRole('textbox', { name: 'AppID' }).fill(wechat.appId);
  await dialog.getByRole('textbox', { name: 'AppSecret' }).fill(wechat.appSecret);
  await dialog.getByRole('textbox', { name: 'API address' }).fill(wechat.url);
  await dialog.getByRole('button', { name: 'Create channel' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('table', { name: 'Channels' })).toContainText('My Official Account');
  // the channel test fetches a token from the fake WeChat
  await page.getByRole('button', { name: 'Actions for My Official Account' }).click();
  await page.getByRole('menuitem', { name: 'Test' }).click();
  dialog = page.getByRole('dialog', { name: 'Test My Official Account' });
  await dialog.getByRole('button', { name: 'Run test' }).click();
  await expect(dialog.getByRole('status')).toContainText('Works');
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();

  await page.getByRole('tab', { name: 'Apps' }).click();
  await page.getByRole('button', { name: 'New app' }).click();
  dialog = page.getByRole('dialog', { name: 'New app' });
  await dialog.getByRole('textbox', { name: 'App name' }).fill('Server alerts');
  await dialog.getByRole('button', { name: 'Create app' }).click();
  await expect(dialog).toBeHidden();
  const detail = page.getByRole('region', { name: 'App Server alerts' });
  const urls = detail.getByText(/\/send\/PP[A-Za-z0-9]{24}$/);
  await expect(urls).toBeVisible();
  await expect(detail.getByRole('button', { name: 'Copy the /{key}.send URL' })).toBeVisible();
  await expect(detail.getByText('curl -X POST')).toBeVisible();
  await detail.getByRole('textbox', { name: 'Address' }).fill('o-alice-openid');
  await detail.getByRole('textbox', { name: 'Name (optional)' }).fill('Alice phone');
  await detail.getByRole('button', { name: 'Add' }).click();
  await expect(detail.getByRole('table', { name: 'Recipients' })).toContainText('o-alice-openid');
  await detail.getByRole('textbox', { name: 'Title' }).fill('Disk almost full');
  await detail.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(detail.getByTestId('send-result')).toHaveText('Delivered to 1 of 1 recipients.');
  expect(wechat.sentTo('o-alice-openid').map((m) => m.content ?? '')).toEqual([expect.stringContaining('Disk almost full')]);
  await shot('11-push-app');

  await page.getByRole('tab', { name: 'History' }).click();
  const history = page.getByRole('table', { name: 'History' });
  await expect(history).toContainText('Server alerts');
  await expect(history).toContainText('Delivered');
  await history.getByRole('button', { name: 'Disk almost full' }).click();
  dialog = page.getByRole('dialog', { name: 'Disk almost full' });
  await expect(dialog.getByRole('table', { name: 'Per recipient' })).toContainText('Alice phone');
  await expect(dialog.getByRole('table', { name: 'Per recipient' })).toContainText('Delivered');
  await shot('12-push-history');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
});

test('a push to a desktop app shows in the live feed', async () => {
  await page.getByRole('tab', { name: 'Channels' }).click();
  await page.getByRole('button', { name: 'New channel' }).click();
  const dialog = page.getByRole('dialog', { name: 'New channel' });
  await dialog.getByRole('textbox', { name: 'Name' }).fill('This computer');
  await dialog.getByRole('button', { name: 'Create channel' }).click();
  await expect(dialog).toBeHidden();
  const created = await page.request.post(`${running.server.url}/api`, {
    headers: { Authorization: `Bearer ${await page.evaluate(() => JSON.parse(localStorage.getItem('pennypost.session') ?? '{}').token as string)}` },
    data: { action: 'push.queryChannels', params: { type: 'desktop' } },
  });
  const channelId = ((await created.json()) as { data: { list: { id: string }[] } }).data.list[0]?.id;
  expect(channelId).toBeTruthy();
  await page.getByRole('tab', { name: 'Apps' }).click();
  await page.getByRole('button', { name: 'New app' }).click();
  const appDialog = page.getByRole('dialog', { name: 'New app' });
  await appDialog.getByRole('textbox', { name: 'App name' }).fill('Desk');
  await appDialog.getByRole('combobox', { name: 'Channel' }).click();
  await page.getByRole('option', { name: 'This computer (This desktop)' }).click();
  await appDialog.getByRole('button', { name: 'Create app' }).click();
  await expect(appDialog).toBeHidden();
  const sendUrl =
    (await page
      .getByRole('region', { name: 'App Desk' })
      .getByText(/\/send\/PP[A-Za-z0-9]{24}$/)
      .textContent()) ?? '';
  await page.getByRole('tab', { name: 'Live feed' }).click();
  await expect(page.getByTestId('feed-status')).toHaveText('Live');
  // another client pushes through the webhook, as a script would
  const answer = await page.request.get(`${sendUrl}?title=${encodeURIComponent('Backup finished')}&desp=${encodeURIComponent('3 jobs OK')}`);
  expect(answer.status()).toBe(200);
  const feed = page.getByRole('list', { name: 'Received pushes' });
  await expect(feed).toContainText('Backup finished');
  await expect(feed).toContainText('3 jobs OK');
  await shot('13-push-feed');
});

const RECEIPT_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAABgAAAAYCAIAAABvFaqvAAAAH0lEQVR4nGMQ2dJDFcQwatCoQaMGjRo0atCoQQNvEABOL/0fR0unLQAAAABJRU5ErkJggg==', 'base64');

test('upload a receipt to a record and preview it', async () => {
  await go('Records');
  await page.getByRole('list', { name: 'Records' }).getByRole('button', { name: /Lunch/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit Expense' });
  await dialog.getByTestId('attachment-input').setInputFiles({ name: 'lunch-receipt.png', mimeType: 'image/png', buffer: RECEIPT_PNG });
  await expect(dialog.getByText('lunch-receipt.png')).toBeVisible();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await page.getByRole('list', { name: 'Records' }).getByRole('button', { name: /Lunch/ }).click();
  await dialog.getByRole('button', { name: 'Preview lunch-receipt.png' }).click();
  const preview = page.getByRole('dialog', { name: 'lunch-receipt.png' }).getByRole('img', { name: 'lunch-receipt.png' });
  await expect(preview).toBeVisible();
  expect(await preview.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(24);
  await shot('14-receipt');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  // the file is listed under Files, with its category
  await go('Files & links');
  await expect(page.getByRole('table', { name: 'Files' })).toContainText('lunch-receipt.png');
  await expect(page.getByRole('table', { name: 'Files' })).toContainText('Receipt');
  await shot('15-files');
});

test('short links: create, copy, count', async () => {
  await page.getByRole('tab', { name: 'Short links' }).click();
  const form = page.getByRole('form', { name: 'New short link' });
  await form.getByRole('textbox', { name: 'Target URL' }).fill('https://example.com/a/very/long/path?with=query');
  await form.getByRole('textbox', { name: 'Custom code' }).fill('my-link');
  await form.getByRole('button', { name: 'Shorten' }).click();
  const table = page.getByRole('table', { name: 'Short links' });
  await expect(table).toContainText('/s/my-link');
  await expect(page.getByTestId('link-stats')).toHaveText('1 link · clicks on this page: 0');
  // someone follows the link (no redirect following: the target is not reachable from here)
  const hit = await page.request.get(`${running.server.url}/s/my-link`, { maxRedirects: 0 });
  expect(hit.status()).toBe(302);
  await page.getByRole('tab', { name: 'Files' }).click();
  await page.getByRole('tab', { name: 'Short links' }).click();
  await expect(page.getByTestId('link-stats')).toHaveText('1 link · clicks on this page: 1');
  // a taken code is shown next to the field
  await form.getByRole('textbox', { name: 'Target URL' }).fill('https://example.org/');
  await form.getByRole('textbox', { name: 'Custom code' }).fill('my-link');
  await form.getByRole('button', { name: 'Shorten' }).click();
  await expect(form.getByText(/taken|already/i)).toBeVisible();
  await shot('16-links');
});

test('settings: server address, public base URL, sync form, CSV import with preview', async () => {
  await go('Settings');
  await page.getByRole('tab', { name: 'Server' }).click();
  await expect(page.getByRole('region', { name: 'Network' }).getByText(running.server.url)).toBeVisible();
  await expect(page.getByRole('form', { name: 'Connect to CouchDB' })).toBeVisible();
  const base = page.getByRole('textbox', { name: 'Public base URL' });
  await base.fill('https://pp.example.net');
  await page.getByRole('region', { name: 'Network' }).getByRole('button', { name: 'Save' }).first().click();
  await expect(page.getByRole('region', { name: 'Network' }).getByRole('button', { name: 'Save' }).first()).toBeDisabled();
  await shot('18-settings-server');
  await go('Push');
  await expect(page.getByRole('region', { name: 'App Server alerts' }).getByText(/^https:\/\/pp\.example\.net\/send\/PP[A-Za-z0-9]{24}$/)).toBeVisible();
  await go('Settings');
  await page.getByRole('tab', { name: 'Server' }).click();
  await base.fill('');
  await page.getByRole('region', { name: 'Network' }).getByRole('button', { name: 'Save' }).first().click();
  await expect(page.getByRole('region', { name: 'Network' }).getByRole('button', { name: 'Save' }).first()).toBeDisabled();

  await page.getByRole('tab', { name: 'Import & export' }).click();
  const csv = [
    'date,type,amount,asset,category,description',
    '2026-01-05,expense,4.20,Wallet,Food,Coffee',
    '2026-01-06,income,50,Bank card,Salary,Refund',
    '2026-01-07,expense,abc,Wallet,Food,Broken',
  ].join('\n');
  await page.getByTestId('import-input').setInputFiles({ name: 'bank.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  const preview = page.getByTestId('import-preview');
  await expect(preview).toContainText('3 rows: 2 new, 0 already imported, 1 with problems.');
  await expect(preview.getByRole('table', { name: 'Rows with problems' })).toContainText('4');
  await shot('19-import-preview');
  await preview.getByRole('button', { name: 'Import 2 records' }).click();
  await expect(page.getByRole('status')).toContainText('Imported 2 records');
  // the same file again creates nothing new
  await page.getByTestId('import-input').setInputFiles({ name: 'bank.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await expect(preview).toContainText('3 rows: 0 new, 2 already imported, 1 with problems.');
  await expect(preview).toContainText('Nothing new to import');
  await preview.getByRole('button', { name: 'Close' }).click();
  await go('Records');
  await expect(page.getByTestId('record-totals')).toContainText('5 records');
});

test('switch language', async () => {
  await go('Settings');
  await page.getByRole('tabpanel', { name: 'General' }).getByRole('combobox', { name: 'Language' }).click();
  await page.getByRole('option', { name: '简体中文' }).click();
  await expect(page.getByRole('heading', { name: '设置' })).toBeVisible();
  const nav = page.getByRole('navigation', { name: '主导航' });
  await expect(nav.getByRole('link', { name: '概览' })).toBeVisible();
  await nav.getByRole('link', { name: '概览' }).click();
  await expect(page.getByTestId('net-worth')).toContainText('US$4,233.30');
  await expect(page.getByRole('heading', { name: '最近记录' })).toBeVisible();
  await shot('17-dashboard-zh');
  await nav.getByRole('link', { name: '设置' }).click();
  await page.getByRole('tabpanel', { name: '通用' }).getByRole('combobox', { name: '语言' }).click();
  await page.getByRole('option', { name: 'English' }).click();
  await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible();
});

test('log out and back in', async () => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Log out' }).click();
  await expect(page.getByText('You have signed out.')).toBeVisible();
  await page.getByRole('textbox', { name: 'Email' }).fill('alice@example.com');
  await page.getByRole('textbox', { name: 'Password' }).fill('wrong password!');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText('Wrong email, username or password.');
  await page.getByRole('textbox', { name: 'Password' }).fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
  await expect(page.getByTestId('net-worth')).toContainText('$4,233.30');
  // stays signed in across a restart of the window
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
});
