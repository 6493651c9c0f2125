import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { api, registerAccount, signInPage, type Account } from './api';
import { ROUTES } from '../renderer/src/screens/routes';
import { startE2eServer, untilStill, watchPage } from './support';

/**
 * Every screen at the smallest supported window (1024×700), in the dark theme and in Chinese:
 * nothing overflows sideways, the heading is there, keyboard focus is visible, no CSP violation.
 * Screenshots go to e2e/screenshots/ (git-ignored).
 */
const SHOTS = path.join(import.meta.dirname, 'screenshots');
mkdirSync(SHOTS, { recursive: true });

let running: Awaited<ReturnType<typeof startE2eServer>>;
let account: Account;

test.beforeAll(async () => {
  running = await startE2eServer();
  const url = running.server.url;
  account = await registerAccount(url, 'layout');
  const wallet = await api<{ id: string }>(url, account.token, 'asset.create', {
    name: 'Everyday card with a rather long name',
    type: 'debit_card',
    currency: 'CNY',
    balance: 12000,
  });
  await api(url, account.token, 'asset.create', { name: 'Credit card', type: 'credit_card', currency: 'CNY' });
  for (let i = 0; i < 40; i++) {
    await api(url, account.token, 'accounting.create', {
      type: i % 5 === 0 ? 'income' : 'expense',
      amount: 10 + i * 3.5,
      asset: wallet.id,
      description: `Record number ${i} with a description long enough to be cut off in the list`,
      tags: ['e2e'],
      date: Date.now() - i * 86_400_000 * 3,
    });
  }
  await api(url, account.token, 'savings.createGoal', { title: 'Emergency fund', targetAmount: 5000, endDate: Date.now() + 200 * 86_400_000, currency: 'CNY' });
});
test.afterAll(async () => {
  // Unset when beforeAll failed.
  await (running as typeof running | undefined)?.stop();
});

/** Every screen of the route table in both languages, and some tabs besides each screen's first. */
const strings = (language: string) =>
  JSON.parse(readFileSync(path.join(import.meta.dirname, '../renderer/src/i18n', `${language}.json`), 'utf8')) as Partial<Record<string, { title: string }>>;
const EN = strings('en');
const ZH = strings('zh-CN');
/** The title of the screen `key` in one language's strings; a missing one fails the test, naming it. */
function titleOf(table: Partial<Record<string, { title: string }>>, key: string): string {
  const title = table[key]?.title;
  if (title === undefined) throw new Error(`no title for the screen ${key}`);
  return title;
}
const MORE_TABS: Record<string, string[]> = { '/savings': ['market'], '/settings': ['server'] };
const SCREENS = ROUTES.flatMap((route) =>
  [route.path, ...(MORE_TABS[route.path] ?? []).map((tab) => `${route.path}?tab=${tab}`)].map((url) => ({ path: url, en: titleOf(EN, route.key), zh: titleOf(ZH, route.key) })),
);

for (const variant of [
  { name: 'light-en', language: 'en', scheme: 'light' as const },
  { name: 'dark-zh', language: 'zh-CN', scheme: 'dark' as const },
]) {
  test(`every screen fits 1024×700 (${variant.name})`, async ({ browser }) => {
    test.setTimeout(60_000);
    const page = await browser.newPage({ viewport: { width: 1024, height: 700 } });
    const watch = watchPage(page);
    await signInPage(page, account, { language: variant.language, scheme: variant.scheme });
    for (const screen of SCREENS) {
      await page.goto(`${running.server.url}${screen.path}`);
      await expect(page.getByRole('heading', { level: 1, name: variant.language === 'en' ? screen.en : screen.zh })).toBeVisible();
      await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', variant.scheme);
      await expect(page.locator('.mantine-Skeleton-root')).toHaveCount(0, { timeout: 10_000 });
      await untilStill(page); // chart animations
      const overflow = await page.evaluate(() => {
        const main = document.querySelector('main');
        return { page: document.documentElement.scrollWidth - document.documentElement.clientWidth, main: main ? main.scrollWidth - main.clientWidth : 0 };
      });
      expect(overflow, `${screen.path} overflows sideways`).toEqual({ page: 0, main: 0 });
      await page.screenshot({ path: path.join(SHOTS, `layout-${variant.name}-${screen.path.replace(/[/?=]+/g, '_') || 'home'}.png`) });
    }
    watch.expectClean();
    await page.close();
  });
}

test('keyboard focus is visible and the record form works from the keyboard alone', async ({ browser }) => {
  const page = await browser.newPage({ viewport: { width: 1024, height: 700 } });
  const watch = watchPage(page);
  await signInPage(page, account);
  await page.goto(`${running.server.url}/records`);
  const amount = page.getByRole('form', { name: 'New record' }).getByRole('textbox', { name: 'Amount' });
  await expect(amount).toBeFocused();
  await page.keyboard.press('Tab');
  const outline = await page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    const style = getComputedStyle(el);
    return { style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
  });
  expect(outline.style).not.toBe('none');
  expect(outline.width).toBeGreaterThanOrEqual(2);
  await amount.focus();
  await page.keyboard.type('7.25');
  await page.keyboard.press('Enter');
  await expect(page.getByText('Record saved.')).toBeVisible();
  await expect(page.getByTestId('record-totals')).toContainText('41 records');
  // every interactive element on the screen has an accessible name
  const unnamed = await page.evaluate(() =>
    Array.from(document.querySelectorAll('button, a[href], input, select, textarea, [role="button"], [role="combobox"]'))
      .filter((el) => (el as HTMLElement).offsetParent !== null && el.getAttribute('aria-hidden') !== 'true')
      .filter((el) => {
        const label =
          el.getAttribute('aria-label') || el.getAttribute('aria-labelledby') || (el as HTMLInputElement).labels?.length || el.textContent.trim() || el.getAttribute('title');
        return !label;
      })
      .map((el) => el.outerHTML.slice(0, 120)),
  );
  expect(unnamed).toEqual([]);
  watch.expectClean();
  await page.close();
});
