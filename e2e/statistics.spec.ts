import { expect, test } from '@playwright/test';
import { api, registerAccount, signInPage } from './api';
import { startE2eServer, watchPage } from './support';

/**
 * Issue 36, finding 15: Statistics showed the donut's amounts and shares only on hover and no
 * ranked list, "Asset distribution" by asset type, smoothed lines, a net-worth axis from ~1,000 and
 * tooltips without a currency; the dashboard's trend named every other month (not the current
 * one) and showed "A → B" for a transfer instead of its note. Charts are canvases: what they show
 * is read back from the chart itself (its element's `pennypostChart`).
 */
let running: Awaited<ReturnType<typeof startE2eServer>>;
test.beforeAll(async () => {
  running = await startE2eServer();
});
test.afterAll(async () => {
  await (running as typeof running | undefined)?.stop();
});

const DAY = 86_400_000;

test('Statistics: shares and amounts without hovering, categories and assets ranked, straight lines from zero, tooltips with the currency; the dashboard names every month and a transfer by its note', async ({
  page,
}) => {
  const watch = watchPage(page);
  const url = running.server.url;
  const account = await registerAccount(url, 'counter');
  const call = <T = { id: string }>(action: string, params: unknown) => api<T>(url, account.token, action, params);
  await call('currency.setBase', { currency: 'CNY' });
  await call('currency.setRate', { from: 'USD', to: 'CNY', rate: '7' });
  const cash = await call('asset.create', { name: 'Cash', type: 'cash', currency: 'CNY', balance: 1000 });
  const card = await call('asset.create', { name: 'Card', type: 'debit_card', currency: 'CNY', balance: 5000 });
  await call('asset.create', { name: 'US card', type: 'debit_card', currency: 'USD', balance: 100 });
  const credit = await call('asset.create', { name: 'Credit card', type: 'credit_card', currency: 'CNY' });
  const now = Date.now();
  await call('accounting.create', { type: 'expense', amount: 300, asset: card.id, category: 'Food', description: 'Groceries', date: now - DAY });
  await call('accounting.create', { type: 'expense', amount: 100, asset: cash.id, category: 'Transport', description: 'Taxi', date: now - 2 * DAY });
  await call('accounting.create', { type: 'expense', amount: 50, asset: credit.id, category: 'Shopping', description: 'Socks', date: now - 3 * DAY });
  await call('accounting.create', { type: 'transfer', amount: 200, asset: card.id, toAsset: cash.id, description: 'Top up', date: now - 3600_000 });

  await signInPage(page, account);
  await page.goto(`${url}/stats`);
  await expect(page.getByRole('heading', { level: 1, name: 'Statistics' })).toBeVisible();

  // Categories ranked, each with amount, share and count; the donut's legend says the same without hovering.
  const categories = page.getByTestId('category-ranking');
  await expect(categories.locator('tbody tr')).toHaveCount(3);
  const ranked = await categories.locator('tbody tr').evaluateAll((rows) => rows.map((row) => Array.from(row.querySelectorAll('td')).map((td) => td.textContent.trim())));
  expect(ranked).toEqual([
    ['1', 'Food', 'CN¥300.00', '66.7%', '1'],
    ['2', 'Transport', 'CN¥100.00', '22.2%', '1'],
    ['3', 'Shopping', 'CN¥50.00', '11.1%', '1'],
  ]);
  const donut = page.getByRole('img', { name: 'Share of each category' });
  await expect
    .poll(() =>
      donut.evaluate((el: any) => {
        const chart = el.pennypostChart;
        return chart !== undefined;
      }),
    )
    .toBe(true);
  expect(
    await donut.evaluate((el: any) => {
      const chart = el.pennypostChart;
      return chart.getOption().legend[0].formatter('Food');
    }),
  ).toBe('Food  CN¥300.00 · 67%');
  expect(
    await donut.evaluate((el: any) => {
      const chart = el.pennypostChart;
      return chart.getOption().series[0].label.show;
    }),
  ).toBe(true);

  // Assets, not asset types: the pie is of the assets with money, in CNY; every asset ranked by value.
  const pie = page.getByRole('img', { name: 'Share of each asset in the base currency' });
  await expect
    .poll(() =>
      pie.evaluate((el: any) => {
        const chart = el.pennypostChart;
        return chart ? chart.getOption().series[0].data.map((d: any) => d.name) : [];
      }),
    )
    .toEqual(['Card', 'Cash', 'US card']);
  const assets = await page
    .getByTestId('asset-ranking')
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((row) => Array.from(row.querySelectorAll('td')).map((td) => td.textContent.trim())));
  expect(assets).toEqual([
    ['Card', 'CN¥4,500.00', 'CN¥4,500.00', '71.4%'],
    ['Cash', 'CN¥1,100.00', 'CN¥1,100.00', '17.5%'],
    ['US card', '$100.00', 'CN¥700.00', '11.1%'],
    ['Credit card', '-CN¥50.00', '-CN¥50.00', '—'],
  ]);

  // Straight lines; the net worth from zero; amounts in tooltips with their currency.
  const periods = page.getByRole('img', { name: 'Income, expense and net per period' });
  await expect
    .poll(() =>
      periods.evaluate((el: any) => {
        const chart = el.pennypostChart;
        return chart !== undefined;
      }),
    )
    .toBe(true);
  expect(
    await periods.evaluate((el: any) => {
      const chart = el.pennypostChart;
      return chart
        .getOption()
        .series.filter((s: any) => s.type === 'line')
        .map((s: any) => s.smooth);
    }),
  ).toEqual([false]);
  expect(
    await periods.evaluate((el: any) => {
      const chart = el.pennypostChart;
      return chart.getOption().tooltip[0].valueFormatter(1234.5);
    }),
  ).toBe('CN¥1,234.50');
  const worth = page.getByRole('img', { name: 'Net worth at the end of each period' });
  await expect
    .poll(() =>
      worth.evaluate((el: any) => {
        const chart = el.pennypostChart;
        return chart !== undefined;
      }),
    )
    .toBe(true);
  expect(
    await worth.evaluate((el: any) => {
      const chart = el.pennypostChart;
      return chart.getOption().series[0].smooth;
    }),
  ).toBe(false);
  expect(
    await worth.evaluate((el: any) => {
      const chart = el.pennypostChart;
      return chart.getModel().getComponent('yAxis', 0).axis.scale.getExtent()[0];
    }),
  ).toBe(0);
  expect(
    await worth.evaluate((el: any) => {
      const chart = el.pennypostChart;
      return chart.getOption().tooltip[0].valueFormatter(6650);
    }),
  ).toBe('CN¥6,650.00');

  // The dashboard: all twelve months named on the trend, this one included; a transfer by its note.
  await page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: 'Dashboard' }).click();
  const trend = page.getByRole('img', { name: 'Income, expense and net per month over the last 12 months' });
  await expect
    .poll(() =>
      trend.evaluate((el: any) => {
        const chart = el.pennypostChart;
        return chart !== undefined;
      }),
    )
    .toBe(true);
  const shown = await trend.evaluate((el: any) => {
    const chart = el.pennypostChart;
    return chart
      .getModel()
      .getComponent('xAxis', 0)
      .axis.getViewLabels()
      .map((l: any) => l.formattedLabel);
  });
  expect(shown).toHaveLength(12);
  expect(shown.at(-1)).toBe(new Intl.DateTimeFormat('en', { month: 'short' }).format(new Date()).replace(/^Jan$/, `Jan ${new Date().getFullYear()}`));
  expect(
    await trend.evaluate((el: any) => {
      const chart = el.pennypostChart;
      return chart.getOption().tooltip[0].valueFormatter(12);
    }),
  ).toBe('CN¥12.00');
  const transfer = page.getByTestId('recent-record').filter({ hasText: 'Top up' });
  await expect(transfer).toBeVisible();
  await expect(transfer).toContainText('Transfer · Card → Cash');
  watch.expectClean();
});
