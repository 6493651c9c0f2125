import { expect, test } from '@playwright/test';
import { api, registerAccount, signInPage } from './api';
import { startE2eServer, watchPage } from './support';

/**
 * Issue 20, drop-in compatibility: an app shows its key's ServerChan³ form (sendkey and URL) next to
 * its /send URLs, each with a copy button, and the ServerChan³ URL pushes.
 */
let running: Awaited<ReturnType<typeof startE2eServer>>;
test.beforeAll(async () => {
  running = await startE2eServer();
});
test.afterAll(async () => {
  // Unset when beforeAll failed.
  await (running as typeof running | undefined)?.stop();
});

test('an app shows its ServerChan³ SendKey and URL with copy buttons, and that URL pushes', async ({ page }) => {
  const watch = watchPage(page);
  const url = running.server.url;
  const owner = await registerAccount(url, 'dropin');
  const channel = await api<{ id: string }>(url, owner.token, 'push.createChannel', { name: 'This computer', type: 'desktop' });
  const app = await api<{ appKey: string }>(url, owner.token, 'push.createApp', { name: 'Backups', channelId: channel.id });
  await signInPage(page, owner);
  await page.goto(`${url}/push`);

  const detail = page.getByRole('region', { name: /Backups/ });
  await expect(detail.getByText(`sctp1t${app.appKey}`, { exact: true })).toBeVisible();
  const sc3Url = `${url}/send/sctp1t${app.appKey}.send`;
  await expect(detail.getByText(sc3Url, { exact: true })).toBeVisible();
  await expect(detail.getByRole('button', { name: 'Copy the ServerChan³ SendKey' })).toBeVisible();
  await expect(detail.getByRole('button', { name: 'Copy the ServerChan³ /send/sctp1t{key}.send URL' })).toBeVisible();

  const pushed = await fetch(`${sc3Url}?title=From+the+ServerChan3+URL`);
  expect(pushed.status).toBe(200);
  expect(await pushed.json()).toMatchObject({ code: 0, errno: 0, data: { error: 'SUCCESS' } });
  watch.expectClean();
});
