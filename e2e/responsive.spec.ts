import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { api, registerAccount, signInPage, type Account } from './api';
import { ROUTES } from '../renderer/src/screens/routes';
import { itemAt } from '../server/lib/item-at';
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
  JSON.parse(readFileSync(path.join(import.meta.dirname, '../renderer/src/i18n', `${language}.json`), 'utf8')) as Partial<Record<string, { title: string }>>;
const TITLES: Partial<Record<string, Partial<Record<string, { title: string }>>>> = { en: strings('en'), 'zh-CN': strings('zh-CN') };
/** The title of the screen `key` in `language`; a missing one fails the test, naming it. */
function titleOf(language: string, key: string): string {
  const title = TITLES[language]?.[key]?.title;
  if (title === undefined) throw new Error(`no ${language} title for the screen ${key}`);
  return title;
}
const TABS: Record<string, string[]> = {
  '/savings': ['market', 'portfolio', 'achievements', 'leaderboard'],
  '/push': ['channels', 'scheduled', 'history', 'feed'],
  '/files': ['links'],
  '/settings': ['currency', 'categories', 'rules', 'data', 'backups', 'household', 'server'],
};
const SCREENS = ROUTES.flatMap((route) => [route.path, ...(TABS[route.path] ?? []).map((tab) => `${route.path}?tab=${tab}`)].map((url) => ({ url, key: route.key })));

/**
 * How a view is laid out, as numbers that do not depend on the machine's fonts (issue 36, finding
 * 20: the offline page's screenshot differed by 4,614 pixels where Noto CJK was installed):
 * each element's box edges that fonts cannot move (left/right of a centred or full-width element,
 * sizes of images and controls), its colours and font size, and the order of the elements from
 * top to bottom. Text widths and line breaks are left out on purpose.
 */
interface Laid {
  visible: boolean;
  centre: number;
  top: number;
  bottom: number;
  left: number;
  right: number;
  color: string;
  background: string;
  fontSize: string;
  fontWeight: string;
}
async function structure<Name extends string>(
  page: Page,
  selectors: Record<Name, string>,
): Promise<{ viewport: { width: number; height: number; scrollWidth: number }; elements: Record<Name, Laid> }> {
  const byName: Record<string, string> = selectors;
  const laidOut = await page.evaluate((wanted) => {
    const out: Record<string, Laid> = {};
    for (const [name, selector] of Object.entries(wanted)) {
      const el = document.querySelector(selector);
      if (!el) throw new Error(`${name}: nothing matches ${selector}`);
      const box = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      out[name] = {
        visible: box.width > 0 && box.height > 0 && box.bottom <= innerHeight && box.right <= innerWidth && box.left >= 0 && box.top >= 0,
        centre: Math.round(box.left + box.width / 2),
        top: box.top,
        bottom: box.bottom,
        left: Math.round(box.left),
        right: Math.round(box.right),
        color: style.color,
        background: style.backgroundColor,
        fontSize: style.fontSize,
        fontWeight: style.fontWeight,
      };
    }
    return { viewport: { width: innerWidth, height: innerHeight, scrollWidth: document.documentElement.scrollWidth }, elements: out };
  }, byName);
  // the page function throws for a selector that matches nothing: every name has its element
  return laidOut;
}

/** Names of `elements` in the order they appear from top to bottom, each wholly below the one before. */
function stackedOrder(elements: Record<string, { top: number; bottom: number }>): string[] {
  const order: string[] = [];
  let above: { bottom: number } | null = null;
  for (const [name, box] of Object.entries(elements).sort(([, a], [, b]) => a.top - b.top)) {
    if (above === null || box.top >= above.bottom - 0.5) order.push(name);
    above = box;
  }
  return order;
}

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
      const context = await browser.newContext({ viewport: { width: itemAt(variant.widths, 0), height: 760 } });
      const page = await context.newPage();
      const watch = watchPage(page);
      // The sign-in screen first (no session yet).
      await page.addInitScript(
        ({ language, scheme }) => {
          localStorage.setItem('pennypost.language', language);
          localStorage.setItem('mantine-color-scheme-value', scheme);
        },
        { language: variant.language, scheme: variant.scheme },
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
        await expect(page.getByRole('heading', { level: 1, name: titleOf(variant.language, screen.key) })).toBeVisible();
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
    // The record form (behind "Add" on a phone) shows the asset select's whole value (it was cut to "Cash (CN").
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await expectWholeAssetValue(page);

    await bottom.getByRole('button', { name: 'More' }).click();
    const drawer = page.getByRole('dialog');
    for (const route of ROUTES) await expect(drawer.getByRole('link', { name: titleOf('en', route.key) })).toBeVisible();
    await expect(drawer.getByRole('button', { name: 'Log out' })).toBeVisible();
    // The drawer's layout (it was a screenshot, which fonts change): 300 px at the left edge, the whole height, links one under another in the route order.
    await expect.poll(async () => (await drawer.boundingBox())?.x).toBe(0);
    const links = await drawer.getByRole('link').evaluateAll((els) => els.map((el) => ({ text: el.textContent, box: el.getBoundingClientRect().toJSON() as DOMRect })));
    expect(links.map((link) => link.text)).toEqual(ROUTES.map((route) => titleOf('en', route.key)));
    for (let i = 1; i < links.length; i++) {
      const [above, link] = [itemAt(links, i - 1), itemAt(links, i)];
      expect(link.box.top, link.text).toBeGreaterThanOrEqual(above.box.bottom - 0.5);
    }
    for (const link of links) expect([Math.round(link.box.left) >= 0, Math.round(link.box.right) <= 300], link.text).toEqual([true, true]);
    expect(await drawer.evaluate((el) => [Math.round(el.getBoundingClientRect().width), Math.round(el.getBoundingClientRect().height)])).toEqual([300, 760]);
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
  // Its layout at 390 and 1440 px, as structure rather than pixels (a screenshot depended on the machine's fonts).
  const parts = { box: 'main', icon: 'main img', title: 'h1', text: 'p', retry: 'button' };
  for (const [width, height] of [
    [390, 760],
    [1440, 900],
  ] as const) {
    await page.setViewportSize({ width, height });
    const { viewport, elements } = await structure(page, parts);
    expect(viewport.scrollWidth, `${width} px`).toBe(width);
    // Everything on screen, centred, one under another: icon, title, text, button.
    for (const [name, element] of Object.entries(elements)) {
      expect(element.visible, `${name} at ${width} px`).toBe(true);
      expect(Math.abs(element.centre - width / 2), `${name} centred at ${width} px`).toBeLessThanOrEqual(1);
    }
    const { box, ...inside } = elements;
    expect(stackedOrder(inside)).toEqual(['icon', 'title', 'text', 'retry']);
    // The box keeps 16 px from the edges of a phone and is at most 420 px wide; the page is centred vertically.
    expect(box.right - box.left).toBe(Math.min(420, width - 32));
    expect(Math.abs((box.top + box.bottom) / 2 - height / 2)).toBeLessThanOrEqual(1);
    expect([inside.icon.right - inside.icon.left, inside.icon.bottom - inside.icon.top]).toEqual([64, 64]);
    expect(inside.title).toMatchObject({ fontSize: '22px', fontWeight: '700', color: 'rgb(33, 37, 41)' });
    expect(inside.text).toMatchObject({ fontSize: '16px', color: 'rgb(33, 37, 41)' });
    expect(inside.retry).toMatchObject({ fontWeight: '600', color: 'rgb(255, 255, 255)', background: 'rgb(18, 184, 134)' });
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe('rgb(248, 249, 250)');
  }
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

/**
 * Issue 36, findings 7–9: a phone (390 × 844) is used with the thumb. Records: the list starts
 * under the search box (the form waits behind "Add", the filters are closed), no desktop keyboard
 * hints, rows name the asset (from → to for a transfer) and a transfer's two amounts are never
 * drawn over its date line; the list is part of the page (no box in a box, the last row whole);
 * adding, finding and editing a record never needs a scroll past the form. The shell cannot be
 * scrolled off; summary cards are compact; a toast covers no field, amount or button.
 */
test.describe('a phone at 390 × 844', () => {
  let running: Awaited<ReturnType<typeof startE2eServer>>;
  let account: Account;
  let appKey: string;
  const PHONE = { width: 390, height: 844 };

  test.beforeAll(async () => {
    running = await startE2eServer();
    const url = running.server.url;
    account = await registerAccount(url, 'thumb');
    const call = <T = { id: string }>(action: string, params: unknown) => api<T>(url, account.token, action, params);
    const cash = await call('asset.create', { name: 'Cash', type: 'cash', currency: 'CNY', balance: 5000 });
    const card = await call('asset.create', { name: 'US card', type: 'debit_card', currency: 'USD', balance: 800 });
    await call('currency.setRate', { from: 'USD', to: 'CNY', rate: '7.1' });
    for (let i = 0; i < 30; i++)
      await call('accounting.create', { type: 'expense', amount: 10 + i, asset: cash.id, description: `Lunch ${i}`, date: Date.now() - (i + 1) * 86_400_000 });
    await call('accounting.create', { type: 'transfer', amount: 100, asset: card.id, toAsset: cash.id, toAmount: 710, description: 'Top up', date: Date.now() - 3600_000 });
    await call('savings.createGoal', { title: 'Bike', targetAmount: 3000, endDate: Date.now() + 100 * 86_400_000, currency: 'CNY' });
    const channel = await call('push.createChannel', { name: 'This computer', type: 'desktop' });
    appKey = (await call<{ appKey: string }>('push.createApp', { name: 'Alerts', channelId: channel.id })).appKey;
  });
  test.afterAll(async () => {
    await (running as typeof running | undefined)?.stop();
  });

  /** Where things are on the screen, in px. */
  const layout = (page: Page) =>
    page.evaluate(() => {
      const main = document.querySelector('main')!;
      const box = (el: Element | null | undefined) => (el ? el.getBoundingClientRect() : null);
      return {
        mainScrollTop: main.scrollTop,
        firstRowTop: box(document.querySelector('[data-testid="record-list"] .pp-row-slot'))?.top ?? null,
        bottomBarTop: box(document.querySelector('.pp-bottom-nav'))!.top,
        topBarTop: box(document.querySelector('.pp-topbar'))!.top,
        bottomBarBottom: box(document.querySelector('.pp-bottom-nav'))!.bottom,
      };
    });

  /** Pairs of visible texts of an element that overlap on screen (a transfer's amounts over its date line, …). */
  const overlappingTexts = (row: Locator) =>
    row.evaluate((root) => {
      const leaves = Array.from(root.querySelectorAll('span'))
        .filter((el) => el.children.length === 0 && el.textContent.trim() !== '' && el.getClientRects().length > 0)
        .map((el) => ({ text: el.textContent, r: el.getBoundingClientRect() }));
      const hits: string[] = [];
      for (const [i, one] of leaves.entries())
        for (const other of leaves.slice(i + 1)) {
          const [a, b] = [one.r, other.r];
          if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) hits.push(`${one.text} × ${other.text}`);
        }
      return hits;
    });

  /** What of <main> a toast lies over: fields, buttons, links, list rows (by name). */
  const coveredBy = async (page: Page, toast: Locator) => {
    const box = (await toast.boundingBox())!;
    return page.evaluate(
      ({ x, y, width, height }) =>
        Array.from(document.querySelectorAll('main input, main textarea, main button, main a, main [role="listitem"]'))
          .filter((el) => {
            const r = el.getBoundingClientRect();
            return r.width > 0 && r.left < x + width && x < r.right && r.top < y + height && y < r.bottom;
          })
          .map((el) => el.getAttribute('aria-label') ?? el.textContent),
      box,
    );
  };

  test('Records: the list under the search box; add, find and edit a record without scrolling past the form', async ({ browser }) => {
    test.setTimeout(60_000);
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    const watch = watchPage(page);
    await signInPage(page, account);
    await page.goto(`${running.server.url}/records`);
    const list = page.getByRole('list', { name: 'Records' });
    await expect(
      list
        .getByRole('listitem')
        .first()
        .getByRole('button', { name: /Top up/ }),
    ).toBeVisible();

    // The first row is on the first screen (it was ~1,200 px down, below the form and the filters).
    const start = await layout(page);
    expect(start.firstRowTop, 'first row of the list').toBeLessThan(400);
    // Closed filters, a form behind "Add", no desktop keyboard hints.
    await expect(page.getByRole('search', { name: 'Filter records' })).toBeHidden();
    await expect(page.getByRole('button', { name: 'Filters' })).toHaveAttribute('aria-expanded', 'false');
    await expect(page.getByRole('form', { name: 'New record' })).toHaveCount(0);
    await expect(page.getByText('Enter saves', { exact: false })).toHaveCount(0);
    await expect(page.locator('main kbd')).toHaveCount(0);
    await expect(page.getByText('Press / to search', { exact: false })).toHaveCount(0);

    // Rows name the asset, a transfer its from → to; its two amounts are not drawn over its date line.
    const transfer = list.getByRole('button', { name: /Top up/ });
    await expect(transfer).toContainText('US card → Cash');
    await expect(transfer).toContainText('−100.00 USD');
    await expect(transfer).toContainText('+710.00 CNY');
    expect(await overlappingTexts(transfer)).toEqual([]);
    await expect(list.getByRole('button', { name: /Lunch 0/ })).toContainText('Cash');

    // The list is part of the page: no scroll box of its own, and its last row ends above the bottom bar.
    const viewport = page.getByTestId('record-list');
    expect(await viewport.evaluate((el) => el.scrollHeight - el.clientHeight)).toBeLessThanOrEqual(1);
    await page.locator('main').evaluate((main) => main.scrollTo(0, main.scrollHeight));
    const last = list.getByRole('button', { name: /Lunch 29/ });
    await expect(last).toBeVisible();
    const lastBox = (await last.boundingBox())!;
    const end = await layout(page);
    expect(lastBox.y + lastBox.height).toBeLessThanOrEqual(end.bottomBarTop);
    await page.locator('main').evaluate((main) => main.scrollTo(0, 0));

    // Add: the form opens under the search box; Save comes after Note and Tags.
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const form = page.getByRole('form', { name: 'New record' });
    await expect(form.getByLabel('Amount')).toBeFocused();
    const tagsBox = (await form.getByLabel('Tags').boundingBox())!;
    const saveBox = (await form.getByRole('button', { name: 'Save' }).boundingBox())!;
    expect(saveBox.y).toBeGreaterThan(tagsBox.y + tagsBox.height);
    await form.getByLabel('Amount').fill('42.50');
    await form.getByLabel('Note').fill('Thumb lunch');
    await form.getByRole('button', { name: 'Save' }).click();
    const toast = page.locator('.mantine-Notification-root').filter({ hasText: 'Record saved.' });
    await expect(toast).toBeVisible();
    // The form closes; the new record is the first row, on screen; "Add" has the focus for the next one.
    await expect(form).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Add', exact: true })).toBeFocused();
    const added = list.getByRole('button', { name: /Thumb lunch/ });
    await expect(added).toBeInViewport();
    // The toast covers no field, button or row of the screen.
    expect(await coveredBy(page, toast)).toEqual([]);

    // Find it with the search box, then edit it in the (full-screen) dialog.
    await page.getByRole('searchbox', { name: 'Search records' }).fill('thumb');
    await expect(page.getByTestId('record-totals')).toContainText('1 record');
    await expect(added).toBeInViewport();
    await added.click();
    const dialog = page.getByRole('dialog', { name: /Edit/ });
    await expect(dialog).toBeVisible();
    await dialog.getByLabel('Amount').fill('43');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(list.getByRole('button', { name: /Thumb lunch/ })).toContainText('43.00');
    // Never a scroll past the form: <main> stayed at the top through all of it.
    expect((await layout(page)).mainScrollTop).toBe(0);
    watch.expectClean();
    await context.close();
  });

  test('the shell cannot be scrolled off: the top and bottom bars stay put on a page taller than the screen', async ({ browser }) => {
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    const watch = watchPage(page);
    await signInPage(page, account);
    await page.goto(`${running.server.url}/stats`);
    await expect(page.getByRole('heading', { level: 1, name: 'Statistics' })).toBeVisible();
    await expect(page.locator('main .mantine-Skeleton-root')).toHaveCount(0);
    const main = page.locator('main');
    expect(await main.evaluate((el) => el.scrollHeight - el.clientHeight)).toBeGreaterThan(300);
    await main.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    expect(await layout(page)).toMatchObject({ topBarTop: 0, bottomBarBottom: PHONE.height });
    // Whatever makes the document taller (here a block added to the body) and scrolls it, the top and bottom bars stay put.
    await page.evaluate(() => {
      const tall = document.createElement('div');
      tall.style.height = '3000px';
      tall.id = 'tall';
      document.body.append(tall);
      window.scrollTo(0, 1200);
      document.scrollingElement?.scrollTo(0, 1200);
    });
    expect(await layout(page)).toMatchObject({ topBarTop: 0, bottomBarBottom: PHONE.height });
    // Scrolling <main> past its end does not move the page behind it (what slid the top bar away on a phone).
    expect(await main.evaluate((el) => getComputedStyle(el).overscrollBehaviorY)).toBe('contain');
    watch.expectClean();
    await context.close();
  });

  test('summary cards are compact (two by two) on the dashboard, Assets and Statistics; one toast at a time, covering nothing', async ({ browser }) => {
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    const watch = watchPage(page);
    await signInPage(page, account);
    await page.goto(`${running.server.url}/`);
    for (const [path, heading] of [
      ['/', 'Dashboard'],
      ['/assets', 'Assets'],
      ['/stats', 'Statistics'],
    ] as const) {
      await open(page, path);
      await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
      const summary = page.locator('main section.pp-grid-4');
      await expect(summary.locator('.mantine-Skeleton-root')).toHaveCount(0);
      // Four cards stacked took ~370 px; two by two they take about half.
      expect((await summary.boundingBox())!.height, path).toBeLessThan(220);
    }
    // Several toasts in a row: one is shown at a time.
    // Three pushes arrive together while the goals are on screen: one toast at a time, over none of the screen's fields, buttons or amounts.
    await open(page, '/savings');
    await expect(page.getByRole('heading', { level: 2, name: 'Bike' })).toBeVisible();
    for (const title of ['Backup done', 'Disk almost full', 'Deploy finished']) {
      const answer = await fetch(`${running.server.url}/send/${appKey}?title=${encodeURIComponent(title)}&desp=${encodeURIComponent('Details of ' + title)}`);
      expect(answer.status).toBe(200);
    }
    const toasts = page.locator('.mantine-Notification-root');
    await expect(toasts.first()).toBeVisible();
    await expect(toasts).toHaveCount(1);
    expect(await coveredBy(page, toasts.first())).toEqual([]);
    watch.expectClean();
    await context.close();
  });
});
