import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect, test, type Page } from '@playwright/test';
import { startE2eServer } from './support';

/**
 * A cold load of the sign-in page is perfectly clean: no console error, no failed request and no
 * answer >= 400 — including the requests the browser makes on its own (/favicon.ico). The icons
 * and the web app manifest the page links to load under the CSP (docs/ui.md, Icons and manifest).
 */
let running: Awaited<ReturnType<typeof startE2eServer>>;
test.beforeAll(async () => {
  running = await startE2eServer();
});
test.afterAll(async () => {
  // Unset when beforeAll failed.
  await (running as typeof running | undefined)?.stop();
});

/**
 * Everything that went wrong, unfiltered (support.ts's watchPage lets expected 4xx answers pass).
 * The browser's own favicon request never shows up in Playwright's network events (only its
 * console error does), so every answer is also read where it is sent: on the server.
 */
function recordProblems(page: Page) {
  const problems: string[] = [];
  const served: Array<{ path: string; status: number }> = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()} (${String(request.failure()?.errorText)})`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
  });
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    res.on('finish', () => {
      served.push({ path: req.url ?? '', status: res.statusCode });
      if (res.statusCode >= 400) problems.push(`served ${res.statusCode}: ${String(req.method)} ${String(req.url)}`);
    });
  };
  running.server.http.on('request', onRequest);
  return { problems, served, stop: () => running.server.http.off('request', onRequest) };
}

const ICONS = ['/favicon.ico', '/icon-192.png', '/apple-touch-icon.png'];

test('the sign-in page loads with no console error and no failed request, favicon included', async ({ page }) => {
  const watch = recordProblems(page);
  try {
    await page.goto(`${running.server.url}/login`);
    await expect(page.getByRole('heading', { name: /^Welcome/ })).toBeVisible();
    await page.waitForLoadState('networkidle');
    // the browser asks for a favicon by itself once the page has loaded
    await expect.poll(() => watch.served.find((answer) => ICONS.includes(answer.path))).toMatchObject({ status: 200 });

    // every icon and the manifest the page links to are served
    const links = await page
      .locator('link[rel~="icon"], link[rel="apple-touch-icon"], link[rel="manifest"]')
      .evaluateAll((elements) => elements.map((element) => ({ rel: element.getAttribute('rel'), href: (element as HTMLLinkElement).href })));
    expect(links.map((link) => link.rel).sort()).toEqual(['apple-touch-icon', 'icon', 'icon', 'manifest']);
    for (const link of links) expect((await page.request.get(link.href)).status(), link.href).toBe(200);

    // Chromium's own manifest loader (subject to the CSP's manifest-src) finds and parses it
    const cdp = await page.context().newCDPSession(page);
    const manifest = (await cdp.send('Page.getAppManifest')) as { url: string; errors: Array<{ message: string }>; data?: string };
    expect(manifest.url).toBe(`${running.server.url}/manifest.webmanifest`);
    expect(manifest.errors).toEqual([]);
    expect(JSON.parse(manifest.data ?? '{}')).toMatchObject({ name: 'PennyPost', start_url: '/', display: 'standalone' });

    expect(watch.problems).toEqual([]);
  } finally {
    watch.stop();
  }
});
