import { expect, test } from '@playwright/test';
import { api, registerAccount, signInPage } from './api';
import { startE2eServer, watchPage } from './support';

/**
 * Who may point PennyPost's own requests (push channels, webhooks, mail servers, sync) at this
 * computer or the local network is the owner's decision (settings.update › network.localDestinations):
 * the owner turns it on for admins in Settings → Sync & about → Network; an admin sees it and cannot
 * change it.
 */
let running: Awaited<ReturnType<typeof startE2eServer>>;
test.beforeAll(async () => {
  running = await startE2eServer();
});
test.afterAll(async () => {
  await (running as typeof running | undefined)?.stop();
});

test('the owner lets admins send to the local network; an admin sees the switch but cannot turn it', async ({ browser }) => {
  const url = running.server.url;
  const owner = await registerAccount(url, 'outowner');
  const admin = await registerAccount(url, 'outadmin');
  await api(url, owner.token, 'user.setRole', { userId: admin.id, role: 'admin' });

  const ownerContext = await browser.newContext();
  const page = await ownerContext.newPage();
  const watch = watchPage(page);
  await signInPage(page, owner);
  await page.goto(`${url}/settings?tab=server`);
  const network = page.getByRole('region', { name: 'Network' });
  const toggle = network.getByRole('switch', { name: 'Admins may send to this computer and the local network' });
  await expect(toggle).not.toBeChecked();
  await expect(toggle).toBeEnabled();
  await toggle.click({ force: true });
  await expect(toggle).toBeChecked();
  const settings = await api<{ network: { localDestinations: string } }>(url, owner.token, 'settings.get', {});
  expect(settings.network.localDestinations).toBe('ownerAndAdmins');
  watch.expectClean();
  await ownerContext.close();

  const adminContext = await browser.newContext();
  const adminPage = await adminContext.newPage();
  await signInPage(adminPage, { ...admin, role: 'admin' });
  await adminPage.goto(`${url}/settings?tab=server`);
  const adminToggle = adminPage.getByRole('region', { name: 'Network' }).getByRole('switch', { name: 'Admins may send to this computer and the local network' });
  await expect(adminToggle).toBeChecked();
  await expect(adminToggle).toBeDisabled();
  await expect(adminPage.getByRole('region', { name: 'Network' })).toContainText('Only the owner decides');
  await adminContext.close();
});
