import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { api, registerAccount, signInPage, type Account } from './api';
import { startE2eServer, watchPage } from './support';

/**
 * Imports that need no hand-fixing (issue 36, 4–6; issue 35, statements 4–6; the interrupted
 * import of issue 34): the asset a recognised file belongs to is chosen for it, a wrong asset is
 * said once, a likely duplicate names its record and "1 likely duplicate" reads right, one Import
 * on the Records screen takes statements and PennyPost's own CSV, a Chinese bank's CSV is not
 * taken for an Alipay bill, a CSV without a header row loses nothing, an ambiguous QIF date order
 * can be chosen, and an import a crash cut off is offered to be finished or forgotten.
 */
let running: Awaited<ReturnType<typeof startE2eServer>>;
let users = 0;
test.beforeAll(async () => {
  running = await startE2eServer();
});
test.afterAll(async () => {
  await (running as typeof running | undefined)?.stop();
});

const call = <T = unknown>(account: Account, action: string, params: unknown) => api<T>(running.server.url, account.token, action, params);
const fixture = (name: string) => readFileSync(new URL(`../server/imports/formats/tests/fixtures/${name}`, import.meta.url));

async function open(page: Page, path = '/settings?tab=data'): Promise<Account> {
  const account = await registerAccount(running.server.url, `handsoff${++users}`);
  await signInPage(page, account);
  await page.goto(`${running.server.url}${path}`);
  return account;
}

/** An Alipay app export (UTF-8) of the given rows. */
function alipay(rows: string[]): string {
  return [
    '导出信息：',
    '支付宝账户：li***@example.com',
    `共${rows.length}笔记录`,
    '----------------------支付宝（中国）网络技术有限公司  电子客户回单----------------------',
    '交易时间,交易分类,交易对方,对方账号,商品说明,收/支,金额,收/付款方式,交易状态,交易订单号,商家订单号,备注,',
    ...rows,
    '',
  ].join('\n');
}

const BILL = alipay([
  '2026-11-20 12:30:00,餐饮美食,咖啡店,c***@example.com,拿铁,支出,18.00,账户余额,交易成功,2026112022001400801,M1,,',
  '2026-11-21 09:00:00,日用百货,超市,s***@example.com,纸巾,支出,9.90,账户余额,交易关闭,2026112122001400802,M2,,',
  '2026-11-22 09:00:00,日用百货,超市,s***@example.com,牙膏,支出,12.00,账户余额,等待确认收货,2026112222001400803,M3,,',
]);

async function chooseFile(page: Page, name: string, content: string | Buffer, scope = page.getByTestId('statement-import')) {
  await scope.getByTestId('statement-input').setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8') });
  await expect(scope.getByText(name, { exact: false }).first()).toBeVisible();
}

test('an Alipay bill goes to 支付宝, not the default USD card; the wrong asset is said once; skipped rows stay skipped', async ({ page }) => {
  const watch = watchPage(page);
  const account = await open(page);
  // The default asset is a USD card: the bill must not land there.
  await call(account, 'asset.create', { name: 'Visa', type: 'credit_card', currency: 'USD' });
  await call(account, 'asset.create', { name: '支付宝', type: 'ewallet', currency: 'CNY', balance: 100 });
  await page.reload();
  const wizard = page.getByTestId('statement-import');
  await chooseFile(page, 'alipay_record.csv', BILL);
  await expect(wizard.getByRole('combobox', { name: 'Format' })).toHaveValue('Alipay 支付宝');
  await expect(wizard.getByRole('combobox', { name: 'Import into' })).toHaveValue('支付宝 (CNY)');
  await expect(wizard.getByText('The asset this Alipay 支付宝 file belongs to.')).toBeVisible();

  // Choosing the USD card anyway: one sentence, not a line per row, and the way back.
  await wizard.getByRole('combobox', { name: 'Import into' }).click();
  await page.getByRole('option', { name: 'Visa (USD)' }).click();
  await wizard.getByRole('button', { name: 'Preview' }).click();
  await expect(wizard.getByRole('alert')).toHaveCount(1);
  await expect(wizard.getByRole('alert')).toContainText('is in CNY, but Visa keeps USD');
  await wizard.getByRole('button', { name: 'Import into 支付宝' }).click();
  const preview = wizard.getByTestId('statement-preview');
  await expect(preview.getByTestId('statement-summary')).toHaveText('3 lines: 1 to create, 0 likely duplicates, 0 already imported, 2 skipped, 0 unreadable.');
  // 餐饮美食 is the account's Food.
  await expect(preview.getByTestId('preview-create').getByRole('combobox', { name: 'Category of line 6' })).toHaveValue('Food');
  watch.expectClean();
});

test('a likely duplicate names the record it matches, and "1 likely duplicate" is said in the singular', async ({ page }) => {
  const watch = watchPage(page);
  const account = await open(page);
  const wallet = await call<{ id: string }>(account, 'asset.create', { name: '支付宝', type: 'ewallet', currency: 'CNY', balance: 100 });
  await call(account, 'accounting.create', {
    type: 'expense',
    amount: 18,
    asset: wallet.id,
    category: 'Food',
    description: 'Morning latte',
    date: new Date(2026, 10, 20, 9).getTime(),
  });
  await page.reload();
  const wizard = page.getByTestId('statement-import');
  await chooseFile(page, 'alipay_record.csv', BILL);
  await expect(wizard.getByRole('combobox', { name: 'Import into' })).toHaveValue('支付宝 (CNY)');
  await wizard.getByRole('button', { name: 'Preview' }).click();
  const preview = wizard.getByTestId('statement-preview');
  await expect(preview.getByTestId('statement-summary')).toHaveText('3 lines: 0 to create, 1 likely duplicate, 0 already imported, 2 skipped, 0 unreadable.');
  await preview.getByRole('tab', { name: 'Likely duplicates (1)' }).click();
  await expect(preview.getByTestId('preview-likely').getByTestId('preview-reason')).toHaveText(/^Looks like “Morning latte” of .+2026.+\(.*18\.00\), already in your ledger\.$/);
  watch.expectClean();
});

test('one Import on the Records screen takes PennyPost’s own CSV and a bank statement; Settings has one Import box', async ({ page }) => {
  const watch = watchPage(page);
  const account = await open(page, '/records');
  await call(account, 'asset.create', { name: 'Wallet', type: 'cash', currency: 'USD', balance: 50 });
  await page.reload();
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Import' });
  const wizard = dialog.getByTestId('statement-import');
  await expect(wizard.getByRole('heading', { name: 'Import records from a file' })).toBeVisible();
  // PennyPost's own CSV is recognised and checked in the same place.
  await chooseFile(page, 'export.csv', 'date,type,amount,asset,category,description\n2026-01-05,expense,4.20,Wallet,Food,Coffee\n', wizard);
  await expect(wizard.getByRole('combobox', { name: 'Format' })).toHaveValue('PennyPost CSV (exported from PennyPost)');
  await wizard.getByRole('button', { name: 'Preview' }).click();
  const own = wizard.getByTestId('import-preview');
  await expect(own).toContainText('1 rows: 1 new');
  await own.getByRole('button', { name: 'Import 1 record' }).click();
  await expect(wizard.getByRole('status').filter({ hasText: 'Imported 1' })).toBeVisible();
  // A bank's CSV in the same dialog goes to the columns.
  await chooseFile(page, 'bank.csv', 'Date,Description,Amount\n2026-01-06,Bakery,-3.10\n', wizard);
  await expect(wizard.getByRole('combobox', { name: 'Format' })).toHaveValue('Other CSV (choose the columns)');
  await wizard.getByRole('button', { name: 'Next: columns' }).click();
  await expect(wizard.getByTestId('csv-mapping')).toBeVisible();
  await dialog.getByRole('button', { name: 'Close' }).first().click();
  await expect(page.getByText('Coffee')).toBeVisible();

  await page.goto(`${running.server.url}/settings?tab=data`);
  await expect(page.getByTestId('statement-import')).toHaveCount(1);
  await expect(page.getByRole('heading', { name: 'Import CSV' })).toHaveCount(1);
  await expect(page.getByTestId('statement-import').getByRole('heading', { name: 'Import CSV' })).toHaveCount(1);
  watch.expectClean();
});

test('a Chinese bank CSV whose rows name 支付宝 is a CSV; one without a header row loses nothing', async ({ page }) => {
  const watch = watchPage(page);
  const account = await open(page);
  await call(account, 'asset.create', { name: '工行储蓄卡', type: 'debit_card', currency: 'CNY', balance: 100 });
  await page.reload();
  const wizard = page.getByTestId('statement-import');
  await chooseFile(page, 'icbc.csv', fixture('csv/cn-bank-merchants.csv'));
  await expect(wizard.getByRole('combobox', { name: 'Format' })).toHaveValue('Other CSV (choose the columns)');
  await wizard.getByRole('button', { name: 'Next: columns' }).click();
  const mapping = wizard.getByTestId('csv-mapping');
  // The lines above the header row are skipped by themselves.
  await expect(mapping.getByRole('textbox', { name: 'Lines above the header row' })).toHaveValue('4');
  await expect(mapping.getByRole('combobox', { name: 'Date', exact: true })).toHaveValue('交易日期');
  await wizard.getByRole('button', { name: 'Back' }).click();

  await call(account, 'asset.create', { name: 'Chequing', type: 'debit_card', currency: 'CAD' });
  await page.reload();
  await chooseFile(page, 'td.csv', fixture('csv/no-header.csv'));
  await wizard.getByRole('combobox', { name: 'Import into' }).click();
  await page.getByRole('option', { name: 'Chequing (CAD)' }).click();
  await wizard.getByRole('button', { name: 'Next: columns' }).click();
  await expect(mapping.getByTestId('csv-no-header-note')).toBeVisible();
  await expect(mapping.getByTestId('csv-no-header')).toBeChecked();
  await mapping.getByRole('button', { name: 'Preview' }).click();
  await expect(wizard.getByTestId('statement-summary')).toHaveText('4 lines: 4 to create, 0 likely duplicates, 0 already imported, 0 skipped, 0 unreadable.');
  watch.expectClean();
});

test('a QIF file whose date order is ambiguous says so, and is read in the order chosen', async ({ page }) => {
  const watch = watchPage(page);
  const account = await open(page);
  await call(account, 'asset.create', { name: 'Bank', type: 'debit_card', currency: 'USD', balance: 5000 });
  await page.reload();
  const wizard = page.getByTestId('statement-import');
  await chooseFile(page, 'bank.qif', fixture('qif/year-first.qif'));
  await expect(wizard.getByRole('combobox', { name: 'Format' })).toHaveValue('QIF (Quicken, older banks)');
  await wizard.getByRole('button', { name: 'Preview' }).click();
  const order = wizard.getByTestId('statement-date-order');
  await expect(order).toContainText('can be read in more than one order');
  await expect(order.getByRole('combobox', { name: 'Order of the dates' })).toHaveValue('year/month/day (25/06/13)');
  const firstDate = wizard.getByTestId('preview-create').getByTestId('preview-line').first().locator('td').nth(1);
  await expect(firstDate).toContainText('2021');
  await order.getByRole('combobox', { name: 'Order of the dates' }).click();
  await page.getByRole('option', { name: 'day/month/year (13/06/25)' }).click();
  await expect(wizard.getByTestId('statement-date-order').getByRole('combobox', { name: 'Order of the dates' })).toHaveValue('day/month/year (13/06/25)');
  await expect(firstDate).toContainText('2004');
  watch.expectClean();
});

test('an import a crash cut off is shown, and can be finished or forgotten', async ({ page }) => {
  const watch = watchPage(page);
  const account = await registerAccount(running.server.url, `handsoff${++users}`);
  const wallet = await call<{ id: string }>(account, 'asset.create', { name: 'Wallet', type: 'cash', currency: 'USD', balance: 100 });
  // What a crash leaves: the journal of a commit of three records, one of them written.
  const { app } = running.server;
  const now = Date.now();
  const doc = (n: number) => ({
    id: '',
    userId: account.id,
    type: 'expense' as const,
    amount: 100 * n,
    asset: wallet.id,
    toAsset: '',
    toAmount: 0,
    fee: 0,
    category: 'Other',
    description: `Cut-off line ${n}`,
    searchText: `cut-off line ${n}`,
    date: now - n * 86_400_000,
    tags: [],
    attachments: [],
    importKey: `qif:~cutoff${n}`,
    createdAt: now,
    updatedAt: now,
  });
  const docs = [doc(1), doc(2), doc(3)];
  const journal = app.services.imports.journal;
  journal.release(await journal.begin(account.id, { format: 'qif', account: 'Everyday', newCategories: [] }, docs));
  await app.services.ledger.writeImported(account.id, docs.slice(0, 1), [], 'content', ['Line 1']);
  journal.release(await journal.begin(account.id, { format: 'ofx', account: '9876', newCategories: [] }, [doc(4)]));

  await signInPage(page, account);
  await page.goto(`${running.server.url}/settings?tab=data`);
  const cut = page.getByTestId('interrupted-import');
  await expect(cut).toHaveCount(2);
  await expect(cut.first()).toContainText('The import of a QIF (Quicken, older banks) file (account Everyday)');
  await expect(cut.first()).toContainText('stopped after writing 1 of its 3 records');
  await cut.first().getByRole('button', { name: 'Write the 2 records left' }).click();
  await expect(page.getByText('2 records written: the import is complete.')).toBeVisible();
  await expect(cut).toHaveCount(1);
  await cut.first().getByRole('button', { name: 'Leave it as it is' }).click();
  await expect(page.getByTestId('interrupted-imports')).toHaveCount(0);
  const records = await call<{ total: number }>(account, 'accounting.query', { page: 1, pageSize: 1 });
  expect(records.total).toBe(3);
  watch.expectClean();
});
