import { expect, test, type Page } from '@playwright/test';
import { api, registerAccount, signInPage } from './api';
import { startE2eServer, watchPage } from './support';

/**
 * Issue 36, finding 17 (the Chinese UI): rises are red and falls green in the savings market, as
 * on Chinese market boards (English keeps green up, red down); a monthly rule says 每月, not
 * "每 1 个月"; Recurring's list is not called 规则 like Settings → Rules. (资产 for assets
 * everywhere: e2e/contracts.spec.ts.)
 */
let running: Awaited<ReturnType<typeof startE2eServer>>;
test.beforeAll(async () => {
  running = await startE2eServer();
});
test.afterAll(async () => {
  await (running as typeof running | undefined)?.stop();
});

/** The colours of the income and expense classes on this page (what green and red are in this scheme). */
async function toneColours(page: Page) {
  return page.evaluate(() => {
    const colourOf = (className: string) => {
      const probe = document.createElement('span');
      probe.className = className;
      document.body.append(probe);
      const colour = getComputedStyle(probe).color;
      probe.remove();
      return colour;
    };
    return { green: colourOf('pp-income'), red: colourOf('pp-expense') };
  });
}

/** Each market row's change (as shown) and its colour. */
async function marketChanges(page: Page) {
  const table = page.getByRole('table').first();
  await expect(table.getByRole('row').nth(1)).toBeVisible();
  return table.locator('tbody tr').evaluateAll((rows) =>
    rows.map((row) => {
      const cell = Array.from(row.querySelectorAll('td')).at(3);
      if (!cell) throw new Error(`a market row without a change column: ${row.textContent}`);
      return { text: cell.textContent.trim(), colour: getComputedStyle(cell).color };
    }),
  );
}

test('the market: red for up and green for down in Chinese, the other way round in English', async ({ page }) => {
  const watch = watchPage(page);
  const account = await registerAccount(running.server.url, 'trader');
  for (const [language, up, down] of [
    ['zh-CN', 'red', 'green'],
    ['en', 'green', 'red'],
  ] as const) {
    const context = await page.context().browser()!.newContext();
    const tab = await context.newPage();
    await signInPage(tab, account, { language, scheme: 'light' });
    await tab.goto(`${running.server.url}/savings?tab=market`);
    const changes = await marketChanges(tab);
    const colours = await toneColours(tab);
    expect(changes.length).toBeGreaterThan(0);
    for (const change of changes) {
      const falling = /^[-−]/.test(change.text);
      expect(change.colour, `${language}: ${change.text}`).toBe(colours[falling ? down : up]);
    }
    await context.close();
  }
  watch.expectClean();
});

test('周期记账: 每月 for one month, 每 2 个月 for two; the list is 我的周期记账, not 规则', async ({ page }) => {
  const watch = watchPage(page);
  const account = await api<{ token: string; id: string; username: string; email: string; expiresAt: number; role: 'owner'; mustChangePassword: boolean }>(
    running.server.url,
    null,
    'user.register',
    {
      username: '小红',
      email: 'xiaohong@example.com',
      password: 'correct horse battery',
      language: 'zh-CN',
    },
  );
  const card = await api<{ id: string }>(running.server.url, account.token, 'asset.create', { name: '招商银行', type: 'debit_card', currency: 'CNY', balance: 5000 });
  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  for (const [name, interval] of [
    ['房租', 1],
    ['物业费', 2],
  ] as const) {
    await api(running.server.url, account.token, 'recurring.create', {
      name,
      template: { type: 'expense', amount: 100, category: '居住', asset: card.id },
      rule: { freq: 'monthly', interval },
      startDate: Date.now() + 86_400_000,
      timeZone,
      mode: 'auto',
    });
  }
  await signInPage(page, account, { language: 'zh-CN' });
  await page.goto(`${running.server.url}/recurring`);
  await expect(page.getByRole('heading', { level: 1, name: '周期记账' })).toBeVisible();
  await expect(page.getByRole('heading', { level: 2, name: '我的周期记账' })).toBeVisible();
  await expect(page.getByRole('heading', { level: 2, name: '规则' })).toHaveCount(0);
  const rent = page.getByTestId('recurring-rule').filter({ hasText: '房租' });
  await expect(rent).toContainText('每月');
  await expect(rent).not.toContainText('每 1 个月');
  await expect(page.getByTestId('recurring-rule').filter({ hasText: '物业费' })).toContainText('每 2 个月');
  watch.expectClean();
});
