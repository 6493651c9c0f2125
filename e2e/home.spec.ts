import { expect, test } from '@playwright/test';
import { startE2eServer, watchPage } from './support';

let running: Awaited<ReturnType<typeof startE2eServer>>;
test.beforeAll(async () => {
  running = await startE2eServer();
});
test.afterAll(async () => {
  await running.stop();
});

test('the app at / loads under the strict CSP and offers sign-in; UI routes fall back to the app', async ({ page }) => {
  const watch = watchPage(page);
  await page.goto(running.server.url);
  // A new data dir: it opens on creating the owner account, with sign-in a tab away.
  await expect(page.getByRole('heading', { name: 'Create the owner account' })).toBeVisible();
  await expect(page.getByRole('tab', { name: 'Sign in' })).toBeVisible();
  // the UI's own routes load the app directly, even where a server route shares the prefix
  for (const route of ['/records', '/assets', '/files', '/settings?tab=server']) {
    await page.goto(`${running.server.url}${route}`);
    await expect(page.getByRole('tab', { name: 'Create account' })).toBeVisible();
  }
  const file = await page.request.get(`${running.server.url}/files/unknown-file-id`);
  expect(file.status()).toBe(404);
  expect(file.headers()['content-type']).toContain('application/json');
  const asset = await page.request.get(`${running.server.url}/_app/missing.js`);
  expect(asset.status()).toBe(404);
  const health = await page.request.get(`${running.server.url}/healthz`);
  expect(await health.json()).toEqual({ status: 'ok' });
  const api = await page.request.get(`${running.server.url}/api/unknown`);
  expect(api.headers()['content-type']).not.toContain('text/html');
  watch.expectClean();
});
