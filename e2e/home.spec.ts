import { expect, test } from '@playwright/test';
import { startE2eServer } from './support';

let running: Awaited<ReturnType<typeof startE2eServer>>;
test.beforeAll(async () => {
  running = await startE2eServer();
});
test.afterAll(async () => {
  await running.stop();
});

test('the page at / loads under the strict CSP and shows that the server is alive', async ({ page }) => {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/.test(message.text())) violations.push(message.text());
  });
  await page.goto(running.server.url);
  await expect(page.getByRole('heading', { name: 'PennyPost' })).toBeVisible();
  await expect(page.locator('#health')).toHaveText('Server status: ok');
  expect(violations).toEqual([]);
});
