import { expect, test } from '@playwright/test';
import { api, registerAccount, signInPage } from './api';
import { startE2eServer, watchPage } from './support';

/** A push scheduled through /send with `delay` waits in the Scheduled tab until it is cancelled there. */
let running: Awaited<ReturnType<typeof startE2eServer>>;
test.beforeAll(async () => {
  running = await startE2eServer();
});
test.afterAll(async () => {
  await running.stop();
});

test('schedule a push with delay, see it in the Scheduled tab, cancel it', async ({ page }) => {
  const url = running.server.url;
  const owner = await registerAccount(url, 'scheduler');
  const channel = await api<{ id: string }>(url, owner.token, 'push.createChannel', { name: 'Desk', type: 'desktop' });
  const app = await api<{ appKey: string }>(url, owner.token, 'push.createApp', { name: 'Nightly', channelId: channel.id });
  const answer = await fetch(`${url}/send/${app.appKey}?title=${encodeURIComponent('Backup reminder')}&delay=2h`);
  expect(((await answer.json()) as { code: number; data: { scheduled: boolean } }).data.scheduled).toBe(true);

  const watch = watchPage(page);
  await signInPage(page, owner);
  // The app's "Send a test" can schedule too.
  await page.goto(`${url}/push`);
  const form = page.getByRole('region', { name: 'App Nightly' }).getByRole('form', { name: 'Send a test' });
  await form.getByRole('textbox', { name: 'Title' }).fill('From the form');
  await form.getByRole('combobox', { name: 'When' }).click();
  await page.getByRole('option', { name: 'In 1 day' }).click();
  await form.getByRole('button', { name: 'Send' }).click();
  await expect(form.getByRole('status')).toContainText('Scheduled for');

  await page.getByRole('tab', { name: 'Scheduled' }).click();
  const list = page.getByRole('table', { name: 'Scheduled' });
  const row = list.getByRole('row', { name: /Backup reminder/ });
  await expect(row).toContainText('Nightly');
  await expect(row).toContainText(/in 2 hours/);

  await row.getByRole('button', { name: 'Cancel the scheduled push “Backup reminder”' }).click();
  const dialog = page.getByRole('dialog', { name: 'Cancel this scheduled push?' });
  await expect(dialog).toContainText('Nightly');
  await dialog.getByRole('button', { name: 'Cancel push' }).click();
  await expect(dialog).toBeHidden();
  await expect(row).toBeHidden();
  await expect(list.getByRole('row', { name: /From the form/ })).toContainText(/tomorrow/);
  const left = await api<{ list: Array<{ title: string }> }>(url, owner.token, 'push.queryScheduled', {});
  expect(left.list.map((item) => item.title)).toEqual(['From the form']);
  watch.expectClean();
});
