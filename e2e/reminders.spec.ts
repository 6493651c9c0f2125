import { expect, test } from '@playwright/test';
import { api, registerAccount, signInPage } from './api';
import { startE2eServer, watchPage } from './support';

/** Settings → Reminders: pick the push app and the events, save, and find them again after a reload. */
let running: Awaited<ReturnType<typeof startE2eServer>>;
test.beforeAll(async () => {
  running = await startE2eServer();
});
test.afterAll(async () => {
  await running.stop();
});

test('reminder settings save and come back after a reload', async ({ page }) => {
  const url = running.server.url;
  const owner = await registerAccount(url, 'reminded');
  const channel = await api<{ id: string }>(url, owner.token, 'push.createChannel', { name: 'Desk', type: 'desktop' });
  const app = await api<{ id: string }>(url, owner.token, 'push.createApp', { name: 'Household alerts', channelId: channel.id });

  const watch = watchPage(page);
  await signInPage(page, owner);
  await page.goto(`${url}/settings?tab=reminders`);
  const section = page.getByRole('region', { name: 'Reminders and alerts' });
  await section.getByRole('combobox', { name: 'Push app' }).click();
  await page.getByRole('option', { name: /Household alerts/ }).click();
  await section.getByRole('switch', { name: 'A budget reaches 80 %' }).check({ force: true });
  await section.getByRole('switch', { name: 'Bills coming up' }).check({ force: true });
  await section.getByRole('combobox', { name: 'Days before the bill' }).click();
  await page.getByRole('option', { name: '3 days before', exact: true }).click();
  await section.getByRole('switch', { name: 'Weekly summary' }).check({ force: true });
  await section.getByRole('combobox', { name: 'Day of the summary' }).click();
  await page.getByRole('option', { name: 'Friday', exact: true }).click();
  await section.getByRole('combobox', { name: 'Hour of the summary' }).click();
  await page.getByRole('option', { name: '18:00', exact: true }).click();
  await section.getByRole('button', { name: 'Save reminders' }).click();
  await expect(page.getByText('Reminders saved.')).toBeVisible();

  const saved = await api<{ appId: string; events: unknown }>(url, owner.token, 'notify.get', {});
  expect(saved.appId).toBe(app.id);
  expect(saved.events).toEqual({ budget80: true, billDue: { daysBefore: 3 }, weeklySummary: { weekday: 'FR', hour: 18 } });

  await page.reload();
  const again = page.getByRole('region', { name: 'Reminders and alerts' });
  await expect(again.getByRole('combobox', { name: 'Push app' })).toHaveValue(/Household alerts/);
  await expect(again.getByRole('switch', { name: 'A budget reaches 80 %' })).toBeChecked();
  await expect(again.getByRole('switch', { name: 'A budget is used up' })).not.toBeChecked();
  await expect(again.getByRole('combobox', { name: 'Days before the bill' })).toHaveValue('3 days before');
  await expect(again.getByRole('combobox', { name: 'Day of the summary' })).toHaveValue('Friday');
  await expect(again.getByRole('combobox', { name: 'Hour of the summary' })).toHaveValue('18:00');
  watch.expectClean();
});
