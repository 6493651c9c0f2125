import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { api, registerAccount, signInPage, type Account } from './api';
import { ROUTES } from '../renderer/src/screens/routes';
import { startE2eServer, watchPage } from './support';

/**
 * Issue 19, findings 2 and 3 (layout): every screen and tab at 360, 390, 768, 1024 and 1440 px in
 * English/light and Chinese/dark (and the two other combinations at a phone width), with a
 * 100-character asset name and long notes: the page never scrolls sideways; the navigation is
 * reachable on a phone; dialogs take the whole phone screen; tables become lists; a long name is
 * cut with an ellipsis instead of pushing the Balance column out.
 */
const WIDTHS = [360, 390, 768, 1024, 1440];
const LONG_NAME = 'Joint household savings account at the neighbourhood credit union for the childrens education funds!';
const NO_SPACES = 'Supercalifragilisticexpialidocious'.repeat(3).slice(0, 100);

const strings = (language: string) =>
  JSON.parse(readFileSync(path.join(import.meta.dirname, '../renderer/src/i18n', `${language}.json`), 'utf8')) as Record<string, { title: string }>;
const TITLES: Record<string, Record<string, { title: string }>> = { en: strings('en'), 'zh-CN': strings('zh-CN') };
const TABS: Record<string, string[]> = {
  '/savings': ['market', 'portfolio', 'achievements', 'leaderboard'],
  '/push': ['channels', 'scheduled', 'history', 'feed'],
  '/files': ['links'],
  '/settings': ['currency', 'categories', 'rules', 'data', 'backups', 'household', 'server'],
};
const SCREENS = ROUTES.flatMap((route) => [route.path, ...(TABS[route.path] ?? []).map((tab) => `${route.path}?tab=${tab}`)].map((url) => ({ url, key: route.key })));

/**
 * Screenshots compared with committed baselines (e2e/responsive.spec.ts-snapshots/) only for views
 * this spec owns and that hold no dates or changing data: the phone drawer and the offline page
 * (docs/ui.md says why not more). Update with `npx playwright test e2e/responsive.spec.ts --update-snapshots`.
 */
const SHOT = { animations: 'disabled', caret: 'hide', maxDiffPixelRatio: 0.01 } as const;

/** How far the page and <main> reach past the window, and the elements that stick out (to name the culprit). */
async function overflow(page: Page) {
  return page.evaluate(async () => {
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    const main = document.querySelector('main');
    const culprits = Array.from(document.querySelectorAll<HTMLElement>('main *, body > #root *'))
      .filter((el) => el.getBoundingClientRect().right > innerWidth + 1 && el.offsetParent !== null && !el.closest('.mantine-Tabs-list, .pp-table-wrap'))
      .slice(-3)
      .map((el) => `${el.tagName.toLowerCase()}.${(el.getAttribute('class') ?? '').slice(0, 60)} → ${Math.round(el.getBoundingClientRect().right)}`);
    return { page: Math.max(0, document.documentElement.scrollWidth - innerWidth), main: main ? Math.max(0, main.scrollWidth - main.clientWidth) : 0, culprits };
  });
}

/** Client-side navigation (the app's own router), so each screen is measured at every width without reloading. */
async function open(page: Page, url: string) {
  await page.evaluate((to) => {
    history.pushState(null, '', to);
    dispatchEvent(new PopStateEvent('popstate'));
  }, url);
}

/** The record form's asset select shows its whole value (it was cut to "Cash (CN" at 390 and 800 px). */
async function expectWholeAssetValue(page: Page) {
  const field = page.getByRole('form', { name: 'New record' }).getByRole('combobox', { name: 'Asset' });
  await expect(field).toHaveValue('Cash (CNY)');
  expect(await field.evaluate((el: HTMLInputElement) => el.scrollWidth <= el.clientWidth)).toBe(true);
}

const VARIANTS = [
  { language: 'en', scheme: 'light' as const, widths: WIDTHS },
  { language: 'zh-CN', scheme: 'dark' as const, widths: WIDTHS },
  { language: 'en', scheme: 'dark' as const, widths: [390] },
  { language: 'zh-CN', scheme: 'light' as const, widths: [360] },
];

// One server for the layout tests; the offline test below runs its own (it stops it), after this one is stopped.
test.describe('every screen at every width', () => {
  let running: Awaited<ReturnType<typeof startE2eServer>>;
  let account: Account;

  test.beforeAll(async () => {
    running = await startE2eServer();
    const url = running.server.url;
    account = await registerAccount(url, 'responsive');
    const call = <T = { id: string }>(action: string, params: unknown) => api<T>(url, account.token, action, params);
    const cash = await call('asset.create', { name: 'Cash', type: 'cash', currency: 'CNY', balance: 500 });
    const long = await call('asset.create', {
      name: LONG_NAME,
      type: 'debit_card',
      currency: 'CNY',
      balance: 123456.78,
      description: 'A description that goes on and on '.repeat(8),
    });
    await call('asset.create', { name: NO_SPACES, type: 'credit_card', currency: 'USD' });
    for (let i = 0; i < 12; i++) {
      await call('accounting.create', {
        type: i % 4 === 0 ? 'income' : 'expense',
        amount: 10 + i * 7.5,
        asset: i % 2 ? long.id : cash.id,
        description: `Record ${i}: ${'a note long enough to be cut in every list of the app '.repeat(4)}`,
        tags: ['groceries-and-household-supplies', `t${i}`],
        date: Date.UTC(2026, 9, 1 + i, 12),
      });
    }
    await call('savings.createGoal', { title: `Goal ${LONG_NAME}`.slice(0, 60), targetAmount: 5000, endDate: Date.now() + 200 * 86_400_000, currency: 'CNY' });
    const channel = await call('push.createChannel', { name: 'Desktop channel with a long name for the list', type: 'desktop' });
    const app = await call<{ id: string; appKey: string }>('push.createApp', { name: 'An application with a long name that sends pushes', channelId: channel.id });
    await fetch(`${url}/send/${app.appKey}?title=${encodeURIComponent(`Title ${NO_SPACES}`)}&desp=${encodeURIComponent('**Body** '.repeat(40))}`);
    await call('shortlink.create', { url: `https://example.com/${NO_SPACES}/${NO_SPACES}?q=${NO_SPACES}`, title: LONG_NAME });
  });
  test.afterAll(async () => {
    await (running as typeof running | undefined)?.stop(); // unset when beforeAll failed
  });

  for (const variant of VARIANTS) {
    test(`no screen scrolls sideways at ${variant.widths.join(', ')} px (${variant.language}, ${variant.scheme})`, async ({ browser }) => {
      test.setTimeout(90_000);
      const context = await browser.newContext({ viewport: { width: variant.widths[0], height: 760 } });
      const page = await context.newPage();
      const watch = watchPage(page);
      // The sign-in screen first (no session yet).
      await page.addInitScript(
        ([language, scheme]) => {
          localStorage.setItem('pennypost.language', language);
          localStorage.setItem('mantine-color-scheme-value', scheme);
        },
        [variant.language, variant.scheme],
      );
      await page.goto(`${running.server.url}/login`);
      await expect(page.locator('form').first()).toBeVisible();
      for (const width of variant.widths) {
        await page.setViewportSize({ width, height: 760 });
        expect(await overflow(page), `sign-in at ${width} px`).toMatchObject({ page: 0, main: 0 });
      }
      await signInPage(page, account, variant);
      await page.goto(`${running.server.url}/`);
      await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', variant.scheme);
      for (const screen of SCREENS) {
        await open(page, screen.url);
        await expect(page.getByRole('heading', { level: 1, name: TITLES[variant.language][screen.key].title })).toBeVisible();
        await expect(page.locator('.mantine-Skeleton-root, [aria-busy="true"]')).toHaveCount(0, { timeout: 10_000 });
        for (const width of variant.widths) {
          await page.setViewportSize({ width, height: 760 });
          const measured = await overflow(page);
          expect(measured, `${screen.url} at ${width} px: ${measured.culprits.join('; ')}`).toMatchObject({ page: 0, main: 0 });
        }
      }
      watch.expectClean();
      await context.close();
    });
  }

  test('a phone reaches every screen: bottom bar for the main ones, "More" for all; full-screen dialogs; tables as lists', async ({ browser }) => {
    const context = await browser.newContext({ viewport: { width: 390, height: 760 } });
    const page = await context.newPage();
    const watch = watchPage(page);
    await signInPage(page, account);
    await page.goto(`${running.server.url}/`);
    await expect(page.getByRole('navigation', { name: 'Main', exact: true })).toBeHidden(); // the sidebar
    const bottom = page.getByRole('navigation', { name: 'Main screens' });
    await bottom.getByRole('link', { name: 'Records' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Records' })).toBeVisible();
    await expect(bottom.getByRole('link', { name: 'Records' })).toHaveAttribute('aria-current', 'page');
    // The record form's asset select shows its whole value (it was cut to "Cash (CN").
    await expectWholeAssetValue(page);

    await bottom.getByRole('button', { name: 'More' }).click();
    const drawer = page.getByRole('dialog');
    for (const route of ROUTES) await expect(drawer.getByRole('link', { name: TITLES.en[route.key].title })).toBeVisible();
    await expect(drawer.getByRole('button', { name: 'Log out' })).toBeVisible();
    await expect(drawer).toHaveScreenshot('phone-drawer-390.png', SHOT);
    await drawer.getByRole('link', { name: 'Assets' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Assets' })).toBeVisible();
    await expect(drawer).toBeHidden();

    // Assets as cards: the long name is cut (full text in its title), the balance keeps its label and stays on screen.
    const row = page.getByTestId(`asset-row-${LONG_NAME}`);
    const name = row.getByText(LONG_NAME, { exact: true });
    await expect(name).toHaveAttribute('title', LONG_NAME);
    expect(await name.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    const balance = row.getByTestId('asset-balance');
    await expect(balance).toHaveAttribute('data-label', 'Balance');
    const box = await balance.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);

    await page.getByRole('button', { name: 'New asset' }).click();
    const dialog = page.getByRole('dialog', { name: 'New asset' });
    await expect(dialog).toBeVisible();
    await expect.poll(async () => dialog.evaluate((el) => [Math.round(el.getBoundingClientRect().width), Math.round(el.getBoundingClientRect().height)])).toEqual([390, 760]);
    watch.expectClean();
    await context.close();
  });

  test('a tablet gets the menu button and drawer; a laptop the sidebar; a long asset name never pushes the balance off a 1280 px window', async ({ browser }) => {
    const context = await browser.newContext({ viewport: { width: 800, height: 900 } });
    const page = await context.newPage();
    const watch = watchPage(page);
    await signInPage(page, account);
    await page.goto(`${running.server.url}/records`);
    await expectWholeAssetValue(page);
    await page.setViewportSize({ width: 768, height: 900 });
    await expect(page.getByRole('navigation', { name: 'Main screens' })).toBeHidden();
    await page.getByRole('button', { name: 'Open the menu' }).click();
    await page.getByRole('dialog').getByRole('link', { name: 'Statistics' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Statistics' })).toBeVisible();
    await expect(page.getByRole('dialog')).toBeHidden(); // choosing a screen closes the drawer

    await page.setViewportSize({ width: 1280, height: 800 });
    await expect(page.getByRole('button', { name: 'Open the menu' })).toBeHidden();
    await page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: 'Assets' }).click();
    const row = page.getByTestId(`asset-row-${LONG_NAME}`);
    await expect(row.getByText(LONG_NAME, { exact: true })).toHaveAttribute('title', LONG_NAME);
    for (const testId of [`asset-row-${LONG_NAME}`, `asset-row-${NO_SPACES}`]) {
      const actions = page.getByTestId(testId).getByRole('button', { name: /^Actions for/ });
      const box = await actions.boundingBox();
      expect(box!.x + box!.width, testId).toBeLessThanOrEqual(1280);
    }
    expect(await overflow(page)).toMatchObject({ page: 0, main: 0 });
    watch.expectClean();
    await context.close();
  });
});

test('on the home screen: the manifest is linked and valid; with the server gone a reload shows PennyPost’s own page, in the app’s language, and "Try again" comes back', async ({
  browser,
}) => {
  const own = await startE2eServer();
  const url = own.server.url;
  const context = await browser.newContext({ viewport: { width: 390, height: 760 } });
  const page = await context.newPage();
  const watch = watchPage(page);
  await page.goto(`${url}/login`);

  const href = await page.locator('link[rel="manifest"]').getAttribute('href');
  const manifestAnswer = await page.request.get(new URL(href!, url).href);
  expect(manifestAnswer.headers()['content-type']).toMatch(/^application\/manifest\+json/);
  const manifest = (await manifestAnswer.json()) as { name: string; start_url: string; display: string; icons: Array<{ src: string; sizes: string; type: string }> };
  expect(manifest).toMatchObject({ name: 'PennyPost', start_url: '/', display: 'standalone' });
  expect(manifest.icons.map((icon) => icon.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
  for (const icon of manifest.icons) {
    const answer = await page.request.get(new URL(icon.src, url).href);
    expect(answer.status(), icon.src).toBe(200);
    expect(answer.headers()['content-type'], icon.src).toBe(icon.type);
  }
  const worker = await page.request.get(`${url}/sw.js`);
  expect(worker.headers()['cache-control']).toBe('no-cache');
  expect(worker.headers()['content-type']).toMatch(/javascript/);

  // The worker controls the page once it is installed; using the app stores nothing but the offline page's files.
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  const account = await registerAccount(url, 'offline');
  await signInPage(page, account);
  await page.goto(`${url}/assets`);
  await expect(page.getByRole('heading', { level: 1, name: 'Assets' })).toBeVisible();
  const cached = await page.evaluate(async () => {
    const urls: string[] = [];
    for (const name of await caches.keys()) for (const request of await (await caches.open(name)).keys()) urls.push(new URL(request.url).pathname);
    return urls.sort();
  });
  expect(cached).toEqual(['/icon-192.png', '/offline.css', '/offline.html', '/offline.js']);
  watch.expectClean();

  const port = Number(new URL(url).port);
  await own.stop();
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'PennyPost is not reachable' })).toBeVisible();
  await expect(page).toHaveScreenshot('offline-390.png', SHOT);
  await page.setViewportSize({ width: 1440, height: 900 });
  await expect(page).toHaveScreenshot('offline-1440.png', SHOT);
  // In the language the app was set to (this page's init script keeps setting English: another tab).
  await page.evaluate(() => localStorage.setItem('pennypost.language', 'zh-CN'));
  const chinese = await context.newPage();
  await chinese.goto(`${url}/records`);
  await expect(chinese.getByRole('heading', { level: 1, name: '无法连接 PennyPost' })).toBeVisible();
  await expect(chinese.getByRole('button', { name: '重试' })).toBeVisible();
  await chinese.close();

  const again = await startE2eServer({ port });
  try {
    await page.getByRole('button', { name: 'Try again' }).click();
    await expect(page.locator('#root > *').first()).toBeVisible();
    await expect(page.getByRole('heading', { name: 'PennyPost is not reachable' })).toHaveCount(0);
  } finally {
    await again.stop();
    await context.close();
  }
});
