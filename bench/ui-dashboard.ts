/**
 * "Dashboard interactive" as a person sees it: headless Chromium (the system's, as the e2e
 * tests use it) opens the built UI of a running PennyPost already signed in, and the time runs
 * from navigation start until every card of the dashboard shows its figures (no loading
 * skeleton left: net worth, this month's income/expense/net, the trend and category charts,
 * recent records, goals). Used by mixed-load.ts against the server holding 100,000 records.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './lib';

export interface DashboardSession {
  token: string;
  expiresAt: number;
  user: { id: string; username: string; email: string };
}

/** Null when a measurement is possible, else why not. */
export function dashboardUnavailable(): string | null {
  if (!existsSync(path.join(ROOT, 'dist', 'renderer', 'index.html'))) return 'the UI is not built (npm run build)';
  const chromium = process.env.PENNYPOST_CHROMIUM || '/usr/bin/chromium';
  if (!existsSync(chromium)) return `no Chromium at ${chromium} (set PENNYPOST_CHROMIUM)`;
  return null;
}

/** One fresh browser context per sample (no cache, no service worker): ms from navigation to a complete dashboard. */
export async function measureDashboard(url: string, session: DashboardSession, samples: number): Promise<number[]> {
  const { chromium } = await import('@playwright/test');
  const browser = await chromium.launch({
    executablePath: process.env.PENNYPOST_CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  const times: number[] = [];
  try {
    for (let i = 0; i < samples; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await context.addInitScript((value: string) => localStorage.setItem('pennypost.session', value), JSON.stringify(session));
      const page = await context.newPage();
      await page.goto(url + '/', { waitUntil: 'commit' });
      const ready = await page.waitForFunction(
        () => {
          const ids = ['net-worth', 'month-income', 'month-expense', 'month-net'];
          const cardsReady = ids.every((id) => document.querySelector(`[data-testid="${id}"] .pp-stat-value`));
          // performance.now() counts from navigation start in the page.
          return cardsReady && document.querySelectorAll('.mantine-Skeleton-root').length === 0 ? performance.now() : 0;
        },
        undefined,
        { timeout: 60_000, polling: 'raf' },
      );
      times.push(await ready.jsonValue());
      await context.close();
    }
  } finally {
    await browser.close();
  }
  return times;
}
