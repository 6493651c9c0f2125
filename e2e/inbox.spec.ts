import AxeBuilder from '@axe-core/playwright';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { api, registerAccount, signInPage, type Account } from './api';
import { startE2eServer, watchPage } from './support';

/**
 * The record-by-message inbox: a bank SMS POSTed to the inbox URL becomes a draft, its category is
 * changed and it is confirmed into a record; another is dismissed; a rule made in Settings → Rules
 * gives the next draft its category; a new URL replaces the old one.
 */
let running: Awaited<ReturnType<typeof startE2eServer>>;
test.beforeAll(async () => {
  running = await startE2eServer();
});
test.afterAll(async () => {
  await (running as typeof running | undefined)?.stop();
});

const call = <T = unknown>(account: Account, action: string, params: unknown) => api<T>(running.server.url, account.token, action, params);

async function send(request: APIRequestContext, url: string, notice: string | Record<string, unknown>) {
  const response =
    typeof notice === 'string' ? await request.post(url, { data: notice, headers: { 'content-type': 'text/plain; charset=utf-8' } }) : await request.post(url, { data: notice });
  expect(response.status(), await response.text()).toBeLessThan(300);
}

async function inboxUrl(page: Page): Promise<string> {
  const field = page.getByTestId('inbox-url');
  await expect(field).not.toHaveValue('');
  return field.inputValue();
}

test('a bank SMS becomes a draft: change its category, confirm it into a record; dismiss another; a rule gives the next one its category', async ({ page, request }) => {
  const watch = watchPage(page);
  const account = await registerAccount(running.server.url, 'inboxui');
  await call(account, 'asset.create', { name: '招商银行 1234', type: 'debit_card', currency: 'CNY', balance: 5000 });
  await call(account, 'asset.create', { name: '现金', type: 'cash', currency: 'CNY', balance: 100 });
  await signInPage(page, account);
  await page.goto(`${running.server.url}/inbox`);
  await expect(page.getByRole('heading', { name: 'Inbox', level: 1 })).toBeVisible();
  await expect(page.getByText('No drafts.', { exact: false })).toBeVisible();
  const url = await inboxUrl(page);
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);

  await send(request, url, '您尾号1234的招商银行卡11月27日12:30消费25.50元【招商银行】');
  await page.reload();
  const draft = page.getByTestId('inbox-draft').first();
  await expect(draft).toContainText('¥25.50');
  await expect(draft.getByRole('combobox', { name: 'Asset' })).toHaveValue('招商银行 1234 (CNY)');
  await draft.getByText('Original message').click();
  await expect(draft.getByText('您尾号1234的招商银行卡11月27日12:30消费25.50元【招商银行】')).toBeVisible();

  // No serious accessibility problem on the screen with a draft.
  const axe = await new AxeBuilder({ page })
    .setLegacyMode(true)
    .options({ resultTypes: ['violations'] })
    .analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);

  await draft.getByRole('combobox', { name: 'Category' }).click();
  await page.getByRole('option', { name: 'Transport' }).click();
  await draft.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByText('No drafts.', { exact: false })).toBeVisible();
  const records = await call<{ list: Array<{ amount: number; category: string; type: string }> }>(account, 'accounting.query', {});
  expect(records.list).toEqual([expect.objectContaining({ amount: 25.5, category: 'Transport', type: 'expense' })]);
  await page.goto(`${running.server.url}/records`);
  await expect(page.getByTestId('record-totals')).toContainText('1 record');

  // Another one, dismissed: no record.
  await send(request, url, { amount: 12, merchant: '便利店', type: 'expense', card: '1234' });
  await page.goto(`${running.server.url}/inbox`);
  const shop = page.getByTestId('inbox-draft').filter({ hasText: '便利店' });
  await expect(shop).toBeVisible();
  await shop.getByRole('button', { name: 'Dismiss' }).click();
  await expect(shop).toBeHidden();
  expect((await call<{ list: unknown[] }>(account, 'inbox.query', {})).list).toEqual([]);
  expect((await call<{ list: unknown[] }>(account, 'accounting.query', {})).list).toHaveLength(1);

  // A rule: the payee 星巴克 is Food.
  await page.goto(`${running.server.url}/settings?tab=rules`);
  await expect(page.getByText('No rules yet.', { exact: false })).toBeVisible();
  await page.getByRole('button', { name: 'New rule' }).click();
  const form = page.getByRole('dialog').getByRole('form', { name: 'Rule' });
  await form.getByRole('combobox', { name: 'Field' }).click();
  await page.getByRole('option', { name: 'Payee' }).click();
  await form.getByRole('textbox', { name: 'Text' }).fill('星巴克');
  await form.getByRole('combobox', { name: 'Set the category to' }).click();
  await page.getByRole('option', { name: 'Food' }).click();
  await form.getByRole('button', { name: 'Create rule' }).click();
  await expect(page.getByRole('dialog')).toBeHidden();
  await expect(page.getByTestId('rule-row')).toHaveText('Payee contains “星巴克” → category Food');

  await send(request, url, { amount: 38, merchant: '星巴克', type: 'expense', card: '1234' });
  await page.goto(`${running.server.url}/inbox`);
  const coffee = page.getByTestId('inbox-draft').filter({ hasText: '星巴克' });
  await expect(coffee.getByRole('combobox', { name: 'Category' })).toHaveValue('Food');
  await expect(coffee.getByTestId('rule-badge')).toHaveText('Rule: category');
  watch.expectClean();
});

test("a notice in another currency asks for the amount in the asset's; a new URL replaces the old one", async ({ page, request }) => {
  const watch = watchPage(page);
  const account = await registerAccount(running.server.url, 'inboxui2');
  await call(account, 'asset.create', { name: 'Wallet', type: 'cash', currency: 'CNY' });
  await signInPage(page, account, { language: 'zh-CN' });
  // g i: the keyboard's way to the inbox.
  await page.goto(`${running.server.url}/`);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await page.locator('body').press('g');
  await page.locator('body').press('i');
  await expect(page).toHaveURL(/\/inbox$/);
  await expect(page.getByRole('heading', { name: '收件箱', level: 1 })).toBeVisible();
  const url = await inboxUrl(page);
  await send(request, url, { amount: 9.9, merchant: 'Apple', type: 'expense', currency: 'USD' });
  await page.reload();
  const draft = page.getByTestId('inbox-draft');
  await expect(draft.getByText('币种不同', { exact: true })).toBeVisible();
  await draft.getByRole('button', { name: '确认' }).click();
  await expect(draft.getByText('请输入金额', { exact: false })).toBeVisible();
  await draft.getByRole('textbox', { name: '以 CNY 计的金额' }).fill('71.30');
  await draft.getByRole('button', { name: '确认' }).click();
  await expect(draft).toBeHidden();
  const records = await call<{ list: Array<{ amount: number; description: string }> }>(account, 'accounting.query', {});
  expect(records.list).toEqual([expect.objectContaining({ amount: 71.3, description: 'Apple' })]);

  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: '换新网址' }).click();
  await expect(page.getByTestId('inbox-url')).not.toHaveValue(url);
  const fresh = await inboxUrl(page);
  expect((await request.post(url, { data: { amount: 1, merchant: 'x', type: 'expense' } })).status()).toBe(404);
  await send(request, fresh, { amount: 1, merchant: '新地址', type: 'expense' });
  await page.reload();
  await expect(page.getByTestId('inbox-draft').filter({ hasText: '新地址' })).toBeVisible();
  watch.expectClean();
});

test('Settings → Rules: a suggested rule from moved records is created in one click; a rule is edited in words and deleted', async ({ page }) => {
  const watch = watchPage(page);
  const account = await registerAccount(running.server.url, 'rulesui');
  const cash = await call<{ id: string }>(account, 'asset.create', { name: 'Cash', type: 'cash', currency: 'CNY', balance: 500 });
  for (const amount of [18, 21]) {
    const record = await call<{ id: string }>(account, 'accounting.create', { type: 'expense', amount, asset: cash.id, category: 'Food', description: '瑞幸咖啡' });
    await call(account, 'accounting.update', { id: record.id, category: 'Entertainment' });
  }
  await expect.poll(async () => (await call<{ suggestions: unknown[] }>(account, 'rule.query', {})).suggestions.length, { message: 'the suggestion is counted' }).toBe(1);

  await signInPage(page, account);
  await page.goto(`${running.server.url}/settings?tab=rules`);
  const suggestion = page.getByTestId('rule-suggestion');
  await expect(suggestion).toContainText('You moved “瑞幸咖啡” to Entertainment 2 times — make it a rule?');
  await suggestion.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('Rule created.')).toBeVisible();
  await expect(suggestion).toBeHidden();
  const row = page.getByTestId('rule-row');
  await expect(row).toHaveText('Description contains “瑞幸咖啡” → category Entertainment');

  // Edit: an amount rule with tags, recorded at once from the inbox.
  await row.getByRole('button', { name: /^Edit the rule/ }).click();
  const form = page.getByRole('dialog').getByRole('form', { name: 'Rule' });
  await form.getByRole('combobox', { name: 'Field' }).click();
  await page.getByRole('option', { name: 'Amount' }).click();
  await form.getByRole('combobox', { name: 'Condition' }).click();
  await page.getByRole('option', { name: 'is more than' }).click();
  await form.getByRole('textbox', { name: 'Amount (CNY)' }).fill('100');
  const tags = form.getByLabel('Add tags');
  await tags.fill('big');
  await tags.press('Enter');
  await form.getByRole('checkbox', { name: 'Record matching inbox drafts at once' }).check();
  await form.getByRole('button', { name: 'Save rule' }).click();
  await expect(page.getByRole('dialog')).toBeHidden();
  await expect(row).toContainText('Amount is more than 100 → category Entertainment, tags big');
  await expect(row).toContainText('Records inbox drafts at once');
  const rules = await call<{ list: Array<{ match: unknown; set: unknown; autoConfirm: boolean }> }>(account, 'rule.query', {});
  expect(rules.list).toEqual([expect.objectContaining({ match: { field: 'amount', op: 'gt', value: 100 }, set: { category: 'Entertainment', tags: ['big'] }, autoConfirm: true })]);

  // A bad pattern says why, next to the value.
  await page.getByRole('button', { name: 'New rule' }).click();
  await form.getByRole('combobox', { name: 'Condition' }).click();
  await page.getByRole('option', { name: 'matches the pattern' }).click();
  await form.getByRole('textbox', { name: 'Pattern' }).fill('(a)\\1');
  await form.getByRole('textbox', { name: 'Replace the description with' }).fill('x');
  await form.getByRole('button', { name: 'Create rule' }).click();
  await expect(form.getByText('The pattern cannot be used', { exact: false })).toBeVisible();
  await form.getByRole('button', { name: 'Cancel' }).click();

  page.once('dialog', (dialog) => void dialog.accept());
  await row.getByRole('button', { name: /^Delete the rule/ }).click();
  await expect(page.getByText('No rules yet.', { exact: false })).toBeVisible();
  watch.expectClean();
});

/**
 * Issue 36, finding 2: a draft appeared ~23 s after its notice (the screen polled every 30 s),
 * while pushes reach the feed in ~0.1 s. The server now says so on the feed stream the window
 * holds: the draft shows within 2 s, without a reload.
 */
test('a notice posted while the Inbox screen is open shows as a draft within 2 seconds, without a reload', async ({ page }) => {
  const watch = watchPage(page);
  const account = await registerAccount(running.server.url, 'inboxlive');
  await call(account, 'asset.create', { name: '招商银行 5678', type: 'debit_card', currency: 'CNY', balance: 5000 });
  await signInPage(page, account);
  // The window's feed stream is open (its headers arrived) before the notice is sent.
  const streaming = page.waitForResponse((response) => response.url().endsWith('/events/push') && response.status() === 200);
  await page.goto(`${running.server.url}/inbox`);
  await expect(page.getByText('No drafts.', { exact: false })).toBeVisible();
  const url = await inboxUrl(page);
  await streaming;
  const sent = Date.now();
  const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain; charset=utf-8' }, body: '您尾号5678的招商银行卡消费18.80元【招商银行】' });
  expect(answer.status).toBe(200);
  await expect(page.getByTestId('inbox-draft').first()).toContainText('¥18.80', { timeout: 2000 });
  const took = Date.now() - sent;
  expect(took).toBeLessThan(2000);
  test.info().annotations.push({ type: 'draft shown after', description: `${took} ms` });
  watch.expectClean();
});
