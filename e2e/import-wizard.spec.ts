import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { api, registerAccount, signInPage, type Account } from './api';
import { startE2eServer, watchPage } from './support';

/**
 * The import wizard (Settings → Import & export, and Import on Records): an Alipay bill previewed line by line
 * (created, likely duplicate, skipped with the reason, a move between one's own accounts booked as
 * a transfer), imported, found on Records, and imported again without creating anything; a bank's
 * CSV through the column mapping; a file that is not what it claims to be.
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

async function open(page: Page): Promise<Account> {
  const account = await registerAccount(running.server.url, `importui${++users}`);
  await signInPage(page, account);
  return account;
}

/** Alipay's app export (UTF-8): the notes block, the 电子客户回单 line, the header, six rows. */
const ALIPAY = [
  '------------------------------------------------------------------------------------',
  '导出信息：',
  '姓名：张三',
  '支付宝账户：zhangsan@example.com',
  '起始时间：[2026-11-01 00:00:00]    终止时间：[2026-11-27 23:59:59]',
  '导出交易类型：[全部]',
  '共6笔记录',
  '收入：1笔 12.00元',
  '支出：3笔 88.50元',
  '不计收支：2笔 125.00元',
  '',
  '特别提示：',
  '1.本回单内容可表明支付宝受理了此笔业务，不代表实际到账。',
  '----------------------支付宝（中国）网络技术有限公司  电子客户回单----------------------',
  '交易时间,交易分类,交易对方,对方账号,商品说明,收/支,金额,收/付款方式,交易状态,交易订单号,商家订单号,备注,',
  '2026-11-25 12:30:00,餐饮美食,星巴克,sb***@starbucks.cn,拿铁,支出,35.00,余额,交易成功,2026112522001400001,M001,,',
  '2026-11-24 18:05:00,餐饮美食,美团外卖,mt***@meituan.com,午餐,支出,28.50,余额,交易成功,2026112422001400002,M002,,',
  '2026-11-23 10:00:00,数码电器,淘宝卖家,tb***@taobao.com,充电器,支出,25.00,余额,交易关闭,2026112322001400003,M003,,',
  '2026-11-23 11:00:00,数码电器,淘宝卖家,tb***@taobao.com,退款-充电器,不计收支,25.00,余额,退款成功,2026112322001400003_R1,M003,,',
  '2026-11-22 09:00:00,数码电器,京东,jd***@jd.com,退款-耳机,不计收支,12.00,余额,退款成功,2026111022001400009_R1,M009,,',
  '2026-11-21 08:00:00,投资理财,余额宝,,余额宝-转入,不计收支,100.00,余额,交易成功,2026112122001400006,,,',
  '------------------------------------------------------------------------------------',
].join('\n');

async function chooseFile(page: Page, name: string, content: string | Buffer) {
  await page.getByTestId('statement-input').setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8') });
  await expect(page.getByText(name, { exact: false }).first()).toBeVisible();
}

test('an Alipay bill: preview with reasons, a likely duplicate, a transfer, import, Records, and a second import creates nothing', async ({ page }) => {
  const watch = watchPage(page);
  const account = await open(page);
  const alipay = await call<{ id: string }>(account, 'asset.create', { name: '支付宝余额', type: 'ewallet', currency: 'CNY', balance: 1000 });
  await call(account, 'asset.create', { name: '余额宝', type: 'savings', currency: 'CNY' });
  // Typed in by hand the evening before: the 美团 line looks like it.
  await call(account, 'accounting.create', {
    type: 'expense',
    amount: 28.5,
    asset: alipay.id,
    category: 'Food',
    description: 'dinner',
    date: new Date(2026, 10, 24, 19, 0).getTime(),
  });

  await page.goto(`${running.server.url}/settings?tab=data`);
  const wizard = page.getByRole('region', { name: 'Import records from a file' });
  await expect(wizard).toBeVisible();
  await chooseFile(page, 'alipay_record_20261127.csv', ALIPAY);
  await expect(wizard.getByRole('combobox', { name: 'Format' })).toHaveValue('Alipay 支付宝');
  await expect(wizard.getByRole('combobox', { name: 'Import into' })).toHaveValue('支付宝余额 (CNY)');
  await wizard.getByRole('button', { name: 'Preview' }).click();

  const preview = wizard.getByTestId('statement-preview');
  await expect(preview.getByTestId('statement-summary')).toHaveText('6 lines: 1 to create, 1 likely duplicate, 0 already imported, 4 skipped, 0 unreadable.');
  const create = preview.getByTestId('preview-create');
  await expect(create.getByTestId('preview-line')).toHaveCount(1);
  await expect(create).toContainText('星巴克 — 拿铁');

  // Skipped: the closed payment and its refund, a refund of a payment that is nowhere (imported
  // anyway: the person recorded that payment by hand), and the move to 余额宝 — booked as a transfer.
  await preview.getByRole('tab', { name: 'Skipped (4)' }).click();
  const skipped = preview.getByTestId('preview-skipped');
  await expect(skipped.locator('[data-line="18"]').getByTestId('preview-reason')).toHaveText('The payment was closed or cancelled: no money moved, or all of it came back.');
  await expect(skipped.locator('[data-line="19"]').getByTestId('preview-reason')).toHaveText('A refund of a payment that is closed in this file: neither is counted.');
  await expect(skipped.locator('[data-line="20"]').getByTestId('preview-reason')).toContainText('in neither this file nor your ledger');
  await skipped.getByRole('checkbox', { name: 'Import line 20 anyway' }).check();
  await skipped.getByRole('combobox', { name: 'Include line 21 as a transfer to' }).click();
  await page.getByRole('option', { name: '余额宝 (CNY)' }).click();

  // The likely duplicate is imported anyway.
  await preview.getByRole('tab', { name: 'Likely duplicates (1)' }).click();
  await expect(preview.getByTestId('preview-likely')).toContainText('Looks like “dinner” of');
  await preview.getByRole('checkbox', { name: 'Import line 17 anyway' }).check();

  // No serious accessibility problem in the wizard's preview.
  const axe = await new AxeBuilder({ page })
    .include('[data-testid="statement-import"]')
    .setLegacyMode(true)
    .options({ resultTypes: ['violations'] })
    .analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);

  await preview.getByRole('button', { name: 'Import 4 records' }).click();
  await expect(page.getByText('4 records imported.')).toBeVisible();
  await expect(wizard.getByTestId('statement-result')).toContainText('Imported 4 records');

  await page.goto(`${running.server.url}/records`);
  await expect(page.getByText('星巴克 — 拿铁')).toBeVisible();
  await expect(page.getByText('美团外卖 — 午餐')).toBeVisible();
  const records = await call<{ list: Array<{ type: string; amount: number; description: string; toAsset?: string }> }>(account, 'accounting.query', {});
  expect(records.list).toHaveLength(5);
  expect(records.list.filter((r) => r.type === 'transfer')).toHaveLength(1);

  // The same file again: nothing to create.
  await page.goto(`${running.server.url}/settings?tab=data`);
  await chooseFile(page, 'alipay_record_20261127.csv', ALIPAY);
  await wizard.getByRole('button', { name: 'Preview' }).click();
  await expect(wizard.getByTestId('statement-nothing')).toHaveText('Everything to record in this file is already imported: there is nothing to create.');
  await expect(wizard.getByRole('button', { name: /^Import \d+ record/ })).toHaveCount(0);
  await wizard.getByRole('button', { name: 'Close' }).click();
  await expect(wizard.getByTestId('statement-preview')).toBeHidden();
  watch.expectClean();
});

test("a bank's CSV goes through the column mapping", async ({ page }) => {
  const watch = watchPage(page);
  const account = await open(page);
  await call(account, 'asset.create', { name: 'Checking', type: 'debit_card', currency: 'USD', balance: 100 });
  const csv = ['Posted,Details,Money,Reference', '11/20/2026,Coffee shop,-4.50,REF1', '11/21/2026,ACME payroll,2500.00,REF2', '11/22/2026,Groceries,-62.10,REF3'].join('\n');

  await page.goto(`${running.server.url}/settings?tab=data`);
  const wizard = page.getByRole('region', { name: 'Import records from a file' });
  await chooseFile(page, 'checking.csv', csv);
  await expect(wizard.getByRole('combobox', { name: 'Format' })).toHaveValue('Other CSV (choose the columns)');
  await wizard.getByRole('button', { name: 'Next: columns' }).click();

  const mapping = wizard.getByTestId('csv-mapping');
  await expect(mapping.getByRole('table', { name: 'The first rows of the file' })).toContainText('ACME payroll');
  await mapping.getByRole('combobox', { name: 'Date', exact: true }).click();
  await page.getByRole('option', { name: 'Posted' }).click();
  await mapping.getByRole('combobox', { name: 'Date format' }).click();
  await page.getByRole('option', { name: '06/13/2025 (month/day/year)' }).click();
  await mapping.getByRole('combobox', { name: 'Amount', exact: true }).click();
  await page.getByRole('option', { name: 'Money' }).click();
  await mapping.getByRole('combobox', { name: 'Description' }).click();
  await page.getByRole('option', { name: 'Details' }).click();
  await mapping.getByRole('combobox', { name: 'Transaction ID' }).click();
  await page.getByRole('option', { name: 'Reference' }).click();
  await mapping.getByRole('button', { name: 'Preview' }).click();

  const preview = wizard.getByTestId('statement-preview');
  await expect(preview.getByTestId('statement-summary')).toHaveText('3 lines: 3 to create, 0 likely duplicates, 0 already imported, 0 skipped, 0 unreadable.');
  // Leave the groceries out.
  await preview.getByRole('checkbox', { name: 'Import line 4' }).uncheck();
  await preview.getByRole('button', { name: 'Import 2 records' }).click();
  await expect(page.getByText('2 records imported.')).toBeVisible();
  const records = await call<{ list: Array<{ type: string; amount: number; description: string }> }>(account, 'accounting.query', {});
  expect(records.list.map((r) => [r.type, r.amount, r.description]).sort()).toEqual([
    ['expense', 4.5, 'Coffee shop'],
    ['income', 2500, 'ACME payroll'],
  ]);

  // The next file with this header starts from the columns chosen now.
  await chooseFile(page, 'checking-2.csv', csv);
  await wizard.getByRole('button', { name: 'Next: columns' }).click();
  await expect(wizard.getByText('These are the columns you chose the last time')).toBeVisible();
  await expect(mapping.getByRole('combobox', { name: 'Date', exact: true })).toHaveValue('Posted');
  watch.expectClean();
});

test('a file over 700 KB is sent in parts, previewed with complete counts and the first 200 lines listed', async ({ page }) => {
  const watch = watchPage(page);
  const account = await open(page);
  await call(account, 'asset.create', { name: 'Savings', type: 'savings', currency: 'EUR', balance: 100_000 });
  const rows = Array.from(
    { length: 13_000 },
    (_, i) => `2026-10-${String((i % 28) + 1).padStart(2, '0')},Card payment number ${i} at a shop with a rather long name,-${(i % 90) + 1}.25,TX${i}`,
  );
  const csv = ['Date,Description,Amount,Transaction ID', ...rows].join('\n');
  expect(csv.length).toBeGreaterThan(700 * 1024);
  const calls: string[] = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/api')) calls.push((JSON.parse(request.postData() ?? '{}') as { action: string }).action);
  });

  await page.goto(`${running.server.url}/settings?tab=data`);
  const wizard = page.getByRole('region', { name: 'Import records from a file' });
  await chooseFile(page, 'savings.csv', csv);
  await wizard.getByRole('button', { name: 'Next: columns' }).click();
  await expect(wizard.getByTestId('csv-mapping')).toBeVisible();
  await wizard.getByRole('button', { name: 'Preview' }).click();
  const preview = wizard.getByTestId('statement-preview');
  await expect(preview.getByTestId('statement-summary')).toHaveText('13,000 lines: 13,000 to create, 0 likely duplicates, 0 already imported, 0 skipped, 0 unreadable.', {
    timeout: 20_000,
  });
  await expect(preview.getByText('Each tab lists the first 200 lines', { exact: false })).toBeVisible();
  await expect(preview.getByTestId('preview-create').getByTestId('preview-line')).toHaveCount(100);
  await preview.getByRole('button', { name: 'Show more (100 of 200 shown)' }).click();
  await expect(preview.getByTestId('preview-create').getByTestId('preview-line')).toHaveCount(200);
  await expect(preview.getByRole('button', { name: 'Import 13000 records' })).toBeVisible();
  // Two parts, kept for the mapping step and used up by the preview: no content sent inline.
  // (import.interrupted: the import screen asks once whether an import was cut off.)
  expect(calls.filter((action) => action.startsWith('import.'))).toEqual([
    'import.interrupted',
    'import.upload',
    'import.upload',
    'import.describe',
    'import.describeCsv',
    'import.preview',
  ]);
  await preview.getByRole('button', { name: 'Cancel' }).click();
  await expect(preview).toBeHidden();
  watch.expectClean();
});

test('a file that is not what its format says shows why it cannot be imported', async ({ page }) => {
  const account = await open(page);
  await call(account, 'asset.create', { name: 'Wallet', type: 'cash', currency: 'CNY' });
  await page.goto(`${running.server.url}/settings?tab=data`);
  const wizard = page.getByRole('region', { name: 'Import records from a file' });
  await chooseFile(page, 'notes.csv', 'hello,world\nthis is,not a bill\n');
  await wizard.getByRole('combobox', { name: 'Format' }).click();
  await page.getByRole('option', { name: 'Alipay 支付宝' }).click();
  await wizard.getByRole('button', { name: 'Preview' }).click();
  await expect(wizard.getByRole('alert')).toContainText('cannot be imported');
  await expect(wizard.getByTestId('statement-preview')).toHaveCount(0);
});
